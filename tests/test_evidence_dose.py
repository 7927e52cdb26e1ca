"""Notebook 09's tables (pfc.report.evidence_dose) and the pipeline's helpers that feed it (pfc.report.pipeline.studies).

Golden values are counted by hand from the answers written here; run directories are fakes in tmp_path."""
import json
import os
from pathlib import Path

import pytest

from pfc import benchmarks, paths
from pfc.data.counterfactual import VariantSet, sample, write
from pfc.errors import UserError
from pfc.render import render
from pfc.report import evidence_dose as ed
from pfc.report.pipeline import studies as P
from pfc.plans import reference as R
from pfc.schema import Call


def _run(d: Path, outputs: dict, model="m", backend="hf", planned: str | None = None) -> Path:
    """A fake run directory; ``planned``: its name in the reference plan, recorded in its run.json."""
    d.mkdir(parents=True)
    (d / "predictions.jsonl").write_text("".join(json.dumps({"id": i, "output": o}) + "\n" for i, o in outputs.items()))
    (d / "config.json").write_text(json.dumps({"benchmark": "tracebench", "model": model, "backend": backend}))
    if planned:
        (d / "run.json").write_text(json.dumps({"identity": {}, "plan": R.record(planned, model, backend)}))
    return d


def _where(spec: str) -> Path:
    """A notebook parameter's directory, read as the notebook reads it."""
    return Path(os.path.normpath(paths.source(spec)))


def test_real_runs_name_each_model_folder_and_pair_the_stated_run_with_its_originals(tmp_path):
    root = tmp_path / "reference_runs"
    _run(root / "tracebench-last_k", {}, "m0", "hf", "tracebench-last_k")  # the top-level runs: named by their config
    _run(root / "m1-openvino" / "tracebench-last_k", {}, "m1", "openvino", "tracebench-last_k")
    _run(root / "m1-openvino" / R.DOSE_RUN, {}, "m1", "openvino", R.DOSE_RUN)
    _run(root / "layout" / "x", {}, "m2", "openvino", "layout/x")  # a side run at the top: the top root's
    _run(root / "m3-hf" / "tracebench-last_k", {}, "m3", "hf")  # a run no plan recorded: no root of the plan
    dose, override, dirs = P.evidence_real_runs(root)
    doses = ed.parse_runs(dose)
    assert list(doses) == ["m0 · hf (reference runs)", "m1 · openvino (reference runs)"]
    assert _where(doses["m0 · hf (reference runs)"]) == root / R.DOSE_RUN  # not committed yet: still named
    assert _where(doses["m1 · openvino (reference runs)"]) == root / "m1-openvino" / R.DOSE_RUN
    from pfc.report.counterfactual import parse_pairs
    o, v = parse_pairs(override)["m1 · openvino (reference runs)"]
    assert (_where(o), _where(v)) == (root / "m1-openvino" / R.STATED_ORIGINALS_RUN, root / "m1-openvino" / R.STATED_RUN)
    assert len(dirs) == 6 and root / "m1-openvino" / R.STATED_RUN in dirs


def test_a_reference_root_without_any_run_config_is_left_out(tmp_path):
    assert P.evidence_real_runs(tmp_path) == ("", "", [])


def test_parse_runs_refuses_an_entry_without_a_name_in_one_line():
    with pytest.raises(UserError, match="expected name=RUN, got 'data/runs/a'"):
        ed.parse_runs("data/runs/a")


@pytest.fixture()
def dose_set(tiny_tracebench, tmp_path):
    """3 requests of the tiny build at K = 0 and 4 (one per anchor), written as a variant set."""
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    variants, skipped = sample(exs, "dose:0,4", 3, seed=0)
    write(tmp_path / "dose", tiny_tracebench, VariantSet("tracebench", "dose:0,4", 0, variants, skipped, tools, exs))
    return tmp_path / "dose", variants


def _gold(v) -> str:
    return render([Call(g.app, g.function, dict(g.arguments)) for g in v.gold], "tracebench")


def test_a_real_run_on_part_of_a_set_is_scored_on_the_variants_it_answered(dose_set, tmp_path):
    """Two of three requests answered, wrong at K = 0 and with the gold (the user's choice) at K = 4: both
    moved, so the switch rate at K = 4 is 2/2 on the answered variants and 2/3 when a missing answer counts
    as unparsable."""
    d, variants = dose_set
    originals = sorted({v.meta["counterfactual"]["original_id"] for v in variants})
    answered = [v for v in variants if v.meta["counterfactual"]["original_id"] in originals[:2]]
    run = _run(tmp_path / "run", {v.id: "null" if v.meta["counterfactual"]["k"] == 0 else _gold(v) for v in answered})
    for only, rate, n in ((True, 1.0, 2), (False, 2 / 3, 3)):
        long, thr = ed.evaluate(None, d, None, {"m": run}, {}, n_boot=0, answered_only=only)
        sw = long[long["metric"] == "switch_rate"].set_index("k")
        assert sw.loc[4, "value"] == pytest.approx(rate) and sw.loc[0, "value"] == 0
        assert sw.loc[4, "variants"] == n and thr == {"m": None}  # no intervals (n_boot 0): no threshold


