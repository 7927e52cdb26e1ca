"""The toy benchmark's prompts: the tools as native specs and the query; never the gold."""
from __future__ import annotations

import hashlib
import json

SYSTEM = "Call exactly one tool for the user's request."


def _specs(rb) -> list[dict]:
    return [{"type": "function", "function": {"name": f"{t.app}__{t.function}", "description": t.description,
                                              "parameters": t.parameters}} for t in rb.tools_by_key.values()]


def request(rb, example, domain=None):
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": example.query}], _specs(rb)


def template_identity() -> dict:
    return {"source": "own", "sha256": hashlib.sha256(json.dumps(SYSTEM).encode()).hexdigest()}
