"""A response cache in SQLite, keyed by backend (and its code version), model, messages, tools and sampling.

Only successful responses are stored: a failed request is retried next time, never replayed as an answer. Responses are
stored as ASCII JSON (a lone surrogate stays a ``\\ud800`` escape), so whatever is cached can be written out again. Safe
for several writers at once on one machine (concurrent runs, a sweep's workers): WAL mode, each ``put`` its own
transaction, and a writer waits up to ``BUSY_TIMEOUT_S`` for another's commit; WAL survives kill -9.
``synchronous=NORMAL``: a commit is not fsynced (the WAL is, at each checkpoint), so a power loss may forget the last
answers, never corrupt the file; a cache miss only asks again. SQLite over a network file system is not safe: a sweep
across nodes gives each node its own cache file. A file that is not a cache (corrupt, truncated) is a ``UserError``
naming it; a stored row that no longer parses is a miss (asked again and overwritten). The on-disk format (one table
``responses(key, response)``) is unchanged since the first version.

    >>> c = ResponseCache(":memory:"); c.get({"a": 1}) is None
    True
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path

from pfc.errors import UserError

RESPONSE_FIELDS = {"text", "tool_calls", "usage", "latency_s", "cost"}  # Response.to_json()


def cache_key(backend: str, model: str, messages, tools, sampling: dict, version: str = "") -> str:
    """``version``: the backend's code version (built-in backends), so changed code never replays old answers."""
    blob = json.dumps({"backend": backend, "model": model, "messages": messages, "tools": tools,
                       "sampling": sampling, "version": version}, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


BUSY_TIMEOUT_S = 120.0


class ResponseCache:
    def __init__(self, path):
        self.path = str(path)
        try:
            if self.path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            # openai callbacks may run in a worker thread; timeout: wait for other processes' writes
            self.db = sqlite3.connect(self.path, check_same_thread=False, timeout=BUSY_TIMEOUT_S)
            self._setup(time.monotonic() + BUSY_TIMEOUT_S)
        except (sqlite3.DatabaseError, OSError) as e:
            raise self._unusable(e) from None

    def _setup(self, deadline: float) -> None:
        """WAL mode and the table. Two processes creating one new file at once can get "database is
        locked" at once, without SQLite's busy wait (switching the journal mode takes an exclusive lock that the busy
        handler does not wait for), so a locked setup is retried until ``deadline``."""
        delay = 0.005
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")  # per connection; see the module docstring
                self.db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, response TEXT NOT NULL)")
                self.db.commit()
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) and "busy" not in str(e) or time.monotonic() > deadline:
                    raise
                self.db.rollback()
                time.sleep(delay)
                delay = min(delay * 2, 0.2)

    def _unusable(self, e) -> UserError:
        if "full" in str(e) or "I/O error" in str(e):  # disk full / file-size limit: the cache is fine, the disk not
            return UserError(f"cannot write the response cache ({e}); free space and re-run the same command "
                             "(finished rows are kept)", file=self.path)
        return UserError(f"the response cache cannot be used ({e}); move it aside to start a new one, "
                         "or run with --no-cache", file=self.path)

    def get(self, key):
        try:
            row = self.db.execute("SELECT response FROM responses WHERE key = ?", (str(key),)).fetchone()
        except sqlite3.DatabaseError as e:
            raise self._unusable(e) from None
        if row is None:
            return None
        try:
            hit = json.loads(row[0])
        except (ValueError, TypeError):
            return None
        return hit if isinstance(hit, dict) and set(hit) <= RESPONSE_FIELDS else None

    def put(self, key, response: dict) -> None:
        try:
            with self.db:  # one transaction per response: committed (or rolled back) before the next
                self.db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?)",
                                (str(key), json.dumps(response, ensure_ascii=True)))
        except sqlite3.DatabaseError as e:
            raise self._unusable(e) from None

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self.db.close()
