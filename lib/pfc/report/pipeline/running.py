"""The reproduce loop: run (or skip) each planned step in order, keeping each finished step's key in the
pipeline state (``reports/pipeline.json``, replaced atomically) under the checkout's pipeline lock
(``.pfc-pipeline.lock``).

A step planned with ``background`` (the real model's sampled run: minutes of prefill on two cores, while the steps after
it are mostly single-threaded notebooks) starts in a thread and the loop goes on; the first later step that reads or
writes its folder (:func:`needs`) waits for it, and so does the end of the loop. Its state and record are written when
it is waited for, by the loop's own thread, so the state file has one writer. A failure elsewhere waits for it too (its
finished work is kept); an interrupt ends its kernel (:func:`~pfc.report.pipeline.notebook.stop_kernels`), the run's
finished rows kept for its resume.

Does not plan the steps (:mod:`pfc.report.pipeline.planning`) nor write the index (:mod:`pfc.report.pipeline.index`); a
failed step becomes one :class:`~pfc.report.pipeline.step.StepFailed` naming it, its own exception the cause.
"""
from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

from pfc import paths
from pfc.errors import UserError
from pfc.io import atomic
from pfc.io.lock import writer_lock
from pfc.report.pipeline.notebook import execute, stop_kernels
from pfc.report.pipeline.step import Step, StepFailed, lib_hash, rel, step_key

PIPELINE_LOCK = ".pfc-pipeline.lock"


def reproduce(steps: list[Step], force: bool = False, log=print, state_path=None) -> list[dict]:
    """Run (or skip) every step in order; returns one record per step, in plan order. One pipeline per checkout
    at a time: the state's folder is held (``pfc.io.lock``, lock file ``.pfc-pipeline.lock``) for the whole run, so a
    second ``make reproduce`` is refused naming the first; the state is replaced atomically."""
    state_path = Path(state_path or paths.REPORTS / "pipeline.json")
    with writer_lock(state_path.parent, "checkout's pipeline", "make reproduce", name=PIPELINE_LOCK):
        return _Loop(steps, force, log, state_path).run()


def needs(step: Step, folder: Path) -> bool:
    """Whether ``step`` touches a background step's ``folder``: an input or output is it, lies in it or holds it,
    or a parameter names it (notebook 08 reads the sample run through its ``real_run`` parameter)."""
    folder = Path(folder)
    for p in map(Path, [*step.inputs, *step.outputs]):
        if p == folder or folder in p.parents or p in folder.parents:
            return True
    return any(rel(folder) in str(v) for v in step.params.values())


class _Background(threading.Thread):
    """One background step's work; :attr:`error` holds what it raised."""

    def __init__(self, i: int, step: Step, key: str):
        super().__init__(name=f"pfc-step-{i}", daemon=True)
        self.i, self.step, self.key, self.error, self.t0 = i, step, key, None, time.perf_counter()

    def run(self):
        try:
            _do(self.step)
        except BaseException as e:  # noqa: BLE001 - reported by the loop's thread when it waits for this one
            self.error = e


def _tty() -> bool:
    return sys.stderr.isatty()


def _do(s: Step) -> None:
    s.fn() if s.fn else execute(s)


def _failed(s: Step, e: BaseException) -> StepFailed:
    where = f" (see reports/notebooks/{s.copy_name}.ipynb)" if s.notebook else ""
    return StepFailed(f"step '{s.name}' failed{where}: {type(e).__name__}: "
                      f"{str(e).strip().splitlines()[-1][:300] if str(e).strip() else ''}")


class _Loop:
    def __init__(self, steps, force, log, state_path):
        self.steps, self.force, self.log, self.state_path = steps, force, log, state_path
        state = json.loads(state_path.read_text()) if state_path.exists() else {}
        if not isinstance(state, dict):
            raise UserError("not a pipeline state (expected a JSON object); delete it to run every step",
                            file=rel(state_path))
        self.state, self.records, self.pending = state, [None] * len(steps), []

    def run(self) -> list[dict]:
        try:
            return self._run()
        except KeyboardInterrupt:  # also while waiting after a failure: the background step's kernel ends now,
            stop_kernels()         # its thread tidies up, the finished steps are kept
            for bg in self.pending:
                bg.join(10)
            stop_kernels(now=True)  # one that did not stop in time
            raise

    def _run(self) -> list[dict]:
        lib = lib_hash()
        try:
            for i, s in enumerate(self.steps, 1):
                for bg in [b for b in self.pending if needs(s, b.step.background)]:
                    self._wait(bg)
                self._step(i, s, lib)
        except (StepFailed, UserError):
            for bg in list(self.pending):  # its finished work is kept, then the first failure is reported
                self._say(f"reproduce: a step failed; waiting for '{bg.step.name}', running beside it")
                try:
                    self._wait(bg, quiet=True)
                except StepFailed as e:
                    self._say(f"reproduce: {e}")
            raise
        for bg in list(self.pending):
            self._wait(bg)
        return self.records

    def _step(self, i: int, s: Step, lib: str) -> None:
        key = step_key(s, lib)
        n = len(self.steps)
        if self.state.get(s.name) == key and all(Path(o).exists() for o in s.outputs) and not self.force:
            self._done(i, s, key, "skipped (inputs unchanged)", 0.0, record_state=False)
            return
        if s.background:
            for bg in list(self.pending):  # one background step at a time
                self._wait(bg)
            self._say(f"[{i}/{n}] {s.name} … running, beside the steps after it")
            bg = _Background(i, s, key)
            self.pending.append(bg)
            bg.start()
            return
        self._say(f"[{i}/{n}] {s.name} … running")
        t0 = time.perf_counter()
        try:
            _do(s)
        except Exception as e:  # noqa: BLE001 - one line naming the step and the executed copy
            raise _failed(s, e) from e
        self._done(i, s, key, "ran", time.perf_counter() - t0)

    def _wait(self, bg: _Background, quiet: bool = False) -> None:
        if not quiet and bg.is_alive():
            self._say(f"[{bg.i}/{len(self.steps)}] waiting for {bg.step.name} …")
        while bg.is_alive():  # a timed join: Ctrl-C still reaches this thread
            bg.join(0.5)
        self.pending.remove(bg)
        if bg.error is not None:
            if isinstance(bg.error, Exception):
                raise _failed(bg.step, bg.error) from bg.error
            raise bg.error
        self._done(bg.i, bg.step, bg.key, "ran", time.perf_counter() - bg.t0)

    def _say(self, line: str) -> None:
        """One log line. While a background step's progress bar redraws itself on the terminal (carriage returns),
        a line first clears the bar's half-drawn line, so the two never run together; the bar redraws below. (In a log
        file the bar is whole lines, ``pfc.progress``, so there is nothing to clear.)"""
        self.log(("\r\x1b[K" if self.pending and _tty() else "") + line, flush=True)

    def _done(self, i: int, s: Step, key: str, status: str, dt: float, record_state: bool = True) -> None:
        if record_state:
            self.state[s.name] = key
            atomic.write_json(self.state_path, self.state, sort_keys=True)  # a crash keeps finished steps
        self._say(f"[{i}/{len(self.steps)}] {s.name}: {status} ({dt:.1f}s)")
        self.records[i - 1] = {"step": s.name, "status": status, "seconds": round(dt, 1), "notebook": s.notebook,
                               "copy": f"notebooks/{s.copy_name}.ipynb" if s.notebook else None, "params": s.params}
