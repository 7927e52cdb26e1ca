"""Do another engine's greedy answers equal the one-at-a-time path's? A registered model, per benchmark.

    python benchmarks/bench_agreement.py [--dtype float32] [--n ptbench=24 tracebench=8 [toolspectrum=2]]
    python benchmarks/bench_agreement.py --model qwen2.5-coder-1.5b --second openvino-bf16 --n ptbench=24

Issue 18 asks the throughput engine for greedy outputs equal to the one-at-a-time path on at least
95% of a fixed sample, with the metrics inside that path's bootstrap interval. On each benchmark's
sample (``bench_throughput.samples``: PTBench seeded from the trained-user split, TRACEBench
consecutive examples in run order — here with ``last_k`` history, k = 10, as the reference runs —
ToolSpectrum seeded from the ``both`` subset), both paths run through ``pfc.run.runner.execute`` with
the response cache off, greedy decoding (temperature 0, up to 512 new tokens), paper layout:

- ``single``: ``engine="single"`` (one sequence at a time, prefix reuse from the previous prompt);
- ``batch``: ``engine="batch"`` (the default: grouped requests, one shared prefix cache per group).

``--second`` picks the path held against ``single`` (hf, ``--dtype``): ``batch`` (above, the default),
``openvino`` (OpenVINO GenAI with f32 compute and an f32 KV cache: the same model, so equal answers are
expected) or ``openvino-bf16`` (its default bf16 precisions, as the long reference runs use). The
OpenVINO rows go to ``reports/perf_agreement_<model>_<second>.json`` / ``.md``.

Reported per benchmark: identical raw outputs (share and count), each path's headline metric with
the single path's bootstrap 95% interval, and whether the batched value lies inside it. Under bf16
the two paths sum in different orders, so near-ties can flip a token; ``--dtype float32`` shows
whether any difference remains once rounding is small. Writes ``reports/perf_agreement_<dtype>.json``
and ``.md``. Measurements, never assertions (``tests/test_hf_engine.py`` asserts equality on SmolLM2).
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_throughput import samples  # noqa: E402
from pfc.io import atomic  # noqa: E402
from pfc import benchmarks  # noqa: E402
from pfc.eval.bootstrap import estimates  # noqa: E402
from pfc.eval.scoring import score  # noqa: E402
from pfc.run.backends import get  # noqa: E402
from pfc.run.config import RunConfig  # noqa: E402
from pfc.run.runner import execute  # noqa: E402
from pfc.errors import script_main, existing, out_dir  # noqa: E402

HISTORY = {"tracebench": ("last_k", 10)}
GREEDY = {"temperature": 0.0, "max_tokens": 512}


def answers(bench: str, parts, backend, workdir: Path, name: str) -> dict:
    """{id: raw output} of one path over the sample."""
    history, k = HISTORY.get(bench, ("full", 50))
    out = {}
    for j, (path, ids) in enumerate(parts):
        d = workdir / f"{bench}-{name}-{j}"
        execute(RunConfig(bench, path, backend, d, history=history, k=k, ids=ids, use_cache=False, progress=False,
            sampling=GREEDY, force=True))
        for line in (d / "predictions.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out[row["id"]] = row["output"]
    return out


def metrics(bench: str, parts, outputs: dict) -> dict:
    """{metric: [value, lo, hi]} of the benchmark's headline metrics over the sample (bootstrap 95% over examples)."""
    adapter = benchmarks.get(bench)
    exs, tools = [], None
    for path, ids in parts:
        e, tools = adapter.scoring.load(path, None)
        exs += [x for x in e if x.id in set(ids)]
    rep = score(exs, outputs, bench, tools)
    keys = {k: adapter.scoring.metric_keys[k] for k in adapter.reporting.headline if k in adapter.scoring.metric_keys}
    return {k: [round(float(v), 4) for v in ci] for k, ci in estimates(rep.per_example, keys).items()}


