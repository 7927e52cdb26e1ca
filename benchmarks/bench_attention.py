"""Where a long-context example's seconds go on this CPU: attention against matmul, for Qwen2.5-0.5B's shapes.

    python benchmarks/bench_attention.py [--contexts 4000 16000] [--repeat 3]

Issue 18's throughput targets for TRACEBench (16-19k-token prompts with full history) and
ToolSpectrum (a 15.6k-token toolset) are set by what one token costs at a long context. Per
token the model does ~0.72 GFLOP of weight matmuls and 86,016 x context FLOPs of attention
(24 layers x 14 query heads x 64 dims x 4), so at 16k context attention is ~2/3 of the
arithmetic. This measures, with random bf16 tensors of the model's shapes:

- ``matmul``: a weight matmul of the model (896 x 4864, the MLP) on a prefill chunk (1,024 tokens)
  and on a decode step (8 rows): GFLOP/s the cores reach on the linear layers;
- ``prefill attention``: torch's CPU flash-attention kernel (what the engine calls) for a 1,024-token
  chunk after a ``context``-token prefix (14 heads, the 2 KV heads repeated);
- ``decode attention``: the engine's shared-prefix call for 8 rows (their 7 query heads per KV head
  folded into one query of 56), one token each, against the prefix.

From these it writes the seconds a token costs at each context (linear + attention at the
measured rates) and the share that attention takes: ``reports/perf_attention.md`` / ``.json``.
Measurements on whatever else the machine does (the load average is recorded), never
assertions. It does not run the model.
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

from pfc import paths  # noqa: E402
from pfc.io import atomic  # noqa: E402
from pfc.errors import script_main, out_file  # noqa: E402

HIDDEN, INTER, LAYERS, HEADS, KV_HEADS, DIM = 896, 4864, 24, 14, 2, 64
LINEAR_GFLOP = 2 * LAYERS * (2 * HIDDEN * HIDDEN + 2 * HIDDEN * KV_HEADS * DIM + 3 * HIDDEN * INTER) / 1e9
ATTN_FLOP_PER_KEY = LAYERS * HEADS * DIM * 4  # QK and PV, multiply-add = 2 FLOPs each


def best(fn, repeat: int) -> float:
    """Fastest of ``repeat`` timings of ``fn()`` (seconds), after one untimed call."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(contexts: list[int], repeat: int) -> dict:
    import torch
    torch.manual_seed(0)
    bf = torch.bfloat16
    flash = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
    w = torch.randn(HIDDEN, INTER, dtype=bf)
    out = {"matmul": {}, "contexts": []}
    for name, m in (("prefill_chunk_1024", 1024), ("decode_8_rows", 8)):
        x = torch.randn(m, HIDDEN, dtype=bf)
        s = best(lambda: x @ w, repeat * 5)
        out["matmul"][name] = round(2 * m * HIDDEN * INTER / s / 1e9, 1)
    for c in contexts:
        q = torch.randn(1, HEADS, 1024, DIM, dtype=bf)
        k = torch.randn(1, HEADS, c + 1024, DIM, dtype=bf)
        v = torch.randn(1, HEADS, c + 1024, DIM, dtype=bf)
        mask = torch.zeros(1, 1, 1024, c + 1024, dtype=bf)  # the engine passes an additive mask when it has one
        s_pre = best(lambda: flash(q, k, v, 0.0, False, attn_mask=mask, scale=0.125), repeat)
        pre_flop = 1024 * (c + 1024) * HEADS * DIM * 4
        qd = torch.randn(1, KV_HEADS, 56, DIM, dtype=bf)
        kd, vd = torch.randn(1, KV_HEADS, c, DIM, dtype=bf), torch.randn(1, KV_HEADS, c, DIM, dtype=bf)
        s_dec = best(lambda: flash(qd, kd, vd, 0.0, False, attn_mask=None, scale=0.125), repeat * 5)
        dec_flop = 56 * c * KV_HEADS * DIM * 4
        pre_rate, dec_rate = pre_flop / s_pre / 1e9, dec_flop / s_dec / 1e9
        attn_tok = ATTN_FLOP_PER_KEY * c / 1e9  # GFLOP of attention per token at this context
        lin_pre = LINEAR_GFLOP / out["matmul"]["prefill_chunk_1024"]
        lin_dec = LINEAR_GFLOP / out["matmul"]["decode_8_rows"]
        out["contexts"].append({
            "context": c, "prefill_attention_gflops": round(pre_rate, 1), "decode_attention_gflops": round(dec_rate, 1),
            "attention_gflop_per_token": round(attn_tok, 3),
            "prefill_ms_per_token": round(1000 * (lin_pre + attn_tok / pre_rate), 2),
            "prefill_attention_share": round((attn_tok / pre_rate) / (lin_pre + attn_tok / pre_rate), 2),
            "prefill_ms_per_token_at_matmul_rate": round(1000 * (LINEAR_GFLOP + attn_tok)
                                                         / out["matmul"]["prefill_chunk_1024"], 2),
            "decode_row_ms_per_token": round(1000 * (lin_dec + attn_tok / dec_rate), 2),
            "decode_attention_share": round((attn_tok / dec_rate) / (lin_dec + attn_tok / dec_rate), 2)})
    return out


