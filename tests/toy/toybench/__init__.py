"""A toy fourth benchmark, registered from the tests only (``PFC_BENCHMARKS=toybench=toybench``): one app, two
functions, a query that names every value. It proves a benchmark is one package and needs no edit anywhere
else (tests/test_fourth_benchmark.py): this adapter, its prompts (``prompts``), its report section
(``section``) and its builder (``build``: ``pfc build toybench`` and a sweep's ``build``)."""
from __future__ import annotations

from pfc.benchmarks.adapter import Adapter, Building, Reporting, Running, Scoring
from pfc.benchmarks.common import generic_row, load_predictions, load_unified

METRIC_KEYS = {"format": "format", "app": "app", "function_name": "function_name",
               "function_param_values": "function_param_values", "overall": "overall"}


def row(example, result, ctx=None):
    return generic_row(example, result)


ADAPTER = Adapter(
    "toybench", __name__,
    Scoring(METRIC_KEYS, load_unified, load_predictions, row, style="json", group_by=["level"]),
    Running(strategies=("zero_shot",), render_style="json", needs_tools=True),
    Reporting(headline=("format", "app", "function_name", "overall"), groups=("level",)),
    Building(params=frozenset({"n", "seed"})))
