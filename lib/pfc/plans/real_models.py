"""The real-model report's plan: a real packaged model (Qwen2.5-Coder-0.5B on CPU) beside the built-in baselines.

Samples (seeded, stratified) and one run directory per configuration under ``data/runs/real/``
(resumable, response-cached: a re-run costs nothing). Scoring them and ``reports/real_models.md``
are the report stage's (``pfc.report.real_models``, which is also the command line).

- TRACEBench (embedded default): ``n_tracebench`` examples covering every vagueness level
  and every history bin (``pfc.plans.sampling.tracebench_sample``, its seeded random draw); history
  ``last_k`` and ``retrieved``.
- ToolSpectrum (release, read in place): ``n_toolspectrum`` random samples per subset
  (profile, environment, both); strategies zero-shot and hierarchical.
- PTBench: ``n_ptbench`` seeded records of each test split (trained and untrained users) of our
  offline PTool synthesis (``pfc build ptbench --seed 0``), in the official format.

Each step is the model's run (one ``RunConfig``, backend ``hf``); :func:`execute` runs it and each baseline's
variant of it. It does not pick models or change prompts: everything goes through ``pfc.run.runner``.

    python -m pfc.report.real_models --model qwen2.5-coder-0.5b          # run what is missing, then report
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from pfc import benchmarks, paths
from pfc.benchmarks.toolspectrum import SUBSETS as _RELEASE_FILES
from pfc.errors import UserError
from pfc.io import atomic
from pfc.plans import Planned
from pfc.plans.sample_run import REAL_MODEL_NAME
from pfc.plans.sampling import subset, tracebench_sample
from pfc.run.backends.builtin import GOLD_FREE
from pfc.run.config import RunConfig

SUBSETS = {subset: f"{stem}.json" for stem, subset in _RELEASE_FILES.items()}  # subset -> its release file
MODEL_BACKEND = "hf"


def run_dir(name: str, backend: str) -> Path:
    return paths.RUNS / "real" / f"{name}--{backend}"


def plan(n_tracebench: int = 16, n_toolspectrum: int = 3, n_ptbench: int = 8, k: int = 10, seed: int = 0,
         tracebench=None, model: str = REAL_MODEL_NAME, max_tokens: int = 128,
         max_tokens_toolspectrum: int = 256) -> list[Planned]:
    """Every configuration, as the model's run. ``tracebench``: the built TRACEBench directory (default
    ``data/benchmarks/tracebench``, which ``make reproduce`` builds); ``max_tokens_toolspectrum``: the
    ToolSpectrum answers' limit (its JSON answer format with typed keys runs longer)."""
    def run(name, bench, examples, ids, strategy="zero_shot", history="full", tokens=max_tokens) -> Planned:
        return Planned(name, RunConfig(bench, examples, MODEL_BACKEND, run_dir(name, MODEL_BACKEND), model=model,
                                       strategy=strategy, history=history, k=k, ids=tuple(ids),
                                       sampling={"max_tokens": tokens}))
    tb = Path(tracebench) if tracebench else paths.BENCHMARKS / "tracebench"
    exs, _ = benchmarks.get("tracebench").load(tb, None)
    ids = tracebench_sample(exs, seed, n=n_tracebench)
    runs = [run(f"tracebench-{hist}", "tracebench", tb, ids, history=hist) for hist in ("last_k", "retrieved")]
    ts = paths.toolspectrum_dir()
    if ts is not None and (ts / "data").is_dir():
        for strategy in ("zero_shot", "hierarchical"):
            for sub, fname in SUBSETS.items():
                exs, _ = benchmarks.get("toolspectrum").load(ts / "data" / fname, None)
                runs.append(run(f"toolspectrum-{sub}-{strategy}", "toolspectrum", ts / "data" / fname,
                                subset([e.id for e in exs], n_toolspectrum, f"{seed}:{sub}"), strategy,
                                tokens=max_tokens_toolspectrum))
    pt = ptbench_data(seed)
    for split in ("test_trained_user", "test_untrained_user"):
        exs, _ = benchmarks.get("ptbench").load(pt / split / "data.json", None)
        runs.append(run(f"ptbench-{split.split('_')[1]}", "ptbench", pt / split / "data.json",
                        subset([e.id for e in exs], n_ptbench, f"{seed}:{split}")))
    return runs


def ptbench_data(seed: int = 0) -> Path:
    """Our offline PTool synthesis (``pfc build ptbench --seed``), the one ``make reproduce`` builds."""
    from pfc.train.sft import build_ptbench
    return build_ptbench(paths.BENCHMARKS / "ptbench" if seed == 0 else paths.BENCHMARKS / f"ptbench_seed{seed}", seed)


def baseline(step: Planned, backend: str) -> RunConfig:
    """A built-in baseline's variant of the model's run: the same examples and settings, no model, its own
    directory, the papers' sampling, no progress bar."""
    return replace(step.config, backend=backend, model="", sampling={}, out_dir=run_dir(step.name, backend),
                   progress=False)


def execute(runs: list[Planned], backends=(*GOLD_FREE, MODEL_BACKEND), progress: bool = True,
            cache_path=None) -> None:
    """Every run of ``runs`` with each baseline and the model (the plan is the authority over its
    directories: one made by an older plan moves to ``attic/``, its answers coming from the response cache)."""
    from pfc.run.runner import execute_or_replace
    for r in runs:
        for backend in backends:
            cfg = r.config if backend == r.config.backend else baseline(r, backend)
            cfg = replace(cfg, cache_path=cache_path, progress=progress and cfg.progress)
            try:
                execute_or_replace(cfg, lambda e: print(f"{r.name}: {backend}: the plan changed ({e}); the old run "
                                                        "goes to attic/, answers already given come from the response "
                                                        "cache", file=sys.stderr))
            except (UserError, NotImplementedError) as e:  # a baseline that cannot run on this benchmark
                atomic.write_text(Path(cfg.out_dir) / "unsupported.txt", f"{e}\n")
                print(f"{r.name}: {backend}: {e}", file=sys.stderr)
