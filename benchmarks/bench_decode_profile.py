"""Where an engine's seconds go on one cell of the engines report (issue 63, item 3): prefill or decode.

    python benchmarks/bench_decode_profile.py [--models qwen2.5-coder-0.5b] [--benchmark toolspectrum]
        [--engines openvino vllm] [--n 24] [--out reports/perf_decode_profile.json]

Each engine (a child process, one at a time, as ``bench_engines.py`` measures a cell: the same sample of ``--n``
examples, prefix layout, full history, the papers' sampling, one untimed warm-up example, model load outside the
timed part) answers the sample twice, both timed:

1. ``prefill``: ``max_tokens`` 1 — every prompt is prefilled (its shared prefix found cached after the warm-up)
   and one token decoded;
2. ``decode``: the papers' ``max_tokens`` — now every whole prompt is in the engine's prefix cache, so what is
   timed is the decoding of the answers (and one block's prefill per prompt at most).

Both engines keep prefix caching on, so the two parts add up to about one ordinary run's seconds (the report
shows both beside the engines report's own figure for the cell), and seconds per decoded token say which
engine's decode is the faster one. Writes the JSON after every engine and the ``.md`` beside it. Numbers are
measurements on whatever else the machine does, never assertions.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pfc import paths  # noqa: E402
from pfc.errors import out_file, positive_int, script_main  # noqa: E402
from pfc.io import atomic  # noqa: E402

CHILD = "PFC_BENCH_DECODE_CHILD"


def child(engine: str, model: str, bench: str, n: int, out: Path) -> None:
    """Time one engine's prefill-only pass and then its decode pass over the cell's sample; write the JSON."""
    import bench_engines as be_mod
    import bench_throughput as bt

    from pfc.io.reuse import reading_once
    parts = bt.samples(n, (bench,))[bench]
    res = {"engine": engine, "model": model, "benchmark": bench}
    t0 = time.perf_counter()
    with be_mod.open_engine(engine, model, n, out.with_suffix(".log")) as (be, res["identity"]):
        res["load_s"] = round(time.perf_counter() - t0, 1)
        with tempfile.TemporaryDirectory() as tmp, reading_once():
            bt.prime(bench, parts)
            pre = bt.measure(bench, parts, be, "prefix", None, Path(tmp) / "p", warm=True, sampling={"max_tokens": 1})
            dec = bt.measure(bench, parts, be, "prefix", None, Path(tmp) / "d")
    for name, m in (("prefill", pre), ("decode", dec)):
        res[name] = {k: m[k] for k in ("n", "s_per_example", "completion_tokens_per_example", "loadavg_start",
                                       "loadavg_end", "failed") if k in m}
    res["warmup_s"] = pre["warmup_s"]
    res["outputs"] = dec["outputs"]
    atomic.write_text(out, json.dumps(res, indent=1) + "\n")


def per_token(part: dict) -> float | None:
    """Seconds per decoded token of a pass (its s/example over its tokens/example; the pass's one prefill token
    included), None when it decoded nothing.

    >>> per_token({"s_per_example": 3.0, "completion_tokens_per_example": 150.0})
    0.02
    """
    toks = part.get("completion_tokens_per_example") or 0
    return round(part["s_per_example"] / toks, 4) if toks else None


def report(res: dict, engines_json: Path) -> str:
    """The Markdown table: per model and engine, the two passes, their sum and the engines report's figure."""
    cell = {}
    if engines_json.is_file():
        for key, c in json.loads(engines_json.read_text(encoding="utf-8")).get("cells", {}).items():
            cell[tuple(key.split("|"))] = c.get("s_per_example")
    lines = [f"# Prefill and decode, engine by engine ({res['benchmark']}, {res['n']} examples)", "",
             f"Measured by `benchmarks/bench_decode_profile.py` on {res['started']}, {os.cpu_count()} cores. "
             "Pass 1 (`prefill`): max_tokens 1, the shared prefix cached by the warm-up. Pass 2 (`decode`): the "
             "papers' max_tokens, every whole prompt now cached, so its seconds are decoding. `engines report`: "
             "the cell's s/ex in reports/perf_engines.json (another hour: compare ratios, not seconds).", ""]
    if res.get("note"):
        lines += [f"- {res['note']}", ""]
    lines += ["| model | engine | prefill s/ex | decode s/ex | sum | engines report s/ex | answer tokens/ex | "
              "decode s/token | load (1 min) |", "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in res["rows"]:
        if "prefill" not in r:
            lines.append(f"| {r['model']} | {r['engine']} | not run: {r.get('not_run', '?')} ||||||| ")
            continue
        p, d = r["prefill"], r["decode"]
        lines.append(f"| {r['model']} | {r['engine']} | {p['s_per_example']} | {d['s_per_example']} | "
                     f"{round(p['s_per_example'] + d['s_per_example'], 2)} | "
                     f"{cell.get((r['model'], res['benchmark'], r['engine']), '–')} | "
                     f"{d['completion_tokens_per_example']} | {per_token(d)} | "
                     f"{p['loadavg_start'][0]}–{d['loadavg_end'][0]} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", nargs="+", default=["qwen2.5-coder-0.5b"])
    ap.add_argument("--benchmark", default="toolspectrum", choices=("ptbench", "tracebench", "toolspectrum"))
    ap.add_argument("--engines", nargs="+", default=["openvino", "vllm"], choices=("openvino", "hf", "vllm"))
    ap.add_argument("--n", type=positive_int, default=24)
    ap.add_argument("--note", default="", help="a sentence for the report (what else ran)")
    ap.add_argument("--out", help="default reports/perf_decode_profile.json")
    ap.add_argument("--child", nargs=4, metavar=("ENGINE", "MODEL", "BENCH", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.child[2], args.n, Path(args.child[3]))
        return 0
    out = out_file(args.out or paths.REPORTS / "perf_decode_profile.json")
    res = {"benchmark": args.benchmark, "n": args.n, "started": time.strftime("%Y-%m-%d %H:%M"), "note": args.note,
           "rows": []}
    for model in args.models:
        for engine in args.engines:
            with tempfile.TemporaryDirectory() as tmp:
                cj = Path(tmp) / "cell.json"
                print(f"bench_decode_profile: {model} {engine} ({time.strftime('%H:%M:%S')}, load "
                      f"{os.getloadavg()[0]:.2f})", file=sys.stderr, flush=True)
                rc = subprocess.call([sys.executable, str(Path(__file__).resolve()), "--n", str(args.n), "--child",
                                      engine, model, args.benchmark, str(cj)], env={**os.environ, CHILD: "1"})
                row = json.loads(cj.read_text(encoding="utf-8")) if rc == 0 and cj.is_file() else \
                    {"engine": engine, "model": model, "not_run": f"the child exited {rc}"}
            res["rows"].append(row)
            atomic.write_text(out, json.dumps(res, indent=1) + "\n")
            atomic.write_text(out.with_suffix(".md"), report(res, paths.REPORTS / "perf_engines.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(script_main("bench_decode_profile", main))
