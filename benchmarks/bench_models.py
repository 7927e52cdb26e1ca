"""Real packaged models on this CPU -> reports/perf_models.md.

    python benchmarks/bench_models.py [--models qwen2.5-coder-0.5b smollm2-135m] [--examples 12 --position 0.1]

Per model (``hf`` backend, bf16): install record (download / verify / conversion seconds and
size, from ``pfc models install``), load seconds, resident memory after load and peak,
prefill tokens/s at 1k and 4k prompt tokens, decode tokens/s, and — on one user's
consecutive TRACEBench examples with full history (the embedded default; run order of
``pfc run``) — prefill seconds and whole seconds per example with and without prefix-KV reuse.
Needs ``make models`` and the embedded TRACEBench (``make reproduce`` or ``pfc build``).
Numbers are measurements on whatever else the machine is doing; never assertions.
"""
from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from pfc.io import atomic  # noqa: E402
from pfc.models import registry  # noqa: E402

from pfc import paths
from pfc.run.backends import Request, get  # noqa: E402
from pfc.errors import out_file, script_main  # noqa: E402


VLLM_MARK = "## vLLM CPU runtime"  # the section benchmarks/bench_vllm.py writes


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def speed(be, n_prompt: int, n_decode: int = 16) -> tuple[float, float]:
    """(prefill tok/s, decode tok/s) on a prompt of ``n_prompt`` tokens (fresh prefill, greedy)."""
    import torch
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 20000, (n_prompt,), generator=g).tolist()
    from pfc.run.backends.hf_engines import OneByOne
    _, n, t = OneByOne(be.loaded).generate_ids(ids, {"temperature": 0, "max_tokens": n_decode, "seed": 0})  # a fresh prefill
    return n_prompt / t["prefill_s"], (n / t["decode_s"] if t["decode_s"] > 0 else float("nan"))


def user_examples(n: int, position: float = 0.5):
    """``n`` consecutive examples (run order) of the user with the longest histories, full history."""
    from pfc.benchmarks.tracebench.prompts import build
    from pfc.run.runner import _ordered
    from pfc.schema import load_examples, load_tools
    tb = paths.BENCHMARKS / "tracebench"
    exs = _ordered(load_examples(tb / "examples.jsonl"))
    tools = {t.key: t for t in load_tools(tb / "tools.json")}
    user = max({e.user_id for e in exs}, key=lambda u: max(len(e.history) for e in exs if e.user_id == u))
    mine = [e for e in exs if e.user_id == user]
    start = int(len(mine) * position)  # 0.5: mid-run, histories of ~100+ records
    pick = mine[start: start + n]
    return [(e, build(e, tools, history="full")) for e in pick]


def per_example(be, items, max_tokens: int) -> dict:
    be.engine_impl.reset()
    pre, tot, reused, toks = [], [], [], []
    for ex, (prompt, specs) in items:
        t0 = time.perf_counter()
        (r,) = be.generate([Request(prompt.messages, specs, {"temperature": 0, "max_tokens": max_tokens, "seed": 0})])
        tot.append(time.perf_counter() - t0)
        if r.error:
            raise RuntimeError(r.error)
        pre.append(r.usage["prefill_s"])
        reused.append(r.usage["reused_tokens"])
        toks.append(r.usage["prompt_tokens"])
        print(f"[bench_models]   {ex.id}: {toks[-1]} prompt tokens, {reused[-1]} reused, prefill {pre[-1]:.2f} s",
              file=sys.stderr, flush=True)
    # the first request has nothing to reuse: report the steady state (requests 2..n) and all
    return {"prefill_s": sum(pre[1:]) / max(len(pre) - 1, 1), "total_s": sum(tot[1:]) / max(len(tot) - 1, 1),
            "prompt_tokens": sum(toks[1:]) / max(len(toks) - 1, 1), "reused_tokens": sum(reused[1:]) / max(len(reused) - 1, 1),
            "first_prefill_s": pre[0], "ids": [ex.id for ex, _ in items], "each_prefill_s": pre,
            "each_reused": reused, "each_prompt_tokens": toks}


