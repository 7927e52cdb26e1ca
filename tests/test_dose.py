"""Evidence dose and contradict-stated variants (pfc.data.counterfactual_dose) and their metrics (pfc.eval.dose).

Golden values are worked out by hand on hand-made users below; the baselines' expected behaviour
(history-prior switches with K and keeps every stated value, no-history never switches, always-habit
overrides) is checked on the shared tiny TRACEBench.
"""
import json
import math
import os
import subprocess
import sys

import pytest

from pfc.data.counterfactual import parse_kind, perturb
from pfc.data.variant import variant
from pfc.errors import UserError
from pfc.eval import dose
from pfc.eval.metrics import METRICS, aggregate
from pfc.render import render
from pfc.schema import Call, Example

from dose_users import COFFEE, E1_HIST, ex, hand, one  # noqa: F401 - hand is a fixture


def test_dose_1_keeps_the_most_request_like_supporting_record_and_fills_with_the_users_older_records(hand):
    v, _ = one(hand, "dose:1")
    assert v.id == "e1~dose-1" and [h.time for h in v.history] == [
        "2025-02-20T10:00:00", "2025-02-21T10:00:00", "2025-03-02T10:00:00", "2025-03-03T09:00:00",
        "2025-03-04T10:00:00", "2025-03-06T10:00:00"]
    assert [h.app for h in v.history if h.function == COFFEE] == ["Luckin"]
    info = v.meta["counterfactual"]
    assert (info["k"], info["user_choice"], info["population_favourite"], info["argument"]) == (1, "Luckin",
                                                                                             "Starbucks", None)
    assert info["supporting_before"] == 3 and v.gold[0].app == "Luckin"


def test_dose_above_the_supporting_records_adds_week_earlier_copies_in_place_of_the_oldest_neutral(hand):
    v, _ = one(hand, "dose:4")
    assert [(h.time, h.app) for h in v.history] == [
        ("2025-02-24T09:00:00", "Luckin"), ("2025-03-01T09:00:00", "Luckin"), ("2025-03-03T09:00:00", "Luckin"),
        ("2025-03-04T10:00:00", "Toutiao"), ("2025-03-05T20:00:00", "Luckin"), ("2025-03-06T10:00:00", "Toutiao")]


def test_every_dose_keeps_exactly_k_supporting_records_and_the_history_length(hand):
    for k in (0, 1, 2, 3, 4):
        v, _ = one(hand, f"dose:{k}")
        assert sum(h.function == COFFEE and h.app == "Luckin" for h in v.history) == k
        assert len(v.history) == len(E1_HIST) == v.meta["history_length"]


def test_a_user_whose_choice_is_the_populations_favourite_is_skipped(hand):
    v, skipped = one(hand, "dose:2", id_="u2-e")
    assert v is None and sum(skipped.values()) == 2  # u2 and u3: Starbucks is the favourite


def test_dose_without_k_gives_the_default_k_set_and_lists_are_sorted_and_a_repeated_k_refused():
    assert parse_kind("dose") == ("dose", (0, 1, 2, 4, 8, 16))
    assert parse_kind("dose:8,0") == ("dose", (0, 8))
    with pytest.raises(UserError, match="lists K = 8 twice"):  # issue 66: no longer deduplicated silently
        parse_kind("dose:8,0,8")
    assert parse_kind("contradict-stated") == ("contradict-stated", 8)
    for bad in ("dose:-1", "dose:1,,2", "dose:999", "contradict-stated:0", "contradict-stated:x"):
        with pytest.raises(UserError, match="unknown kind"):
            parse_kind(bad)


def test_contradict_stated_needs_a_habit_strong_by_the_anchors_rule(hand):
    v, skipped = one(hand, "contradict-stated:3")  # 3 medium against u1's 3 large: a tie, no habit
    assert v is None and "3 records make no strong habit against the history's own values" in skipped
    v, _ = one(hand, "contradict-stated:4")  # 4 of 7: medium, by the rule share >= 0.5
    added = [h for h in v.history if h.arguments.get("size") == "medium"]
    assert [h.time for h in added] == ["2025-02-20T09:00:00", "2025-02-27T09:00:00", "2025-03-06T09:00:00",
                                       "2025-03-13T09:00:00"]  # the request's weekday and hour, 1-4 weeks back
    assert {h.app for h in added} == {"Luckin"} and len(v.history) == len(E1_HIST) + 4
    info = v.meta["counterfactual"]
    assert (info["stated"], info["habit"], info["argument"], v.gold[0].arguments["size"]) == ("large", "medium",
                                                                                             "size", "large")


