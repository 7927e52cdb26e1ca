"""A local OpenAI-compatible endpoint for tests: ``http.server`` on loopback, no model behind it.

``Endpoint`` subclasses say what to answer (``reply``); ``serve`` runs one in a thread and yields its
``/v1`` base URL. Every request body is kept in ``bodies`` so a test can read the prompts it was sent.
It is not a model: it never looks at the request beyond storing it.
"""
import contextlib
import http.server
import json
import threading


class Endpoint(http.server.BaseHTTPRequestHandler):
    """Answers each POST with ``reply()`` as JSON; ``bodies`` collects the decoded requests (per class)."""
    bodies: list = []

    def do_POST(self):  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).bodies.append(json.loads(raw or b"{}"))
        status, payload = self.reply()
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def completion(content: str) -> dict:
    """A chat.completion answer with ``content`` and usage filled in."""
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


@contextlib.contextmanager
def serve(handler):
    """Serve ``handler`` (an ``Endpoint`` subclass) on a free loopback port; yields the base URL.
    ``handler.bodies`` starts empty."""
    handler.bodies = []
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/v1"
    finally:
        srv.shutdown()
        srv.server_close()