def row(bench: str, parts, got: dict, seconds: float | None, second: str = "batch") -> dict:
    """One benchmark's entry: identical outputs, both paths' metrics, the second path's value inside single's CI."""
    same = sum(got["single"][i] == got[second].get(i) for i in got["single"])
    m = {e: metrics(bench, parts, o) for e, o in got.items()}
    inside = all(m["single"][k][1] <= m[second][k][0] <= m["single"][k][2] for k in m["single"])
    return {"benchmark": bench, "n": len(got["single"]), "identical": same,
            "agreement": round(same / len(got["single"]), 3), "single": m["single"], second: m[second],
            f"{second}_inside_single_ci": inside, "seconds": None if seconds is None else round(seconds, 1)}


SECOND = {"batch": lambda model, dtype: get("hf", model, engine="batch", dtype=dtype),
          "openvino": lambda model, dtype: get("openvino", model, precision="f32", kv_precision="f32"),
          "openvino-bf16": lambda model, dtype: get("openvino", model)}


def _named(stem: Path, ext: str) -> Path:
    """``stem`` plus ``ext``: a model name holds dots (``qwen2.5-coder-1.5b``), which ``with_suffix`` would cut.

    >>> _named(Path("perf_agreement_qwen2.5-coder-1.5b_openvino"), ".md").name
    'perf_agreement_qwen2.5-coder-1.5b_openvino.md'
    """
    return stem.with_name(stem.name + ext)


def read_dir(d: Path) -> dict:
    return {json.loads(x)["id"]: json.loads(x)["output"]
            for x in (d / "predictions.jsonl").read_text(encoding="utf-8").splitlines()}


