"""ToolSpectrum's steps of ``make reproduce`` (``pfc.report.pipeline.planning``): on the release, when configured,
the oracle's and the two history baselines' runs, ``BACKEND``'s run, and the release views (toolspectrum.ipynb). Plans
only."""
from __future__ import annotations

import sys
from pathlib import Path

from pfc import paths
from pfc.benchmarks.toolspectrum import DATA_ENV, release_dir
from pfc.report.pipeline.step import Ask, Step, baseline_runs_step, rel, run_step
from pfc.run.backends.builtin import ON_LARGE_DATA

RANK = 1


def steps(ask: Ask) -> tuple[list[Step], list[Path]]:
    release = release_dir()
    if not (release is not None and (release / "data" / "dataset_persona.json").exists()):
        if ask.backend:
            print(f"reproduce: no ToolSpectrum release at {release} ({DATA_ENV}); the {ask.backend} run on "
                  "it is left out", file=sys.stderr)
        return [], []
    # the release is large: the baselines declared to run on one (the oracle and the two history baselines)
    ids = {b: f"ts-{b}" for b in ask.baselines if b in ON_LARGE_DATA}
    out = [baseline_runs_step(f"ToolSpectrum: the {len(ids)} baselines' runs ({', '.join(ids)})", "toolspectrum",
                              release, ids, [release / "data"])]
    ts_runs = [paths.RUNS / r for r in ids.values()]
    if ask.backend:
        d, st = run_step(f"ToolSpectrum run {ask.backend} {ask.model}", f"ts-{ask.own}", [release / "data"],
                         benchmark="toolspectrum", examples=rel(release), backend=ask.backend, model=ask.model)
        ts_runs.append(d)
        out.append(st)
    out.append(Step("ToolSpectrum release views", "toolspectrum.ipynb",
                    {"release_dir": rel(release), "runs": ",".join(rel(d) for d in ts_runs),
                     "figures_dir": rel(paths.REPORTS / "toolspectrum")},
                    [release / "data", *[d / "predictions.jsonl" for d in ts_runs]],
                    [paths.REPORTS / "toolspectrum"], copy_name="toolspectrum"))
    return out, ts_runs
