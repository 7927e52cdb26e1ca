"""A packaged real model on vLLM's CPU build -> the "vLLM" section of reports/perf_models.md.

    .venv-vllm/bin/python benchmarks/bench_vllm.py [--model qwen2.5-coder-0.5b] [--examples 12 --position 0.1]

The same measurements as ``bench_models.py`` (the ``hf`` runtime), on a local vLLM OpenAI server
(``benchmarks/vllm_server.py``, prefix caching on): server start seconds (load + warm-up), resident
memory of the server's processes, prefill and decode tokens/s at 1k and 4k prompt tokens, and the
same consecutive TRACEBench examples of one user (full history, native tools) with and without
prefix reuse. "Without" salts each request's prefix cache with its own ``cache_salt`` (vLLM's
per-request cache isolation), so both columns come from one server. Prefill and decode seconds
are the server's own (``vllm:request_prefill_time_seconds`` / ``…decode…`` from ``/metrics``),
not client latency. Needs ``make test-vllm``'s venv and ``make models``; numbers are
measurements, never assertions. It does not install vLLM.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pfc.io import atomic  # noqa: E402
from pfc import paths  # noqa: E402
from pfc.models import registry  # noqa: E402
from vllm_server import prefix_cache_stats, read_metrics, serve  # noqa: E402
from pfc.errors import out_file, script_main  # noqa: E402
from bench_models import VLLM_MARK as MARK, user_examples  # noqa: E402

def server_timing(before: dict, after: dict) -> dict:
    """Server-side prefill/decode seconds and prefix-cache hit tokens between two /metrics reads."""
    d = lambda k: after.get(k, 0.0) - before.get(k, 0.0)  # noqa: E731
    hb, ha = prefix_cache_stats(before) or {}, prefix_cache_stats(after) or {}
    return {"prefill_s": d("vllm:request_prefill_time_seconds_sum"),
            "decode_s": d("vllm:request_decode_time_seconds_sum"),
            "hits": (ha.get("hits") or 0) - (hb.get("hits") or 0)}


def tree_memory_mb(pid: int) -> tuple[float, float]:
    """(RSS, peak RSS) in MB summed over a process and its descendants (vLLM runs its engine in a child)."""
    def kids(p):
        try:
            return [int(c) for t in Path(f"/proc/{p}/task").iterdir()
                    for c in (t / "children").read_text().split()]
        except OSError:
            return []
    todo, seen, rss, hwm = [pid], set(), 0.0, 0.0
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1]) / 1024
                elif line.startswith("VmHWM:"):
                    hwm += int(line.split()[1]) / 1024
        except OSError:
            continue
        todo += kids(p)
    return rss, hwm


def main(argv=None) -> int:
    from openai import OpenAI
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--examples", type=int, default=12)
    ap.add_argument("--position", type=float, default=0.1)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_models.md"))
    args = ap.parse_args(argv)
    out_file(args.out)  # a bad --out is refused before any work
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a killed benchmark still stops its server
    try:
        import vllm
    except ImportError:
        sys.exit("bench_vllm: vLLM is not installed in this Python; run `make bench-vllm` (it builds .venv-vllm)")
    if not (paths.BENCHMARKS / "tracebench" / "examples.jsonl").exists():
        sys.exit("bench_vllm: no embedded TRACEBench: run `make reproduce` (or `python -m pfc build`) first")
    if registry.installed(args.model) is None:
        sys.exit(f"bench_vllm: {args.model} is not installed: run `make models`")
    items = user_examples(args.examples, args.position)
    note = lambda m: print(f"[bench_vllm] {m}", file=sys.stderr, flush=True)  # noqa: E731
    load = os.getloadavg()[0]
    log = Path(os.environ.get("TMPDIR", "/tmp")) / "bench_vllm_server.log"
    t0 = time.perf_counter()
    with serve(registry.model_dir(args.model), "m", log, dtype=args.dtype, max_model_len=32768) as url:
        start_s = time.perf_counter() - t0
        note(f"server up in {start_s:.0f} s (log {log})")
        client = OpenAI(base_url=url, api_key="local", timeout=3600, max_retries=0)
        port = url.rsplit(":", 1)[1].split("/")[0]
        server_pid = next(int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                          and (p / "cmdline").exists() and b"api_server" in (p / "cmdline").read_bytes()
                          and port.encode() in (p / "cmdline").read_bytes())
        speed = {}
        for n in (1024, 4096):
            rng = random.Random(n)
            ids = [rng.randrange(1000, 20000) for _ in range(n)]
            m0 = read_metrics(url)
            r = client.completions.create(model="m", prompt=ids, max_tokens=16, temperature=0,
                                          extra_body={"cache_salt": f"speed-{n}", "ignore_eos": True})
            t = server_timing(m0, read_metrics(url))
            speed[n] = (n / t["prefill_s"], (r.usage.completion_tokens - 1) / t["decode_s"])
            note(f"{n}-token prompt: prefill {speed[n][0]:.0f} tok/s, decode {speed[n][1]:.1f} tok/s")
        passes = {}
        for label, salt in (("without", lambda i: f"isolated-{i}"), ("with", lambda i: "shared")):
            rows = []
            for i, (ex, (prompt, specs)) in enumerate(items):
                m0, w0 = read_metrics(url), time.perf_counter()
                r = client.chat.completions.create(model="m", messages=prompt.messages, tools=specs, temperature=0,
                                                   max_tokens=args.max_tokens, seed=0,
                                                   extra_body={"cache_salt": salt(i)})
                t = server_timing(m0, read_metrics(url))
                rows.append({"id": ex.id, "prompt_tokens": r.usage.prompt_tokens, "wall_s": time.perf_counter() - w0,
                             **t})
                note(f"  {label} {ex.id}: {r.usage.prompt_tokens} prompt tokens, {t['hits']:.0f} cached, "
                     f"prefill {t['prefill_s']:.2f} s")
            passes[label] = rows
        rss, hwm = tree_memory_mb(server_pid)
    cores = re.findall(r"core ids=\[([^\]]*)\]", log.read_text(errors="replace"))
    rec = {"model": args.model, "version": vllm.__version__, "machine": platform.machine(), "cpus": os.cpu_count(),
           "engine_cores": cores[-1] if cores else None, "load": load, "start_s": start_s, "rss_mb": rss,
           "peak_mb": hwm, "speed": speed, "passes": passes, "when": time.strftime("%Y-%m-%d %H:%M"),
           "args": {k: v for k, v in vars(args).items() if k != "out"}}
    atomic.write_text(Path(args.out).with_name("perf_vllm.json"), json.dumps(rec, indent=1) + "\n")
    write(Path(args.out), rec)
    note(f"wrote {paths.relative(Path(args.out))} and reports/perf_vllm.json")
    return 0


def write(path: Path, rec: dict) -> None:
    steady = lambda rows, k: sum(r[k] for r in rows[1:]) / max(len(rows) - 1, 1)  # noqa: E731
    w, wo = rec["passes"]["with"], rec["passes"]["without"]
    speed = {int(k): v for k, v in rec["speed"].items()}
    a = argparse.Namespace(**rec["args"])
    lines = [MARK, "", f"Measured by `benchmarks/bench_vllm.py` on {rec['when']} (vLLM {rec['version']}, CPU build, "
             f"{a.dtype}) on {rec['machine']}, {rec['cpus']} cores, the engine bound to core(s) "
             f"[{rec['engine_cores']}] (vLLM keeps one core for its API server), load average {rec['load']:.1f} at "
             "start; the server's own prefill/decode seconds from `/metrics`. Same "
             f"{a.examples} examples as the `hf` rows (position {a.position}, at most {a.max_tokens} new tokens); "
             "\"without\" gives each request its own `cache_salt`, so nothing is shared.", "",
             "| model | server start s | RSS MB (peak) | prefill tok/s 1k / 4k | decode tok/s 1k / 4k |",
             "|---|---:|---:|---:|---:|",
             f"| {a.model} | {rec['start_s']:.0f} | {rec['rss_mb']:.0f} ({rec['peak_mb']:.0f}) | {speed[1024][0]:.0f} / {speed[4096][0]:.0f} | "
             f"{speed[1024][1]:.1f} / {speed[4096][1]:.1f} |", "",
             "| model | prompt tokens | cached tokens | prefill s without | prefill s with | prefill speed-up | "
             "s/example without | s/example with |", "|---|---:|---:|---:|---:|---:|---:|---:|",
             f"| {a.model} | {steady(wo, 'prompt_tokens'):.0f} | {steady(w, 'hits'):.0f} | "
             f"{steady(wo, 'prefill_s'):.2f} | {steady(w, 'prefill_s'):.2f} | "
             f"{steady(wo, 'prefill_s') / max(steady(w, 'prefill_s'), 1e-9):.1f}× | {steady(wo, 'wall_s'):.1f} | "
             f"{steady(w, 'wall_s'):.1f} |", "",
             "| # | example | prompt tokens | cached tokens | prefill s without | prefill s with |",
             "|---:|---|---:|---:|---:|---:|"]
    lines += [f"| {i + 1} | {a['id']} | {a['prompt_tokens']} | {b['hits']:.0f} | {a['prefill_s']:.2f} | "
              f"{b['prefill_s']:.2f} |" for i, (a, b) in enumerate(zip(wo, w))]
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    head = old.split(MARK)[0].rstrip() + "\n\n" if old else ""
    atomic.write_text(path, head + "\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(script_main("bench_vllm", main))