def write(path: Path, res: dict) -> None:
    atomic.write_text(path.with_suffix(".json"), json.dumps(res, indent=1) + "\n")
    mm = res["matmul"]
    lines = ["# Attention against matmul at long contexts (CPU, Qwen2.5-0.5B shapes, bf16)", "",
             f"Measured by `benchmarks/bench_attention.py` on {res['when']}, {res['machine']}; load average "
             f"{res['load_start']} at the start, {res['load_end']} at the end. Random tensors of the model's "
             f"shapes; fastest of {res['repeat']} timings.", "",
             f"Weight matmuls (896 × 4864, the MLP): **{mm['prefill_chunk_1024']} GFLOP/s** on a 1,024-token "
             f"prefill chunk, {mm['decode_8_rows']} GFLOP/s on a decode step of 8 rows. The model's weight "
             f"matmuls are {LINEAR_GFLOP:.3f} GFLOP per token.", "",
             "| context | attention GFLOP per token | prefill attention GFLOP/s | prefill ms/token | attention share "
             "| ms/token if attention ran at the matmul rate | decode attention GFLOP/s (8 rows) | decode ms per row-token "
             "| attention share |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in res["contexts"]:
        lines.append(f"| {r['context']:,} | {r['attention_gflop_per_token']} | {r['prefill_attention_gflops']} | "
                     f"{r['prefill_ms_per_token']} | {r['prefill_attention_share']:.0%} | "
                     f"{r['prefill_ms_per_token_at_matmul_rate']} | {r['decode_attention_gflops']} | "
                     f"{r['decode_row_ms_per_token']} | {r['decode_attention_share']:.0%} |")
    lines += ["", "Prefill: torch's CPU flash-attention kernel for a 1,024-token chunk (14 heads) after `context` "
              "cached tokens. Decode: the engine's shared-prefix call (8 rows × 7 query heads folded into 56 queries "
              "per KV head) against `context` keys. ms/token = the weight matmuls at the measured matmul rate plus the "
              "attention at the measured attention rate; the model's other work (norms, rotary, sampling) comes on top.",
              "", f"Command: `{res['command']}`.", ""]
    atomic.write_text(path.with_suffix(".md"), "\n".join(lines))


def run_all(args, argv) -> None:
    """Measure, then write the report (json and md)."""
    import torch
    load0 = [round(x, 2) for x in os.getloadavg()]
    res = {"when": time.strftime("%Y-%m-%d %H:%M"),
           "machine": f"{platform.machine()}, {os.cpu_count()} cores, {torch.get_num_threads()} torch threads",
           "command": ("python benchmarks/bench_attention.py " + " ".join(argv if argv is not None else sys.argv[1:])).strip(),
           "repeat": args.repeat, "load_start": load0}
    res.update(measure(args.contexts, args.repeat))
    res["load_end"] = [round(x, 2) for x in os.getloadavg()]
    write(Path(args.out), res)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--contexts", nargs="+", type=int, default=[1000, 4000, 16000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_attention.json"))
    args = ap.parse_args(argv)
    out_file(args.out)  # a bad --out is refused before any work
    if args.repeat < 1 or any(c < 1 for c in args.contexts):
        ap.error("--repeat and every --contexts value must be >= 1")
    out = Path(args.out)
    files = (out.with_suffix(".json"), out.with_suffix(".md"))
    stamp = lambda: [(p.stat().st_ino, p.stat().st_mtime_ns) if p.exists() else None for p in files]  # noqa: E731
    start = stamp()  # each write replaces a file (a new inode)
    try:
        run_all(args, argv)
    except KeyboardInterrupt:  # the report is written only at the end
        what = (f"nothing written, {paths.relative(files[0])} unchanged" if stamp() == start
                else "stopped while writing the report: run it again")
        print(f"bench_attention: interrupted; {what}", file=sys.stderr)
        return 130
    print(Path(args.out).with_suffix(".md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(script_main("bench_attention", main))
