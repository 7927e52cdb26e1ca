"""PTBench's entries in the real-model plan (``pfc.plans.real_models``): ``n`` seeded records of each test split
(trained and untrained users) of our offline PTool synthesis (:func:`data`), in the official format."""
from __future__ import annotations

from pathlib import Path

from pfc import paths
from pfc.benchmarks.ptbench import ADAPTER
from pfc.plans.sampling import subset
from pfc.train.sft import build_ptbench

N = 8                                    # default records per test split
N_HELP = "per test split (trained, untrained users)"
RANK = {"ptbench-trained": 4, "ptbench-untrained": 5}


def data(seed: int = 0) -> Path:
    """Our offline PTool synthesis (``pfc build ptbench --seed``), the one ``make reproduce`` builds."""
    return build_ptbench(paths.BENCHMARKS / "ptbench" if seed == 0 else paths.BENCHMARKS / f"ptbench_seed{seed}", seed)


def real_models(run, n: int, seed: int, data_dir: Path | None = None) -> list:
    pt = Path(data_dir) if data_dir else data(seed)
    runs = []
    for split in ("test_trained_user", "test_untrained_user"):
        exs, _ = ADAPTER.scoring.load(pt / split / "data.json", None)
        runs.append(run(f"ptbench-{split.split('_')[1]}", "ptbench", pt / split / "data.json",
                        subset([e.id for e in exs], n, f"{seed}:{split}")))
    return runs