HEAD = ("# Real models on this CPU (`hf` backend)\n\n"
        "Measured by `benchmarks/bench_models.py`, each model in its own process (memory is that model's), "
        "torch CPU, bf16 weights; the conditions of each model's run are listed under the tables. Prefix-reuse "
        "rows: consecutive examples of one user of the embedded TRACEBench, full history, in run order (user, "
        "then history length), greedy; steady state = requests 2..n (the first has nothing to reuse).\n")


def mem(r: dict) -> str:
    return "–" if r.get("rss_mb") is None else f"{r['rss_mb']:.0f} ({r['peak_mb']:.0f})"


def write(path: Path, rows: list[dict]) -> None:
    lines = [HEAD]
    lines += ["| model | download s | verify s | convert s | size MB | load s | RSS MB (peak) | prefill tok/s 1k / 4k | decode tok/s 1k / 4k |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        sec = r["install"].get("seconds", {})
        f = lambda k: f"{sec[k]:.0f}" if k in sec else "–"  # noqa: E731
        size = f"{r['install']['bytes'] / 1e6:.0f}" if "bytes" in r["install"] else "–"
        lines.append(f"| {r['model']} | {f('download')} | {f('assemble_verify')} | {f('convert')} | {size} | "
                     f"{r['load_s']:.1f} | {mem(r)} | {r['prefill_1k']:.0f} / "
                     f"{r['prefill_4k']:.0f} | {r['decode_1k']:.1f} / {r['decode_4k']:.1f} |")
    lines += ["", "Prefix reuse (steady state, per example):", "",
              "| model | prompt tokens | reused tokens | prefill s without | prefill s with | prefill speed-up | "
              "s/example without | s/example with |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        w, wo = r["with"], r["without"]
        lines.append(f"| {r['model']} | {wo['prompt_tokens']:.0f} | {w['reused_tokens']:.0f} | {wo['prefill_s']:.2f} | "
                     f"{w['prefill_s']:.2f} | {wo['prefill_s'] / w['prefill_s']:.1f}× | {wo['total_s']:.1f} | "
                     f"{w['total_s']:.1f} |")
    for r in rows:  # per request: where the saving comes from (request 1 has nothing to reuse)
        w, wo = r["with"], r["without"]
        lines += ["", f"Per request, {r['model']} (run order; request 1 is outside the steady state):", "",
                  "| # | example | prompt tokens | reused tokens | prefill s without | prefill s with |",
                  "|---:|---|---:|---:|---:|---:|"]
        for i, ex_id in enumerate(w["ids"]):
            lines.append(f"| {i + 1} | {ex_id} | {w['each_prompt_tokens'][i]} | {w['each_reused'][i]} | "
                         f"{wo['each_prefill_s'][i]:.2f} | {w['each_prefill_s'][i]:.2f} |")
    lines += ["", "What is reused: the system text with the user's history; when consecutive examples are the vagueness "
              "variants of one anchor (as in run order) their candidate tools agree too, so only the request is "
              "new. Between anchors, each anchor's own candidate tools (the chat template puts them after the "
              "system text), the history records added since and the request are prefilled again. Install columns "
              "come from the install record of `pfc models install` on the machine that ran it ('–': installed "
              "another way).", "", "Conditions:", ""]
    lines += [f"- {r['model']}: {r['when']}, {r['machine']}, {r['cpus']} cores, {r['threads']} torch threads, "
              + ("load average not recorded" if r.get("load") is None else f"load average {r['load']:.1f} at start")
              + f"; `{r['command']}`" + (f" — {r['remark']}" if r.get("remark") else "") + "." for r in rows]
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    vllm = old[old.index(VLLM_MARK):] if VLLM_MARK in old else ""  # bench_vllm.py's section stays
    atomic.write_text(path, "\n".join(lines) + "\n" + ("\n" + vllm if vllm else ""))


def measure(name: str, args) -> dict:
    """Every measurement of one model, in this process."""
    import os
    import torch
    items = user_examples(args.examples, args.position)
    load = os.getloadavg()[0]
    rec = registry.installed(name) or {}
    t0 = time.perf_counter()
    be = get("hf", name)
    load_s = time.perf_counter() - t0
    rss = rss_mb()

    def note(what):  # progress on stderr: a phase can take minutes on a busy CPU
        print(f"[bench_models] {name}: {what} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    note(f"loaded in {load_s:.1f} s")
    p1k, d1k = speed(be, args.sizes[0])
    note(f"{args.sizes[0]}-token prompt: prefill {p1k:.0f} tok/s, decode {d1k:.1f} tok/s")
    p4k, d4k = speed(be, args.sizes[1])
    note(f"{args.sizes[1]}-token prompt: prefill {p4k:.0f} tok/s, decode {d4k:.1f} tok/s")
    with_r = per_example(be, items, args.max_tokens)
    note(f"{len(items)} examples with prefix reuse: steady prefill {with_r['prefill_s']:.2f} s/example")
    be.prefix_reuse = False
    without = per_example(be, items, args.max_tokens)
    note(f"{len(items)} examples without: steady prefill {without['prefill_s']:.2f} s/example")
    return {"model": name, "install": rec, "load_s": load_s, "rss_mb": rss, "peak_mb": peak_mb(),
            "prefill_1k": p1k, "prefill_4k": p4k, "decode_1k": d1k, "decode_4k": d4k, "with": with_r,
            "without": without, "when": time.strftime("%Y-%m-%d %H:%M"), "machine": platform.machine(),
            "cpus": os.cpu_count(), "threads": torch.get_num_threads(), "load": load,
            "command": f"python benchmarks/bench_models.py --models {name} --examples {args.examples} "
                       f"--position {args.position} --max-tokens {args.max_tokens}"}


def main(argv=None) -> int:
    import subprocess
    import tempfile
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=list(registry.REGISTRY))
    ap.add_argument("--examples", type=int, default=12, help="consecutive examples of one user")
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--position", type=float, default=0.1, help="where in the user's run to start (0..1)")
    ap.add_argument("--sizes", type=int, nargs=2, default=[1024, 4096], help="prompt lengths for tok/s")
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_models.md"))
    ap.add_argument("--row-json", help=argparse.SUPPRESS)  # internal: measure one model, write its row here
    args = ap.parse_args(argv)
    out_file(args.out)  # a bad --out is refused before any work
    unknown = [m for m in args.models if m not in registry.REGISTRY and not Path(m).is_dir()]
    if unknown:
        ap.error(f"--models: {', '.join(unknown)}: neither registered ({', '.join(registry.REGISTRY)}) nor a model directory")
    if not (paths.BENCHMARKS / "tracebench" / "examples.jsonl").exists():
        ap.error(f"no embedded TRACEBench at {paths.relative(paths.BENCHMARKS / 'tracebench')}: run `make reproduce` "
                 "(or `python -m pfc build`) first")
    if args.row_json:
        atomic.write_text(Path(args.row_json), json.dumps(measure(args.models[0], args), default=str))
        return 0
    out = Path(args.out)
    store = out.with_suffix(".json")  # every model's latest row; a run replaces the rows of its models
    rows = json.loads(store.read_text()) if store.exists() else {}
    for name in args.models:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, __file__, "--models", name, "--examples", str(args.examples), "--max-tokens",
                   str(args.max_tokens), "--position", str(args.position), "--sizes", *map(str, args.sizes),
                   "--row-json", str(Path(tmp) / "row.json")]
            if subprocess.run(cmd).returncode != 0:
                sys.exit(f"bench_models: measuring {name} failed (see above)")
            rows[name] = json.loads((Path(tmp) / "row.json").read_text())
        atomic.write_text(store, json.dumps(rows, indent=1) + "\n")
        write(out, [rows[m] for m in [*registry.REGISTRY, *sorted(set(rows) - set(registry.REGISTRY))] if m in rows])
    print(f"wrote {paths.relative(out)} and {paths.relative(store)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(script_main("bench_models", main))
