"""Reference runs of a real packaged model (Qwen2.5-Coder-0.5B on CPU) beside the built-in baselines.

Samples (seeded, stratified) and one run directory per configuration under ``data/runs/real/``
(resumable, response-cached: a re-run costs nothing). Scoring them and ``reports/real_models.md``
are the report stage's (``pfc.report.real_models``, which is also the command line).

- TRACEBench (embedded default): ``n_tracebench`` examples covering every vagueness level
  and every history bin (Latin diagonals of the level × bin grid); history ``last_k`` and ``retrieved``.
- ToolSpectrum (release, read in place): ``n_toolspectrum`` random samples per subset
  (profile, environment, both); strategies zero-shot and hierarchical.
- PTBench: ``n_ptbench`` seeded records of each test split (trained and untrained users) of our
  offline PTool synthesis (``pfc build ptbench --seed 0``), in the official format.

It does not pick models or change prompts: everything goes through ``pfc.run.runner.execute``.

    python -m pfc.report.real_models --model qwen2.5-coder-0.5b          # run what is missing, then report
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

from pfc import benchmarks, paths
from pfc.errors import UserError
from pfc.groups import history_bin
from pfc.run.backends.builtin import GOLD_FREE

from pfc.benchmarks.toolspectrum import SUBSETS as _RELEASE_FILES
from pfc.io import atomic

SUBSETS = {subset: f"{stem}.json" for stem, subset in _RELEASE_FILES.items()}  # subset -> its release file


def tracebench_sample(examples, n: int, seed: int) -> list[str]:
    """``n`` ids covering every vagueness level and every history bin with as few examples as possible:
    cells (level i, bin (i + j) mod 4) for j = 0, 1, … (Latin diagonals), one random example per cell,
    then random others up to ``n``."""
    from pfc.groups import HISTORY_BINS
    rng = random.Random(seed)
    levels = sorted({e.meta.get("vagueness") for e in examples}, key=str)
    cells: dict[tuple, list] = {}
    for e in sorted(examples, key=lambda e: e.id):
        cells.setdefault((e.meta.get("vagueness"), history_bin(int(e.meta.get("history_length", len(e.history))))),
                         []).append(e.id)
    order = [(lv, HISTORY_BINS[(i + j) % len(HISTORY_BINS)]) for j in range(len(HISTORY_BINS))
             for i, lv in enumerate(levels)]
    chosen: list[str] = []
    for cell in order:
        if len(chosen) >= n:
            break
        if cells.get(cell):
            chosen.append(rng.choice(cells[cell]))
    rest = sorted({e.id for e in examples} - set(chosen))
    chosen += rng.sample(rest, max(0, min(n - len(chosen), len(rest))))
    return sorted(chosen)


def plan(n_tracebench: int = 16, n_toolspectrum: int = 3, n_ptbench: int = 8, k: int = 10,
         seed: int = 0, tracebench=None) -> list[dict]:
    """Every configuration: benchmark, examples, ids, strategy, history. ``tracebench``: the built
    TRACEBench directory (default ``data/benchmarks/tracebench``, which ``make reproduce`` builds)."""
    runs = []
    tb = Path(tracebench) if tracebench else paths.BENCHMARKS / "tracebench"
    exs, _ = benchmarks.get("tracebench").load(tb, None)
    ids = tracebench_sample(exs, n_tracebench, seed)
    for hist in ("last_k", "retrieved"):
        runs.append({"name": f"tracebench-{hist}", "benchmark": "tracebench", "examples": tb, "ids": ids,
                     "strategy": "zero_shot", "history": hist, "k": k})
    ts = paths.toolspectrum_dir()
    if ts is not None and (ts / "data").is_dir():
        for strategy in ("zero_shot", "hierarchical"):
            for sub, fname in SUBSETS.items():
                exs, _ = benchmarks.get("toolspectrum").load(ts / "data" / fname, None)
                ids = sorted(random.Random(f"{seed}:{sub}").sample(sorted(e.id for e in exs), n_toolspectrum))
                runs.append({"name": f"toolspectrum-{sub}-{strategy}", "benchmark": "toolspectrum",
                             "examples": ts / "data" / fname, "ids": ids, "strategy": strategy,
                             "history": "full", "k": k})
    pt = ptbench_data(seed)
    for split in ("test_trained_user", "test_untrained_user"):
        exs, _ = benchmarks.get("ptbench").load(pt / split / "data.json", None)
        ids = sorted(random.Random(f"{seed}:{split}").sample(sorted(e.id for e in exs), min(n_ptbench, len(exs))))
        runs.append({"name": f"ptbench-{split.split('_')[1]}", "benchmark": "ptbench",
                     "examples": pt / split / "data.json", "ids": ids, "strategy": "zero_shot",
                     "history": "full", "k": k})
    return runs


def ptbench_data(seed: int = 0) -> Path:
    """Our offline PTool synthesis (``pfc build ptbench --seed``), the one ``make reproduce`` builds."""
    from pfc.run.sft import build_ptbench
    return build_ptbench(paths.BENCHMARKS / "ptbench" if seed == 0 else paths.BENCHMARKS / f"ptbench_seed{seed}", seed)


def run_dir(name: str, backend: str) -> Path:
    return paths.RUNS / "real" / f"{name}--{backend}"


def execute(runs: list[dict], model: str, sampling: dict, per_benchmark: dict | None = None,
            backends=(*GOLD_FREE, "hf"), progress: bool = True, cache_path=None) -> None:
    """Every run of ``runs`` with each baseline and the model; ``per_benchmark`` overrides ``sampling``
    for one benchmark (``{"toolspectrum": {"max_tokens": 256}}``)."""
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute_or_replace
    for r in runs:
        for backend in backends:
            out = run_dir(r["name"], backend)
            cfg = RunConfig(r["benchmark"], r["examples"], backend, out, model=model if backend == "hf" else "",
                            strategy=r["strategy"], history=r["history"], k=r["k"], ids=r["ids"],
                            progress=progress and backend == "hf", cache_path=cache_path,
                            sampling={**sampling, **(per_benchmark or {}).get(r["benchmark"], {})} if backend == "hf"
                            else {})
            try:  # the plan changed (another sample or sampling): it is the authority over its directories
                execute_or_replace(cfg, lambda e: print(f"{r['name']}: {backend}: the plan changed ({e}); the old run "
                                                        "goes to attic/, answers already given come from the response "
                                                        "cache", file=sys.stderr))
            except (UserError, NotImplementedError) as e:  # a baseline that cannot run on this benchmark
                atomic.write_text(out / "unsupported.txt", f"{e}\n")
                print(f"{r['name']}: {backend}: {e}", file=sys.stderr)
