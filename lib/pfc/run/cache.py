"""A response cache in SQLite, keyed by backend (and its code version), model, messages, tools and sampling.

Only successful responses are stored: a failed request is retried next time, never
replayed as an answer. Safe for one writer at a time (a run); WAL mode survives kill -9.

    >>> c = ResponseCache(":memory:"); c.get({"a": 1}) is None
    True
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path


def cache_key(backend: str, model: str, messages, tools, sampling: dict, version: str = "") -> str:
    """``version``: the backend's code version (built-in backends), so changed code never replays old answers."""
    blob = json.dumps({"backend": backend, "model": model, "messages": messages, "tools": tools,
                       "sampling": sampling, "version": version}, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class ResponseCache:
    def __init__(self, path):
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), check_same_thread=False)  # openai callbacks may run in a worker thread
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, response TEXT NOT NULL)")
        self.db.commit()

    def get(self, key):
        row = self.db.execute("SELECT response FROM responses WHERE key = ?", (str(key),)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key, response: dict) -> None:
        self.db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?)", (str(key), json.dumps(response)))
        self.db.commit()

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self.db.close()
