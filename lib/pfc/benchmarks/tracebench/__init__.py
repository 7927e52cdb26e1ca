"""TRACEBench adapter: unified-schema examples (built by our pipeline, or converted); metric set.

Metrics are the paper's App. C.1 eqs. 3–8 (format, app, function name, parameter names, parameter values, overall), plus
value accuracy by provenance source (query, profile, environment, long-term history, recent context), which the paper
does not report. Reported by vagueness level, history-length bin and personalization type when ``meta`` carries them.

    >>> ADAPTER.scoring.metric_keys["function_param_values"]
    'function_param_values'
"""
from __future__ import annotations

from pfc.eval.strict import FAIL, app_fn, json_object, not_native, text_of
from pfc.render import render_tracebench
from pfc.schema import SOURCES
from pfc.benchmarks.adapter import Adapter, Building, Export, OutputStyle, Reporting, Running, Scoring
from pfc.benchmarks.common import generic_row, load_predictions, load_unified

METRIC_KEYS = {
    "format": "format", "app": "app", "function_name": "function_name",
    "function_param_names": "function_param_names", "function_param_values": "function_param_values",
    "overall": "overall",
    **{f"value_acc_{s}": f"value_acc_{s}" for s in SOURCES if s != "unknown"},
}


def row(example, result, ctx=None):
    return generic_row(example, result)


# TRACEBench's answer format (its prompt's template), how the built-in baselines answer; not a parse style
STYLE = OutputStyle("tracebench", render_tracebench)


def strict_template(output) -> str | None:
    """Strict scoring's template (``pfc.eval.strict``): one ``{"name": "<App>__<function>", "arguments": {...}}`` object, or native tool calls so named."""
    if isinstance(output, dict):
        if not output.get("tool_calls") or (output.get("content") or "").strip():
            return not_native(output)
        for tc in output["tool_calls"]:
            fn = (tc or {}).get("function") or {}
            args = fn.get("arguments")
            args = json_object(args) if isinstance(args, str) else args
            if not app_fn(fn.get("name")) or not isinstance(args, dict):
                return f"{FAIL}: native tool call without <App>__<function> or JSON-object arguments"
        return None
    text = text_of(output)
    if text is None:
        return not_native(output)
    obj = json_object(text)
    if not isinstance(obj, dict):
        return f"{FAIL}: not one JSON object"
    if set(obj) != {"name", "arguments"} or not app_fn(obj["name"]) or not isinstance(obj["arguments"], dict):
        return f"{FAIL}: not {{\"name\": \"<App>__<function>\", \"arguments\": {{...}}}}"
    return None




ADAPTER = Adapter(
    "tracebench", __name__,
    Scoring(METRIC_KEYS, load_unified, load_predictions, row, style="auto",
            group_by=["vagueness", "history_bin", "personalization"], strict_template=strict_template,
            styles=(STYLE,)),
    Running(strategies=("zero_shot", "few_shot", "cot", "hierarchical"), render_style=STYLE.name,
            needs_tools=True, history_selection=True),
    Reporting(headline=("format", "app", "function_name", "function_param_values", "overall"),
              groups=("vagueness", "history_bin")),
    Building(params=frozenset({"users", "seed", "records", "queries"}), action_kinds=("ask", "cannot"),
             export=Export("TRACEBench", "pfc build tracebench --users {users} --seed {seed} --out DIR",
                           tool_file=True)))
