"""The reference-run report stage (``pfc.report.reference``): scores run directories on the rows present."""
import json
from pathlib import Path

import pytest

from pfc.plans.reference import record
from pfc.report.reference import score as reference
from pfc.run.config import RunConfig
from pfc.run.runner import execute


TOP = ("qwen2.5-coder-0.5b", "hf")  # the plan's first model and engine: runs at the top, labels without the engine


@pytest.fixture
def oracle_run(tiny_tracebench, tmp_path):
    """A complete run of the gold-reading oracle: every metric is 1 on every row, by construction."""
    out = tmp_path / "reference_runs" / "tracebench-last_k"
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", out, history="last_k", k=5,
                      plan=record("tracebench-last_k", *TOP)))
    return out


def test_complete_run_scores_as_pfc_score_does(tiny_tracebench, tmp_path):
    """An independent route: a complete history-prior run through ``score_files`` (what ``pfc score`` uses)."""
    from pfc.eval.scoring import score_files
    out = tmp_path / "reference_runs" / "tracebench-last_k"
    execute(RunConfig("tracebench", tiny_tracebench, "history-prior", out, history="last_k", k=5,
                      plan=record("tracebench-last_k", *TOP)))
    entry = reference.metrics(out.parent)["tracebench-last_k"]
    rep = score_files("tracebench", tiny_tracebench, out / "predictions.jsonl")
    for k in ("format", "app", "overall"):
        assert entry["robust"][k][0] == pytest.approx(rep.metrics[k], abs=1e-6)
    assert 0 < entry["robust"]["overall"][0] < 1  # not a degenerate baseline: the comparison means something


def test_oracle_run_scores_one_with_a_degenerate_interval(oracle_run):
    entry = reference.metrics(oracle_run.parent)["tracebench-last_k"]
    assert entry["robust"]["overall"] == [1.0, 1.0, 1.0]
    assert entry["robust"]["function_param_values"] == [1.0, 1.0, 1.0]
    assert not entry["partial"] and entry["n"] == entry["planned"]


def test_per_vagueness_counts_add_up_to_the_rows_scored(oracle_run):
    entry = reference.metrics(oracle_run.parent)["tracebench-last_k"]
    assert sum(v["n"] for v in entry["by_vagueness"].values()) == entry["n"]
    assert sum(v["n"] for v in entry["by_history_bin"].values()) <= entry["n"]


def test_partial_run_is_labelled_with_its_n(oracle_run):
    pred = oracle_run / "predictions.jsonl"
    lines = pred.read_text().splitlines()
    pred.write_text("\n".join(lines[:3]) + "\n")
    entry = reference.metrics(oracle_run.parent)["tracebench-last_k"]
    assert entry["partial"] and entry["n"] == 3 and entry["planned"] == len(lines)
    assert entry["label"] == f"oracle [last_k k=5] (reference run, n=3 of {len(lines)}, partial)"


def test_corrupt_row_is_refused_with_one_line_naming_file_line_and_field(oracle_run, capsys):
    pred = oracle_run / "predictions.jsonl"
    lines = pred.read_text().splitlines()
    lines[1] = json.dumps({"id": json.loads(lines[1])["id"]})  # no output
    pred.write_text("\n".join(lines) + "\n")
    assert reference.main(["--root", str(oracle_run.parent)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "predictions.jsonl" in err and "2" in err and "output" in err


def test_no_run_present_writes_nothing(tmp_path):
    assert reference.write(tmp_path, tmp_path / "metrics.json") is None and not (tmp_path / "metrics.json").exists()


def test_a_started_run_with_no_finished_row_is_left_out_not_refused(oracle_run, tiny_tracebench):
    """The runner opens predictions.jsonl before its first request ends: such a run is pending (no entry), while
    the other runs are still scored."""
    started = oracle_run.parent / "qwen2.5-coder-1.5b-openvino" / "tracebench-last_k"
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", started, history="last_k", k=5,
                      plan=record("tracebench-last_k", "qwen2.5-coder-1.5b", "openvino")))
    (started / "predictions.jsonl").write_text("")
    assert sorted(reference.metrics(oracle_run.parent)) == ["tracebench-last_k"]
    assert reference.main(["--root", str(oracle_run.parent)]) == 0


def test_tables_score_a_partial_reference_run_on_its_rows_with_its_label(oracle_run):
    from pfc.report import tables as T
    pred = oracle_run / "predictions.jsonl"
    lines = pred.read_text().splitlines()
    pred.write_text("\n".join(lines[:4]) + "\n")
    r = T.load_run(oracle_run)
    assert r.name == f"oracle [last_k k=5] (reference run, n=4 of {len(lines)}, partial)"
    assert len(r.per_example) == 4 and r.metrics["overall"] == 1.0  # unfinished rows are not scored as wrong


