"""The toy benchmark's steps of ``make reproduce`` (``pfc.report.pipeline.planning``): its build (its own builder)
and two built-in baselines' runs on it, which join the tables (notebook 04 writes its section's tables)."""
from __future__ import annotations

from pfc import paths
from pfc.report.pipeline.step import Step, baseline_runs_step

RANK = 3  # after the packaged benchmarks' steps


def steps(ask):
    from toybench.build import build
    d = paths.BENCHMARKS / "toybench"
    ids = {b: f"toy-{b}" for b in ("oracle", "random")}
    return ([Step("build the toy benchmark", None, {"n": 6, "seed": 0}, [], [d / "examples.jsonl"], fn=lambda: build(d)),
             baseline_runs_step("toy benchmark: the baselines' runs", "toybench", d, ids, [d / "examples.jsonl"])],
            [paths.RUNS / r for r in ids.values()])
