"""One counterfactual variant of an example: its id suffix, the copy and its history.

A variant is a deep copy of the example whose id ends in ``~<kind>`` and whose ``meta`` records where it came from
(``meta["counterfactual"]``); the perturbations themselves live in ``pfc.data.counterfactual`` (query edits, history
cuts, time shifts) and ``pfc.data.counterfactual_swap`` (another user's context). This module changes nothing else.

    >>> slug("shift-time", 3), slug("truncate-history", 5), slug("swap-user", None)
    ('shift-time+3', 'truncate-history-5', 'swap-user')
"""
from __future__ import annotations

import copy

from pfc.schema import Example


def slug(kind: str, arg: int | None) -> str:
    """The variant-id suffix: ``swap-user``, ``truncate-history-5``, ``shift-time+3``."""
    if arg is None:
        return kind
    if isinstance(arg, tuple):  # a list of K (dose:0,4,16)
        return f"{kind}-{','.join(map(str, arg))}"
    return f"{kind}{arg:+d}" if kind == "shift-time" else f"{kind}-{arg}"


def variant(ex: Example, kind: str, arg, seed: int, **info) -> Example:
    v = Example(f"{ex.id}~{slug(kind, arg)}", ex.benchmark, ex.query, copy.deepcopy(ex.gold), ex.user_id,
                copy.deepcopy(ex.profile), copy.deepcopy(ex.environment), list(ex.history),  # records are never mutated
                None if ex.tools is None else list(ex.tools), copy.deepcopy(ex.meta))
    v.meta["counterfactual"] = {"original_id": ex.id, "kind": slug(kind, arg), "seed": seed, **info}
    return v


def set_history(v: Example, history: list) -> None:
    v.history = history
    if "history_length" in v.meta:
        v.meta["history_length"] = len(history)
