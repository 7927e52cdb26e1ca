"""Leakage audits: hand-made cases for each audit, and the audits in each build's stats.json."""
import json

from pfc.data.audits import gold_in_history, most_frequent_app, near_duplicates, user_disjointness
from pfc.schema import Example


def _ex(uid, qid="q", query="Order takeout.", history=(), app="Eleme", restaurant="KFC", meta=None):
    return Example.from_dict({
        "id": qid, "benchmark": "tracebench", "user_id": uid, "query": query,
        "history": [{"time": f"2025-03-01T0{i}:00:00", "app": a, "function": "order_takeout",
                     "arguments": {"restaurant": r}} for i, (a, r) in enumerate(history)],
        "gold": [{"app": app, "function": "order_takeout", "arguments": {"restaurant": restaurant},
                  "roles": {"restaurant": "long_term_history"}}], "meta": meta or {}})


def test_user_disjointness_counts_shared_users():
    r = user_disjointness([_ex("a"), _ex("b")], [_ex("b"), _ex("c"), _ex("c")])
    assert (r["shared_users"], r["disjoint"], r["shared_examples"]) == (1, False, 1)


def test_gold_value_outside_the_last_five_records_counts_only_for_all():
    hist = [("Eleme", "KFC")] + [("Eleme", "Dicos")] * 5   # KFC is the 6th record from the end
    r = gold_in_history([_ex("a", history=hist)])
    assert r["long_term_history"] == {"values": 1, "in_last_5": 0.0, "in_last_20": 1.0, "in_all": 1.0}


def test_gold_value_is_matched_as_a_whole_word_only():
    r = gold_in_history([_ex("a", history=[("Eleme", "KFC Express")] * 3, restaurant="KFC Ex")])
    assert r["long_term_history"]["in_all"] == 0.0


def test_near_duplicates_by_word_trigram_jaccard():
    # 8 words -> 6 trigrams; the test request adds one word -> 7 trigrams, 6 shared: 6/7 >= 0.8
    r = near_duplicates(["order a large pizza to my home now"],
                        ["order a large pizza to my home now please", "book a flight", "Order a large pizza to my home now"])
    assert (r["near_duplicates"], r["exact_duplicates"], r["test_queries"]) == (2, 1, 3)


def test_most_frequent_app_rule_share_over_queries_that_do_not_name_the_app():
    exs = [_ex("a", "1", history=[("Meituan", "x")] * 2 + [("Eleme", "x")], app="Meituan"),   # solved
           _ex("a", "2", history=[("Meituan", "x")] * 2 + [("Eleme", "x")], app="Eleme"),     # not solved
           _ex("a", "3", query="Order on Eleme.", history=[("Meituan", "x")], app="Eleme")]   # names the app
    assert most_frequent_app(exs) == {"queries": 2, "solved_by_most_frequent_app": 1, "share": 0.5}


def test_tracebench_build_writes_the_audits_into_stats(tmp_path):
    from pfc.data.build import build_tracebench
    st = build_tracebench(tmp_path / "tb", users=2, seed=1, records=150, progress=False)
    on_disk = json.loads((tmp_path / "tb" / "stats.json").read_text())["audits"]
    assert on_disk == json.loads(json.dumps(st["audits"]))
    assert set(on_disk) == {"gold_in_history", "most_frequent_app", "user_disjointness", "near_duplicates"}
    # an independent route: the build's own tool-choice statistics (pfc.data.build.tool_choice)
    assert on_disk["most_frequent_app"]["share"] == st["tool_choice"]["app_accuracy"]["most_frequent_app_rule"]


def test_ptbench_build_audits_untrained_users_as_disjoint_from_training(tmp_path):
    from pfc.data.ptool.build import synthesize, write
    st = write(synthesize(seed=0, ks=(2, 2, 2), per_user=5, unseen_ks=(1, 2, 1), unseen_per_user=3, held_out=2),
               tmp_path / "pt")
    audits = json.loads((tmp_path / "pt" / "stats.json").read_text())["audits"]
    assert audits["test_untrained_user"]["user_disjointness"]["disjoint"] is True
    assert audits["test_trained_user"]["user_disjointness"]["disjoint"] is False
    assert st["audits"]["test_untrained_user"]["near_duplicates"]["test_queries"] > 0
