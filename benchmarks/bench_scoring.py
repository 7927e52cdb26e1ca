"""Scoring speed and memory, and the cost of hostile outputs -> reports/perf.md.

    python benchmarks/bench_scoring.py [--n 100000] [--official-src DIR]

Each measurement runs in a child process (wall time, peak RSS). ``--official-src`` (or
``PFC_PTBENCH_OFFICIAL_SRC``) may point at a checkout of the published PTBench evaluator
(the folder holding ``src/test_acc.py``); it is then timed on the same files. Its code is
never part of this repository. Numbers are measurements, never assertions.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pfc.io import atomic  # noqa: E402
from pfc import paths  # noqa: E402
from pfc.errors import script_main, out_file  # noqa: E402

SPLIT = "test_untrained_user"


def child(mode: str, work: Path, official_src: str | None) -> dict:
    """Run one measurement in a fresh interpreter; returns seconds and peak RSS (MiB)."""
    code = {
        "robust": "from pfc.eval.scoring import score_files; score_files('ptbench', D/'data.json', D/'generation.jsonl')",
        "official-compat": "from pfc.eval.scoring import score_files; "
                           "score_files('ptbench', D/'data.json', D/'generation.jsonl', compat='official')",
        "published": "import os; os.chdir(W); sys.path.insert(0, SRC); "
                     "from src.test_acc import cal_acc; from src.test_error import cal_error; "
                     "cal_acc(S, 'out'); cal_error(S, 'out')",
    }[mode]
    prog = (f"import sys, time, resource; from pathlib import Path; sys.path.insert(0, {str(ROOT / 'lib')!r}); "
            f"W = Path({str(work)!r}); S = {SPLIT!r}; D = W / S; SRC = {official_src!r}; t = time.perf_counter(); "
            f"{code}; print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, cwd=work)
    if out.returncode != 0:
        raise RuntimeError(f"{mode} failed:\n{out.stderr[-2000:]}")
    sec, rss = out.stdout.split()[-2:]
    return {"seconds": float(sec), "peak_rss_mib": int(rss) / 1024}


def hostile_timings() -> list[tuple[str, float]]:
    sys.path.insert(0, str(paths.TESTS))
    from test_hostile import CODE_FORMS, SIZES  # the same inputs the tests use
    from pfc.benchmarks.ptbench.official import score_sample
    from pfc.eval.parsing import parse
    out = []
    for text in CODE_FORMS + SIZES:
        t = time.perf_counter()
        parse(text)
        score_sample(["S", [{"f": {"x": [1]}}]], text, {"query_params": [], "profile_params": []})
        out.append((repr(text[:40]) + (f"… ({len(text):,} chars)" if len(text) > 40 else ""),
                    time.perf_counter() - t))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="predictions to score")
    ap.add_argument("--official-src", default=os.environ.get("PFC_PTBENCH_OFFICIAL_SRC"))
    ap.add_argument("--repeat", type=int, default=3, help="runs per scorer; the fastest is reported")
    ap.add_argument("--out", default=str(paths.REPORTS / "perf.md"))
    args = ap.parse_args(argv)
    out_file(args.out)  # a bad --out is refused before any work

    import ptbench_synth
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        recs, preds = ptbench_synth.make(args.n, seed=7)
        ptbench_synth.write_split(work, SPLIT, recs, preds)
        (work / "out" / SPLIT).mkdir(parents=True)
        atomic.write_bytes(work / "out" / SPLIT / "generation.jsonl", (work / SPLIT / "generation.jsonl").read_bytes())
        modes = ["robust", "official-compat"] + (["published"] if args.official_src else [])
        results = {}
        for m in modes:
            print(f"timing {m} on {args.n:,} predictions…", file=sys.stderr)
            runs = [child(m, work, args.official_src) for _ in range(args.repeat)]
            results[m] = min(runs, key=lambda r: r["seconds"])
    hostile = hostile_timings()

    lines = [
        "# Performance", "",
        f"Measured by `benchmarks/bench_scoring.py` on {time.strftime('%Y-%m-%d')}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, a fresh process per run, "
        f"fastest of {args.repeat} runs, "
        f"{args.n:,} synthetic PTBench predictions (`benchmarks/ptbench_synth.py`, seed 7; "
        "the adversarial mix of the compat fixture). Times include interpreter start-up, imports "
        "and reading the files; the published evaluator parses every output twice (accuracy and "
        "error passes), as published.", "",
        "| scorer | seconds | predictions/s | peak RSS (MiB) |", "|---|---:|---:|---:|"]
    names = {"robust": "pfc (default, robust)", "official-compat": "pfc `--compat official`",
             "published": "published PTBench evaluator (cal_acc + cal_error)"}
    for m, r in results.items():
        lines.append(f"| {names[m]} | {r['seconds']:.2f} | {args.n / r['seconds']:,.0f} | {r['peak_rss_mib']:.0f} |")
    if "published" not in results:
        lines += ["", "The published evaluator was not timed in this run (pass `--official-src`)."]
    else:
        lines += ["", "Published evaluator: hyfshadow/PTBench at commit 9678ecc (`src/parse.py`, "
                  "`src/test_acc.py`, `src/test_error.py`), run from a folder outside this repository."]
    times = [t for _, t in hostile]
    lines += ["", f"## Hostile outputs ({len(hostile)} inputs: code-execution forms, 10^5-deep brackets, "
              "10 MB strings, NaN/inf, huge integers, NUL bytes)", "",
              f"Each parsed by `pfc.eval.parsing.parse` and scored by the compat scorer: "
              f"median {statistics.median(times) * 1000:.2f} ms, max {max(times) * 1000:.1f} ms.", "",
              "| slowest inputs | ms |", "|---|---:|"]
    for name, t in sorted(hostile, key=lambda x: -x[1])[:6]:
        lines.append(f"| `{name}` | {t * 1000:.1f} |")
    lines += ["", "See also `reports/perf_simulate.md` (simulator, `benchmarks/bench_simulate.py`) and "
              "`reports/perf_runs.md` (backend throughput, cache, prefix reuse, prompt sizes; `benchmarks/bench_runs.py`)."]
    atomic.write_text(Path(args.out), "\n".join(lines) + "\n")
    print("\n".join(lines))
    print(json.dumps(results), file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(script_main("bench_scoring", main))
