"""A toy fourth benchmark, registered from the tests only (``PFC_BENCHMARKS=toybench=toybench``): one app,
two functions, a query that names every value. It proves a benchmark needs an adapter and a prompt module
and no edit anywhere else (tests/test_fourth_benchmark.py)."""
from __future__ import annotations

from pfc.benchmarks import Adapter
from pfc.benchmarks.common import generic_row, load_predictions, load_unified

METRIC_KEYS = {"format": "format", "app": "app", "function_name": "function_name",
               "function_param_values": "function_param_values", "overall": "overall"}


def row(example, result, ctx=None):
    return generic_row(example, result)


ADAPTER = Adapter("toybench", METRIC_KEYS, load_unified, load_predictions, lambda ex, tools: None, row,
                  style="json", render_style="json", run_needs_tools=True, strategies=("zero_shot",),
                  prompts="toybench_prompts", headline=("format", "app", "function_name", "overall"),
                  group_by=["level"], report_groups=("level",))
