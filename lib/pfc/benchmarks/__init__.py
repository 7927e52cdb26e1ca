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
    >>> NAMES
    ('tracebench', 'ptbench', 'toolspectrum')
"""
from __future__ import annotations

import importlib
import os

from pfc.benchmarks.adapter import Adapter
from pfc.errors import UserError

# name -> the adapter's module (it defines ADAPTER); the one place a benchmark is registered
REGISTRY: dict[str, str] = {
    "tracebench": "pfc.benchmarks.tracebench",
    "ptbench": "pfc.benchmarks.ptbench",
    "toolspectrum": "pfc.benchmarks.toolspectrum",
}
# adapters from outside the package: PFC_BENCHMARKS="name=module[,name=module]" (read once, at import)
for _item in filter(None, (x.strip() for x in os.environ.get("PFC_BENCHMARKS", "").split(","))):
    _name, _sep, _module = _item.partition("=")
    if not (_sep and _name.strip() and _module.strip()):
        raise UserError(f"PFC_BENCHMARKS: expected name=module, got {_item!r}")
    REGISTRY.setdefault(_name.strip(), _module.strip())
NAMES = tuple(REGISTRY)


def get(name: str) -> Adapter:
    """The adapter registered under ``name``; an unknown name is a UserError naming the registered ones."""
    if name not in REGISTRY:
        raise UserError(f"unknown benchmark {name!r}; expected {', '.join(sorted(REGISTRY)[:-1])} "
                        f"or {sorted(REGISTRY)[-1]}")
    return importlib.import_module(REGISTRY[name]).ADAPTER


def adapters() -> list[Adapter]:
    """Every registered adapter, in registry order."""
    return [get(n) for n in REGISTRY]
