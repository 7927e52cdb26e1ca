"""The reproduce loop: run (or skip) each planned step in order, keeping each finished step's key in the
pipeline state (``reports/pipeline.json``, replaced atomically) under the checkout's pipeline lock
(``.pfc-pipeline.lock``).

Does not plan the steps (:mod:`pfc.report.pipeline_plan`) nor write the index (:mod:`pfc.report.pipeline_index`);
a failed step becomes one :class:`~pfc.report.pipeline_step.StepFailed` naming it, its own exception the cause.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from pfc import paths
from pfc.errors import UserError
from pfc.io import atomic
from pfc.io.lock import writer_lock
from pfc.report.pipeline_exec import execute
from pfc.report.pipeline_step import Step, StepFailed, lib_hash, rel, step_key

PIPELINE_LOCK = ".pfc-pipeline.lock"


def reproduce(steps: list[Step], force: bool = False, log=print, state_path=None) -> list[dict]:
    """Run (or skip) every step in order; returns one record per step. One pipeline per checkout at a
    time: the state's folder is held (``pfc.io.lock``, lock file ``.pfc-pipeline.lock``) for the whole
    run, so a second ``make reproduce`` is refused naming the first; the state is replaced atomically."""
    state_path = Path(state_path or paths.REPORTS / "pipeline.json")
    with writer_lock(state_path.parent, "checkout's pipeline", "make reproduce", name=PIPELINE_LOCK):
        return _reproduce(steps, force, log, state_path)


def _reproduce(steps, force, log, state_path) -> list[dict]:
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    if not isinstance(state, dict):
        raise UserError("not a pipeline state (expected a JSON object); delete it to run every step",
                        file=rel(state_path))
    lib = lib_hash()
    records = []
    for i, s in enumerate(steps, 1):
        key = step_key(s, lib)
        fresh = state.get(s.name) == key and all(Path(o).exists() for o in s.outputs)
        t0 = time.perf_counter()
        if fresh and not force:
            status = "skipped (inputs unchanged)"
        else:
            log(f"[{i}/{len(steps)}] {s.name} … running", flush=True)
            try:
                s.fn() if s.fn else execute(s)
            except Exception as e:  # noqa: BLE001 - one line naming the step and the executed copy
                where = f" (see reports/notebooks/{s.copy_name}.ipynb)" if s.notebook else ""
                raise StepFailed(f"step '{s.name}' failed{where}: {type(e).__name__}: "
                                 f"{str(e).strip().splitlines()[-1][:300] if str(e).strip() else ''}") from e
            state[s.name] = key
            atomic.write_json(state_path, state, sort_keys=True)  # a crash keeps finished steps
            status = "ran"
        dt = time.perf_counter() - t0
        log(f"[{i}/{len(steps)}] {s.name}: {status} ({dt:.1f}s)", flush=True)
        records.append({"step": s.name, "status": status, "seconds": round(dt, 1), "notebook": s.notebook,
                        "copy": f"notebooks/{s.copy_name}.ipynb" if s.notebook else None, "params": s.params})
    return records
