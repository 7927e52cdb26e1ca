"""``pfc.eval.format_sensitivity`` on tiny hand-computed grids: two users (u: examples a, b; v: c, d).

A user-resampled interval of two users has three kinds of draw, (u, u), (v, v) and one of each, all present
in 1,000 draws, so each percentile interval is [smallest, largest] of the statistic over those three: the
golden values below are computed by hand that way."""
import math

import pandas as pd
import pytest

from pfc.errors import UserError
from pfc.eval import format_sensitivity as F


def t(overall, app=None):
    return pd.DataFrame({"id": list("abcd"), "user_id": list("uuvv"), "overall": overall,
                         "app": app or overall, "function_param_values": overall})


GRID = {"default": t([1, 1, 0, 0]), "x": t([1, 0, 1, 0]), "y": t([1, 1, 1, 1])}


def test_spread_is_bfcls_sample_sd_and_max_delta_with_user_intervals():
    s = F.spread(GRID)
    # accuracies 0.5, 0.5, 1.0: mean 2/3, squared deviations 1/36 + 1/36 + 4/36 = 1/6, / (3 - 1) = 1/12
    assert s["sd"] == pytest.approx(math.sqrt(1 / 12)) and s["max_delta"] == pytest.approx(0.5)
    # (u,u): 1, .5, 1 -> sd sqrt(1/12), delta .5; (v,v): 0, .5, 1 -> sd .5, delta 1; mixed: as the full data
    assert (s["sd_lo"], s["sd_hi"]) == pytest.approx((math.sqrt(1 / 12), 0.5))
    assert (s["max_delta_lo"], s["max_delta_hi"]) == pytest.approx((0.5, 1.0))
    assert F.spread(GRID) == s  # same seed, same numbers


def test_cell_accuracy_and_main_effects_are_paired_differences_from_the_default():
    acc = {(r["cell"], r["key"]): r for r in F.cell_accuracy(GRID)}
    assert (acc["default", "overall"]["value"], acc["default", "overall"]["lo"], acc["default", "overall"]["hi"]) \
        == pytest.approx((0.5, 0.0, 1.0))
    eff = {(r["cell"], r["key"]): r for r in F.main_effects(GRID)}
    assert eff["x", "overall"]["diff"] == 0 and eff["y", "overall"]["diff"] == pytest.approx(0.5)
    y = eff["y", "overall"]  # (u,u): 1 - 1; (v,v): 1 - 0; mixed .5
    assert (y["paired_lo"], y["paired_hi"]) == pytest.approx((0.0, 1.0))
    assert (y["a_only"], y["b_only"], y["mcnemar_p"]) == (2, 0, 0.5)  # 2 * P[Bin(2, 1/2) <= 0]
    assert set(k for _, k in eff) == {"overall", "app", "values"}


def test_stability_counts_cells_keeping_the_defaults_sign_and_excluding_zero():
    a = {"default": t([1, 1, 0, 0]), "x": t([1, 0, 1, 0])}
    b = {"default": t([1, 1, 1, 0]), "x": t([0, 0, 1, 0])}
    s = F.stability(a, b)
    rows = {r["cell"]: r for r in s["rows"]}
    assert rows["default"]["diff"] == pytest.approx(0.25) and rows["x"]["diff"] == pytest.approx(-0.25)
    # default: (u,u) 0, (v,v) .5 -> [0, .5]; x: (u,u) -.5, (v,v) 0 -> [-.5, 0]: neither excludes 0
    assert (rows["x"]["paired_lo"], rows["x"]["paired_hi"]) == pytest.approx((-0.5, 0.0))
    assert s["summary"] == {"cells": 2, "same_sign": 1, "excludes_zero": 0, "same_sign_and_excludes_zero": 0,
                            "gap_changes": 1}


def test_stability_gives_each_cells_gap_minus_the_defaults_with_users_resampled_together():
    a = {"default": t([1, 1, 0, 0]), "x": t([1, 0, 1, 0])}
    b = {"default": t([1, 1, 1, 0]), "x": t([0, 0, 1, 0])}
    x = {r["cell"]: r for r in F.stability(a, b)["rows"]}["x"]
    # B_x - B_default per request: -1, -1, 0, 0; A_x - A_default: 0, -1, 1, 0. User u: -1 - (-0.5) = -0.5; user v:
    # 0 - 0.5 = -0.5: every draw gives -0.5, so the interval [-0.5, -0.5] excludes 0 though neither cell's gap does
    assert (x["gap_change"], x["gap_change_lo"], x["gap_change_hi"]) == pytest.approx((-0.5, -0.5, -0.5))


def test_a_baseline_beats_the_models_only_when_every_cells_interval_is_above_zero():
    base = t([1, 1, 1, 1])
    assert F.baseline_beats(base, {"m": {"c1": t([0, 1, 0, 1]), "c2": t([1, 0, 0, 0])}})["every_cell"] is True
    out = F.baseline_beats(base, {"m": {"default": t([1, 1, 0, 0])}})  # (u,u): 1 - 1 = 0: the interval touches 0
    assert out["every_cell"] is False and out["rows"][0]["diff"] == pytest.approx(0.5)


def test_identical_and_refusals():
    assert F.identical({"c1": t([1, 0, 1, 0]), "c2": t([1, 0, 1, 0]).iloc[::-1]})
    assert not F.identical({"c1": t([1, 0, 1, 0]), "c2": t([1, 0, 1, 1])})
    with pytest.raises(UserError, match="cell 'z' holds other examples"):
        F.main_effects({"default": t([1, 1, 0, 0]), "z": t([1, 1, 0, 0]).iloc[:3]})
    with pytest.raises(UserError, match="no 'default' cell"):
        F.main_effects({"x": t([1, 1, 0, 0])})
