"""``make reproduce``'s prompt-format grid steps (issue 65): the baselines in every cell, then notebook 11.

The grid's cells and requests are the reference plan's (``pfc.plans.format_grid``: 7 cells, 200 of the reference
sample's 400 TRACEBench requests). The pipeline never runs a real model: it runs the ``history-prior`` and
``no-history`` baselines in every cell (:func:`baseline_step`, :func:`run_baselines`, seconds: they read no prompt, so each must score the same
in every cell, which notebook 11 checks), and gives notebook 11 the committed real-model grid runs
(:func:`committed_runs`: each reference root's ``format/`` runs holding a finished row), naming none when none is
committed yet. Only plans: running is ``pfc.report.pipeline.running``'s job.
"""
from __future__ import annotations

from pathlib import Path

from pfc import benchmarks, paths
from pfc.io.reuse import reading_once
from pfc.plans import format_grid as G
from pfc.plans.format_grid import GRID_FOLDER
from pfc.plans.reference import tracebench_ids
from pfc.report.pipeline.step import Step, rel, run_replacing
from pfc.report.reference import run as reference
from pfc.report.reference.run import answered

GRID_BASELINES = ("history-prior", "no-history")


def baseline_dir(baseline: str, cell: str) -> Path:
    return paths.RUNS / f"grid-{baseline}" / cell


def run_baselines(bench: Path) -> None:
    """Every grid baseline in every cell on the build ``bench`` (resumed; redone when the plan changed)."""
    with reading_once():
        exs, _ = benchmarks.get(G.GRID_BENCHMARK).scoring.load(bench, None)
        ids = tuple(G.grid_ids(exs, tracebench_ids(exs)))
        for b in GRID_BASELINES:
            for cell, variant, native in G.cells():
                run_replacing(G.GRID_BENCHMARK, paths.source(rel(bench)), b, baseline_dir(b, cell), ids=ids,
                              history="last_k", k=10, prompt_variant=variant, native=native)


def baseline_step(bench: Path) -> Step:
    """Every grid baseline in every cell, into ``data/runs/grid-<baseline>/<cell>``."""
    outs = [baseline_dir(b, c) / "predictions.jsonl" for b in GRID_BASELINES for c, _, _ in G.cells()]
    return Step(f"format grid: {', '.join(GRID_BASELINES)} in each of the {len(G.cells())} prompt cells", None,
                {"baselines": list(GRID_BASELINES), "cells": [c for c, _, _ in G.cells()]},
                [bench / "examples.jsonl"], outs, fn=lambda: run_baselines(bench))


def committed_runs(root: Path | None = None) -> list[Path]:
    """The committed real-model grid runs with a finished row (any reference root's ``format/`` runs)."""
    root = Path(root or reference.ROOT)
    return sorted(d for base in reference.plan_roots(root) if (base / GRID_FOLDER).is_dir()
                  for d in (base / GRID_FOLDER).iterdir() if d.is_dir() and answered(d))


def notebook_step(n_boot: int) -> Step:
    """Notebook 11 on the baselines' cells and the committed real-model grid runs."""
    base = [baseline_dir(b, c) for b in GRID_BASELINES for c, _, _ in G.cells()]
    real = committed_runs()
    out = paths.REPORTS / "format_grid"
    return Step("prompt-format grid", "11_format_sensitivity.ipynb",
                {"baseline_runs": ",".join(rel(d) for d in base), "real_runs": ",".join(rel(d) for d in real),
                 "out_dir": rel(out), "n_boot": n_boot, "seed": 0},
                [p for d in base + real for p in (d / "predictions.jsonl", d / "run.json")],
                [out / "format_grid.json"], copy_name="11_format_sensitivity")


def steps(bench: Path, n_boot: int) -> list[Step]:
    return [baseline_step(bench), notebook_step(n_boot)]
