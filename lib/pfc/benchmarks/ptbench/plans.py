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


def data_version(record: dict):
    """Which synthesis a run's ``config.json`` or an example's meta records (``pfc.data.ptool.synthesis``): the
    reports ask a benchmark's plans for its data version (``pfc.report.reference.run``), not its name."""
    from pfc.data.ptool.synthesis import data_version as synthesis
    return synthesis(record)


def history_builds() -> dict:
    """``{version name: build folder}`` of the syntheses kept buildable as history, beside today's build."""
    from pfc.data.ptool.synthesis import DEFAULT_VERSION, SPECS
    return {v.name: ADAPTER.name + v.suffix for n, v in SPECS.items() if n != DEFAULT_VERSION}


# the reference plan (pfc.plans.reference): its runs -> their test split; each run -> the layout of its
# layout-ablation run (the other one); the runs made again with the LoRA adapter (``<run>-lora``)
REFERENCE_SPLITS = {"ptbench-trained": "test_trained_user", "ptbench-untrained": "test_untrained_user"}
LAYOUT_ABLATION = {"ptbench-trained": "prefix", "ptbench-untrained": "prefix"}
LORA_RUNS = tuple(REFERENCE_SPLITS)
REFERENCE_RUNS = tuple(REFERENCE_SPLITS)  # every name reference() plans (before the LoRA ones)


def reference_data() -> Path:
    """The data the reference plan runs on: our synthesis, seed 0 (:func:`data`)."""
    return data(0)


def reference(run, lora, data_dir: Path) -> list:
    """The reference plan's PTBench steps: every record of both test splits (zero-shot, base model), then the LoRA
    adapter trained on the training split and both splits again with it (``lora(runs, train)``). ``run(name, examples)``
    makes a run step."""
    runs = [run(name, data_dir / split / "data.json") for name, split in REFERENCE_SPLITS.items()]
    return [*runs, *lora(runs, data_dir / "train" / "data.json")]