def test_the_figure_names_every_run_in_one_legend_below_both_panels_not_over_a_curve():
    import matplotlib
    matplotlib.use("Agg")
    import pandas as pd
    rows = [{"run": run, "part": "dose", "metric": m, "k": k, "value": v, "lo": v, "hi": v}
            for run, v in (("history-prior", 0.8), ("a model", 0.1)) for m in ("switch_rate", "overall")
            for k in (0, 1, 2)]
    fig = ed.figure(pd.DataFrame(rows), {"history-prior": 1, "a model": None})
    assert [ax.get_legend() for ax in fig.axes] == [None, None]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["history-prior (threshold K = 1)",
                                                                 "a model (threshold K = none)"]
    assert fig.legends[0].get_bbox_to_anchor().transformed(fig.transFigure.inverted()).y1 <= 0.0


def test_the_figure_says_how_many_of_the_planned_variants_a_partial_run_answered():
    import matplotlib
    matplotlib.use("Agg")
    import pandas as pd
    # the set: 6 K x 100 requests; the complete baseline scored 100 at each K, the model 16 at each of K 0, 1, 2
    rows = [{"run": run, "part": "dose", "metric": m, "k": k, "variants": n, "users": u, "value": 0.5, "lo": 0.4,
             "hi": 0.6}
            for run, ks, n, u in (("history-prior", (0, 1, 2, 4, 8, 16), 100, 10), ("a model", (0, 1, 2), 16, 2))
            for m in ("switch_rate", "overall") for k in ks]
    fig = ed.figure(pd.DataFrame(rows), {"history-prior": 1, "a model": None}, planned=600)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "history-prior (threshold K = 1)", "a model (48 of 600 variants, 2 users: a threshold once complete)"]


def test_a_real_run_on_part_of_a_set_claims_no_threshold_though_its_users_all_switch(tiny_tracebench, tmp_path):
    """6 requests of the tiny build's two users at K = 0 and 4; every answered request wrong at K = 0 and right
    (the user's choice) at K = 4: switch rate 1 at K = 4 for each user, so the user-clustered lower bound is 1.
    Answering the whole set gives threshold 4 (the positive control); answering all but one request, of both
    users still, gives none."""
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    variants, skipped = sample(exs, "dose:0,4", 6, seed=0)
    d = tmp_path / "dose"
    write(d, tiny_tracebench, VariantSet("tracebench", "dose:0,4", 0, variants, skipped, tools, exs))
    assert len({v.user_id for v in variants}) == 2
    answers = {v.id: "null" if v.meta["counterfactual"]["k"] == 0 else _gold(v) for v in variants}
    _, thr = ed.evaluate(None, d, None, {"m": _run(tmp_path / "whole", answers)}, {}, n_boot=200, answered_only=True)
    assert thr == {"m": 4}
    last = variants[-1].meta["counterfactual"]["original_id"]  # one request (both its variants) left out
    kept = [v for v in variants if v.meta["counterfactual"]["original_id"] != last]
    assert len(kept) == 10 and len({v.user_id for v in kept}) == 2
    part = _run(tmp_path / "part", {v.id: answers[v.id] for v in kept})
    long, thr = ed.evaluate(None, d, None, {"m": part}, {}, n_boot=200, answered_only=True)
    sw = long[long["metric"] == "switch_rate"].set_index("k")
    assert (sw.loc[4, "value"], sw.loc[4, "lo"], sw.loc[4, "variants"]) == (1, 1, 5)
    assert sw.loc[4, "users"] == sw.loc[0, "users"] == 2  # the clusters its interval resamples
    assert thr == {"m": None}


def test_the_override_table_names_the_variants_and_users_each_run_was_scored_on():
    import pandas as pd
    # a run in progress: 30 of 200 override variants answered, from 3 users (written here, not computed)
    rows = [{"run": "a model", "part": "override", "k": 8, "variants": 30, "users": 3, "metric": m, "value": v,
             "lo": v - 0.1, "hi": v + 0.1} for m, v in (("stated_wins", 0.5), ("overrides", 0.25))]
    frame = ed.override_frame(pd.DataFrame(rows))
    assert list(frame.columns) == ["variants", "users", "stated_wins", "overrides"]
    assert frame.loc["a model"].tolist() == [30, 3, "0.500 [0.400, 0.600]", "0.250 [0.150, 0.350]"]
