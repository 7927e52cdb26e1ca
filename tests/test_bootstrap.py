"""Bootstrap intervals: right width, right aggregation, same bytes in any process."""
import json
import math
import subprocess
import sys

import pandas as pd
import pytest

from pfc.eval.bootstrap import ci, clustered_intervals, intervals


def test_constant_column_has_a_zero_width_interval():
    assert ci(pd.DataFrame({"overall": [1] * 50}), "overall")[1] == (1.0, 1.0)


def test_width_of_a_proportion_matches_the_normal_approximation():
    # independent route: 95% interval of a proportion p=0.5, n=400 is about ±1.96·sqrt(p(1-p)/n) = ±0.049
    df = pd.DataFrame({"overall": [1, 0] * 200})
    value, (lo, hi) = ci(df, "overall", n_boot=2000)
    assert value == 0.5
    half = 1.96 * math.sqrt(0.25 / 400)
    assert lo == pytest.approx(0.5 - half, abs=0.012) and hi == pytest.approx(0.5 + half, abs=0.012)


def test_f1_interval_is_computed_from_summed_counts_not_averaged_per_example():
    # trap: averaging per-example F1 would give 0.5 here; micro F1 = 2·10/(2·10+10+0) = 0.667
    df = pd.DataFrame({"APP_tp": [1] * 10 + [0] * 10, "APP_fp": [0] * 10 + [1] * 10, "APP_fn": [0] * 20})
    value, (lo, hi) = ci(df, "APP")
    assert value == pytest.approx(2 / 3)
    assert lo < 2 / 3 < hi and 0.4 < lo and hi < 0.85


def test_ratio_metric_resamples_examples_not_values():
    df = pd.DataFrame({"correct_query": [2, 0, 1, 3], "total_query": [2, 1, 1, 4]})
    value, (lo, hi) = ci(df, "value_acc_query", n_boot=500)
    assert value == pytest.approx(6 / 8)
    assert lo <= value <= hi


def test_counts_get_no_interval():
    assert intervals(pd.DataFrame({"value_error": [1, 0]}), {"value_error": "value_error"}) == {}


def test_same_seed_same_bytes_under_different_hash_seeds():
    code = ("import json,pandas as pd;from pfc.eval.bootstrap import intervals;"
            "df=pd.DataFrame({'overall':[1,0,1,1,0,1,0,0,1,1]*7,'APP_tp':[1,0]*35,'APP_fp':[0,1]*35,'APP_fn':[0]*70});"
            "print(json.dumps(intervals(df,{'overall':'overall','APP':'APP'},n_boot=300,seed=7)))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": s, "PATH": ""}).stdout for s in ("1", "12345")}
    assert len(outs) == 1
    assert set(json.loads(outs.pop())) == {"overall", "APP"}


def test_one_user_gives_no_clustered_interval_rather_than_a_zero_width_one():
    # 11 rows of one user, 3 right: resampling users can only redraw that user, so there is no interval
    one = pd.DataFrame({"user_id": ["u1"] * 11, "overall": [1, 1, 1] + [0] * 8})
    lo, hi = clustered_intervals(one, {"overall": "overall"}, n_boot=200)["overall"]
    assert math.isnan(lo) and math.isnan(hi)


def test_two_users_give_a_clustered_interval_spanning_their_two_means():
    # users at 1.0 (2 rows) and 0.0 (2 rows): resamples give 0, 0.5 or 1, so the 95% interval is [0, 1]
    two = pd.DataFrame({"user_id": ["a", "a", "b", "b"], "overall": [1, 1, 0, 0]})
    assert clustered_intervals(two, {"overall": "overall"}, n_boot=400)["overall"] == (0.0, 1.0)