def test_sets_without_call_histories_are_refused_saying_why():
    pt = Example("p1", "ptbench", "book it", None, "u", {"basic_features": {}}, None, [], None, {})
    for kind in ("dose", "contradict-stated"):
        with pytest.raises(UserError, match="none of these examples has a call history"):
            perturb([pt], kind)


def test_dose_variants_are_the_same_bytes_under_any_hash_seed(tiny_tracebench, tmp_path):
    outs = []
    for h in ("0", "123"):
        out = tmp_path / f"v{h}"
        p = subprocess.run([sys.executable, "-m", "pfc", "perturb", "--benchmark", "tracebench", "--examples",
                            str(tiny_tracebench), "--kind", "dose:0,2,16", "--seed", "3", "--out", str(out)],
                           capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": h}, timeout=300)
        assert p.returncode == 0, p.stderr
        outs.append((out / "examples.jsonl").read_bytes())
    assert outs[0] == outs[1] and len(outs[0]) > 0


# ------------------------------------------------------------------ metrics, by hand
def _dose_variant(oid, user, k):
    base = ex(oid, user, [])
    return variant(base, "dose", k, 0, k=k, call=0, argument=None, user_choice="Luckin",
                   population_favourite="Starbucks")


def _say(app, size="large"):
    return render([Call(app, COFFEE, {"size": size})], "tracebench")


def test_dose_metrics_by_hand():
    # r1 moves from the population's app (K=0) to the user's (K=2); r2 had the user's app already at K=0;
    # r3 (another user) goes from a third app to the population's favourite.
    answers = {("r1", 0): "Starbucks", ("r1", 2): "Luckin", ("r2", 0): "Luckin", ("r2", 2): "Luckin",
               ("r3", 0): "Manner", ("r3", 2): "Starbucks"}
    variants = [_dose_variant(r, "u1" if r != "r3" else "u2", k) for r, k in answers]
    df = dose.dose_rows(variants, {f"{r}~dose-{k}": _say(a) for (r, k), a in answers.items()}, "auto")
    at = {k: df[df["dose_k"] == k] for k in (0, 2)}
    got = {k: [aggregate(METRICS[m], at[k]) for m in ("user_choice", "population_choice", "switch_rate")]
           for k in at}
    assert got == {0: [1 / 3, 1 / 3, 0.0], 2: [2 / 3, 1 / 3, 1 / 3]}
    table = dose.curve(df.assign(overall=df["user_hit"]), n_boot=200)
    assert dose.threshold(table) is None  # 1/3 of switches: no lower bound above 0.5
    assert dose.threshold(table.assign(lo=[0.6 if m == "switch_rate" else 0 for m in table["metric"]])) == 0


def test_override_metrics_by_hand():
    # c1 keeps the stated size; c2 was right on the original and takes the habit; c3 was wrong on the
    # original (small) and takes the habit: stated_wins 1/2 (c1 of c1, c2), overrides 2/3 (c2, c3).
    originals = [ex(c, "u1", []) for c in ("c1", "c2", "c3")]
    variants = [variant(o, "contradict-stated", 8, 0, k=8, call=0, argument="size", stated="large",
                        habit="medium") for o in originals]
    out_o = {"c1": _say("Luckin"), "c2": _say("Luckin"), "c3": _say("Luckin", "small")}
    out_v = {"c1~contradict-stated-8": _say("Luckin"), "c2~contradict-stated-8": _say("Luckin", "medium"),
             "c3~contradict-stated-8": _say("Luckin", "medium")}
    df = dose.override_rows(originals, variants, out_o, out_v, "auto")
    assert aggregate(METRICS["stated_wins"], df) == 0.5 and aggregate(METRICS["overrides"], df) == 2 / 3
    assert METRICS["overrides"].higher_is_better is False and METRICS["stated_wins"].higher_is_better


# ------------------------------------------------------------------ the baselines on the tiny TRACEBench
@pytest.fixture(scope="module")
def baselines(tiny_tracebench):
    from pfc.run.backends.builtin import BUILTINS
    from pfc.schema import load_examples, load_tools
    originals = load_examples(tiny_tracebench / "examples.jsonl")
    tools = load_tools(tiny_tracebench / "tools.json")
    sets = {k: perturb(originals, k, seed=0)[0] for k in ("dose", "contradict-stated")}
    answers = {}
    for name in ("history-prior", "no-history", "always-habit"):
        b = BUILTINS[name](tools=tools)
        answers[name] = {e.id: render(b.predict(e), "tracebench")
                         for e in originals + sets["dose"] + sets["contradict-stated"]}
    return originals, sets, answers


def _switch(baselines, name):
    _, sets, answers = baselines
    df = dose.dose_rows(sets["dose"], answers[name], "auto")
    return {k: aggregate(METRICS["switch_rate"], part) for k, part in df.groupby("dose_k")}


def test_history_prior_switches_more_as_the_dose_grows(baselines):
    s = _switch(baselines, "history-prior")
    assert list(s) == [0, 1, 2, 4, 8, 16] and s[0] == 0.0
    assert all(a <= b for a, b in zip(list(s.values()), list(s.values())[1:])) and s[16] > 0.5, s


def test_no_history_never_switches(baselines):
    assert set(_switch(baselines, "no-history").values()) == {0.0}


def _override(baselines, name):
    originals, sets, answers = baselines
    df = dose.override_rows(originals, sets["contradict-stated"], answers[name], answers[name], "auto")
    return aggregate(METRICS["stated_wins"], df), aggregate(METRICS["overrides"], df), len(df)


def test_history_prior_keeps_every_stated_value_against_a_habit(baselines):
    wins, overrides, n = _override(baselines, "history-prior")
    assert (wins, overrides) == (1.0, 0.0) and n > 50


def test_always_habit_overrides_the_stated_value_the_positive_control(baselines):
    wins, overrides, _ = _override(baselines, "always-habit")
    assert overrides > 0.9 and wins < 0.1


def test_sample_takes_one_request_per_anchor_at_every_k_equal_to_its_copy_in_the_whole_set(tiny_tracebench):
    """pfc.data.counterfactual.sample: the pool reads every example, so a sampled variant is byte-for-byte the
    whole set's; each sampled request has every K; at most one request per anchor; n caps the anchors."""
    from pfc import benchmarks
    from pfc.data.counterfactual import sample
    exs, _ = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    whole = {v.id: v.to_dict() for v in perturb(exs, "dose:0,4", seed=0)[0]}
    some, _ = sample(exs, "dose:0,4", 5, seed=0)
    originals = [v.meta["counterfactual"]["original_id"] for v in some]
    anchor = {e.id: e.meta["anchor_id"] for e in exs}
    assert len(set(originals)) == 5 and len({anchor[o] for o in originals}) == 5
    assert sorted(v.id for v in some) == sorted(f"{o}~dose-{k}" for o in set(originals) for k in (0, 4))
    assert all(v.to_dict() == whole[v.id] for v in some)
    assert [v.id for v in sample(exs, "dose:0,4", 5, seed=0)[0]] == [v.id for v in some]
    assert [v.id for v in sample(exs, "dose:0,4", 5, seed=1)[0]] != [v.id for v in some]


def test_a_dose_run_of_one_user_gets_no_interval_and_so_no_threshold():
    # a run in progress that has reached one user: every K at switch rate 1 (r1 Starbucks at K=0, Luckin at K=2),
    # but one user's requests carry no user-clustered interval, so no K can claim a threshold
    answers = {("r1", 0): "Starbucks", ("r1", 2): "Luckin", ("r2", 0): "Starbucks", ("r2", 2): "Luckin"}
    variants = [_dose_variant(r, "u1", k) for r, k in answers]
    df = dose.dose_rows(variants, {f"{r}~dose-{k}": _say(a) for (r, k), a in answers.items()}, "auto")
    table = dose.curve(df.assign(overall=df["user_hit"]), n_boot=200)
    at2 = table[(table["k"] == 2) & (table["metric"] == "switch_rate")].iloc[0]
    assert at2["value"] == 1.0 and math.isnan(at2["lo"]) and math.isnan(at2["hi"])
    assert dose.threshold(table) is None
