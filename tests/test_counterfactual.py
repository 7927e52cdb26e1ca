"""`pfc perturb`: counterfactual variants, linked to their originals, deterministic, with hand-known counterfactual gold."""
import json
import os
import subprocess
import sys

import pytest

from pfc.data.counterfactual import parse_kind, perturb, strip_value
from pfc.errors import UserError
from pfc.schema import Example, write_examples

KINDS = ["swap-user", "shuffle-history", "truncate-history:2", "drop-profile", "shift-time:+1", "shift-time:-3",
         "strip-stated"]


def _rec(time, app, fn="order_takeout", **args):
    return {"time": time, "app": app, "function": fn, "arguments": args}


def _tb(uid, qid, anchor, history, gold_app="Eleme", restaurant="Wallace", items="pizza"):
    return Example.from_dict({
        "id": qid, "benchmark": "tracebench", "user_id": uid, "history": history,
        "query": f"Order takeout, {items}, pay with Alipay.",
        "gold": [{"app": gold_app, "function": "order_takeout",
                  "arguments": {"restaurant": restaurant, "items": items, "payment_method": "Alipay"},
                  "roles": {"restaurant": "long_term_history", "items": "query", "payment_method": "query"}}],
        "meta": {"anchor_time": anchor, "app_stated": False, "stated": ["items", "payment_method"],
                 "history_length": len(history)}})


# Two users; both order on weekday evenings (2025-03-03..07 are Monday..Friday).
# User b: Meituan 3 of 4 times in that context, restaurant KFC 3 of 4 -> b's context app Meituan, habit KFC.
HIST_A = [_rec(f"2025-03-0{d}T19:00:00", "Eleme", restaurant="Wallace", items="x", payment_method="Alipay")
          for d in (3, 4, 5, 6)]
HIST_B = [_rec("2025-03-03T18:30:00", "Meituan", restaurant="KFC", items="y", payment_method="WeChat Pay"),
          _rec("2025-03-04T18:30:00", "Meituan", restaurant="KFC", items="y", payment_method="WeChat Pay"),
          _rec("2025-03-05T18:30:00", "Eleme", restaurant="Dicos", items="y", payment_method="WeChat Pay"),
          _rec("2025-03-06T18:30:00", "Meituan", restaurant="KFC", items="y", payment_method="WeChat Pay")]


def _tiny_tracebench():
    return [_tb("a", "a1", "2025-03-07T19:30:00", HIST_A),
            _tb("b", "b1", "2025-03-07T19:30:00", HIST_B, gold_app="Meituan", restaurant="KFC", items="noodles")]


def test_swap_user_carries_the_donors_context_app_and_habit_as_gold():
    variants, _ = perturb(_tiny_tracebench(), "swap-user", seed=0)
    v = next(x for x in variants if x.meta["counterfactual"]["original_id"] == "a1")
    assert v.meta["counterfactual"]["donor_user"] == "b" and [h.app for h in v.history] == [h["app"] for h in HIST_B]
    assert (v.gold[0].app, v.gold[0].arguments["restaurant"]) == ("Meituan", "KFC")


def test_swap_user_keeps_the_gold_of_stated_values():
    variants, _ = perturb(_tiny_tracebench(), "swap-user", seed=0)
    v = next(x for x in variants if x.meta["counterfactual"]["original_id"] == "a1")
    assert v.query == "Order takeout, pizza, pay with Alipay."
    assert {k: v.gold[0].arguments[k] for k in ("items", "payment_method")} == {"items": "pizza",
                                                                              "payment_method": "Alipay"}
    assert {it["argument"]: it["known"] for it in v.meta["counterfactual"]["items"]} == \
        {None: True, "restaurant": True, "items": True, "payment_method": True}


def test_swap_user_leaves_gold_unknown_without_a_strong_habit():
    weak = [_rec(f"2025-03-0{d}T19:00:00", "Eleme", restaurant=r, items="x", payment_method="Alipay")
            for d, r in ((3, "A"), (4, "B"), (5, "C"))]  # three restaurants once each: no habit, Eleme 3 times
    exs = [_tb("a", "a1", "2025-03-07T19:30:00", HIST_A), _tb("c", "c1", "2025-03-07T19:30:00", weak)]
    v = next(x for x in perturb(exs, "swap-user", 0)[0] if x.id.startswith("a1"))
    item = next(it for it in v.meta["counterfactual"]["items"] if it["argument"] == "restaurant")
    assert (item["known"], item["counterfactual"], v.gold[0].arguments["restaurant"]) == (False, None, "Wallace")


