"""Validate a notebook's papermill parameters in its first cell after the parameters cell.

papermill injects ``-p limit five`` as the string ``"five"``; without a check the notebook fails many cells later with a
traceback about something else. :func:`check` takes the notebook's namespace and one spec per parameter and raises
:class:`ParameterError` naming the parameter, what it expected and what it got. Specs: a type (``str``, ``int``,
``float``, ``bool``; ``int`` refuses booleans, ``float`` accepts integers), ``(int, low)`` for an integer at least
``low``, or a list of allowed strings. It validates nothing else.

    >>> check({"limit": 5, "history": "full"}, limit=(int, 0), history=["full", "last_k"])
    >>> check({"limit": "five"}, limit=(int, 0))
    Traceback (most recent call last):
    ...
    pfc.nbparams.ParameterError: field 'limit': expected an integer >= 0, got 'five' (str)
"""
from __future__ import annotations

from pfc.errors import UserError

_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}


class ParameterError(UserError):
    """A notebook parameter of the wrong type or out of range."""


def _ok(value, typ) -> bool:
    if typ is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if typ is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, typ)


def check(namespace: dict, **spec) -> None:
    """Raise ParameterError for the first parameter in ``spec`` that does not fit it."""
    for name, want in spec.items():
        if name not in namespace:
            raise ParameterError("missing from the parameters cell", field=name)
        v = namespace[name]
        if isinstance(want, (list, tuple)) and want and all(isinstance(w, str) for w in want):
            if v not in want:
                raise ParameterError(f"expected one of {', '.join(want)}, got {v!r}", field=name)
        elif isinstance(want, tuple):
            typ, low = want
            if not _ok(v, typ) or v < low:
                raise ParameterError(f"expected {_NAMES[typ]} >= {low}, got {v!r} ({type(v).__name__})", field=name)
        elif not _ok(v, want):
            raise ParameterError(f"expected {_NAMES[want]}, got {v!r} ({type(v).__name__})", field=name)
