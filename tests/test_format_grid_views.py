"""Notebook 11's helpers (``pfc.report.format_grid_views``) and its pipeline steps (``pfc.report.pipeline.grid``),
tested here because the notebook itself runs in the notebook tier (nbval) only."""
from __future__ import annotations

import json

import matplotlib
import pandas as pd
import pytest

from pfc.report import format_grid as G
from pfc.report import format_grid_views as V
from pfc.report.pipeline import grid as P
from pfc.report.format_grid_runs import GridRun

matplotlib.use("Agg")


def _run(model, backend, cell, overall):
    df = pd.DataFrame({"id": list("abcd"), "user_id": list("uuvv"), "overall": overall, "app": overall,
                       "function_param_values": overall})
    return GridRun(None, {"backend": backend}, model, cell, df, df, {})


@pytest.fixture(scope="module")
def grid():
    return G.compute([_run("m-a", "openvino", "default", [1, 1, 0, 0]), _run("m-a", "openvino", "x", [1, 0, 1, 0]),
                      _run("m-b", "openvino", "default", [1, 1, 1, 0]), _run("m-b", "openvino", "x", [0, 0, 1, 0]),
                      _run("history-prior", "history-prior", "default", [1, 1, 1, 1]),
                      _run("history-prior", "history-prior", "x", [1, 1, 1, 1])], n_boot=1000)


def test_frames_hold_the_grids_numbers(grid):
    acc = V.accuracy_frame(grid)
    assert list(acc.index) == ["default", "x"] and acc.loc["default", "m-a"] == 0.5 and acc.loc["x", "m-b"] == 0.25
    eff = V.effects_frame(grid).set_index(["model", "cell"])
    assert eff.loc[("m-a", "x"), "diff"] == 0 and eff.loc[("m-b", "x"), "diff"] == -0.5
    st = V.stability_frame(grid)
    assert st.loc["default", "m-b − m-a"] == 0.25 and bool(st.loc["x", "same sign"]) is False
    assert st.loc["x", "− default's gap"] == -0.5 and pd.isna(st.loc["default", "− default's gap"])  # hand: -0.25 - 0.25
    assert bool(st.loc["default", "history-prior beats m-a"]) is False
    sp = V.spread_frame(grid).set_index(["model", "key"])
    assert sp.loc[("m-b", "overall"), "max_delta"] == 0.5


def test_figures_draw_every_model_and_cell(grid):
    fig = V.heatmap(grid)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["default", "x"]
    fig = V.forest(grid)
    assert len(fig.axes[0].get_yticklabels()) == len(V.effects_frame(grid))


def test_usable_names_runs_not_committed_or_in_progress(tmp_path):
    done, partial, absent = tmp_path / "done", tmp_path / "partial", tmp_path / "absent"
    for d, rows in ((done, 2), (partial, 1)):
        d.mkdir()
        (d / "config.json").write_text(json.dumps({"ids": ["a", "b"]}))
        (d / "predictions.jsonl").write_text("".join(json.dumps({"id": i, "output": ""}) + "\n" for i in "ab"[:rows]))
    ok, out = V.usable([done, partial, absent])
    assert ok == [done] and len(out) == 2
    assert "1 of 2 requests answered so far" in out[0] and "not committed yet" in out[1]


def test_pipeline_grid_steps_run_baselines_in_every_cell_and_name_the_committed_runs(tmp_path):
    from pfc.plans.format_grid import cells
    step = P.baseline_step(tmp_path / "tb")
    assert len(step.outputs) == len(P.GRID_BASELINES) * len(cells()) == 14 and step.fn is not None
    nb = P.notebook_step(50)
    assert nb.notebook == "11_format_sensitivity.ipynb" and len(nb.params["baseline_runs"].split(",")) == 14
    assert P.committed_runs(tmp_path) == []  # no reference root there: the notebook says the grid is not run yet


def test_cost_reads_rows_then_usage_json(tmp_path):
    from pfc.report.format_grid_runs import cost
    rows = [{"id": "a", "output": "", "generation": {"prompt_tokens": 100, "prefill_s": 1.0, "decode_s": 0.5}},
            {"id": "b", "output": "", "generation": {"prompt_tokens": 300, "prefill_s": 2.0, "decode_s": 0.5}}]
    (tmp_path / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert cost(tmp_path) == {"rows": 2, "measured": 2, "source": "rows", "prompt_tokens": 200.0, "s_per_example": 2.0}
    (tmp_path / "predictions.jsonl").write_text("".join(json.dumps({"id": i, "output": ""}) + "\n" for i in "abc"))
    (tmp_path / "usage.json").write_text(json.dumps({"backend_calls": 2, "prompt_tokens": 8000,
                                                     "latency_s": {"p50": 17.5}}))
    assert cost(tmp_path) == {"rows": 3, "measured": 2, "source": "usage.json", "prompt_tokens": 4000.0,
                              "s_per_example": 17.5}


def test_the_heatmap_says_not_run_where_a_model_lacks_a_cell():
    grid = {"cells": ["default", "x"], "models": {
        "m-a": {"accuracy": [{"cell": "default", "key": "overall", "value": 0.25},
                             {"cell": "x", "key": "overall", "value": 0.5}]},
        "m-b": {"accuracy": [{"cell": "default", "key": "overall", "value": 0.75}]}}}
    texts = sorted(t.get_text() for t in V.heatmap(grid).axes[0].texts)
    assert texts == ["0.25", "0.50", "0.75", "not run"]
