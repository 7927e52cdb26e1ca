"""Every metric, defined once: name, direction, aggregation and the paper equation it implements.

A per-example table (one row per example, unparsed outputs included as failures) holds columns; a :class:`Metric`
aggregates columns into one number:

- ``mean``: mean of a 0/1 column (accuracy over all samples);
- ``ratio``: sum(numerator) / sum(denominator) (NaN when the denominator is 0);
- ``sum``: a count (error counts);
- ``f1``: micro F1 = 2·TP / (2·TP + FP + FN) from summed counts (1.0 when there are no items);
- ``macro_f1``: the mean of per-class F1s, columns (TP, FP, FN) per class; a class with none left out.

Benchmarks refer to metrics by name and may publish them under their own key (``pfc.benchmarks``).
:func:`row_from_comparison` builds the shared columns.

    >>> import pandas as pd; aggregate(METRICS["overall"], pd.DataFrame({"overall": [1, 0]}))
    0.5
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from pfc.actions import ACTIONS
from pfc.eval.checker import Comparison
from pfc.schema import SOURCES


@dataclass(frozen=True)
class Metric:
    name: str
    aggregation: str              # mean | ratio | sum | f1 | macro_f1
    columns: tuple[str, ...]
    higher_is_better: bool = True
    description: str = ""


def _m(name, agg, cols, desc, higher=True):
    return name, Metric(name, agg, tuple(cols), higher, desc)


METRICS: dict[str, Metric] = dict([
    _m("format", "mean", ["format"], "parsable samples / total (PTBench eq. 2; TRACEBench eq. 3)"),
    _m("app", "mean", ["app"], "samples with the gold app(s) / total (TRACEBench eq. 4; PTBench platform eq. 3)"),
    _m("function_name", "mean", ["function_name"],
       "samples whose function names equal the gold ones / total (TRACEBench eq. 5; PTBench eq. 6)"),
    _m("function_param_names", "mean", ["function_param_names"],
       "samples with exactly the gold parameter names / total (TRACEBench eq. 6; PTBench eq. 7)"),
    _m("function_param_values", "mean", ["function_param_values"],
       "samples with gold names and values / total (TRACEBench eq. 7; PTBench eq. 8)"),
    _m("overall", "mean", ["overall"], "fully correct samples / total (TRACEBench eq. 8; PTBench eq. 11)"),
    _m("query_param_values", "ratio", ["correct_query", "total_query"],
       "correct query-stated values / all (PTBench eq. 4)"),
    _m("profile_param_values", "ratio", ["correct_profile", "total_profile"],
       "correct profile-derived values / all (PTBench eq. 5)"),
    *[_m(f"value_acc_{s}", "ratio", [f"correct_{s}", f"total_{s}"],
         f"correct gold values whose source is {s} / all such values (ours; no paper has it)")
      for s in SOURCES],
    *[_m(f"{e}_error", "sum", [e], f"samples with a {e.replace('_', ' ')} error (PTBench Fig. 4)", False)
      for e in ("func_wrong", "func_missing", "func_excessive", "param_missing", "param_excessive", "value")],
    _m("format_error", "sum", ["format_error"], "unparsable samples", False),
    _m("refusal_recall", "ratio", ["correct_refusal", "gold_refusal"],
       "gold refusals the model refused / gold refusals (ours; ToolSpectrum policy cases)"),
    _m("refusal_precision", "ratio", ["correct_refusal", "pred_refusal"],
       "correct refusals / all refusals the model made (ours)"),
    *[_m(level, "f1", [f"{level}_tp", f"{level}_fp", f"{level}_fn"],
         f"micro F1 at the {level} level (ToolSpectrum §4.1; definition in pfc.benchmarks.toolspectrum)")
      for level in ("APP", "API", "RP", "OP")],
    *[_m(f"{level}_paper", "f1", [f"paper_{level}_tp", f"paper_{level}_fp", f"paper_{level}_fn"],
         f"paper-compatible micro F1 at the {level} level: no refusal item, RP/OP over gold-call samples "
         "(ToolSpectrum §4.1 citing AppBench; definition in pfc.benchmarks.toolspectrum)")
      for level in ("APP", "API", "RP", "OP")],
    # personalization under counterfactual contexts (columns: pfc.eval.personalization; ours, no paper has them)
    _m("context_following", "ratio", ["follow_hit", "follow_total"],
       "discriminating context items (app choice, history/profile-sourced value whose counterfactual differs) "
       "whose answer moved to the counterfactual value / all such items; higher = reads the context"),
    _m("request_faithfulness", "ratio", ["faithful_kept", "faithful_base"],
       "stated values right on the original and still right under the changed context / stated values right "
       "on the original; higher = the request wins over the context"),
    _m("sensitivity", "mean", ["changed"],
       "variants whose answer differs from the original's / variants; higher = the answer depends on what "
       "was changed (wanted under swap-user, unwanted under shuffle-history)"),
    # evidence dose and stated-vs-habit (columns: pfc.eval.dose; ours, no paper has them)
    _m("user_choice", "mean", ["user_hit"],
       "dose variants whose answer gives the user's choice (gold app / history-sourced value) / dose variants"),
    _m("population_choice", "mean", ["pop_hit"],
       "dose variants whose answer gives the population's favourite instead / dose variants; lower = personal",
       higher=False),
    _m("switch_rate", "ratio", ["switch_hit", "switch_base"],
       "dose variants whose answer gives the user's choice while the same request's K = 0 answer did not / dose "
       "variants with a K = 0 sibling; higher = the evidence moves the answer to the user"),
    _m("stated_wins", "ratio", ["stated_kept", "stated_base"],
       "stated values right on the original and still right against a contradicting habit / stated values right "
       "on the original; higher = the request wins over the habit"),
    _m("overrides", "mean", ["habit_hit"],
       "contradict-stated variants whose answer gives the habit's value over the stated one / those variants; "
       "lower = the user is not overruled", higher=False),
    # ask or infer (columns: pfc.eval.ask; issue 64; ours, no paper has them)
    _m("action_accuracy", "ratio", ["action_hit", "first_turn"], "first-turn replies with the gold action / items"),
    _m("action_macro_f1", "macro_f1", [f"{a}_{k}" for a in ACTIONS for k in ("tp", "fp", "fn")],
       "mean per-action F1 over call, ask, cannot (an action with no gold and no predicted item left out)"),
    _m("over_ask", "ratio", ["ask_on_call", "gold_call"], "questions on call items / call items", higher=False),
    _m("guess_rate", "ratio", ["call_on_ask", "gold_ask"],
       "calls on ask items (the history no longer supports the value) / ask items", higher=False),
    _m("guess_favourite", "ratio", ["guess_pop", "call_on_ask"],
       "guesses giving the population's favourite value of the removed slot / guesses", higher=False),
    _m("tool_hallucination", "ratio", ["call_on_cannot", "gold_cannot"], "calls on cannot items / cannot items",
       higher=False),
    _m("slot_precision", "ratio", ["slot_hit", "ask_on_ask"], "questions on ask items naming the removed slot / those"),
    _m("call_value_accuracy", "ratio", ["value_hit", "call_on_call"],
       "calls on call items with every gold name and value / calls on call items"),
    _m("discrimination", "ratio", ["disc_hit", "disc_base"],
       "requests called as the original and asked as its ask variant / ask variants whose original is scored"),
    _m("two_turn_success", "ratio", ["two_turn_hit", "two_turn_base"],
       "items ending right within two turns (a question, then the follow-up turn) / items"),
    _m("questions_per_item", "ratio", ["two_turn_questions", "two_turn_base"], "questions over both turns / items",
       higher=False),
    _m("call_coverage", "ratio", ["call_made", "first_turn"], "items answered with a call / items (coverage)"),
    _m("call_risk", "ratio", ["call_wrong", "call_made"], "wrong calls / calls (risk)", higher=False),
])


def aggregate(metric: Metric, df) -> float:
    """One metric over a per-example table (pandas DataFrame)."""
    cols = [df[c] for c in metric.columns]
    if metric.aggregation == "mean":
        return float(cols[0].mean()) if len(df) else math.nan
    if metric.aggregation == "sum":
        return float(cols[0].sum())
    if metric.aggregation == "ratio":
        den = float(cols[1].sum())
        return float(cols[0].sum()) / den if den else math.nan
    if metric.aggregation == "f1":
        tp, fp, fn = (float(c.sum()) for c in cols)
        return 1.0 if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)
    if metric.aggregation == "macro_f1":
        s = [float(c.sum()) for c in cols]
        f1 = [2 * tp / (2 * tp + fp + fn) for tp, fp, fn in zip(s[0::3], s[1::3], s[2::3]) if tp + fp + fn]
        return sum(f1) / len(f1) if f1 else math.nan
    raise ValueError(f"unknown aggregation {metric.aggregation!r}")


def compute(metric_keys: dict[str, str], df, prefix: str = "") -> dict[str, float]:
    """``{published key: value}`` for a benchmark's ``{published key: metric name}`` map."""
    return {prefix + key: aggregate(METRICS[name], df) for key, name in metric_keys.items()}


def row_from_comparison(cmp: Comparison, sources: tuple[str, ...] = SOURCES) -> dict:
    """Shared per-example columns: accuracies (0/1) and value counts for each of ``sources``."""
    row = {
        "format": int(cmp.parsed), "app": int(cmp.parsed and cmp.app_ok),
        "function_name": int(cmp.parsed and cmp.functions_ok),
        "function_param_names": int(cmp.parsed and cmp.param_names_ok),
        "function_param_values": int(cmp.parsed and cmp.values_ok),
        "overall": int(cmp.overall), "format_error": int(not cmp.parsed),
        "gold_refusal": int(cmp.gold_refusal), "pred_refusal": int(cmp.parsed and cmp.pred_refusal),
        "correct_refusal": int(cmp.gold_refusal and cmp.parsed and cmp.pred_refusal),
    }
    total = dict.fromkeys(SOURCES, 0)
    correct = dict.fromkeys(SOURCES, 0)
    for a in cmp.args:
        if a.role is not None:
            total[a.role.source] += 1
            if a.status == "correct" and a.function_matched:
                correct[a.role.source] += 1
    for s in sources:
        row[f"total_{s}"], row[f"correct_{s}"] = total[s], correct[s]
    return row
