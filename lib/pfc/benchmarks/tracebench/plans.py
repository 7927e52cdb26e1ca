"""TRACEBench's entries in the real-model plan (``pfc.plans.real_models``): ``n`` examples covering every
vagueness level and history bin (``pfc.plans.sampling.tracebench_sample``), history ``last_k`` and
``retrieved``. Plans only: running them is ``pfc.plans.real_models.execute``'s job."""
from __future__ import annotations

from pathlib import Path

from pfc.benchmarks.tracebench import ADAPTER
from pfc.plans.sampling import tracebench_sample

N = 16                                   # default examples per history mode
N_HELP = "per history mode; 16 = every level x bin cell"
RANK = {"tracebench-last_k": 0, "tracebench-retrieved": 9}  # the order real_models runs the plan in


def real_models(run, n: int, seed: int, data: Path | None = None) -> list:
    """The model's runs (``run(name, benchmark, examples, ids, strategy=, history=)`` makes each)."""
    tb = Path(data) if data else ADAPTER.data_dir()
    exs, _ = ADAPTER.scoring.load(tb, None)
    ids = tracebench_sample(exs, seed, n=n)
    return [run(f"tracebench-{hist}", "tracebench", tb, ids, history=hist) for hist in ("last_k", "retrieved")]
