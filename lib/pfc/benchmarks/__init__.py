"""Benchmark adapters: how to load each benchmark, which metrics it reports, how it classifies errors.

A benchmark differs by its adapter only — loading, default output style, metric set —
never by a copy of the scorer (``pfc.eval.checker``, ``pfc.eval.metrics``, ``pfc.eval.taxonomy``).

    >>> get("ptbench").metric_keys["platforms"]
    'app'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from pfc.errors import UserError


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


def get(name: str) -> Adapter:
    if name == "ptbench":
        from pfc.benchmarks.ptbench import ADAPTER
    elif name == "toolspectrum":
        from pfc.benchmarks.toolspectrum import ADAPTER
    elif name == "tracebench":
        from pfc.benchmarks.tracebench import ADAPTER
    else:
        raise UserError(f"unknown benchmark {name!r}; expected ptbench, toolspectrum or tracebench")
    return ADAPTER


NAMES = ("tracebench", "ptbench", "toolspectrum")