def kept_rows(old: dict, rerun: set[str]) -> tuple[list[dict], list[dict]]:
    """The rows of an earlier report that this run does not re-measure, each tagged with the run that made it
    (``from``: when, command), and those runs once each in order: a run none of whose rows survive is not listed,
    so the list never outgrows the rows."""
    made_by = {"when": old["when"], "command": old["command"]}
    rows = [{**b, "from": b.get("from", made_by)} for b in old.get("benchmarks", []) if b["benchmark"] not in rerun]
    runs = []
    for b in rows:
        if b["from"] not in runs:
            runs.append(b["from"])
    return rows, runs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"], help="the hf single path's dtype")
    ap.add_argument("--second", default="batch", choices=sorted(SECOND),
                    help="the path held against hf single: batch (hf, --dtype), openvino (f32) or openvino-bf16")
    ap.add_argument("--n", nargs="*", default=["ptbench=24", "tracebench=8"], help="BENCH=N")
    ap.add_argument("--out", default=str(ROOT / "reports"))
    ap.add_argument("--from-dirs", help="re-score the run directories BENCH-single-0 / BENCH-batch-0 kept from an "
                                        "interrupted run instead of generating (seconds are then not measured)")
    args = ap.parse_args(argv)
    out_dir(existing(args.out, "--out"))  # a bad --out is refused before any work
    try:
        sizes = {b: int(v) for b, v in (x.split("=") for x in args.n)}
    except ValueError:
        ap.error(f"--n takes BENCH=N, got {args.n}")
    if any(v < 1 for v in sizes.values()):
        ap.error(f"--n: each N must be at least 1, got {args.n}")
    unknown = set(sizes) - set(benchmarks.NAMES)
    if unknown:
        ap.error(f"--n: unknown benchmark {sorted(unknown)[0]!r}; expected one of {sorted(benchmarks.NAMES)}")
    if args.from_dirs:
        missing = [f"{b}-{e}-0" for b in sizes for e in ("single", args.second)
                   if not (Path(args.from_dirs) / f"{b}-{e}-0" / "predictions.jsonl").is_file()]
        if missing:
            ap.error(f"--from-dirs {args.from_dirs}: no {missing[0]}/predictions.jsonl (kept from an interrupted run)")
    import torch
    res = {"when": time.strftime("%Y-%m-%d %H:%M"), "model": args.model, "dtype": args.dtype, "second": args.second,
           "machine": f"{platform.machine()}, {torch.get_num_threads()} torch threads", "sampling": GREEDY,
           "command": "python benchmarks/bench_agreement.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "benchmarks": []}
    paths_ = {} if args.from_dirs else {"single": get("hf", args.model, engine="single", dtype=args.dtype),
                                        args.second: SECOND[args.second](args.model, args.dtype)}
    out = Path(args.out)
    stem = (out / f"perf_agreement_{args.dtype}" if args.second == "batch"
            else out / f"perf_agreement_{args.model}_{args.second}")
    prev = _named(stem, ".json")
    if prev.exists():  # keep the other benchmarks' rows of an earlier run of the same model and dtype
        old = json.loads(prev.read_text(encoding="utf-8"))
        if old.get("model") == args.model:
            res["benchmarks"], res["earlier"] = kept_rows(old, set(sizes))
    with tempfile.TemporaryDirectory() as tmp:
        for bench, n in sizes.items():
            plan = samples(n)
            if bench not in plan:
                print(f"{bench}: no data (ToolSpectrum release not configured?); skipped", file=sys.stderr)
                continue
            parts = [(p, ids[:n]) for p, ids in plan[bench]][:1]
            t0 = time.perf_counter()
            if args.from_dirs:  # outputs of an earlier, interrupted run of this script: re-scored, not re-run
                got = {e: read_dir(Path(args.from_dirs) / f"{bench}-{e}-0") for e in ("single", args.second)}
            else:
                got = {e: answers(bench, parts, be, Path(tmp), e) for e, be in paths_.items()}
            res["benchmarks"].append(row(bench, parts, got, None if args.from_dirs else time.perf_counter() - t0,
                                         args.second))
            print(res["benchmarks"][-1], file=sys.stderr, flush=True)
            write(stem, res)
    return 0


SECOND_TEXT = {"batch": "`batch` = `engine=\"batch\"` (the default)",
               "openvino": "`openvino` = the OpenVINO backend with f32 compute and an f32 KV cache",
               "openvino-bf16": "`openvino-bf16` = the OpenVINO backend in its default bf16 compute and KV cache "
                                "(the reference runs' setting)"}


def write(stem: Path, res: dict) -> None:
    atomic.write_text(_named(stem, ".json"), json.dumps(res, indent=1) + "\n")
    second = res.get("second", "batch")
    title = "Batched engine" if second == "batch" else f"`{second}`"
    lines = [f"# {title} vs one at a time: identical greedy answers ({res['dtype']})", "",
             f"Measured by `benchmarks/bench_agreement.py` on {res['when']}, {res['machine']}; model `{res['model']}` "
             f"in {res['dtype']}, greedy (temperature 0, up to 512 new tokens), paper layout, response cache off. "
             f"`single` = hf `engine=\"single\"` in {res['dtype']}, {SECOND_TEXT[second]}. Metric: the benchmark's "
             "headline metrics, bootstrap 95% interval over examples (of the single path); inside: the second path's "
             "value lies in it.", "",
             f"| benchmark | n | identical outputs | agreement | metric | single [95% CI] | {second} | inside |",
             "|---|---:|---:|---:|---|---|---:|---|"]
    for b in res["benchmarks"]:
        for k, ci in b["single"].items():
            inside = ci[1] <= b[second][k][0] <= ci[2]
            lines.append(f"| {b['benchmark']} | {b['n']} | {b['identical']} | {b['agreement']} | {k} | "
                         f"{ci[0]} [{ci[1]}, {ci[2]}] | {b[second][k][0]} | {'yes' if inside else 'no'} |")
    if any(b.get("seconds") is None for b in res["benchmarks"]):
        lines += ["", "Rows without seconds were re-scored from kept run directories (`--from-dirs`): their answers were "
                  "generated by an earlier, interrupted run of this script with the same settings."]
    lines += ["", f"Command: `{res['command']}`" + "".join(f"; earlier rows: `{e['command']}` ({e['when']})"
                                                           for e in res.get("earlier", [])) + ".", ""]
    atomic.write_text(_named(stem, ".md"), "\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(script_main("bench_agreement", main))
