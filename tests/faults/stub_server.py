"""A local OpenAI-compatible stub server on 127.0.0.1 that misbehaves on purpose (fault suite helper).

``serve(mode)`` starts it in a thread and yields its base URL; ``mode`` says what every chat request
gets: ``ok`` (a normal answer), ``choices_empty`` (``"choices": []``), ``html`` (an HTML body with
status 200), ``cut_json`` (the JSON cut in the middle), ``http500``, ``no_message`` (a choice without
a message), ``bad_usage`` (usage of the wrong type), ``not_object`` (a JSON list), ``lone_surrogate``
(content with ``"\\ud800"``), ``slow`` (ok after 0.2 s, as a model would), ``flaky`` (500 the first time a request body is seen, ok the second time). ``hits``
counts requests; ``stub.mode = ...`` changes the behaviour of a running server (same URL).
"""
from __future__ import annotations

import http.server
import json
import threading
import time
from contextlib import contextmanager

ANSWER = '{"name": "A__f", "arguments": {}}'


def completion(content=ANSWER, **over):
    d = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
         "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
         "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    d.update(over)
    return d


def body_for(mode: str, seen_before: bool) -> tuple[int, str, bytes]:
    """(status, content type, body) for one request in ``mode``."""
    js = "application/json"
    if mode == "slow":
        time.sleep(0.2)
    if mode in ("ok", "slow") or (mode == "flaky" and seen_before):
        return 200, js, json.dumps(completion()).encode()
    if mode in ("http500", "flaky"):
        return 500, js, b'{"error": {"message": "internal error"}}'
    if mode == "choices_empty":
        return 200, js, json.dumps(completion(choices=[])).encode()
    if mode == "html":
        return 200, "text/html", b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    if mode == "cut_json":
        return 200, js, json.dumps(completion()).encode()[:60]
    if mode == "no_message":
        return 200, js, json.dumps(completion(choices=[{"index": 0, "finish_reason": "stop"}])).encode()
    if mode == "bad_usage":
        return 200, js, json.dumps(completion(usage="lots")).encode()
    if mode == "not_object":
        return 200, js, b"[1, 2, 3]"
    if mode == "lone_surrogate":
        return 200, js, json.dumps(completion(content="A\ud800B")).encode()  # ensure_ascii: "\\ud800" on the wire
    raise ValueError(mode)


class _Handler(http.server.BaseHTTPRequestHandler):
    state: dict = {}

    def do_POST(self):  # noqa: N802
        request = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with self.state["lock"]:
            self.state["hits"] += 1
            seen = request in self.state["seen"]
            self.state["seen"].add(request)
        status, ctype, body = body_for(self.state["mode"], seen)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


class Stub:
    def __init__(self, mode: str):
        state = {"hits": 0, "lock": threading.Lock(), "mode": mode, "seen": set()}
        handler = type("H", (_Handler,), {"state": state})
        self.state = state
        self.srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}/v1"

    @property
    def hits(self) -> int:
        return self.state["hits"]

    @property
    def mode(self) -> str:
        return self.state["mode"]

    @mode.setter
    def mode(self, value: str) -> None:
        body_for(value, False)  # a known mode
        self.state["mode"] = value


@contextmanager
def serve(mode: str):
    stub = Stub(mode)
    t = threading.Thread(target=stub.srv.serve_forever, daemon=True)
    t.start()
    try:
        yield stub
    finally:
        stub.srv.shutdown()
        stub.srv.server_close()
