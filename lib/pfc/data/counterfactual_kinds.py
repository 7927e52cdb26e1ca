"""The kinds ``pfc perturb --kind`` takes (``pfc.data.counterfactual``): names, arguments and evidence windows.

:func:`parse_kind` turns a kind string into ``(name, argument)`` and refuses a bad one in one line naming
``--kind``; :func:`window_of` reads an evidence kind's ``@W``. It builds no variant.

    >>> parse_kind("truncate-history:5"), parse_kind("shift-time:-2")
    (('truncate-history', 5), ('shift-time', -2))
"""
from __future__ import annotations

import re

from pfc.errors import UserError
from pfc.data.counterfactual_dose import DOSES, HABIT_RECORDS, MAX_K

MAX_SHIFT_DAYS = 36_500  # a century: further moves leave the calendar's range and mean nothing
KINDS = ("swap-user", "shuffle-history", "truncate-history:K", "drop-profile", "shift-time:±D", "strip-stated",
         "dose[:K[,K...]][@W]", "contradict-stated[:K][@W]", "ask[@W]", "cannot")


def parse_kind(kind: str) -> tuple[str, int | None]:
    """``("truncate-history", 5)`` from ``truncate-history:5``; a bad kind is a user error. An evidence kind's
    window (``dose@20``) is checked here and read by :func:`window_of`."""
    window_of(kind)
    return _parse(str(kind).partition("@")[0], kind)


def window_of(kind: str) -> int | None:
    """W of an evidence kind's ``@W`` (``pfc.data.counterfactual_dose``: the history cut to W records that a
    prompt shows whole), None without one; W must hold every dose K, or the habit's K records and one more.

    >>> window_of("dose@20"), window_of("contradict-stated:8@20"), window_of("dose:0,4")
    (20, 20, None)
    """
    base, at, w = str(kind).partition("@")
    if not at:
        return None
    name, arg = _parse(base, kind)
    need = max(1, max(arg)) if name == "dose" else arg + 1 if name == "contradict-stated" else 1 if name == "ask" \
        else None
    if need is None or not re.fullmatch(r"[0-9]{1,3}", w) or not need <= int(w) <= MAX_K:
        raise UserError(f"bad window in kind {kind!r}: @W (records) is for dose (W >= its largest K), "
                        f"contradict-stated (W > its K) and ask, at most {MAX_K}, e.g. dose@20", field="--kind")
    return int(w)


def _parse(base: str, kind: str) -> tuple[str, int | None]:
    """ASCII digits only (``int`` would read ``٤`` as 4), no empty argument after ``:``, a dose K listed once."""
    name, sep, arg = base.partition(":")
    if sep and not arg:
        return _unknown(kind)
    if name in ("swap-user", "shuffle-history", "drop-profile", "strip-stated", "ask", "cannot") and not arg:
        return name, None
    if name == "truncate-history" and re.fullmatch(r"[0-9]+", arg):
        return name, int(arg)
    if name == "shift-time" and re.fullmatch(r"[+-]?[0-9]{1,6}", arg) and 0 < abs(int(arg)) <= MAX_SHIFT_DAYS:
        return name, int(arg)
    if name == "dose" and not arg:
        return name, DOSES
    if name == "dose" and re.fullmatch(r"[0-9]{1,3}(,[0-9]{1,3})*", arg) and all(int(k) <= MAX_K for k in arg.split(",")):
        ks = [int(k) for k in arg.split(",")]
        twice = sorted({k for k in ks if ks.count(k) > 1})
        if twice:
            raise UserError(f"kind {kind!r} lists K = {twice[0]} twice; list each dose once, e.g. dose:0,4,16",
                            field="--kind")
        return name, tuple(sorted(ks))
    if name == "contradict-stated" and not arg:
        return name, HABIT_RECORDS
    if name == "contradict-stated" and re.fullmatch(r"[0-9]{1,3}", arg) and 0 < int(arg) <= MAX_K:
        return name, int(arg)
    return _unknown(kind)


def _unknown(kind: str):
    raise UserError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)} "
                    f"(K records >= 0, at most 256 for dose and contradict-stated, D days, non-zero, at most {MAX_SHIFT_DAYS} "
                    "either way, e.g. shift-time:+3, dose:0,4,16)", field="--kind")
