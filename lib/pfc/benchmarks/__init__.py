"""Benchmark packages, registered by name in :data:`REGISTRY`: everything that differs per benchmark.

A benchmark is one package, ``lib/pfc/benchmarks/<name>/``: its ``__init__`` defines ``ADAPTER``
(:class:`pfc.benchmarks.adapter.Adapter`: the scoring, running, reporting and building records), and its
parts are modules beside it, one per job (``adapter.PARTS``): ``prompts`` (the run's texts; ``ask_prompts``,
the ask-allowed variants it hands over, issue 64), ``baselines`` (its own built-in answers, if any),
``build`` (``pfc build <name>`` and a sweep's build), ``section`` (its part of ``pfc report``), ``pipeline``
(its steps of ``make reproduce``), ``plans`` (its real-model plan entries; its ask-or-infer runs, if it
admits ask items) and ``inspect_task`` (its inspect_ai task). The rest of pfc iterates the registered adapters
(:func:`adapters`) and asks them; it never holds a table of its own nor a ``benchmark == "…"`` branch, and
the scorer (``pfc.eval``) is never copied. A benchmark outside pfc (a plugin, a test) is a package of the same
shape registered by ``PFC_BENCHMARKS=name=module[,…]`` in the environment. Adding one: docs/extending.md.

    >>> get("ptbench").scoring.metric_keys["platforms"]
    'app'
    >>> names()[:3]
    ('tracebench', 'ptbench', 'toolspectrum')
"""
from __future__ import annotations

import importlib
import os

from pfc.benchmarks.adapter import Adapter, OutputStyle
from pfc.errors import UserError

# name -> the adapter's module (it defines ADAPTER); the one place a benchmark is registered
BUILT_IN: dict[str, str] = {
    "tracebench": "pfc.benchmarks.tracebench",
    "ptbench": "pfc.benchmarks.ptbench",
    "toolspectrum": "pfc.benchmarks.toolspectrum",
}
_registry: dict[str, str] = {}  # BUILT_IN and PFC_BENCHMARKS', filled at first use


def registry() -> dict[str, str]:
    """Every registered benchmark's adapter module: :data:`BUILT_IN`, then the adapters from outside the package
    (``PFC_BENCHMARKS="name=module[,name=module]"``), read at first use, never at import; a malformed entry is
    a one-line UserError."""
    if not _registry:
        reg = dict(BUILT_IN)
        for item in filter(None, (x.strip() for x in os.environ.get("PFC_BENCHMARKS", "").split(","))):
            name, sep, module = item.partition("=")
            if not (sep and name.strip() and module.strip()):
                raise UserError(f"PFC_BENCHMARKS: expected name=module, got {item!r}")
            reg.setdefault(name.strip(), module.strip())
        _registry.update(reg)
    return _registry


def names() -> tuple[str, ...]:
    """The registered benchmarks' names, built-in first."""
    return tuple(registry())


def __getattr__(name: str):
    """``REGISTRY`` and ``NAMES``, read at first use (:func:`registry`, :func:`names`)."""
    if name == "REGISTRY":
        return registry()
    if name == "NAMES":
        return names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get(name: str) -> Adapter:
    """The adapter registered under ``name``; an unknown name is a UserError naming the registered ones."""
    module = BUILT_IN.get(name) or registry().get(name)  # a built-in one needs no PFC_BENCHMARKS
    if module is None:
        reg = sorted(registry())
        raise UserError(f"unknown benchmark {name!r}; expected {', '.join(reg[:-1])} or {reg[-1]}")
    return importlib.import_module(module).ADAPTER


def adapters() -> list[Adapter]:
    """Every registered adapter, in registry order."""
    return [get(n) for n in registry()]


def output_style(name: str) -> OutputStyle | None:
    """The output style ``name`` that a registered benchmark declares (``Scoring.styles``), or None."""
    return next((s for a in adapters() for s in a.scoring.styles if s.name == name), None)


def output_styles() -> list[OutputStyle]:
    """Every registered benchmark's output styles, in registry order."""
    return [s for a in adapters() for s in a.scoring.styles]