def test_figures_draw_a_models_reference_run_instead_of_its_other_runs(oracle_run, tiny_tracebench, tmp_path):
    """Fig. 3 / Fig. 4 leave out a run of a model that has a reference run (the report says so, with its n);
    a run of another model stays, and the tables keep every run."""
    import json
    from pfc.report import runs as report, tables as T
    sample, other = tmp_path / "runs" / "oracle-sample", tmp_path / "runs" / "hp"
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", sample))  # the same model, another run (full history)
    execute(RunConfig("tracebench", tiny_tracebench, "history-prior", other))
    n = len((tiny_tracebench / "examples.jsonl").read_text().splitlines())
    loaded = T.unique_names([T.load_run(d) for d in (sample, oracle_run, other)])
    drawn, left_out = T.figure_runs(loaded)
    assert [Path(r.run_dir).name for r in left_out] == ["oracle-sample"] and len(drawn) == 2
    md = report.write_report(loaded, tmp_path / "out", n_boot=20, parts=["tables", "figures"]).read_text()
    note = f"The figure leaves out `oracle` (n={n}): a reference run of the same model is drawn."
    assert md.count(note) == 4  # each of the two tables and the two figures
    rows = json.loads((tmp_path / "out" / "tracebench_by_vagueness.json").read_text())["rows"]
    assert {r["run"] for r in rows} == {r.name for r in loaded}


def test_pipeline_plan_has_no_reference_step_without_committed_runs(monkeypatch, tmp_path):
    from pfc.report import pipeline
    monkeypatch.setattr(reference, "ROOT", tmp_path)
    names = [s.name for s in pipeline.plan(real_model="none", leave_out=("toolspectrum", "ptbench"))]
    assert not any(n.startswith("reference runs") for n in names)


def test_pipeline_plan_passes_a_committed_reference_run_to_the_tables(monkeypatch, oracle_run):
    from pfc.report import pipeline
    monkeypatch.setattr(reference, "ROOT", oracle_run.parent)
    steps = pipeline.plan(real_model="none", leave_out=("toolspectrum", "ptbench"))
    assert any(s.name == "reference runs: metrics.json, paired comparisons (1 run)" for s in steps)
    for name in ("evaluate", "error taxonomy", "figures"):
        step = next(s for s in steps if s.name == name)
        assert step.params["run_dirs"].split(",")[-1].endswith("reference_runs/tracebench-last_k")


def test_a_run_rescored_against_another_build_is_refused_naming_the_field(oracle_run):
    from pfc.errors import UserError
    rj = oracle_run / "run.json"
    doc = json.loads(rj.read_text())
    doc["identity"]["examples_sha256"] = "0" * 64  # as if the model had answered another build
    rj.write_text(json.dumps(doc))
    with pytest.raises(UserError, match=r"run\.json.*identity\.examples_sha256"):
        reference.metrics(oracle_run.parent)


def test_a_run_whose_examples_are_not_built_says_so(oracle_run):
    from pfc.errors import UserError
    cfg = oracle_run / "config.json"
    doc = json.loads(cfg.read_text())
    doc["examples"] = "data/benchmarks/never-built"
    cfg.write_text(json.dumps(doc))
    with pytest.raises(UserError, match="never-built are not built"):
        reference.metrics(oracle_run.parent)


