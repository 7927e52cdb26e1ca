"""A step of ``make reproduce`` and its key: the :class:`Step` type, the library hash, a step's SHA-256 key,
a notebook path parameter (:func:`rel`), the notebook-03 run step (:func:`run_step`) and the step of several built-in
baselines' runs on one build (:func:`baseline_runs_step`, through :func:`run_replacing`).

Does not plan the steps (:mod:`pfc.report.pipeline.planning`), run them (:mod:`pfc.report.pipeline.running`) or read any
benchmark itself; everything here is pure but :func:`lib_hash` and :func:`step_key`, which read the bytes they key, and
:func:`run_replacing`, which runs one baseline (the runner reads the build).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from pfc import paths
from pfc.provenance import sha256_path
from pfc.io.reuse import reading_once
from pfc.plans import Planned, executor
from pfc.run.checks import raise_if_failed
from pfc.run.config import RunConfig


class StepFailed(RuntimeError):
    """A step of the pipeline failed: the message names it; the step's own exception is its ``__cause__``."""


@dataclass
class Step:
    name: str
    notebook: str | None                  # notebooks/<notebook>; None: a Python step (fn)
    params: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)   # files or directories whose bytes key the step
    outputs: list = field(default_factory=list)  # must exist for the step to be skipped
    fn: object = None
    copy_name: str = ""                   # executed copy: reports/notebooks/<copy_name>.ipynb
    background: object = None             # the folder it writes, when it may run beside the steps after it
                                          # (pfc.report.pipeline.running: a later step touching the folder waits)


def lib_hash() -> str:
    h = hashlib.sha256()
    for f in sorted(paths.LIB.rglob("*.py")):
        h.update(paths.relative(f).encode() + f.read_bytes())
    return h.hexdigest()


def step_key(step: Step, lib: str) -> str:
    h = hashlib.sha256(lib.encode())
    h.update(json.dumps({"name": step.name, "params": step.params}, sort_keys=True).encode())
    if step.notebook:
        h.update((paths.NOTEBOOKS / step.notebook).read_bytes())
    for p in step.inputs:  # a file's bytes, or a directory's files (names + bytes); absent: None
        h.update(f"{paths.relative(Path(p))}:{sha256_path(p)}\n".encode())
    return h.hexdigest()


@dataclass(frozen=True)
class Ask:
    """What a benchmark package's ``pipeline.steps`` is asked for: the built-in baselines (in their order), and
    ``BACKEND``/``MODEL``'s run, ``own`` naming it (``data/runs/<prefix>-<own>``; no backend: none)."""
    baselines: tuple
    backend: str = ""
    model: str = ""
    own: str = ""


def rel(p) -> str:
    """A notebook parameter: under PFC_OUTPUT_ROOT relative to it (how ``paths.output``/``paths.source`` read it,
    whatever the two roots' depths), else relative to the repository."""
    r = os.path.relpath(os.path.abspath(p), paths.OUTPUT_ROOT)
    return Path(r).as_posix() if not r.startswith("..") else paths.relative(Path(p))


def run_step(name: str, run_id: str, inputs: list, **params) -> tuple[Path, Step]:
    """A notebook-03 model run into ``data/runs/<run_id>``: its directory and its pipeline step. The pipeline
    owns these directories: one made by an older plan (another model name, sample, …) moves to ``attic/`` and the run is
    redone, its answers coming from the response cache where the requests are unchanged."""
    d = paths.RUNS / run_id
    return d, Step(name, "03_run_model.ipynb", {**params, "run_id": run_id, "replace_changed": True}, inputs,
                   [d / "predictions.jsonl"],
                   copy_name=f"03_run_model-{run_id}")


def run_replacing(benchmark: str, examples, backend: str, out: Path, ids=None, **settings) -> None:
    """A built-in baseline's run into a pipeline-owned directory, as notebook 03 with ``replace_changed`` makes it
    (the same settings, so the same run identity): a run made by an older plan moves to ``attic/`` and is redone (cached
    answers reused); failed requests stop the step."""
    usage = executor.run(Planned(out.name, RunConfig(benchmark, examples, backend, out, ids=ids, progress=False,
                                                            **settings)),
                         replacing=True, tell=None)
    raise_if_failed(usage, paths.relative(out))


def baseline_runs_step(name: str, benchmark: str, examples: Path, run_ids: dict, inputs: list) -> Step:
    """One Python step for several built-in baselines' runs on one build (``run_ids``: ``{backend: run_id}``, each
    into ``data/runs/<run_id>``): the runs notebook 03 would make, in one ``pfc.io.reuse.reading_once`` block, so the
    build is read and hashed once for all of them. Through notebook 03 each run paid a kernel start and read and hashed
    the build again (15–23 s a TRACEBench run, most of it those reads). The baselines only read the shared examples; a
    model's run stays a notebook-03 step (:func:`run_step`), where people watch it."""
    dirs = {b: paths.RUNS / r for b, r in run_ids.items()}

    def run_all():
        with reading_once():
            for b, d in dirs.items():
                run_replacing(benchmark, paths.source(rel(examples)), b, d)

    return Step(name, None, {"benchmark": benchmark, "examples": rel(examples), "run_ids": dict(run_ids)}, inputs,
                [d / "predictions.jsonl" for d in dirs.values()], fn=run_all)
