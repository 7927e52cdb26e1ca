"""TRACEBench's steps of ``make reproduce`` (``pfc.report.pipeline.planning``): preprocess (01), the build (02) and
every built-in baseline's run on it (:func:`build_steps`, which the studies after it read), and ``BACKEND``/ ``MODEL``'s
run on it (:func:`steps`). Plans only: running them is ``pfc.report.pipeline.running``'s job."""
from __future__ import annotations

from pathlib import Path

from pfc import paths
from pfc.report.pipeline.step import Ask, Step, baseline_runs_step, rel, run_step

RANK = 0  # its place among the benchmarks' steps (the model's run on each benchmark)


def build_steps(bench: Path, baselines) -> tuple[list[Step], list[Path]]:
    """Preprocess (01), build TRACEBench (02) and every built-in baseline's run on it (03)."""
    interim = paths.INTERIM / "tracebench"
    steps = [
        Step("preprocess", "01_preprocess.ipynb", {"out_dir": rel(interim), "figures_dir": rel(paths.FIGURES / "tracebench")},
             [], [interim / "histories.parquet"], copy_name="01_preprocess"),
        Step("build TRACEBench", "02_build_benchmark.ipynb",
             {"histories_dir": rel(interim), "out_dir": rel(bench), "figures_dir": rel(paths.FIGURES / "tracebench")},
             [interim / "histories.parquet"], [bench / "examples.jsonl"], copy_name="02_build_benchmark"),
    ]
    ids = {b: f"tb-{b}" for b in baselines}  # every built-in baseline on TRACEBench, in one step
    steps.append(baseline_runs_step(f"TRACEBench: the {len(ids)} baselines' runs ({', '.join(ids)})", "tracebench",
                                    bench, ids, [bench / "examples.jsonl"]))
    return steps, [paths.RUNS / r for r in ids.values()]


def steps(ask: Ask) -> tuple[list[Step], list[Path]]:
    """``BACKEND``/``MODEL``'s run on TRACEBench (none without a backend)."""
    if not ask.backend:
        return [], []
    bench = paths.BENCHMARKS / "tracebench"
    d, st = run_step(f"run {ask.backend} {ask.model}", f"tb-{ask.own}", [bench / "examples.jsonl"],
                     benchmark="tracebench", examples=rel(bench), backend=ask.backend, model=ask.model)
    return [st], [d]
