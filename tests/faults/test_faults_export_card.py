"""Fault suite: the dataset card ``pfc export`` writes prints a build command that runs: with the build's seed and
users when its ``stats.json`` records them, without those flags (the builder's defaults) when it does not, as for
a dose variant set's folder — never ``--users ? --seed unknown``. Checked with pfc's own argument parser."""
import re
import shlex

import pytest

from pfc.cli import _parser
from pfc.integrations.hf_datasets import card

COUNTS = {"test": {"examples": 4, "refusals": 0, "users": 2}}
DOSE = {"third_party": None, "source": "simulated phone logs",
        "derived": ["pfc perturb --kind dose:0,4 --seed 0 (pfc.data.counterfactual.sample: 2 anchors)"]}


def build_commands(text: str) -> list[list[str]]:
    return [shlex.split(c) for c in re.findall(r"`(pfc build [^`]*)`", text)]


@pytest.mark.parametrize("benchmark, stats, where, flags", [
    ("tracebench", {}, DOSE, {}),  # a dose set's folder: no stats.json
    ("tracebench", {"seed": 3, "table2": {"users": 5}}, None, {"seed": 3, "users": 5}),
    ("tracebench", {"seed": 7}, None, {"seed": 7}),
    ("ptbench", {}, DOSE, {}),
    ("ptbench", {"seed": 2}, None, {"seed": 2}),
])
def test_the_card_prints_a_build_command_pfc_parses(benchmark, stats, where, flags):
    commands = build_commands(card(benchmark, COUNTS, stats, "cc-by-4.0", where))
    assert len(commands) == 1 and commands[0][:3] == ["pfc", "build", benchmark]
    args = _parser().parse_args(commands[0][1:])  # argparse exits (SystemExit 2) on a command that cannot run
    assert args.benchmark == benchmark and args.out == "DIR"
    for flag, value in flags.items():
        assert getattr(args, flag) == value
    assert "?" not in " ".join(commands[0]) and "unknown" not in " ".join(commands[0])
