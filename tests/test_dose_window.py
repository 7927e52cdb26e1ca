"""Evidence windows (``dose@W``, ``contradict-stated@W``, pfc.data.counterfactual_dose): the variant's history cut
to W records a prompt shows whole, and the reference plan's evidence runs showing every record of the dose.

Golden histories are worked out by hand on the hand-made users of ``test_dose.py`` (u1: Luckin coffee on
03-01, 03-03 and 03-05, news on 03-02/04/06, two older news records; u2 and u3: Starbucks, the population's
favourite). Why windows exist: without one, a run that shows the last 10 of a long history shows almost none
of the dose (measured on the default build: 0.16 supporting records on average at every K >= 1)."""
import json
import pytest

from pfc import benchmarks
from pfc.data.counterfactual import parse_kind, perturb, window_of
from pfc.errors import UserError
from pfc.run.config import RunConfig
from pfc.run.history import select_history
from dose_users import COFFEE, E1_HIST, hand, one  # noqa: F401 - hand is a fixture

T = lambda v: [h.time for h in v.history]  # noqa: E731


def test_a_windowed_dose_keeps_k_supporting_records_and_the_latest_other_functions(hand):
    v, _ = one(hand, "dose:1@3")  # H2 (Monday morning, most like the Thursday-morning request) + 2 latest news
    assert T(v) == ["2025-03-03T09:00:00", "2025-03-04T10:00:00", "2025-03-06T10:00:00"]
    assert v.meta["counterfactual"]["window"] == 3 and v.meta["history_length"] == 3


def test_a_windowed_dose_above_the_supporting_records_keeps_the_week_earlier_copies(hand):
    v, _ = one(hand, "dose:4@5")  # H1, H2, H3 and H2's copy a week earlier, then the latest news record
    assert T(v) == ["2025-02-24T09:00:00", "2025-03-01T09:00:00", "2025-03-03T09:00:00", "2025-03-05T20:00:00",
                    "2025-03-06T10:00:00"]
    assert [h.app for h in v.history if h.function == COFFEE] == ["Luckin"] * 4


def test_every_windowed_dose_has_the_window_length_and_no_counter_evidence(hand):
    for k in (0, 1, 2, 4):
        v, _ = one(hand, f"dose:{k}@4")
        assert len(v.history) == 4 and sum(h.function == COFFEE for h in v.history) == k
        assert all(h.app == "Luckin" for h in v.history if h.function == COFFEE)


def test_a_windowed_contradiction_is_the_originals_latest_records_and_the_habit(hand):
    v, _ = one(hand, "contradict-stated:4@6")  # E1's last 2 (H3 large, news 03-06) + 4 medium, 1-4 weeks back
    assert T(v) == ["2025-02-20T09:00:00", "2025-02-27T09:00:00", "2025-03-05T20:00:00", "2025-03-06T09:00:00",
                    "2025-03-06T10:00:00", "2025-03-13T09:00:00"]
    assert [h for h in v.history if h.arguments.get("size") != "medium"] == E1_HIST[-2:]
    assert v.meta["counterfactual"]["window"] == 6


def test_a_habits_strength_is_judged_on_the_window(hand):
    # the whole history: 3 medium against u1's 3 large, a tie (test_dose); the window of 6 keeps one large
    assert one(hand, "contradict-stated:3")[0] is None
    v, _ = one(hand, "contradict-stated:3@6")
    # habit on 02-27, 03-06 and 03-13 (09:00); E1's last 3: news 03-04, H3 large 03-05, news 03-06: 3 of 4 medium
    assert [h.arguments.get("size") for h in v.history if h.function == COFFEE] == ["medium", "large", "medium",
                                                                                    "medium"]


def test_window_of_reads_the_window_and_parse_kind_ignores_it():
    assert window_of("dose@20") == 20 and window_of("contradict-stated:8@9") == 9 and window_of("dose") is None
    assert parse_kind("dose:0,4@4") == ("dose", (0, 4)) and parse_kind("contradict-stated@20") == ("contradict-stated", 8)


