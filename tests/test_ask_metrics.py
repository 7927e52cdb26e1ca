"""Issue 64's metrics (``pfc.eval.ask``, the registry's ``action_accuracy`` … ``questions_per_item``): golden values
computed by hand on five hand-made first-turn items and two follow-up turns, the scorer scoring ask/cannot items
on their action (a right guess on an ask item is still wrong), and the user-clustered intervals."""
import json
import math

import pytest

from pfc.data import followup
from pfc.eval import ask
from pfc.eval.metrics import METRICS, aggregate
from pfc.eval.scoring import score
from pfc.schema import Example, Tool

P = {"type": "object", "properties": {"restaurant": {"type": "string", "description": "Restaurant name"},
                                      "people": {"type": "integer"}}, "required": ["restaurant"]}
TOOLS = [Tool("Meituan", "book_restaurant", "Book a table", "Food", P), Tool("Didi", "call_taxi", "Taxi", "Transport", P)]
ROLES = {"restaurant": "long_term_history", "people": "query"}
GOLD = [{"app": "Meituan", "function": "book_restaurant", "arguments": {"restaurant": "Haidilao", "people": 4},
         "roles": ROLES}]


def _ex(i, user, action="call", tools=("Meituan.book_restaurant", "Didi.call_taxi"), **meta):
    d = {"id": i, "benchmark": "tracebench", "user_id": user, "query": "Book me a table for 4", "history": [],
         "tools": list(tools), "gold": None if action == "cannot" else GOLD, "meta": meta}
    if action != "call":
        d["meta"] = {**meta, "action": action, "counterfactual": {
            "kind": action, "original_id": i.split("~")[0], "call": 0, "argument": "restaurant",
            "population_favourite": "Haidilao"}}
        if action == "ask":
            d["meta"]["ask_slots"] = [{"call": 0, "argument": "restaurant"}]
    return Example.from_dict(d)


CALL = json.dumps({"name": "Meituan__book_restaurant", "arguments": {"restaurant": "Haidilao", "people": 4}})
ASKED = json.dumps({"ask": "Which restaurant would you like?"})
ITEMS = [_ex("c1", "u1"), _ex("c2", "u2"), _ex("c1~ask", "u1", "ask"), _ex("c2~ask", "u2", "ask"),
         _ex("c1~cannot", "u1", "cannot", tools=("Didi.call_taxi",))]
OUT = {"c1": CALL, "c2": json.dumps({"ask": "How many people?"}), "c1~ask": ASKED, "c2~ask": CALL,
       "c1~cannot": "Sorry, I cannot book a table with these tools."}


def _with_followups():
    by_key = {t.key: t for t in TOOLS}
    extra = [followup.followup(e, OUT[e.id], by_key, "r") for e in ITEMS if e.id in ("c2", "c1~ask")]
    return ITEMS + extra, {**OUT, "c2~followup": CALL, "c1~ask~followup": CALL}


def test_scorer_scores_ask_and_cannot_items_on_their_action():
    rep = score(ITEMS, OUT, "tracebench", TOOLS)
    df = rep.per_example.set_index("id")
    # c2~ask's call is the gold call itself, but the item's right answer is a question: wrong
    assert df.loc["c2~ask", "overall"] == 0 and df.loc["c2~ask", "error_type"] == "action:call_on_ask"
    assert df.loc["c1~ask", "overall"] == 1 and df.loc["c1~cannot", "overall"] == 1
    assert df.loc["c1~ask", "total_long_term_history"] == 0  # no value of an ask item is scored
    assert rep.metrics["overall"] == pytest.approx(3 / 5)
    assert set(rep.errors["id"]) == {"c2", "c2~ask"}  # c2 asked on a call item: the scorer's own error rows


def test_golden_action_metrics_by_hand():
    m = score(ITEMS, OUT, "tracebench", TOOLS).metrics
    # hits c1, c1~ask, c1~cannot of 5; F1 call 2·1/(2+1+1), ask the same, cannot 1
    want = {"action_accuracy": 3 / 5, "action_macro_f1": (0.5 + 0.5 + 1) / 3, "over_ask": 1 / 2, "guess_rate": 1 / 2,
            "guess_favourite": 1.0, "tool_hallucination": 0.0, "slot_precision": 1.0, "call_value_accuracy": 1.0,
            "discrimination": 1 / 2}
    assert {k: m[k] for k in want} == pytest.approx(want)
    assert math.isnan(m["two_turn_success"]) and math.isnan(m["questions_per_item"])  # no follow-up turn scored


