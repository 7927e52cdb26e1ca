"""What the notebooks call beside the report modules: an output-directory parameter (:func:`out_dir`), a
list of run directories (:func:`split_dirs`) and demo runs for a notebook's defaults (:func:`demo_runs`); the
walkthrough's examples, the real small model's stratified sample and where that model is installed are the
sample run's plan (``pfc.plans.sample_run``), re-exported here.

Does not plan or run ``make reproduce`` (:mod:`pfc.report.pipeline`); the notebooks reach these names
through ``pfc.report.pipeline``, which re-exports them.
"""
from __future__ import annotations

from pathlib import Path

from pfc import paths
from pfc.plans.sample_run import (REAL_MODEL_NAME, real_model_dir, stratified_sample,  # noqa: F401 - re-exported
                                  walkthrough_examples)
from pfc.data.build import build_tracebench
from pfc.run.config import RunConfig
from pfc.run.runner import execute


def out_dir(value: str, prefix: str = "pfc-") -> Path:
    """A notebook's output directory parameter (relative: under ``PFC_OUTPUT_ROOT``); empty: a fresh temporary one
    (``pfc.paths.scratch_dir``)."""
    return paths.output(value) if value else paths.scratch_dir(prefix)


def split_dirs(value: str) -> list[Path]:
    """Comma-separated directories, each read where ``pfc.paths.source`` finds it."""
    return [paths.source(p.strip()) for p in str(value).split(",") if p.strip()]


def demo_runs(root, backends=("oracle", "history-prior", "no-history"), users: int = 2, records: int = 150,
              seed: int = 1) -> list[Path]:
    """A tiny TRACEBench (2 simulated users) and baseline runs on it, under ``root`` (for defaults and tests)."""
    root = Path(root)
    bench = root / "tracebench"
    if not (bench / "examples.jsonl").exists():
        build_tracebench(bench, users=users, seed=seed, records=records, progress=False)
    dirs = []
    for b in backends:
        d = root / "runs" / b
        execute(RunConfig("tracebench", bench, b, d, cache_path=root / "cache.sqlite", progress=False))
        dirs.append(d)
    return dirs
