"""Real components, no mocks: a tiny model built here, used through `hf`, and served by
`transformers serve` on 127.0.0.1 for the `openai` backend (tools, retries across a server
restart, resume and cache)."""
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from pfc.errors import MissingDependency, UserError
from pfc import paths
from pfc.run.backends import Request, get
from pfc.eval.parsing import parse
from pfc.run.config import RunConfig
from pfc.run.runner import execute
from pfc.run.writer import finished_ids

WANT = {"app": "Luckin", "function": "order_coffee", "arguments": {"drink": "Latte"}}
# tiny_model: tests/conftest.py (built once per session, shared with the sweep tests)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`transformers serve` on loopback, startable and stoppable."""

    def __init__(self, model_dir, tmp):
        self.model_dir, self.port, self.tmp, self.proc = model_dir, _free_port(), tmp, None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, wait: float = 240):  # a loaded shared machine can take minutes to import the server
        (self.tmp / "hf-cache").mkdir(exist_ok=True)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(self.tmp / "hf-cache")}
        exe = shutil.which("transformers", path=os.path.dirname(sys.executable))
        self.proc = subprocess.Popen([exe, "serve", str(self.model_dir), "--host", "127.0.0.1", "--port",
                                      str(self.port), "--device", "cpu"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + wait
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("transformers serve did not become healthy")

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc = None


@pytest.fixture(scope="module")
def server(tiny_model, tmp_path_factory, monkeypatch_module):
    srv = Server(tiny_model, tmp_path_factory.mktemp("srv")).start()
    monkeypatch_module.setenv("OPENAI_BASE_URL", srv.url)
    monkeypatch_module.setenv("OPENAI_API_KEY", "sk-local-test-key-not-a-secret-0000000000")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _calls(output):
    r = parse(output)
    return [c.to_dict() for c in r.calls] if r.ok else r.error


@pytest.mark.model
def test_hf_backend_greedy_output_is_a_deterministic_tool_call(tiny_model, tiny_tracebench):
    from pfc.schema import load_examples
    from pfc.benchmarks.tracebench.prompts import build
    from pfc.schema import load_tools
    ex = load_examples(tiny_tracebench / "examples.jsonl")[0]
    tools = {t.key: t for t in load_tools(tiny_tracebench / "tools.json")}
    prompt, specs = build(ex, tools, history="last_k", k=5)
    be = get("hf", str(tiny_model))
    req = Request(prompt.messages, specs, {"temperature": 0, "max_tokens": 48, "seed": 0})
    a, b = be.generate([req, req])
    assert a.error is None and a.text == b.text and _calls(a.text) == [WANT]
    assert a.usage["prompt_tokens"] > 100 and a.usage["completion_tokens"] > 5


@pytest.mark.model
def test_openai_backend_with_native_tools_against_a_real_server(server, tiny_model, tiny_tracebench, tmp_path):
    u = execute(RunConfig("tracebench", tiny_tracebench, "openai", tmp_path / "r", model=str(tiny_model), limit=4, history="last_k", k=5,
            cache_path=tmp_path / "c.sqlite", progress=False, sampling={"temperature": 0, "max_tokens": 48}))
    rows = [json.loads(l) for l in (tmp_path / "r" / "predictions.jsonl").read_text().splitlines()]
    assert u["failures"] == 0 and len(rows) == 4 and all(_calls(r["output"]) == [WANT] for r in rows)
    assert u["prompt_tokens"] > 0 and u["completion_tokens"] > 0 and "p90" in u["latency_s"]
    again = execute(RunConfig("tracebench", tiny_tracebench, "openai", tmp_path / "r", model=str(tiny_model), limit=4, history="last_k", k=5,
                cache_path=tmp_path / "c.sqlite", progress=False, sampling={"temperature": 0, "max_tokens": 48}))
    assert again["backend_calls"] == 0  # resume: nothing left; cache would have answered anyway
    for f in (tmp_path / "r").iterdir():  # the key lives in the environment only
        assert "sk-local-test-key" not in f.read_text()


@pytest.mark.model
def test_openai_backend_retries_across_a_server_restart(server, tiny_model, tiny_tracebench, tmp_path):
    out = tmp_path / "r"
    result = {}

    def go():
        result["usage"] = execute(RunConfig("tracebench", tiny_tracebench, get("openai", str(tiny_model), concurrency=1, max_retries=8,
                                                       backoff=0.5, backoff_max=4),
                              out, limit=12, history="last_k", k=5, batch_size=2, cache_path=tmp_path / "c.sqlite",
                              progress=False, sampling={"temperature": 0, "max_tokens": 48}))

    t = threading.Thread(target=go)
    t.start()
    deadline = time.time() + 120
    while time.time() < deadline and len(finished_ids(out / "predictions.jsonl")) < 2:
        time.sleep(0.1)
    server.stop()       # trap: requests in flight now fail with connection errors
    time.sleep(1.5)
    server.start()      # same port
    t.join(timeout=240)
    assert result["usage"]["failures"] == 0 and len(finished_ids(out / "predictions.jsonl")) == 12


def test_openai_backend_needs_a_key_from_the_environment(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        get("openai", "some-model")


def test_hf_backend_without_a_model_is_a_clear_error():
    with pytest.raises(UserError, match="--model"):
        get("hf", "")


@pytest.mark.model
def test_vllm_backend_says_how_to_install_it_when_missing():
    pytest.importorskip("torch")
    try:
        import vllm  # noqa: F401
        pytest.skip("vLLM is installed in this environment (covered by make test-vllm)")
    except ImportError:
        pass
    with pytest.raises(MissingDependency, match="make test-vllm"):
        get("vllm", "some-model")


@pytest.mark.model
def test_build_screens_anchors_and_role_plays_queries_through_a_real_backend(tiny_model, tmp_path):
    # the tiny model answers everything with a coffee tool call: no KEEP/DROP verdict, no valid query
    out = tmp_path / "b"
    p = subprocess.run([sys.executable, "-m", "pfc", "build", "tracebench", "--users", "1", "--records", "115",
                        "--queries", "12", "--seed", "1", "--out", str(out), "--llm-backend", "hf",
                        "--llm-model", str(tiny_model), "--llm-screen", "--llm-queries"],
                       capture_output=True, text=True, cwd=paths.ROOT, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    from pfc.schema import load_examples
    examples = load_examples(out / "examples.jsonl")
    assert examples and {e.meta["llm_verdict"] for e in examples} == {"unclear"}
    assert {e.meta["generator"] for e in examples if e.meta["vagueness"] != "most_vague"} == {"template-fallback"}
