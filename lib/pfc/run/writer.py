"""A run directory on disk: typed prediction rows appended as they come, failures, config and usage.

:class:`PredictionRow` is one line of ``predictions.jsonl`` — the id, the raw output (text, or an
assistant message with native tool calls), whether it came from the response cache, what
generating it cost (``generation``) and, for the hierarchical strategy, step 1 (``domain_step``).
The type lives in :mod:`pfc.rows` (the scorer, a lower stage, reads rows back through it).
:class:`RunWriter` appends rows and failures and flushes each at once to the operating system (a
killed process, kill -9 included, loses at most the requests in flight). It fsyncs predictions.jsonl
with a row that comes ``SYNC_EVERY_S`` or more after the last fsync, and when the run ends: a machine
that loses power may lose the rows written since the last fsync (the kernel usually writes them out
within seconds anyway); an fsync per row cost the built-in baselines half their time. :func:`finished_ids` cuts off a partial last line (a run killed mid-write)
and says which ids are done, so a resumed run writes no duplicate and misses no row. Rows are
JSON that always encodes as UTF-8 (``pfc.io.atomic.dumps``); config and usage are replaced
atomically. The caller holds the run directory's writer lock (``pfc.run.runner``). This module
does not call any backend (``pfc.run.cached``) nor decide what to run (``pfc.run.runner``).

    >>> PredictionRow("e1", "[]", cached=True).to_json()
    {'id': 'e1', 'output': '[]', 'cached': True}
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from pfc.errors import UserError
from pfc.io import atomic
from pfc.rows import PredictionRow  # noqa: F401 - the row type (pfc.rows), re-exported for the runner
from pfc.io.safepath import refuse_symlink


SYNC_EVERY_S = 1.0   # fsync predictions.jsonl at most this often (and at the end); each row is flushed at once
APPEND_KEPT = "the rows written before are kept; re-run the same command to resume"


def finished_ids(pred_path: Path) -> set[str]:
    """Ids already in predictions.jsonl; a partial last line is truncated away first."""
    if not refuse_symlink(pred_path, "run file").exists():
        return set()
    data = pred_path.read_bytes()
    cut = data.rfind(b"\n") + 1
    if cut != len(data):
        with pred_path.open("r+b") as fh:
            fh.truncate(cut)
        data = data[:cut]
    done = set()
    for n, line in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), 1):
        if line.strip():
            try:
                done.add(str(json.loads(line)["id"]))
            except (ValueError, KeyError, TypeError, RecursionError):
                raise UserError("not a prediction row written by pfc run (no JSON object with an id); "
                                "move the file aside or use --force", file=str(pred_path), line=n) from None
    return done


class RunWriter:
    """Writes one run directory: ``config.json``, ``predictions.jsonl``, ``failures.jsonl``, ``usage.json``."""

    def __init__(self, out):
        self.out = Path(out)
        self.predictions = self.out / "predictions.jsonl"
        self.failures = self.out / "failures.jsonl"
        self._preds = self._fails = None
        self._synced = 0.0

    def write_config(self, config: dict) -> None:
        atomic.write_json(self.out / "config.json", config)

    def finished(self) -> set[str]:
        return finished_ids(self.predictions)

    def __enter__(self) -> "RunWriter":
        """Failures are this invocation's: the previous file goes (its requests are retried)."""
        self.failures.unlink(missing_ok=True)
        from pfc.io.safepath import open_append  # never through a link planted in the run directory
        self._preds = open_append(self.predictions)
        self._fails = open_append(self.failures)
        return self

    def __exit__(self, *exc) -> None:
        for fh in (self._preds, self._fails):
            if fh is not None:
                try:
                    fh.flush()
                    os.fsync(fh.fileno())
                except OSError:  # a write that already failed (full disk) was reported by write()/fail()
                    pass
                finally:
                    try:
                        fh.close()
                    except OSError:
                        pass
        self._preds = self._fails = None

    def write(self, row: PredictionRow) -> None:
        try:
            self._preds.write(atomic.dumps(row.to_json()) + "\n")  # lossless: a lone surrogate stays an escape
            self._preds.flush()  # in the operating system now: a killed process loses nothing written
            if time.monotonic() - self._synced >= SYNC_EVERY_S:
                os.fsync(self._preds.fileno())
                self._synced = time.monotonic()
        except OSError as e:  # a full disk: the rows before stay; a cut last line is removed on resume
            raise atomic.write_failed(self.predictions, e, APPEND_KEPT) from None

    def fail(self, example_id: str, error: str) -> None:
        try:
            self._fails.write(atomic.dumps({"id": example_id, "error": error}) + "\n")
            self._fails.flush()
        except OSError as e:
            raise atomic.write_failed(self.failures, e, APPEND_KEPT) from None

    def write_usage(self, usage: dict) -> None:
        usage["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())  # UTC, no offset
        atomic.write_json(self.out / "usage.json", usage)

    def usage_done(self) -> int | None:
        """``done`` of the usage.json :meth:`write_usage` wrote; None when it is missing or unreadable."""
        try:
            usage = json.loads((self.out / "usage.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return usage.get("done") if isinstance(usage, dict) else None
