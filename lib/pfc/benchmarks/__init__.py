"""Benchmark packages, registered by name in :data:`REGISTRY`: everything that differs per benchmark.

A benchmark is one package, ``lib/pfc/benchmarks/<name>/``: its ``__init__`` defines ``ADAPTER``
(:class:`pfc.benchmarks.adapter.Adapter`: the scoring, running, reporting and building records), and its parts are
modules beside it, one per job (``adapter.PARTS``): ``prompts`` (the run's texts; ``ask_prompts``, the ask-allowed
variants it hands over, issue 64), ``baselines`` (its own built-in answers, if any), ``build`` (``pfc build <name>`` and
a sweep's build), ``section`` (its part of ``pfc report``), ``pipeline`` (its steps of ``make reproduce``), ``plans``
(its real-model plan entries; its ask-or-infer runs, if it admits ask items) and ``inspect_task`` (its inspect_ai task).
The rest of pfc iterates the registered adapters (:func:`adapters`) and asks them; it never holds a table of its own nor
a ``benchmark == "…"`` branch, and the scorer (``pfc.eval``) is never copied. A benchmark outside pfc (a plugin, a test)
is a package of the same shape registered by ``PFC_BENCHMARKS=name=module[,…]`` in the environment. Adding one:
docs/extending.md.

    >>> get("ptbench").scoring.metric_keys["platforms"]
    'app'
    >>> names()[:3]
    ('tracebench', 'ptbench', 'toolspectrum')
"""
from __future__ import annotations

import importlib
import os
import re

from pfc.benchmarks.adapter import Adapter, OutputStyle
from pfc.errors import UserError

# name -> the adapter's module (it defines ADAPTER); the one place a benchmark is registered
BUILT_IN: dict[str, str] = {
    "tracebench": "pfc.benchmarks.tracebench",
    "ptbench": "pfc.benchmarks.ptbench",
    "toolspectrum": "pfc.benchmarks.toolspectrum",
}
_registry: dict[str, str] = {}  # BUILT_IN and PFC_BENCHMARKS', filled at first use
_refused: dict[str, str] = {}  # a PFC_BENCHMARKS entry that cannot be used (by name, else the entry): why, one line
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")  # an importable dotted name: no path, no '..'


def registry() -> dict[str, str]:
    """Every registered benchmark's adapter module: :data:`BUILT_IN`, then the adapters from outside the package
    (``PFC_BENCHMARKS="name=module[,name=module]"``), read at first use, never at import. Reading never fails: an entry
    without ``=``, a name a built-in has or a module name that is not a dotted identifier is kept aside
    (:data:`_refused`), and refused in one line by the command that uses it (:func:`get`, :func:`adapters`)."""
    if not _registry:
        reg = dict(BUILT_IN)
        for item in filter(None, (x.strip() for x in os.environ.get("PFC_BENCHMARKS", "").split(","))):
            name, sep, module = (x.strip() for x in item.partition("="))
            where = f"PFC_BENCHMARKS entry {item!r}: "
            if not (sep and name and module):
                _refused.setdefault(item, where + "expected name=module")
            elif name in BUILT_IN:
                _refused.setdefault(name, where + f"{name!r} is a built-in benchmark; register yours under another name")
            elif name not in reg:
                reg[name] = module
                if not _MODULE.match(module):
                    _refused[name] = where + f"{module!r} is not a module name (dotted identifiers: no path, no '..')"
        _registry.update(reg)
    return _registry


def names() -> tuple[str, ...]:
    """The registered benchmarks' names, built-in first (an outside one that cannot be used too: :func:`get`
    refuses it in one line)."""
    return tuple(registry())


def __getattr__(name: str):
    """``REGISTRY`` and ``NAMES``, read at first use (:func:`registry`, :func:`names`)."""
    if name == "REGISTRY":
        return registry()
    if name == "NAMES":
        return names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get(name: str) -> Adapter:
    """The adapter registered under ``name``; an unknown name is a UserError naming the registered ones, and so is
    an outside one that cannot be used (its entry refused, its module missing or failing to import, even with
    SystemExit, or without an ``ADAPTER``): one line naming the entry and what is wrong."""
    reg = registry()
    if name in _refused:
        raise UserError(_refused[name])
    if name in BUILT_IN:
        return importlib.import_module(BUILT_IN[name]).ADAPTER
    if name not in reg:
        known = sorted(reg)
        raise UserError(f"unknown benchmark {name!r}; expected {', '.join(known[:-1])} or {known[-1]}")
    return _outside(name, reg[name])


def _outside(name: str, module: str) -> Adapter:
    """An outside benchmark's ``ADAPTER``; whatever its import raises (but Ctrl-C) is a one-line UserError."""
    where = f"PFC_BENCHMARKS entry '{name}={module}': "
    try:
        adapter = getattr(importlib.import_module(module), "ADAPTER", None)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: B036 -- SystemExit too: an outside module's import never ends pfc
        text = " ".join(str(e).split())[:300]
        raise UserError(where + f"importing it failed ({type(e).__name__}{': ' + text if text else ''})") from None
    if not isinstance(adapter, Adapter):
        raise UserError(where + f"module {module!r} defines no ADAPTER (a pfc.benchmarks.adapter.Adapter)")
    return adapter


def usable(name: str) -> Adapter | None:
    """The adapter registered under ``name``, or None when it cannot be used (what a command's parser lists:
    a broken outside benchmark is refused by the command that names it, not by every command's parser)."""
    try:
        return get(name)
    except UserError:
        return None


def adapters() -> list[Adapter]:
    """Every registered adapter, in registry order; the first entry that cannot be used is refused in one line."""
    registry()
    if _refused:
        raise UserError(next(iter(_refused.values())))
    return [get(n) for n in registry()]


def loaded() -> list[Adapter]:
    """The registered adapters that can be used, in registry order (a broken outside one is refused where named)."""
    return [a for n in names() if (a := usable(n)) is not None]


def output_style(name: str) -> OutputStyle | None:
    """The output style ``name`` that a registered benchmark declares (``Scoring.styles``), or None."""
    return next((s for a in loaded() for s in a.scoring.styles if s.name == name), None)


def output_styles() -> list[OutputStyle]:
    """Every registered benchmark's output styles, in registry order (of those that can be used)."""
    return [s for a in loaded() for s in a.scoring.styles]
