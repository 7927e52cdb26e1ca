"""What the notebooks call beside the report modules: an output-directory parameter (:func:`out_dir`), a
list of run directories (:func:`split_dirs`; a notebook's demo runs are ``pfc.plans.demo``'s); the walkthrough's
examples, the real small model's stratified sample and where that model is installed are the sample run's plan
(``pfc.plans.sample_run``), re-exported here.

Does not plan or run ``make reproduce`` (:mod:`pfc.report.pipeline`); the notebooks reach these names through
``pfc.report.pipeline``, which re-exports them.
"""
from __future__ import annotations

from pathlib import Path

from pfc import paths
from pfc.plans.sample_run import (REAL_MODEL_NAME, real_model_dir, stratified_sample,  # noqa: F401 - re-exported
                                  walkthrough_examples)


def out_dir(value: str, prefix: str = "pfc-") -> Path:
    """A notebook's output directory parameter (relative: under ``PFC_OUTPUT_ROOT``); empty: a fresh temporary one
    (``pfc.paths.scratch_dir``)."""
    return paths.output(value) if value else paths.scratch_dir(prefix)


def split_dirs(value: str) -> list[Path]:
    """Comma-separated directories, each read where ``pfc.paths.source`` finds it."""
    return [paths.source(p.strip()) for p in str(value).split(",") if p.strip()]
