"""Does an engine give the same answers twice? Each engine run twice on one sample, passes interleaved (issue 63).

    python benchmarks/bench_replay.py [--model qwen2.5-coder-0.5b] [--benchmark tracebench]
        [--engines openvino vllm-seeded] [--passes 2] [--n 24] [--note "..."] [--out reports/perf_replay.json]

A committed run is worth keeping only if running it again gives the same bytes: a resumed run must not mix two
engines' numerics, and a reader must be able to check a figure by replaying its run. ``bench_engines.py`` measures
each engine once; here each engine's child (``bench_engines.py --child``: model load, the sample's first example
untimed, all ``n`` handed over together, the papers' seeded sampling) runs ``--passes`` times, the engines
alternating (A B A B) so drift hits all alike. The report gives each pass's seconds per example and, per engine, the
share of examples whose raw answer is the same text in every pass (and, for each other engine, the share identical
to its first pass). It does not score answers (``bench_engines.py`` does) and asserts nothing: numbers are
measurements on whatever else the machine does.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pfc import paths  # noqa: E402
from pfc.errors import UserError, out_file, script_main  # noqa: E402
from pfc.io import atomic  # noqa: E402


def same_share(passes: list[dict]) -> tuple[float, int]:
    """(share of examples answered in every pass whose raw text is the same in all of them, how many).

    >>> same_share([{"a": "x", "b": "y"}, {"a": "x", "b": "z", "c": "w"}])
    (0.5, 2)
    """
    common = set(passes[0]).intersection(*passes[1:]) if passes else set()
    if not common:
        return 0.0, 0
    same = sum(all(p[k] == passes[0][k] for p in passes[1:]) for k in common)
    return round(same / len(common), 3), len(common)


def summarize(engines: dict[str, list[dict]]) -> list[dict]:
    """One row per engine from its passes' child outputs (``s_per_example``, ``outputs``, ``identity``)."""
    rows = []
    firsts = {e: ps[0]["outputs"] for e, ps in engines.items() if ps}
    for e, ps in engines.items():
        share, n = same_share([p["outputs"] for p in ps])
        rows.append({"engine": e, "identity": ps[0].get("identity"), "passes": len(ps),
                     "s_per_example": [p["s_per_example"] for p in ps], "load_s": [p.get("load_s") for p in ps],
                     "identical_every_pass": share, "n": n,
                     "identical_to_first_pass_of": {o: same_share([ps[0]["outputs"], f])[0]
                                                    for o, f in firsts.items() if o != e}})
    return rows


def write_md(doc: dict) -> str:
    lines = [f"# Replay: the same sample twice on each engine ({doc['model']}, {doc['benchmark']})", "",
             f"Measured by `benchmarks/bench_replay.py` on {doc['when']}, {doc['machine']}: {doc['n']} examples "
             "(prefix layout, full history, the papers' seeded sampling, one untimed warm-up example), each engine "
             f"{doc['passes']} times, passes alternating between engines. `same every pass`: share of examples whose "
             "raw answer text is identical in all passes of that engine.", ""]
    lines += [f"- {n}" for n in doc["notes"]] + ([""] if doc["notes"] else [])
    lines += ["| engine | s/ex per pass | same every pass (n) | same as another engine's first pass | identity |",
              "|---|---|---|---|---|"]
    for r in doc["rows"]:
        other = ", ".join(f"{o} {v}" for o, v in r["identical_to_first_pass_of"].items()) or "–"
        lines.append(f"| {r['engine']} | {' / '.join(str(s) for s in r['s_per_example'])} | "
                     f"{r['identical_every_pass']} ({r['n']}) | {other} | {r['identity']} |")
    return "\n".join(lines + ["", f"Command: `{doc['command']}`.", ""])


def main(argv=None) -> int:
    import bench_engines as be
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--benchmark", default="tracebench", choices=be.BENCHES)
    ap.add_argument("--engines", nargs="+", default=["openvino", "vllm-seeded"], choices=be.ENGINES)
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--note", default="", help="a sentence for the report (what else ran)")
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_replay.json"))
    args = ap.parse_args(argv)
    out = out_file(args.out)
    if args.passes < 2:
        raise UserError("--passes must be >= 2 (a replay needs a second pass)")
    if any(e.startswith("vllm") for e in args.engines) and be.vllm_missing():
        raise UserError(be.vllm_missing())
    engines: dict[str, list[dict]] = {e: [] for e in args.engines}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.passes):
            for e in args.engines:
                f = Path(tmp) / f"{e}-{k}.json"
                rc = be.run_child(["--n", str(args.n), "--child", e, args.model, args.benchmark, str(f)],
                                  f"{e}, pass {k + 1} of {args.passes}")
                if rc == 130:
                    raise KeyboardInterrupt
                res = json.loads(f.read_text(encoding="utf-8")) if rc == 0 and f.exists() else None
                if res is None or "not_run" in res:
                    why = res["not_run"] if res else f"its child exited with status {rc}"
                    raise UserError(f"{e}, pass {k + 1}: not measured ({why}); nothing written")
                engines[e].append(res)
    doc = {"model": args.model, "benchmark": args.benchmark, "n": args.n, "passes": args.passes,
           "when": time.strftime("%Y-%m-%d %H:%M"), "machine": f"{os.uname().machine}, {os.cpu_count()} cores",
           "notes": [args.note] if args.note else [], "rows": summarize(engines),
           "command": "python benchmarks/bench_replay.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    atomic.write_text(out, json.dumps(doc, indent=1) + "\n")
    atomic.write_text(out.with_suffix(".md"), write_md(doc))
    print(out.with_suffix(".md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(script_main("bench_replay", main))
