"""Paired comparisons: exact McNemar on hand-computed golden cases, cluster bootstrap, refusing unpaired runs."""
import json

import numpy as np
import pandas as pd
import pytest

from pfc.errors import UserError
from pfc.eval.bootstrap import clustered_intervals
from pfc.eval.paired import holm, mcnemar_exact, paired_metric
from pfc.report.paired import align
from pfc.report.tables import Run


@pytest.fixture(scope="module")
def cases(golden):
    return json.loads((golden / "paired_cases.json").read_text())


def test_mcnemar_exact_matches_the_hand_computed_p_values(cases):
    for c in cases["mcnemar"]:
        assert mcnemar_exact(c["b"], c["c"]) == pytest.approx(c["p"], abs=1e-10), c


def test_paired_metric_counts_discordant_pairs_and_tests_them(cases):
    for c in cases["tables"]:
        users = [f"u{i}" for i in range(len(c["a"]))]
        a = pd.DataFrame({"user_id": users, "overall": c["a"]})
        b = pd.DataFrame({"user_id": users, "overall": c["b"]})
        r = paired_metric(a, b, "overall", n_boot=200)
        assert (r["a_only"], r["b_only"]) == (c["a_only"], c["b_only"])
        assert r["diff"] == pytest.approx(c["diff"]) and r["mcnemar_p"] == pytest.approx(c["p"])


def test_cluster_bootstrap_moves_a_users_rows_together():
    # user a: three rights, user b: one wrong -> a resample is {a,a}: 1, {a,b}: 3/4, {b,b}: 0
    df = pd.DataFrame({"user_id": ["a", "a", "a", "b"], "overall": [1, 1, 1, 0]})
    lo, hi = clustered_intervals(df, {"overall": "overall"}, n_boot=2000, seed=1)["overall"]
    assert (lo, hi) == (0.0, 1.0)


def test_paired_interval_is_narrower_than_unpaired_when_runs_share_user_effects():
    rng = np.random.default_rng(0)
    users = np.repeat([f"u{i}" for i in range(20)], 30)
    skill = np.repeat(rng.uniform(0.1, 0.9, 20), 30)      # what both runs share: how hard each user is
    base = (rng.uniform(size=600) < skill).astype(int)
    better = np.where(rng.uniform(size=600) < 0.1, 1, base)  # B = A plus a few fixes
    r = paired_metric(pd.DataFrame({"user_id": users, "overall": better}),
                      pd.DataFrame({"user_id": users, "overall": base}), "overall", n_boot=1000)
    assert r["paired_hi"] - r["paired_lo"] < 0.5 * (r["unpaired_hi"] - r["unpaired_lo"])


def _run(name, ids):
    return Run(name, "tracebench", {}, pd.DataFrame({"id": ids, "overall": [1] * len(ids)}), {}, pd.DataFrame())


def test_runs_on_different_example_sets_are_refused_with_the_shared_count():
    with pytest.raises(UserError, match="they share 2 ids"):
        align(_run("A", ["1", "2", "3"]), _run("B", ["2", "3", "4", "5"]))


def test_rows_without_a_user_count_as_one_cluster_each():
    # ToolSpectrum examples carry no user id: the bootstrap resamples them one by one, and the count it reports
    # must say so (4 clusters, not the single "missing user" that nunique(dropna=False) would give)
    a = pd.DataFrame({"user_id": [None] * 4, "overall": [1, 1, 0, 0]})
    b = pd.DataFrame({"user_id": [None] * 4, "overall": [1, 0, 0, 0]})
    assert paired_metric(a, b, "overall", n_boot=50)["clusters"] == 4


def test_users_are_counted_once_however_many_rows_they_have():
    a = pd.DataFrame({"user_id": ["u1", "u1", "u2", None], "overall": [1, 1, 0, 0]})
    assert paired_metric(a, a, "overall", n_boot=50)["clusters"] == 3  # u1, u2 and the row without a user


def test_holm_multiplies_the_ith_smallest_p_by_m_minus_i_and_keeps_the_order():
    # by hand: sorted 0.01, 0.03, 0.04, 0.5 -> 4*0.01, 3*0.03, max(0.09, 2*0.04), max(0.09, 1*0.5); returned in input order
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])


def test_holm_never_lets_a_larger_p_fall_below_a_smaller_ones_adjustment_nor_exceed_one():
    assert holm([0.02, 0.021]) == pytest.approx([0.04, 0.04])  # 1 * 0.021 would fall below 2 * 0.02
    assert holm([0.6, 0.7]) == [1.0, 1.0]
    assert holm([]) == []