@pytest.mark.parametrize("bad", ["dose@10", "dose:0,4@3", "contradict-stated:8@8", "contradict-stated@x",
                                 "swap-user@5", "truncate-history:3@5", "dose@999"])
def test_a_window_that_cannot_hold_the_evidence_is_a_one_line_error(bad):
    with pytest.raises(UserError, match="bad window") as e:
        parse_kind(bad)
    assert "\n" not in str(e.value)


def test_windowed_variants_are_the_same_bytes_twice(tiny_tracebench):
    exs, _ = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    once = [v.to_dict() for v in perturb(exs, "dose@20", seed=0)[0]]
    assert once == [v.to_dict() for v in perturb(exs, "dose@20", seed=0)[0]] and once


def _supporting(v, shown: list) -> int:
    """Records of ``shown`` that support the dose variant ``v``'s target (its gold app, or its argument's value)."""
    m = v.meta["counterfactual"]
    g = v.gold[m["call"]]
    key = lambda x: json.dumps(x, sort_keys=True)  # noqa: E731
    return sum(h.function == g.function and (h.app == g.app if m["argument"] is None else
                                             key(h.arguments.get(m["argument"])) == key(m["user_choice"]))
               for h in shown)


def test_the_plans_evidence_runs_show_every_record_of_the_dose_and_the_habit(tiny_tracebench, tmp_path):
    """The invariant the windows exist for, on the runs the reference plan makes: each dose variant's prompt
    shows exactly K supporting records (and the same number of records at every K); each contradict-stated
    variant's prompt shows its originals run's history plus exactly the K habit records."""
    import shutil
    from pfc.plans.evidence import STATED_ORIGINALS_RUN, DOSE_RUN, STATED_RUN, evidence_runs
    tb = tmp_path / "tracebench"
    shutil.copytree(tiny_tracebench, tb)
    exs, _ = benchmarks.get("tracebench").scoring.load(tb, None)
    like = RunConfig("tracebench", tb, "oracle", tmp_path / "runs" / "tracebench-last_k", history="last_k", k=10)
    steps = {p.name: p for p in evidence_runs(tb, exs, like)}
    for p in steps.values():
        if p.build:
            p.build()
    cfg = {n: steps[n].config for n in (DOSE_RUN, STATED_RUN, STATED_ORIGINALS_RUN)}
    load = lambda c: {e.id: e for e in benchmarks.get("tracebench").scoring.load(c.examples, None)[0]}  # noqa: E731
    dose, stated, originals = (load(cfg[n]) for n in (DOSE_RUN, STATED_RUN, STATED_ORIGINALS_RUN))
    shown = lambda e, c: select_history(e, c.history, c.k)  # noqa: E731
    planned = [dose[i] for i in cfg[DOSE_RUN].ids]
    assert planned and {len(shown(v, cfg[DOSE_RUN])) for v in planned} == {20}
    for v in planned:
        assert _supporting(v, shown(v, cfg[DOSE_RUN])) == v.meta["counterfactual"]["k"], v.id
    assert cfg[STATED_RUN].ids
    for i in cfg[STATED_RUN].ids:
        v = stated[i]
        m = v.meta["counterfactual"]
        orig = shown(originals[m["original_id"]], cfg[STATED_ORIGINALS_RUN])
        rest = list(shown(v, cfg[STATED_RUN]))
        for h in orig:
            rest.remove(h)  # every record the original's prompt shows is in the variant's
        assert len(rest) == m["k"] and all(h.arguments[m["argument"]] == m["habit"] for h in rest), v.id


@pytest.mark.parametrize("kind", ["contradict-stated:8@20", "dose@20", "truncate-history:3"])
def test_the_manifest_records_a_perturb_command_that_runs_again(tiny_tracebench, tmp_path, kind):
    from pfc.data.counterfactual import VariantSet, write
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    variants, skipped = perturb(exs, kind, seed=0)
    manifest = write(tmp_path / "v", tiny_tracebench, VariantSet("tracebench", kind, 0, variants, skipped, tools, exs))
    command = manifest["origin"]["derived"][-1]
    assert command == f"pfc perturb --kind {kind} --seed 0"
    assert parse_kind(command.split()[3]) == parse_kind(kind)  # what a rerun parses
