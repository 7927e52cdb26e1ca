"""Run-path measurements -> reports/perf_runs.md.

    python benchmarks/bench_runs.py [--requests 32]

1. ``openai`` backend throughput at concurrency 1, 4 and 16 against ``transformers serve``
   on 127.0.0.1 (the locally built tiny model), beside a plain sequential client loop;
2. backend calls when a finished run is run again;
3. share of prompt tokens that repeat the previous request's prefix, our request order
   (user, then history length) versus dataset order;
4. prompt tokens per example for full, last-k (50) and retrieved (50) history.
Needs the model stack (``make venv-models``). Numbers are measurements, never assertions.
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from pfc.io import atomic  # noqa: E402
from pfc import paths  # noqa: E402
from pfc.errors import script_main, out_file  # noqa: E402


def tiny_model() -> Path:
    from tiny_model import build_tiny_model
    d = paths.ROOT / ".cache" / "tiny-model-v1"
    if not (d / "model.safetensors").exists():
        build_tiny_model(d)
    return d


def serve(model: Path, port: int, cache: Path) -> subprocess.Popen:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache)}
    exe = shutil.which("transformers", path=os.path.dirname(sys.executable))
    p = subprocess.Popen([exe, "serve", str(model), "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                return p
        except OSError:
            time.sleep(0.3)
    p.terminate()
    raise RuntimeError("server did not start")


def prefix_share(prompts: list[list[int]]) -> float:
    shared = total = 0
    for prev, cur in zip(prompts, prompts[1:]):
        n = 0
        for a, b in zip(prev, cur):
            if a != b:
                break
            n += 1
        shared, total = shared + n, total + len(cur)
    return shared / total if total else 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=32)
    ap.add_argument("--port", type=int, default=8791)
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_runs.md"))
    args = ap.parse_args(argv)
    out_file(args.out)  # a bad --out is refused before any work
    from transformers import AutoTokenizer

    from pfc.run.backends import get
    from pfc.data.build import build_tracebench
    from pfc.benchmarks.tracebench.prompts import build
    from pfc.run.config import RunConfig
    from pfc.run.runner import _ordered, execute
    from pfc.schema import load_examples, load_tools

    bench = paths.BENCHMARKS / "tracebench"
    if not (bench / "examples.jsonl").exists():
        build_tracebench(bench, progress=False)
    examples = load_examples(bench / "examples.jsonl")
    tools = {t.key: t for t in load_tools(bench / "tools.json")}
    model = tiny_model()
    tok = AutoTokenizer.from_pretrained(model)
    lines = ["# Run-path performance", "",
             f"Measured by `benchmarks/bench_runs.py` on {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}; the embedded TRACEBench build; the locally built tiny model "
             "(`benchmarks/tiny_model.py`) behind `transformers serve` on 127.0.0.1.", ""]

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        srv = serve(model, args.port, tmp / "hf")
        os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{args.port}/v1"
        os.environ.setdefault("OPENAI_API_KEY", "local")
        try:
            sampling = {"temperature": 0, "max_tokens": 32}
            rows = []
            import openai
            client = openai.OpenAI()
            reqs = [build(e, tools, history="last_k", k=5)[0].messages for e in examples[: args.requests]]
            t = time.perf_counter()
            for msgs in reqs:
                client.chat.completions.create(model=str(model), messages=msgs, temperature=0, max_tokens=32)
            rows.append(("sequential loop (plain client)", 1, time.perf_counter() - t))
            from pfc.run.backends import Request
            batch = [Request(m, None, dict(sampling, seed=0)) for m in reqs]
            for conc in (1, 4, 16):  # the backend alone: no cache, no file I/O
                be = get("openai", str(model), concurrency=conc)
                t = time.perf_counter()
                resp = be.generate(batch)
                assert not any(r.error for r in resp), [r.error for r in resp if r.error][:1]
                rows.append(("pfc openai backend (async)", conc, time.perf_counter() - t))
            execute(RunConfig("tracebench", bench, get("openai", str(model), concurrency=4), tmp / "c4", limit=args.requests,
                history="last_k", k=5, cache_path=tmp / "cache4.sqlite", progress=False, sampling=sampling))
            again = execute(RunConfig("tracebench", bench, get("openai", str(model), concurrency=4), tmp / "c4", limit=args.requests,
                        history="last_k", k=5, cache_path=tmp / "cache4.sqlite", progress=False, sampling=sampling))
        finally:
            srv.terminate()
            srv.wait()
    lines += ["## Throughput", "", f"{args.requests} requests (history last 5 records; 32 new tokens).", "",
              "| client | concurrency | seconds | requests/s |", "|---|---:|---:|---:|"]
    lines += [f"| {name} | {c} | {s:.2f} | {args.requests / s:.1f} |" for name, c, s in rows]
    lines += ["", "`transformers serve` generates one request at a time, so concurrency mostly overlaps "
              "client-side and network time here; a batching server (vLLM) gains more.", "",
              f"Re-running the finished run: **{again['backend_calls']} backend calls** "
              f"({again['already_done']} rows already done).", ""]

    sample = _ordered(examples)[:400]
    def toks(ex, mode, k=50):
        text = tok.apply_chat_template(build(ex, tools, history=mode, k=k)[0].messages, tokenize=False)
        return tok(text, add_special_tokens=False)["input_ids"]
    ours = [toks(e, "full") for e in sample]
    ids = {e.id for e in sample}
    dataset = [toks(e, "full") for e in examples if e.id in ids]
    import random
    shuffled = list(sample)
    random.Random(0).shuffle(shuffled)
    shuffled = [toks(e, "full") for e in shuffled]
    lines += ["## Prompt-prefix reuse (what prefix caching can reuse)", "",
              "| request order | share of prompt tokens repeating the previous request's prefix |", "|---|---:|",
              f"| ours (by user, then history length) | {prefix_share(ours):.1%} |",
              f"| dataset order (the build already writes users' examples together) | {prefix_share(dataset):.1%} |",
              f"| shuffled (seed 0) | {prefix_share(shuffled):.1%} |", "",
              "## Prompt tokens per example by history mode", "", "| history | median | p90 | max |", "|---|---:|---:|---:|"]
    for mode in ("full", "last_k", "retrieved"):
        n = [len(toks(e, mode)) for e in sample[::4]]
        q = statistics.quantiles(n, n=10)
        lines.append(f"| {mode}{'' if mode == 'full' else ' (k=50)'} | {statistics.median(n):,.0f} | {q[8]:,.0f} | {max(n):,} |")
    atomic.write_text(Path(args.out), "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(script_main("bench_runs", main))
