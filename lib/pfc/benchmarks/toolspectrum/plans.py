"""ToolSpectrum's entries in the real-model plan (``pfc.plans.real_models``): ``n`` seeded samples per subset
of the release (profile, environment, both, read in place), strategies zero-shot and hierarchical; none when the release
is not found. Plans only."""
from __future__ import annotations

from pathlib import Path

from pfc.benchmarks.toolspectrum import ADAPTER, SUBSETS as _RELEASE_FILES
from pfc.plans.sampling import subset

N = 3                                    # default examples per subset and strategy
N_HELP = "per subset and strategy"
MAX_TOKENS, MAX_TOKENS_HELP = 256, "ToolSpectrum answers (its JSON answer format with typed keys runs longer)"
SUBSETS = {sub: f"{stem}.json" for stem, sub in _RELEASE_FILES.items()}  # subset -> its release file
RANK = {"toolspectrum-profile-hierarchical": 1, "toolspectrum-environment-hierarchical": 2,
        "toolspectrum-both-hierarchical": 3, "toolspectrum-profile-zero_shot": 6,
        "toolspectrum-environment-zero_shot": 7, "toolspectrum-both-zero_shot": 8}


def real_models(run, n: int, seed: int, data: Path | None = None) -> list:
    ts = Path(data) if data else ADAPTER.data_dir()
    if ts is None or not (ts / "data").is_dir():
        return []
    runs = []
    for strategy in ("zero_shot", "hierarchical"):
        for sub, fname in SUBSETS.items():
            exs, _ = ADAPTER.scoring.load(ts / "data" / fname, None)
            runs.append(run(f"toolspectrum-{sub}-{strategy}", "toolspectrum", ts / "data" / fname,
                            subset([e.id for e in exs], n, f"{seed}:{sub}"), strategy))
    return runs


# the reference plan (pfc.plans.reference): each run -> the layout of its layout-ablation run (the other one)
LAYOUT_ABLATION = {"toolspectrum": "paper"}
REFERENCE_RUNS = ("toolspectrum",)  # every name reference() plans (none without the release)


def reference_data() -> Path | None:
    """The data the reference plan runs on: the public release, when configured."""
    return ADAPTER.data_dir()


def reference(run, lora, data_dir: Path | None) -> list:
    """The reference plan's ToolSpectrum step: every example of the release (its three subsets in one run, so
    Table 3 gets one row across them), zero-shot, ``--layout prefix`` (toolset first: the ~13k-token prefix is shared by
    the whole subset); none without the release."""
    if data_dir is None or not (data_dir / "data").is_dir():
        return []
    return [run(REFERENCE_RUNS[0], data_dir, layout="prefix")]