def test_swap_user_on_ptbench_takes_the_donors_profile_value_and_platform():
    def pt(uid, qid, pay, plat):
        return Example.from_dict({
            "id": qid, "benchmark": "ptbench", "user_id": uid, "query": "Order a pizza.",
            "profile": {"basic_features": {"city": uid}, "user_history": {"food": [{"platform": plat}]}},
            "gold": [{"app": plat, "function": "order", "arguments": {"item": "pizza", "payment": pay},
                      "roles": {"item": "query", "payment": "profile"}}]})
    v = next(x for x in perturb([pt("u1", "q1", "Alipay", "MegaMart"), pt("u2", "q2", "PayPal", "QuickBuy")],
                                "swap-user", 0)[0] if x.id.startswith("q1"))
    assert v.profile["basic_features"] == {"city": "u2"}
    assert (v.gold[0].app, v.gold[0].arguments) == ("QuickBuy", {"item": "pizza", "payment": "PayPal"})


def test_swap_user_on_toolspectrum_swaps_profile_and_environment_and_keeps_gold():
    exs = [Example.from_dict({"id": str(i), "benchmark": "toolspectrum", "query": "q", "profile": {"p": i},
                              "environment": {"e": i}, "gold": [{"app": "A", "function": "f", "arguments": {}}]})
           for i in range(3)]
    for v in perturb(exs, "swap-user", 0)[0]:
        orig = exs[int(v.meta["counterfactual"]["original_id"])]
        assert v.profile != orig.profile and v.profile["p"] == v.environment["e"]
        assert v.gold[0].to_dict() == orig.gold[0].to_dict() and v.meta["counterfactual"]["items"] == []


def test_truncate_history_keeps_the_last_k_records():
    v = perturb(_tiny_tracebench(), "truncate-history:2", 0)[0][0]
    assert [h.time for h in v.history] == [h["time"] for h in HIST_A[-2:]] and v.meta["history_length"] == 2


def test_shift_time_back_drops_records_that_would_lie_in_the_future():
    v = perturb(_tiny_tracebench(), "shift-time:-2", 0)[0][0]  # 2025-03-05T19:30: the 03-03 and 03-04 records stay
    assert v.meta["anchor_time"] == "2025-03-05T19:30:00" and len(v.history) == 3
    assert v.meta["counterfactual"]["dropped_history"] == 1


def test_strip_stated_removes_the_value_from_the_request_and_its_query_provenance():
    v = perturb(_tiny_tracebench(), "strip-stated", 0)[0][0]
    arg = v.meta["counterfactual"]["stripped"]["argument"]
    value = v.gold[0].arguments[arg]
    assert value.lower() not in v.query.lower() and v.gold[0].role(arg).source == "unknown"
    assert arg not in v.meta["stated"]


def test_strip_value_removes_the_template_fragment():
    assert strip_value("Order takeout, pizza, pay with Alipay.", "payment_method", "Alipay") == "Order takeout, pizza."
    assert strip_value("Order takeout.", "payment_method", "Alipay") is None


def test_every_variant_links_to_its_original_and_keeps_its_user():
    exs = _tiny_tracebench()
    by_id = {e.id: e for e in exs}
    for kind in KINDS:
        for v in perturb(exs, kind, 0)[0]:
            orig = by_id[v.meta["counterfactual"]["original_id"]]
            assert v.user_id == orig.user_id and v.id != orig.id and v.meta["counterfactual"]["kind"] in v.id


@pytest.mark.parametrize("kind", ["truncate-history:-1", "shift-time:0", "swap", "drop-profile:3"])
def test_a_bad_kind_is_a_user_error(kind):
    with pytest.raises(UserError):
        parse_kind(kind)


