"""One run of a sweep, wherever it executes: take the run directory, call the runner, say how it ended.

:func:`execute` is what a Ray task (or a model-holding actor) calls for one
:class:`pfc.sweep.plan.PlannedRun`: it calls ``pfc.run.runner.execute`` on the run's ``RunConfig`` (which takes
the run directory's writer lock) — the same function ``pfc run`` calls, so the directory, its
resume, run identity and ``pfc score`` are unchanged — and returns a plain dict:
``status`` (``complete``, ``failed``), ``error`` (one line: why), ``done``/``n_examples``,
``host``/``pid``, seconds and the predictions' sha256. A mistake in the run (refused
identity, missing file, failed requests) is a ``failed`` result, not an exception, so Ray
does not retry it; only a dying process or node is retried by Ray. It schedules nothing.
"""
from __future__ import annotations

import socket
import time
from pathlib import Path
import os
from dataclasses import replace

from pfc.io.lock import writer_lock as _writer_lock
from pfc.provenance import sha256_path
from pfc.run import runner
from pfc.run.checks import failure_summary



def writer_lock(run_dir: Path):
    """The run directory's one-writer lock (:func:`pfc.io.lock.writer_lock`)."""
    return _writer_lock(run_dir, "run directory")


def predictions_sha256(run_dir: Path) -> str | None:
    p = Path(run_dir) / "predictions.jsonl"
    return sha256_path(p) if p.is_file() else None


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}".rstrip(": ")


def execute(planned, out, cache_path=None, backend=None) -> dict:
    """Run (or resume) ``planned`` into ``<out>/runs/<name>``; ``backend``: an already loaded backend object
    (a model kept loaded across runs), else the runner builds it by name."""
    run_dir = planned.run_dir(out)
    t0 = time.time()
    result = {"host": socket.gethostname(), "pid": os.getpid(), "status": "failed", "error": None}
    try:
        # the runner takes the run directory's writer lock (pfc.io.lock) itself
        usage = runner.execute(replace(planned.config, out_dir=run_dir, cache_path=cache_path,
                                       backend=backend if backend is not None else planned.config.backend))
        line = failure_summary(usage, str(run_dir))
        result.update(done=usage.get("done"), n_examples=usage.get("n_examples"), error=line,
                      status="complete" if line is None and usage.get("done") == usage.get("n_examples")
                      else "failed")
        if result["status"] == "failed" and not line:
            result["error"] = f"{usage.get('done')} of {usage.get('n_examples')} examples done"
    except KeyboardInterrupt as e:  # the runner's Ctrl-C (RunInterrupted): rows so far are saved
        result["error"] = _one_line(e)
    except Exception as e:  # noqa: BLE001 - any error of this run is its result; the others go on
        result["error"] = _one_line(e)
    result["seconds"] = round(time.time() - t0, 3)
    result["predictions_sha256"] = predictions_sha256(run_dir)
    return result
