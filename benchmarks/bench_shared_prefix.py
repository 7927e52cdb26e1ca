"""The hf engine with its group's prefix shared by the rows (split attention) beside the prefix copied per row.

    python benchmarks/bench_shared_prefix.py [--n 8] [--bench toolspectrum:prefix tracebench:paper]

Same batched engine (``engine="batch"``), same groups, same requests, greedy decoding (temperature 0,
up to 512 new tokens), Qwen2.5-Coder-0.5B bf16: ``shared`` is the default on CPU
(:mod:`pfc.run.backends.hf_attention`: the rows' cache holds their suffixes, every step reads the one
prefix cache); ``copied`` switches the model back to transformers' ``sdpa`` attention, so
:func:`pfc.run.backends.hf_engine.run_group` copies the prefix cache into every row (the engine before
the change). Per benchmark: the first ``n + 1`` examples of ``bench_throughput``'s sample in run order;
the first runs untimed so the prefix is cached as in a long run; then ``n`` examples in one call.
Reports seconds per example (and its prefill/decode split, summed over rows), generated tokens, the
rows per group, the share of identical outputs, and the load average before and after. Writes
``reports/perf_shared_prefix.json`` and ``.md``. Measurements, never assertions.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pfc.io import atomic  # noqa: E402
from pfc import benchmarks  # noqa: E402
from pfc.run.backends import get  # noqa: E402
from pfc.run.requests import RequestBuilder  # noqa: E402
from pfc.run.runner import _ordered  # noqa: E402
from pfc.errors import script_main, out_file  # noqa: E402

SAMPLING = {"temperature": 0, "max_tokens": 512, "seed": 0}


def requests(bench: str, layout: str, n: int) -> list:
    import bench_throughput
    path, ids = bench_throughput.samples(24)[bench][0]
    exs, tools = benchmarks.get(bench).scoring.load(path, None)
    chosen = [e for e in _ordered(exs) if e.id in set(ids)][:n + 1]
    rb = RequestBuilder(bench, tools, "zero_shot", "full", 50, True, dict(SAMPLING), layout=layout)
    return [rb.answer(e) for e in chosen]


def measure(model: str, reqs: list, variant: str) -> dict:
    be = get("hf", model, engine="batch", max_batch=8)
    if variant == "copied":
        be.lm.set_attn_implementation("sdpa")
    be.generate(reqs[:1])  # untimed: the prefix cached, as in a long run
    load0 = os.getloadavg()[0]
    t = time.perf_counter()
    out = be.generate(reqs[1:])
    dt = time.perf_counter() - t
    n = len(out)
    return {"variant": variant, "n": n, "s_per_example": round(dt / n, 2),
            "prefill_s": round(sum(o.usage.get("prefill_s", 0) for o in out), 1),
            "decode_s": round(sum(o.usage.get("decode_s", 0) for o in out), 1),
            "completion_tokens": sum(o.usage.get("completion_tokens", 0) for o in out),
            "rows_per_group": [o.usage.get("batch_rows") for o in out],
            "failures": sum(o.error is not None for o in out),
            "load": [round(load0, 2), round(os.getloadavg()[0], 2)], "texts": [o.text for o in out]}


def write(path: Path, res: dict) -> None:
    atomic.write_text(path.with_suffix(".json"), json.dumps(res, indent=1) + "\n")
    lines = ["# Shared-prefix attention in the hf engine (CPU)", "",
             f"Measured by `benchmarks/bench_shared_prefix.py` on {res['when']}, {res['machine']}; model "
             f"`{res['model']}` (bf16), greedy, up to 512 new tokens, one call of n examples after an untimed "
             "one. `copied` = the prefix cache copied into each row (transformers' sdpa attention); `shared` = "
             "the rows read one prefix cache (`pfc.run.backends.hf_attention`, the default on CPU). Load average "
             "(1 min) at the start and end: the benchmark keeps both cores busy (≈ 2).", "",
             "| benchmark | layout | n | copied s/ex | shared s/ex | speed-up | prefill s (copied → shared) | "
             "decode s (copied → shared) | tokens | identical outputs | load |",
             "|---|---|---:|---:|---:|---:|---|---|---:|---:|---|"]
    for b in res["benchmarks"]:
        c, s = b["copied"], b["shared"]
        lines.append(f"| {b['benchmark']} | {b['layout']} | {s['n']} | {c['s_per_example']} | {s['s_per_example']} | "
                     f"{b['speedup']}× | {c['prefill_s']} → {s['prefill_s']} | {c['decode_s']} → {s['decode_s']} | "
                     f"{c['completion_tokens']} / {s['completion_tokens']} | {b['identical']} of {s['n']} | "
                     f"{c['load'][0]}–{c['load'][1]}, {s['load'][0]}–{s['load'][1]} |")
    lines += ["", "Identical outputs: raw texts equal between the two. Both compute the same attention; under bf16 "
              "the order of floating-point sums differs, and a near-tie flipped early changes the rest of a long "
              "answer. The float32 check (`tests/test_hf_engine.py`, SmolLM2) is where equality is asserted.",
              f"Command: `{res['command']}`.", ""]
    atomic.write_text(path.with_suffix(".md"), "\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--n", type=int, default=8)
    ap.add_argument("--bench", nargs="+", default=["toolspectrum:prefix", "tracebench:paper"])
    ap.add_argument("--out", default=str(ROOT / "reports" / "perf_shared_prefix"))
    args = ap.parse_args(argv)
    out_file(args.out)  # a bad --out is refused before any work
    for spec in args.bench:  # a wrong name is one line and exit 2, before any model loads
        bench, _, layout = spec.partition(":")
        if bench not in ("toolspectrum", "tracebench", "ptbench") or layout not in ("paper", "prefix"):
            ap.error(f"--bench {spec!r}: expected BENCHMARK:LAYOUT, BENCHMARK one of toolspectrum, tracebench, "
                     "ptbench and LAYOUT paper or prefix")
    import torch
    res = {"when": time.strftime("%Y-%m-%d %H:%M"), "model": args.model,
           "machine": f"{platform.machine()}, {os.cpu_count()} cores, {torch.get_num_threads()} torch threads",
           "command": "python benchmarks/bench_shared_prefix.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "benchmarks": []}
    for spec in args.bench:
        bench, layout = spec.split(":")
        reqs = requests(bench, layout, args.n)
        r = {"benchmark": bench, "layout": layout}
        for variant in ("copied", "shared"):
            r[variant] = measure(args.model, reqs, variant)
            print(json.dumps({k: v for k, v in r[variant].items() if k != "texts"}), file=sys.stderr, flush=True)
        r["speedup"] = round(r["copied"]["s_per_example"] / r["shared"]["s_per_example"], 2)
        r["identical"] = sum(a == b for a, b in zip(r["copied"]["texts"], r["shared"]["texts"]))
        res["benchmarks"].append(r)
    write(Path(args.out), res)
    print(f"wrote {Path(args.out).with_suffix('.md').relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(script_main("bench_shared_prefix", main))
