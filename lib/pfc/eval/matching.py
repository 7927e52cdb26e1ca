"""Value and name matching, written once for every benchmark (the robust rules).

Rules of :func:`values_equal` (prediction vs one gold value):

- strings: case-insensitive, surrounding whitespace stripped, inner whitespace collapsed;
- numbers: ``math.isclose`` with ``REL_TOL``/``ABS_TOL``; numeric strings count as numbers (``"3"`` == 3); ``bool`` is
  never a number (``True`` != 1);
- booleans: ``True`` == ``"true"`` == ``"True"`` (and likewise false);
- lists (and tuples) are compared as sets; a scalar equals a one-element list of it;
- dicts: same keys (case-insensitive) with equal values; ``None`` equals only ``None``.

:func:`value_matches` accepts any of a gold argument's acceptable values. The published
PTBench evaluator's different rules are in ``pfc.benchmarks.ptbench.official``.

    >>> value_matches("  new   YORK ", ["Boston", "New York"])
    True
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

REL_TOL = 1e-6
ABS_TOL = 1e-6
MAX_ITEMS = 1000  # list comparison is quadratic; longer lists are compared only if identical
_WS = re.compile(r"\s+")
_APP_SEP = re.compile(r"[\s_\-]+")


def norm_text(s: str) -> str:
    return _WS.sub(" ", s).strip().casefold()


@lru_cache(maxsize=65536)
def norm_app(name: str | None) -> str | None:
    """App names compare case-insensitively with spaces, ``_`` and ``-`` equivalent."""
    return None if name is None else _APP_SEP.sub(" ", str(name)).strip().casefold()


def same_app(a: str | None, b: str | None) -> bool:
    return norm_app(a) == norm_app(b)


def _as_bool(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        t = v.strip().lower()
        if t in ("true", "false"):
            return t == "true"
    return None


def _as_number(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, str):
        t = v.strip() if len(v) < 64 else ""
        if not t or t[0] not in "0123456789+-.":
            return None
        try:
            x = float(t)
        except ValueError:
            return None
        return x if math.isfinite(x) and t.lower() not in ("inf", "nan") else None
    return None


def values_equal(pred, gold, depth: int = 0) -> bool:
    """True when ``pred`` matches the gold value ``gold`` under the robust rules above."""
    if depth > 32:
        return False
    tp = type(pred)
    if tp is type(gold) and (tp is str or tp is int or tp is bool) and pred == gold:
        return True  # fast path: identical scalars
    if pred is None or gold is None:
        return pred is None and gold is None
    if isinstance(pred, (list, tuple)) or isinstance(gold, (list, tuple)):
        p = list(pred) if isinstance(pred, (list, tuple)) else [pred]
        g = list(gold) if isinstance(gold, (list, tuple)) else [gold]
        if len(p) > MAX_ITEMS or len(g) > MAX_ITEMS:
            return p == g
        return (all(any(values_equal(x, y, depth + 1) for y in g) for x in p)
                and all(any(values_equal(x, y, depth + 1) for x in p) for y in g))
    if isinstance(pred, dict) or isinstance(gold, dict):
        if not (isinstance(pred, dict) and isinstance(gold, dict)):
            return False
        pk = {norm_text(str(k)): v for k, v in pred.items()}
        gk = {norm_text(str(k)): v for k, v in gold.items()}
        return pk.keys() == gk.keys() and all(values_equal(pk[k], gk[k], depth + 1) for k in gk)
    bp, bg = _as_bool(pred), _as_bool(gold)
    if bp is not None or bg is not None:
        return bp is not None and bp == bg
    np_, ng = _as_number(pred), _as_number(gold)
    if np_ is not None and ng is not None:
        return math.isclose(np_, ng, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if isinstance(pred, str) and isinstance(gold, str):
        return norm_text(pred) == norm_text(gold)
    return False


def values_identical(pred, gold, depth: int = 0) -> bool:
    """Strict mode's exact match: same JSON type and value; lists in order; no normalisation.

    ``"Latte" != "latte"``, ``"3" != 3``, ``3 != 3.0``, ``True != 1``, ``["a", "b"] != ["b", "a"]``.
    """
    if depth > 32:
        return False
    if isinstance(pred, bool) or isinstance(gold, bool):
        return type(pred) is type(gold) and pred == gold
    if type(pred) is not type(gold):
        return False
    if isinstance(pred, list):
        return len(pred) == len(gold) and all(values_identical(x, y, depth + 1) for x, y in zip(pred, gold))
    if isinstance(pred, dict):
        return pred.keys() == gold.keys() and all(values_identical(pred[k], gold[k], depth + 1) for k in gold)
    return pred == gold


def value_matches(pred, acceptable: list) -> bool:
    """True when ``pred`` equals any acceptable gold value."""
    for g in acceptable:
        if values_equal(pred, g):
            return True
    return False
