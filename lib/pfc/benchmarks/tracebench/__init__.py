"""TRACEBench adapter: unified-schema examples (built by our pipeline, or converted); metric set.

Metrics are the paper's App. C.1 eqs. 3–8 (format, app, function name, parameter names,
parameter values, overall), plus value accuracy by provenance source (query, profile,
environment, long-term history, recent context), which the paper does not report.
Reported by vagueness level, history-length bin and personalization type when ``meta``
carries them.

    >>> ADAPTER.scoring.metric_keys["function_param_values"]
    'function_param_values'
"""
from __future__ import annotations

from pfc.eval.strict import tracebench_template
from pfc.schema import SOURCES
from pfc.benchmarks.adapter import Adapter, Building, Export, Reporting, Running, Scoring
from pfc.benchmarks.common import generic_row, load_predictions, load_unified

METRIC_KEYS = {
    "format": "format", "app": "app", "function_name": "function_name",
    "function_param_names": "function_param_names", "function_param_values": "function_param_values",
    "overall": "overall",
    **{f"value_acc_{s}": f"value_acc_{s}" for s in SOURCES if s != "unknown"},
}


def row(example, result, ctx=None):
    return generic_row(example, result)


ADAPTER = Adapter(
    "tracebench", __name__,
    Scoring(METRIC_KEYS, load_unified, load_predictions, row, style="auto",
            group_by=["vagueness", "history_bin", "personalization"], strict_template=tracebench_template),
    Running(strategies=("zero_shot", "few_shot", "cot", "hierarchical"), render_style="tracebench",
            needs_tools=True, history_selection=True),
    Reporting(headline=("format", "app", "function_name", "function_param_values", "overall"),
              groups=("vagueness", "history_bin")),
    Building(params=frozenset({"users", "seed", "records", "queries"}), action_kinds=("ask", "cannot"),
             export=Export("TRACEBench", "pfc build tracebench --users {users} --seed {seed} --out DIR",
                           tool_file=True)))
