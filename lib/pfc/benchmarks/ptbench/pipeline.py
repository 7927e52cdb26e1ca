"""PTBench's steps of ``make reproduce`` (``pfc.report.pipeline.planning``): our PTool build, the baselines that
support it, the nearest-train baseline, ``BACKEND``'s run (on the official test data when ``PFC_PTBENCH_DIR`` is set,
else ours) and ptbench.ipynb. Plans only."""
from __future__ import annotations

from pathlib import Path

from pfc import paths
from pfc.benchmarks.ptbench import SPLITS
from pfc.data.ptool.build import DEFAULT_VERSION  # in the key: a build of another synthesis is rebuilt (or refused)
from pfc.run.backends.builtin import BUILTINS
from pfc.train.sft import build_ptbench
from pfc.report.pipeline.step import Ask, Step, baseline_runs_step, rel, run_step

RANK = 2


def steps(ask: Ask) -> tuple[list[Step], list[Path]]:
    pt = paths.BENCHMARKS / "ptbench"
    out = [Step("build PTBench (PTool synthesis, seed 0)", None, {"seed": 0, "synthesis": DEFAULT_VERSION},
                [], [pt / "stats.json"], fn=lambda: build_ptbench(pt, 0))]
    # the baselines that support PTBench, and the memorization baseline (nearest-train: the answer of the most
    # similar request of our build's training split), in one step
    ids = {b: f"pt-{b}" for b in [*(b for b in ask.baselines if BUILTINS[b].supports("ptbench")), "nearest-train"]}
    out.append(baseline_runs_step(f"PTBench: the {len(ids)} baselines' runs ({', '.join(ids)})", "ptbench", pt, ids,
                                  [pt / "stats.json"]))
    runs = [paths.RUNS / r for r in ids.values()]
    if ask.backend:  # the official test data when PFC_PTBENCH_DIR is set (and its prompt, read by the runner), else ours
        official = paths.ptbench_dir()
        data = official or pt
        inputs = [official / s / "data.json" for s in SPLITS] if official else [pt / "stats.json"]
        d, st = run_step(f"PTBench run {ask.backend} {ask.model}" + (" (official data)" if official else ""),
                         f"pt-{'official-' if official else ''}{ask.own}", inputs, benchmark="ptbench",
                         examples=rel(data), backend=ask.backend, model=ask.model)
        runs.append(d)
        out.append(st)
    ft = paths.REPORTS / "ptbench_finetune.json"
    out.append(Step("PTBench synthesis, baselines, tables", "ptbench.ipynb",
                    {"out_dir": rel(paths.INTERIM / "ptbench" / "pipeline"), "finetune_report": rel(ft)},
                    [ft], [], copy_name="ptbench"))
    return out, runs