def test_a_missing_root_is_refused_in_one_line(tmp_path, capsys):
    assert reference.main(["--root", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "nowhere" in err and "no such directory" in err


def test_notebook_08_reads_back_the_committed_reference_pairs_the_pipeline_names():
    from pfc.report import counterfactual as cf
    from pfc.report.pipeline import studies as pipeline_studies
    from pfc.plans.reference import SWAP_RUN
    pairs = cf.parse_pairs(pipeline_studies.real_pair(None))
    (name, (orig, var)) = next(iter(pairs.items()))  # the top-level (0.5B hf) pair first, then each model folder's
    assert "k=10" in name and name.endswith("(reference runs)")  # the label keeps its '=' (parse splits on the last)
    assert (orig, var) == ("reports/reference_runs/tracebench-last_k", f"reports/reference_runs/{SWAP_RUN}")
    for name, (orig, var) in list(pairs.items())[1:]:
        folder = orig.split("/")[2]
        assert (orig, var) == (f"reports/reference_runs/{folder}/tracebench-last_k",
                               f"reports/reference_runs/{folder}/{SWAP_RUN}")
        assert f" · {folder.rsplit('-', 1)[1]}" in name  # the engine in the name: two engines of one model differ


def test_notebook_08_is_not_given_a_pair_whose_variants_run_has_no_finished_row(oracle_run, tiny_tracebench,
                                                                               monkeypatch):
    """A swap-user run in its first batch (predictions.jsonl opened, nothing finished) is pending: the pipeline
    names only the pairs with answers on both sides, so notebook 08 reads the others and skips it."""
    from pfc.plans.reference import SWAP_RUN
    from pfc.report.pipeline import studies as pipeline_studies
    root = oracle_run.parent
    for base, rec in ((root, TOP), (root / "m-openvino", ("m", "openvino"))):
        execute(RunConfig("tracebench", tiny_tracebench, "oracle", base / "tracebench-last_k", history="last_k", k=5,
                          plan=record("tracebench-last_k", *rec)))
        execute(RunConfig("tracebench", tiny_tracebench, "oracle", base / SWAP_RUN, history="last_k", k=5,
                          plan=record(SWAP_RUN, *rec)))
    (root / "m-openvino" / SWAP_RUN / "predictions.jsonl").write_text("")
    monkeypatch.setattr(reference, "ROOT", root)
    assert pipeline_studies.reference_pairs() == [(root / "tracebench-last_k", root / SWAP_RUN)]


def test_model_folder_runs_join_the_report_under_their_path_and_engine(tiny_tracebench, tmp_path):
    root = tmp_path / "reference_runs"
    for sub, rec in (("tracebench-last_k", record("tracebench-last_k", *TOP)),
                     ("m-openvino/tracebench-last_k", record("tracebench-last_k", "m", "openvino")),
                     ("layout/tracebench-x", record("layout/tracebench-x", *TOP)),
                     ("m-openvino/layout/y", record("layout/y", "m", "openvino")),
                     ("elsewhere/tracebench-last_k", None)):  # a run no plan recorded: not a reference run
        execute(RunConfig("tracebench", tiny_tracebench, "oracle", root / sub, history="last_k", k=5, plan=rec))
    assert [reference.run_key(d, root) for d in reference.run_dirs(root)] == [
        "tracebench-last_k", "m-openvino/tracebench-last_k"]  # side folders' runs are the paired comparisons'
    m = reference.metrics(root)
    assert sorted(m) == ["m-openvino/tracebench-last_k", "tracebench-last_k"]
    assert m["m-openvino/tracebench-last_k"]["label"].startswith("oracle · oracle [last_k k=5] (reference run")
    assert m["tracebench-last_k"]["label"].startswith("oracle [last_k k=5] (reference run")
    assert reference.is_reference(root / "m-openvino" / "tracebench-last_k")
    assert not reference.is_reference(root / "layout" / "tracebench-x")
    assert not reference.is_reference(root / "m-openvino" / "layout" / "y")
    assert not reference.is_reference(root / "elsewhere" / "tracebench-last_k")


def test_committed_reference_runs_carry_the_prompt_template_of_the_current_code():
    """``pfc run`` resumes a committed run only while its identity holds: a refactor that changes the
    recorded prompt-template hash (without changing a request) would make every committed run refuse."""
    from pfc.run.requests import template_identity
    recorded = sorted(reference.ROOT.rglob("run.json"))
    for f in recorded:
        ident = json.loads(f.read_text())["identity"]
        assert ident["prompt_template"] == template_identity(ident["benchmark"], ident.get("prompt_variant", "all")), \
            f.parent.name  # a prompt variant with its own template: issue 64's ask runs


def test_the_toolspectrum_reference_run_is_one_table3_row_across_the_three_subsets(release, tiny_tracebench, golden,
                                                                                  tmp_path):
    """The plan runs the whole release as one run, so Table 3 gets one row with every subset's cells,
    labelled with the prefix layout it used."""
    from pfc.report import tables as T
    from dataclasses import replace
    from pfc.plans.reference import plan
    ts = next(p for p in plan({"tracebench": tiny_tracebench, "ptbench": golden / "ptbench_official", "toolspectrum": release}) if p.name == "toolspectrum")
    out = tmp_path / "reference_runs" / ts.name
    ids = ("profile-0", "profile-1", "environment-0", "environment-1", "both-0", "both-1")
    execute(replace(ts.config, backend="oracle", model="", out_dir=out, ids=ids, progress=False,
                    cache_path=tmp_path / "c.sqlite"))
    r = T.load_run(out)
    wide = T.layout(T.toolspectrum_levels([r], 0, 0), T.TS_ORDER, with_ci=False)
    assert list(wide.index) == ["oracle [prefix layout] (reference run, n=6)"]
    assert wide.shape[1] == 12 and (wide.astype(float) == 1.0).all().all()  # the oracle scores 1 in every cell



def test_toolspectrum_entry_has_table_3s_both_f1_definitions_per_subset(release, tmp_path):
    """Table 3's columns (subset x level) in both F1 definitions; an independent route: ``score_files``."""
    from pfc.eval.scoring import score_files
    out = tmp_path / "reference_runs" / "toolspectrum"
    execute(RunConfig("toolspectrum", release, "history-prior", out, progress=False, cache_path=tmp_path / "cache.sqlite",
                      plan=record("toolspectrum", *TOP)))
    entry = reference.metrics(out.parent)["toolspectrum"]
    rep = score_files("toolspectrum", release, out / "predictions.jsonl")
    assert set(entry["by_subset"]) == {"profile", "environment", "both"}
    assert sum(part["n"] for part in entry["by_subset"].values()) == entry["n"] == 1002
    for k in ("APP", "OP", "APP_paper", "RP_paper"):
        assert entry["robust"][k][0] == pytest.approx(rep.metrics[k], abs=1e-6)
        for subset, part in entry["by_subset"].items():
            assert part[k][0] == pytest.approx(rep.metrics[f"subset={subset}/{k}"], abs=1e-6), (subset, k)
    # on "both" most samples expect a refusal: the two definitions differ there (pfc.benchmarks.toolspectrum)
    assert entry["by_subset"]["both"]["APP"][0] != entry["by_subset"]["both"]["APP_paper"][0]
    assert "APP_paper" not in entry["strict"]
