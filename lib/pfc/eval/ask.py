"""Ask or infer (issue 64): each reply's action against the item's, the pairs, the metric table and the
risk–coverage curve.

**Rows** (:func:`score_row`, called by ``pfc.eval.scoring.score`` for a set with ``ask``/``cannot`` items or a run of
the ask-allowed prompt): the reply is read by ``pfc.eval.action.classify``. An ``ask`` or ``cannot`` item is scored on
its action: the scorer's accuracy columns (``format`` … ``overall``, ``valid``) are 1 when the reply's action is the
gold one, its value counts and error flags 0, its error type ``action:<reply>_on_<gold>`` — never as a call against the
gold the ask item keeps for its follow-up turn. A ``call`` item keeps the scorer's columns. Every row gains (first-turn
rows; a follow-up row, ``meta.followup``, has them 0 and is read by :func:`pairs`): ``user_id`` (the intervals'
cluster), ``gold_action``, ``pred_action``, ``first_turn``, ``action_hit``, per action ``<a>_tp/_fp/_fn`` and
``gold_<a>``, ``<reply>_on_<gold>`` (``ask_on_call`` …), ``guess_pop`` (a call on an ask item whose slot value is the
population's favourite, ``meta.counterfactual``), ``slot_hit`` (a question on an ask item naming its slot,
``pfc.eval.action.names_slot``), ``value_hit`` (a call on a call item with every gold name and value), ``call_made`` /
``call_wrong`` (a call, and one that is not the fully correct call of a call item), ``answered`` (the run has a reply: a
partial run's other rows are scored as failures, as by the scorer, and left out of ``pfc report``'s ask table).

**Pairs** (:func:`pairs`, on rows of several runs of one answerer pooled): ``disc_base`` / ``disc_hit`` on an ask item
whose original is a scored call item (it called on the original *and* asked on the variant); ``two_turn_base`` /
``two_turn_hit`` / ``two_turn_questions`` on a first-turn row whose reply was no question or whose follow-up row is
present: it ends right within two turns (a call item's correct call; a cannot item's refusal; after a question, the
follow-up turn's row right), and the questions asked in both turns.

The metrics (``pfc.eval.metrics``: ``action_accuracy`` … ``questions_per_item``) come with user-clustered intervals
through ``pfc.eval.dose.metric_rows``. It reads replies only: no model, no file.
"""
from __future__ import annotations

import pandas as pd

from pfc.actions import ACTIONS
from pfc.eval.action import Action, classify, names_slot
from pfc.eval.dose import metric_rows
from pfc.eval.personalization import matches, pred_value
from pfc.schema import SOURCES

ACTION_METRICS = ("action_accuracy", "action_macro_f1", "over_ask", "guess_rate", "guess_favourite",
                  "tool_hallucination", "slot_precision", "call_value_accuracy", "discrimination",
                  "two_turn_success", "questions_per_item")
CURVE_METRICS = ("call_coverage", "call_risk")
_ACCURACY = ("format", "app", "function_name", "function_param_names", "function_param_values", "overall", "valid")
_ZEROED = ("func_wrong", "func_missing", "func_excessive", "param_missing", "param_excessive", "value",
           "format_error", *(f"{k}_{s}" for k in ("total", "correct") for s in SOURCES))


def read(output) -> Action:
    return Action("invalid", reason="input:missing_prediction") if output is None else classify(output)


def _param(ex, call: int, argument: str, tools_by_key: dict):
    g = ex.gold[call]
    tool = tools_by_key.get(f"{g.app}.{g.function}" if g.app else g.function)
    p = tool.parameters.get("properties", {}).get(argument) if tool is not None else None
    return p if isinstance(p, dict) else None


def _slot_hit(ex, act: Action, tools_by_key: dict) -> bool:
    return any(names_slot(act.question or "", s["argument"], _param(ex, s["call"], s["argument"], tools_by_key))
               for s in ex.meta.get("ask_slots") or ())


def _guess_pop(ex, act: Action) -> bool:
    info = ex.meta.get("counterfactual") or {}
    if info.get("population_favourite") is None or "argument" not in info:
        return False
    return matches(*pred_value(ex, act.calls, info["call"], info["argument"]), info["population_favourite"],
                   info["argument"])


