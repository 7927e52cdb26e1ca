"""The real-model report's plan: a real packaged model (Qwen2.5-Coder-0.5B on CPU) beside the built-in baselines.

Samples (seeded, stratified) and one run directory per configuration under ``data/runs/real/`` (resumable,
response-cached: a re-run costs nothing). Scoring them and ``reports/real_models.md`` are the report stage's
(``pfc.report.real_models``, which is also the command line).

Each benchmark's package plans its own runs (``<package>.plans.real_models``): TRACEBench a sample covering every
vagueness level and history bin, ToolSpectrum samples per subset and strategy, PTBench records of each test split; an
outside benchmark (``PFC_BENCHMARKS``) the same way.

Each step is the model's run (one ``RunConfig``, backend ``hf``); :func:`execute` runs it and each baseline's variant of
it. It does not pick models or change prompts: everything goes through ``pfc.run.runner``.

    python -m pfc.report.real_models --model qwen2.5-coder-0.5b          # run what is missing, then report
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from pfc import benchmarks, paths
from pfc.io import atomic
from pfc.plans import Planned
from pfc.plans.sample_run import REAL_MODEL_NAME
from pfc.run.backends.builtin import GOLD_FREE
from pfc.run.config import RunConfig

MODEL_BACKEND = "hf"


def run_dir(name: str, backend: str) -> Path:
    return paths.RUNS / "real" / f"{name}--{backend}"


def parts() -> list:
    """``(adapter, its plans module)`` of every benchmark whose package plans real-model runs (``real_models`` in
    its ``plans`` module), in the order of their first run (``RANK``; none: last)."""
    found = [(a, m) for a in benchmarks.adapters() if a.has("plans")
             and hasattr(m := a.part("plans"), "real_models")]
    return sorted(found, key=lambda am: min(getattr(am[1], "RANK", {}).values(), default=len(found) * 100))


def rank(name: str) -> int:
    """Where run ``name`` comes in the order :func:`execute`'s caller runs the plan (its package's ``RANK``)."""
    ranks = {n: r for _, m in parts() for n, r in getattr(m, "RANK", {}).items()}
    return ranks.get(name, len(ranks))


def plan(n: dict | None = None, k: int = 10, seed: int = 0, data: dict | None = None, model: str = REAL_MODEL_NAME,
         max_tokens: int = 128, tokens: dict | None = None, only: tuple = ()) -> list[Planned]:
    """Every configuration, as the model's run, from each benchmark package's ``plans.real_models``. ``n``,
    ``data``, ``tokens``: per benchmark name, its sample size (default its ``N``), its data directory (default its own:
    ``make reproduce``'s build, the release) and its answers' limit (default its ``MAX_TOKENS``, else ``max_tokens``);
    ``only``: these benchmarks (default: all)."""
    n, data, tokens = n or {}, data or {}, tokens or {}
    runs = []
    for a, m in parts():
        if only and a.name not in only:
            continue
        limit = tokens.get(a.name) or getattr(m, "MAX_TOKENS", max_tokens)

        def run(name, bench, examples, ids, strategy="zero_shot", history="full", _limit=limit) -> Planned:
            return Planned(name, RunConfig(bench, examples, MODEL_BACKEND, run_dir(name, MODEL_BACKEND), model=model,
                                           strategy=strategy, history=history, k=k, ids=tuple(ids),
                                           sampling={"max_tokens": _limit}))
        runs += m.real_models(run, n.get(a.name) or m.N, seed, data.get(a.name))
    return runs


def baseline(step: Planned, backend: str) -> RunConfig:
    """A built-in baseline's variant of the model's run: the same examples and settings, no model, its own
    directory, the papers' sampling, no progress bar."""
    return replace(step.config, backend=backend, model="", sampling={}, out_dir=run_dir(step.name, backend),
                   progress=False)


def execute(runs: list[Planned], backends=(*GOLD_FREE, MODEL_BACKEND), progress: bool = True,
            cache_path=None) -> None:
    """Every run of ``runs`` with each baseline and the model, through the one executor
    (:func:`pfc.plans.executor.execute`; the plan is the authority over its directories: one made by an older plan moves
    to ``attic/``, its answers coming from the response cache). A baseline that cannot run on a benchmark leaves
    ``unsupported.txt`` in its directory instead of stopping the plan."""
    from pfc.plans import executor

    def refused(step: Planned, e: Exception) -> None:
        atomic.write_text(Path(step.config.out_dir) / "unsupported.txt", f"{e}\n")
        print(f"{step.name}: {step.config.backend}: {e}", file=sys.stderr)

    steps = [Planned(r.name, replace(cfg, cache_path=cache_path, progress=progress and cfg.progress))
             for r in runs for cfg in (r.config if b == r.config.backend else baseline(r, b) for b in backends)]
    executor.execute(steps, replacing=True, refused=refused)
