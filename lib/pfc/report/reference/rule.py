"""Where each model stands against the history-prior rule: paired.json's ``rule`` pairs, model − rule.

Each model run the rule answers (``pfc.plans.rule.model_runs``: both models' paired runs) is paired with the rule's run
on the same ids (``pfc.plans.rule``, made by ``make reproduce`` before this reads it) as every reference pair is
(``pfc.report.reference.pairs.pair``: on the ids both answered, user-clustered paired intervals, McNemar). The rule is a
calibration point none of the papers report: a model below it has not used the history as well as a hand-written rule
reading all of it does. A pair whose model run has no row, or whose rule run is not made yet, is pending (naming the
command). It runs nothing.
"""
from __future__ import annotations

from pathlib import Path

from pfc.plans.rule import COMMAND, RULE, model_runs, rule_dir
from pfc.report.reference.run import has_rows


def pairs(root: Path, pair, n_boot: int, seed: int, runs: Path | None = None) -> list[dict]:
    """The ``rule`` entries (``pair``: ``pfc.report.reference.pairs.pair``), in :func:`model_runs`' order."""
    out = []
    for name in model_runs():
        entry = {"question": "rule", "a": name, "b": RULE}
        if not has_rows(Path(root) / name):
            out.append({**entry, "pending": True})
        elif not has_rows(rule_dir(name, runs)):
            out.append({**entry, "pending": True, "commands": [COMMAND]})
        else:
            got = pair(root, "rule", name, rule_dir(name, runs), n_boot=n_boot, seed=seed)
            out.append({**got, **entry, "b_model": RULE})
    return out