def _cli(args, hashseed):
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    return subprocess.run([sys.executable, "-m", "pfc", "perturb", *args], capture_output=True, text=True, env=env)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.slow
def test_same_seed_gives_the_same_bytes_in_another_process(tmp_path, kind):
    write_examples(_tiny_tracebench() * 1, tmp_path / "in" / "examples.jsonl")
    outs = []
    for i, hs in enumerate(("1", "2")):
        r = _cli(["--benchmark", "tracebench", "--examples", str(tmp_path / "in"), "--kind", kind,
                  "--out", str(tmp_path / f"o{i}")], hs)
        assert r.returncode == 0, r.stderr
        outs.append((tmp_path / f"o{i}" / "examples.jsonl").read_bytes())
    assert outs[0] == outs[1] and outs[0]


def test_perturb_with_a_kind_no_example_admits_exits_2_with_one_line(tmp_path):
    ex = Example.from_dict({"id": "1", "benchmark": "tracebench", "query": "q", "gold": None})
    write_examples([ex], tmp_path / "in" / "examples.jsonl")
    r = _cli(["--benchmark", "tracebench", "--examples", str(tmp_path / "in"), "--kind", "shuffle-history",
              "--out", str(tmp_path / "o")], "0")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "no history" in r.stderr
    assert not (tmp_path / "o" / "examples.jsonl").exists()


def test_manifest_counts_variants_and_skipped(tmp_path):
    write_examples(_tiny_tracebench(), tmp_path / "in" / "examples.jsonl")
    r = _cli(["--benchmark", "tracebench", "--examples", str(tmp_path / "in"), "--kind", "swap-user",
              "--out", str(tmp_path / "o")], "0")
    m = json.loads((tmp_path / "o" / "perturb.json").read_text())
    assert r.returncode == 0 and (m["originals"], m["variants"], m["skipped"]) == (2, 2, {})
    assert not os.path.isabs(m["examples"]["path"])


def test_swap_user_skips_a_request_without_history_or_profile():
    bare = [_tb("a", "a1", "2025-03-07T19:30:00", []), _tb("b", "b1", "2025-03-07T19:30:00", HIST_B)]
    variants, skipped = perturb(bare, "swap-user", 0)  # b1 is skipped too: its only donor has no history to give
    assert variants == [] and skipped == {"no user context (history or profile) to swap": 1,
                                          "no other user with a context for this request": 1}


def test_answered_only_scores_exactly_the_variants_both_runs_answered(tiny_tracebench, tmp_path):
    """A partial run (as a reference run in progress): the scored variants are the pairs with both answers,
    and each metric equals the full run's per-variant rows restricted to them (an independent route)."""
    from pfc.data.counterfactual import build_variants
    from pfc.eval.metrics import METRICS, aggregate
    from pfc.report.counterfactual import PERSONALIZATION, evaluate_pairs
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute
    var = tmp_path / "variants"
    build_variants(tiny_tracebench, var, "swap-user", seed=0)
    orig_run, var_run = tmp_path / "orig", tmp_path / "var"
    execute(RunConfig("tracebench", tiny_tracebench, "history-prior", orig_run, progress=False))
    execute(RunConfig("tracebench", var, "history-prior", var_run, progress=False))
    _, _, full = evaluate_pairs("tracebench", tiny_tracebench, var, {"hp": (orig_run, var_run)}, n_boot=0)
    rows = (var_run / "predictions.jsonl").read_text().splitlines()
    (var_run / "predictions.jsonl").write_text("\n".join(rows[:5]) + "\n")  # 5 variants answered so far
    kept = {json.loads(r)["id"] for r in rows[:5]}
    long, wide, per = evaluate_pairs("tracebench", tiny_tracebench, var, {"hp": (orig_run, var_run)}, n_boot=0,
                                     answered_only=True)
    assert set(per["hp"]["id"]) == kept and int(wide.loc["hp", "variants"]) == 5
    expected = full["hp"][full["hp"]["id"].isin(kept)].reset_index(drop=True)
    for m in PERSONALIZATION:
        got = long.set_index("metric").loc[m, "value"]
        want = aggregate(METRICS[m], expected)
        assert got == pytest.approx(want, nan_ok=True), m
