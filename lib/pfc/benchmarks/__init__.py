"""Benchmark adapters, registered by name in :data:`REGISTRY`: everything that differs per benchmark.

A benchmark differs by its adapter only — loading, prompts and run strategies, the strict
template, headline metrics, grouping, the baselines' answer format — never by a copy of the
scorer (``pfc.eval.checker``, ``pfc.eval.metrics``, ``pfc.eval.taxonomy``) nor by a
``benchmark == "…"`` branch elsewhere. An adapter names run-stage modules (its prompts, its own
baselines) by dotted name, so the eval stage that imports adapters never imports the run stage.

Adding a benchmark — checklist:

1. ``lib/pfc/benchmarks/<name>.py`` with ``ADAPTER = Adapter(...)``: ``load`` (examples and
   tools into ``pfc.schema.Example``/``Tool``), ``load_predictions``, ``context`` and ``row``
   (one scored row per example; ``pfc.benchmarks.common.generic_row`` fits most), ``metric_keys``
   (published key -> ``pfc.eval.metrics.METRICS`` name), ``group_by``, ``style`` (the parser's),
   ``render_style`` (how built-in baselines answer), ``strict_template``, ``strategies``; and what the rest
   of pfc reads from it instead of a table of its own: ``headline``, ``report_groups``/``report_extra``/
   ``report_modes`` (the reference report), ``history_selection`` (sweeps), ``builder``/``build_params``
   (``pfc build``, a sweep's ``build``), ``export``/``third_party`` (``pfc export``), ``query_spans``
   (the query-oracle baseline);
2. ``lib/pfc/run/prompts/<name>.py`` with ``request(rb, example, domain)`` (and
   ``domain_request(rb, example)`` if it supports ``hierarchical``), named by ``Adapter.prompts``;
3. one line in :data:`BUILT_IN` below (``pfc.schema`` and the command line read the names from it),
   or, for an adapter that lives outside pfc (a plugin, a test), ``PFC_BENCHMARKS=name=module[,…]`` in
   the environment;
   its report section and the metrics ``pfc compare`` prints: ``lib/pfc/report/sections/<name>.py``,
   named by ``Adapter.report``;
4. tests: the gold-leak test (``tests/test_gold_kept_from_models.py``) over its prompts, a
   golden scoring case, and a tiny run with the ``oracle`` backend scoring 1.0.

    >>> get("ptbench").metric_keys["platforms"]
    'app'
    >>> names()[:3]
    ('tracebench', 'ptbench', 'toolspectrum')
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from typing import Callable

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


@dataclass(frozen=True)
class Export:
    """How ``pfc export`` publishes a benchmark this repository builds (``pfc.integrations.hf_datasets``)."""
    title: str
    command: str               # how it is built ({seed}, {users} from stats.json), for the card
    source: str = "unknown"    # the source data, when stats.json does not say
    splits: tuple = ()         # a build directory's unified/<split>/examples.jsonl; () = one ``test`` split
    tool_file: bool = False    # the benchmark ships tools.json


@dataclass
class Adapter:
    name: str
    metric_keys: dict[str, str]            # published key -> metric name in pfc.eval.metrics.METRICS
    load: Callable                         # (examples_path, tools_path) -> (examples, tools)
    load_predictions: Callable             # (path, examples) -> {id: raw output}
    context: Callable                      # (examples, tools) -> ctx passed to row()
    row: Callable                          # (example, parse_result, ctx) -> (row dict, Comparison, error_type)
    style: str = "auto"                    # default output style for parsing
    group_by: list[str] = field(default_factory=list)  # meta keys to report metrics by
    run_needs_tools: bool = False          # prompts list the tool file's tools: a run without them is refused
    tools_in_examples: bool = False        # each example carries its own candidate tools (PTBench): no tool file needed
    strategies: tuple[str, ...] = ("zero_shot", "few_shot", "cot")  # `pfc run` strategies (pfc.run.strategies)
    prompts: str = ""                      # run-stage prompt module: request(rb, ex, domain)[, domain_request(rb, ex)]
    strict_template: Callable | None = None  # (output) -> None, or "format:not_exact_template: why"
    render_style: str = "json"             # how the built-in baselines write their answers (pfc.render)
    baselines: str = ""                    # run-stage module with its own predict(name, example, seed), if any
    official_compat: bool = False          # `--compat official`: the official scorer exists
    default_data: Callable | None = None   # () -> where its data is by default (None: not here); default: built
                                           # by `make reproduce` into paths.BENCHMARKS / name
    # -- what the reports show of it
    report: str = ""                       # its `pfc report` section module (pfc.report.sections), by dotted name
    headline: tuple[str, ...] = ()         # published keys of the real-model and reference reports, in order
    report_groups: tuple[str, ...] = ()    # meta keys the reference report breaks the headline down by
    report_extra: tuple[str, ...] = ()     # further published keys the reference report adds in robust mode
    report_modes: tuple[bool, ...] = (False,)  # the reference report's modes: strict scoring or not, in order
    # -- how it is made and what may leave the repository
    history_selection: bool = False        # its prompts select history records (sweeps vary history and k)
    builder: str = ""                      # "module:function" `pfc build <name>` calls with the parsed args
    build_params: frozenset[str] = frozenset()  # a sweep's 'build' may set these (empty: sweeps cannot build it)
    export: Export | None = None           # how `pfc export` publishes it (None: refused)
    third_party: str = ""                  # whose data it is, when it is never exported (the refusal names it)
    query_spans: bool = True               # gold values carry their provenance per span (the query-oracle baseline)

    def __post_init__(self):
        if self.default_data is None:
            from pfc import paths
            self.default_data = lambda: paths.BENCHMARKS / self.name


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