def columns(ex, act: Action, values_ok: bool, correct: bool, tools_by_key: dict) -> dict:
    """The action columns of one row (module doc); ``values_ok`` / ``correct``: the scorer's
    ``function_param_values`` / ``overall`` of the reply read as a call."""
    gold, pred = ex.action, act.kind
    follow = ex.meta.get("followup")
    first = int(not isinstance(follow, dict))
    row = {"user_id": ex.user_id, "gold_action": gold, "pred_action": pred, "first_turn": first,
           "original_id": (ex.meta.get("counterfactual") or {}).get("original_id") if gold != "call" else None,
           "first_id": None if first else follow.get("first_id"), "action_hit": first * int(gold == pred)}
    for a in ACTIONS:
        row.update({f"{a}_tp": first * int(gold == a == pred), f"{a}_fp": first * int(pred == a != gold),
                    f"{a}_fn": first * int(gold == a != pred), f"gold_{a}": first * int(gold == a)})
        row.update({f"{p}_on_{a}": first * int(pred == p and gold == a) for p in ("call", "ask")})
    row["guess_pop"] = int(row["call_on_ask"] and _guess_pop(ex, act))
    row["slot_hit"] = int(row["ask_on_ask"] and _slot_hit(ex, act, tools_by_key))
    row["value_hit"] = int(row["call_on_call"] and values_ok)
    row["call_made"] = first * int(pred == "call")
    row["call_wrong"] = int(row["call_made"] and not (gold == "call" and correct))
    return row


def score_row(ex, output, row: dict, etype, tools_by_key: dict) -> tuple[dict, str | None]:
    """The scorer's ``row`` and error type of one example, scored on its action (module doc)."""
    act = read(output)
    cols = columns(ex, act, bool(row.get("function_param_values")), bool(row.get("overall")), tools_by_key)
    cols["answered"] = int(output is not None)  # a partial run's missing row: a failure, as for the scorer
    if ex.action != "call":
        ok = int(ex.action == act.kind)
        row = {**row, **{k: ok for k in _ACCURACY if k in row}, **{k: 0 for k in _ZEROED if k in row}}
        etype = None if ok else f"action:{act.kind}_on_{ex.action}"
        row["error_type"] = etype or ""
    return {**row, **cols}, etype


def pairs(df: pd.DataFrame, followed: bool | None = None) -> pd.DataFrame:
    """``df`` (rows of :func:`score_row`, several runs of one answerer pooled; unique ids) with the pair columns
    of the module doc. ``followed``: whether the follow-up turns are in (default: ``df`` holds one); without them the
    two-turn columns have no item (NaN, never 0)."""
    df = df.reset_index(drop=True).copy()
    first = df[df["first_turn"] == 1]
    pred = dict(zip(first["id"], first["pred_action"]))
    call_items = set(first.loc[first["gold_action"] == "call", "id"])
    df["disc_base"] = [int(f == 1 and g == "ask" and o in call_items)
                       for f, g, o in zip(df["first_turn"], df["gold_action"], df["original_id"])]
    df["disc_hit"] = [int(b and p == "ask" and pred[o] == "call")
                      for b, p, o in zip(df["disc_base"], df["pred_action"], df["original_id"])]
    second = df[df["first_turn"] == 0]
    follow = {i: (int(o), p) for i, o, p in zip(second["first_id"], second["overall"], second["pred_action"])}
    base, hit, asked = [], [], []
    for f, i, g, p, o in zip(df["first_turn"], df["id"], df["gold_action"], df["pred_action"], df["overall"]):
        b = int((bool(follow) if followed is None else followed) and f == 1 and (p != "ask" or i in follow))
        after = follow.get(i, (0, None))
        base.append(b)
        hit.append(b * int(after[0] == 1 if p == "ask" else (p == g and (g != "call" or o == 1) and g != "ask")))
        asked.append(b * (int(p == "ask") + int(after[1] == "ask")))
    df["two_turn_base"], df["two_turn_hit"], df["two_turn_questions"] = base, hit, asked
    return df


def table(df: pd.DataFrame, n_boot: int = 1000, seed: int = 0, names=ACTION_METRICS, followed: bool | None = None,
          **extra) -> list[dict]:
    """The action metrics over pooled rows (:func:`pairs` applied): value, user-clustered 95% interval, items,
    direction (``pfc.eval.dose.metric_rows``); a metric with no item of its kind is NaN, never 0."""
    return metric_rows(pairs(df, followed), names, n_boot, seed, **extra)


def risk_coverage(df: pd.DataFrame, evidence: dict, taus, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """The curve of a threshold policy over an always-call run's rows ``df``: at each τ the items whose
    ``evidence`` ({id: supporting records}) is below τ are asked instead of called; per τ, coverage (share answered with
    a call) and risk (wrong calls among them) with their intervals. Coverage never rises with τ."""
    rows = []
    for tau in taus:
        keep = df["id"].map(lambda i: evidence.get(i, 0) >= tau).astype(int)
        part = df.assign(call_made=df["call_made"] * keep, call_wrong=df["call_wrong"] * keep)
        rows += metric_rows(part, CURVE_METRICS, n_boot, seed, tau=tau)
    return pd.DataFrame(rows)