def test_two_turn_success_and_questions_with_the_follow_up_rows():
    items, out = _with_followups()
    m = score(items, out, "tracebench", TOOLS).metrics
    # c1 right call, c2 asked then right, c1~ask asked then right, c2~ask guessed (0), c1~cannot refused
    assert m["two_turn_success"] == pytest.approx(4 / 5) and m["questions_per_item"] == pytest.approx(2 / 5)
    assert m["action_accuracy"] == pytest.approx(3 / 5)  # the follow-up rows are no first turns


def test_a_question_not_naming_the_slot_and_a_hallucinated_call():
    out = {**OUT, "c1~ask": json.dumps({"ask": "What time?"}), "c1~cannot": CALL}
    m = score(ITEMS, out, "tracebench", TOOLS).metrics
    assert m["slot_precision"] == 0.0 and m["tool_hallucination"] == 1.0 and m["discrimination"] == 0.5


def test_an_ask_set_alone_gives_nan_for_what_it_cannot_measure():
    m = score(ITEMS[2:4], OUT, "tracebench", TOOLS).metrics
    assert m["guess_rate"] == 0.5 and math.isnan(m["over_ask"]) and math.isnan(m["discrimination"])


def test_a_call_set_is_scored_as_before_unless_asked():
    plain = score(ITEMS[:2], OUT, "tracebench", TOOLS)
    assert "over_ask" not in plain.metrics and "pred_action" not in plain.per_example
    on = score(ITEMS[:2], OUT, "tracebench", TOOLS, actions=True)
    assert on.metrics["over_ask"] == 0.5 and on.metrics["overall"] == plain.metrics["overall"]


def test_macro_f1_leaves_out_an_action_with_no_item_and_bootstraps():
    m = METRICS["action_macro_f1"]
    import pandas as pd
    df = pd.DataFrame([{c: 0 for c in m.columns} | {"call_tp": 1, "user_id": "u"},
                       {c: 0 for c in m.columns} | {"ask_fn": 1, "call_fp": 1, "user_id": "v"}])
    # call F1 2/(2+1) = 2/3; ask F1 0; cannot: no item, left out
    assert aggregate(m, df) == pytest.approx(1 / 3)
    rows = ask.table(score(ITEMS, OUT, "tracebench", TOOLS).per_example, n_boot=200, seed=1)
    by = {r["metric"]: r for r in rows}
    assert by["action_macro_f1"]["value"] == pytest.approx(2 / 3) and by["over_ask"]["higher_is_better"] is False
    assert by["action_accuracy"]["lo"] <= 0.6 <= by["action_accuracy"]["hi"]  # two users: an interval


def test_risk_coverage_of_a_threshold_policy_by_hand():
    df = ask.pairs(score(ITEMS, {i: CALL for i in OUT}, "tracebench", TOOLS).per_example)
    ev = {"c1": 3, "c2": 1, "c1~ask": 0, "c2~ask": 2, "c1~cannot": 5}
    curve = ask.risk_coverage(df, ev, [0, 1, 2, 3, 6], n_boot=0).pivot(index="tau", columns="metric", values="value")
    # tau 0: all 5 called, wrong: the two ask items and the cannot one; tau 3: c1 (right) and c1~cannot (wrong)
    assert list(curve["call_coverage"]) == pytest.approx([1, 0.8, 0.6, 0.4, 0])
    assert list(curve["call_risk"][:4]) == pytest.approx([3 / 5, 2 / 4, 2 / 3, 1 / 2]) and math.isnan(curve["call_risk"][6])


def test_pfc_score_prints_the_action_metrics_of_an_ask_set(tmp_path, capsys):
    from pfc.cli import main
    from pfc.schema import write_examples, write_tools
    write_examples(ITEMS, tmp_path / "examples.jsonl")
    write_tools(TOOLS, tmp_path / "tools.json")
    (tmp_path / "p.jsonl").write_text("".join(json.dumps({"id": i, "output": o}) + "\n" for i, o in OUT.items()))
    assert main(["score", "--benchmark", "tracebench", "--examples", str(tmp_path), "--predictions",
                 str(tmp_path / "p.jsonl"), "--out", str(tmp_path / "s")]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["action_accuracy"], got["over_ask"], got["discrimination"], got["overall"]) == (0.6, 0.5, 0.5, 0.6)
    assert got["two_turn_success"] is None  # undefined without the follow-up turn: null, never 0
