"""The toy benchmark's entries in the real-model plan (``pfc.plans.real_models``): the first ``n`` examples,
zero-shot."""
from __future__ import annotations

from pathlib import Path

from toybench import ADAPTER

N, N_HELP = 2, "toy examples"


def real_models(run, n: int, seed: int, data: Path | None = None) -> list:
    d = Path(data) if data else ADAPTER.data_dir()
    exs, _ = ADAPTER.scoring.load(d, None)
    return [run("toybench-zero_shot", "toybench", d, [e.id for e in exs][:n])]
