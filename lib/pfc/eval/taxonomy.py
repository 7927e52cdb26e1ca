"""Error classes from a :class:`~pfc.eval.checker.Comparison`: per-example types and error rows.

- :func:`error_type`: the example's first error as ``family:subtype`` in the order format, refusal, app, function,
  param, value (None when correct) — the BFCL-style check.
- :func:`ptbench_flags`: PTBench's six classes (Fig. 4), with the published counting rules (a sample may count as both
  param_missing and param_excessive) but the correct names: ``func_missing`` means a gold function was not called (the
  published evaluator swaps missing and excessive; see ``pfc.benchmarks.ptbench.official``).
- :func:`toolspectrum_type`: ToolSpectrum's five classes (§5.3, App. B.5) plus ``other``.
- :func:`error_rows` / :func:`provenance_breakdown`: one row per error with the source of each wrong or missing value
  (query, profile, environment, long-term history, recent context) — a breakdown none of the papers reports.

    >>> PTBENCH_CLASSES[0]
    'func_wrong'
"""
from __future__ import annotations

import json

from pfc.eval.checker import Comparison
from pfc.eval.matching import norm_app

PTBENCH_CLASSES = ("func_wrong", "func_missing", "func_excessive", "param_missing", "param_excessive", "value")
TOOLSPECTRUM_CLASSES = {
    "personalization": "Insufficient understanding of personalized features and OP",
    "policy": "Lack of understanding between profile and environment (policy)",
    "instruction": "Misunderstanding of user instructions (wrong domain)",
    "hallucination": "Hallucinated API or parameter",
    "format": "Output format error",
    "other": "Other (required-parameter errors)",
}


def error_type(cmp: Comparison, flags: dict | None = None) -> str | None:
    if not cmp.parsed:
        return ":".join((cmp.parse_error or "format:unparseable").split(":")[:2])
    if cmp.gold_refusal and not cmp.pred_refusal:
        return "refusal:missed_refusal"
    if cmp.pred_refusal and not cmp.gold_refusal:
        return "refusal:false_refusal"
    if not cmp.app_ok:
        return "app:wrong_app"
    flags = flags or ptbench_flags(cmp)
    for cls, et in (("func_wrong", "function:wrong"), ("func_missing", "function:missing"),
                    ("func_excessive", "function:excessive"), ("param_missing", "param:missing"),
                    ("param_excessive", "param:excessive"), ("value", "value:wrong")):
        if flags[cls]:
            return et
    return None


def ptbench_flags(cmp: Comparison) -> dict[str, int]:
    """PTBench's six error classes for one parsed sample (all 0 when unparsed)."""
    if not cmp.parsed:
        return dict.fromkeys(PTBENCH_CLASSES, 0)
    miss, exc = bool(cmp.missing_functions), bool(cmp.excess_functions)
    func_err = miss or exc
    p_miss = any(a.status == "missing" and a.function_matched for a in cmp.args)
    p_exc = any(a.status == "excess" and a.function_matched for a in cmp.args)
    wrong = any(a.status == "wrong" and a.function_matched for a in cmp.args)
    return {"func_wrong": int(miss and exc), "func_missing": int(miss and not exc),
            "func_excessive": int(exc and not miss), "param_missing": int(p_miss and not func_err),
            "param_excessive": int(p_exc and not func_err),
            "value": int(wrong and not func_err and not (p_miss or p_exc))}


def toolspectrum_type(cmp: Comparison, gold_app: str | None, domains: dict, spec: dict) -> str | None:
    """ToolSpectrum's classes. ``domains``: norm app -> domain; ``spec``: norm app -> {api: {param: role}}."""
    if not cmp.parsed:
        return "format:" + (cmp.parse_error or "format:unparseable").split(":")[1]
    if cmp.gold_refusal != cmp.pred_refusal:
        return "policy:missed_refusal" if cmp.gold_refusal else "policy:false_refusal"
    if cmp.gold_refusal:
        return None
    pred = cmp.pred_calls[0]
    papp = norm_app(pred.app)
    if papp not in spec:
        return "hallucination:app"
    if domains.get(papp) != domains.get(norm_app(gold_app)):
        return "instruction:wrong_domain"
    if pred.function not in spec[papp]:
        return "hallucination:api"
    gold_names = {n for g in cmp.gold_calls for n in g.arguments}  # the release's spec misses a few
    if any(n not in spec[papp][pred.function] and n not in gold_names for n in pred.arguments):
        return "hallucination:parameter"
    if not cmp.app_ok:
        return "personalization:wrong_app"
    if not cmp.functions_ok:
        return "instruction:wrong_api"
    if any(a.status != "correct" and a.role is not None and not a.role.required for a in cmp.args):
        return "personalization:optional_param"
    if any(a.status == "excess" for a in cmp.args):
        return "personalization:excess_param"
    if any(a.status != "correct" for a in cmp.args):
        return "other:required_param"
    return None


def _js(v) -> str:
    if type(v) is str:
        return '"' + v[:498] + '"' if '"' not in v and "\\" not in v else json.dumps(v, ensure_ascii=False)[:500]
    try:
        return json.dumps(v, ensure_ascii=False, default=str)[:500]
    except (TypeError, ValueError):
        return repr(v)[:500]


def error_rows(example_id: str, cmp: Comparison, etype: str | None) -> list[dict]:
    """errors.csv rows: one per example with an error, one per wrong/missing/excess argument."""
    if etype is None and all(a.status == "correct" for a in cmp.args):
        return []
    rows = [{"id": example_id, "level": "example", "error_type": etype or "", "function": "",
             "argument": "", "status": "", "source": "", "required": "",
             "gold": "", "predicted": "", "detail": cmp.parse_error or ""}]
    for a in cmp.args:
        if a.status == "correct":
            continue
        rows.append({"id": example_id, "level": "argument", "error_type": f"argument:{a.status}",
                     "function": a.function, "argument": a.argument, "status": a.status,
                     "source": a.role.source if a.role else "", "required": a.role.required if a.role else "",
                     "gold": _js(a.gold) if a.gold is not None else "",
                     "predicted": _js(a.pred) if a.status != "missing" else "",
                     "detail": "" if a.function_matched else "function not matched"})
    return rows


def provenance_breakdown(errors) -> "object":
    """Counts of wrong and missing gold values by source (a pandas DataFrame)."""
    import pandas as pd
    if errors is None or len(errors) == 0:
        return pd.DataFrame(columns=["source", "wrong", "missing", "total"])
    arg = errors[(errors["level"] == "argument") & errors["status"].isin(["wrong", "missing"])]
    table = pd.crosstab(arg["source"], arg["status"]).reindex(columns=["wrong", "missing"], fill_value=0)
    table["total"] = table.sum(axis=1)
    return table.reset_index()
