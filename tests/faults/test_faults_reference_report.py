"""The reference report (``python -m pfc.report.reference``) and the plan's ``--record`` on damaged or foreign
runs (issue 66, group 4): one line and a non-zero exit, ``metrics.json`` left as it was; a row outside a run's
sample never counts; a run is stamped only with the record of the run it is."""
import json

import pytest

from pfc import paths
from pfc.plans import Planned, reference as plan
from pfc.plans.reference import record
from pfc.report.reference import score as report
from pfc.run.config import RunConfig
from pfc.run.runner import execute

TOP = ("qwen2.5-coder-0.5b", "hf")


def _run(bench, root, name, history="last_k", ids=None):
    out = root / name
    execute(RunConfig("tracebench", bench, "oracle", out, history=history, k=5, ids=ids,
                      plan=record(name, *TOP)))
    return out


def _one_line(capsys, status, got):
    err = [x for x in capsys.readouterr().err.strip().splitlines() if not x.startswith("oracle on ")]
    assert got == status and len(err) == 1 and "Traceback" not in err[0] and "bug in pfc" not in err[0], err
    return err[0]


@pytest.fixture
def two_runs(bench, tmp_path):
    root = tmp_path / "reference_runs"
    runs = [_run(bench, root, "tracebench-last_k"), _run(bench, root, "tracebench-retrieved", "retrieved")]
    assert report.main(["--root", str(root)]) == 0
    return root, runs


def test_an_unreadable_run_json_is_refused_and_metrics_json_is_kept(two_runs, capsys):
    root, runs = two_runs
    capsys.readouterr()
    before = (root / "metrics.json").read_bytes()
    (runs[1] / "run.json").write_text('{"identity": {"bench')  # cut mid-write
    line = _one_line(capsys, 2, report.main(["--root", str(root)]))
    assert "tracebench-retrieved/run.json" in line
    assert (root / "metrics.json").read_bytes() == before


def test_a_lone_unreadable_run_json_is_refused_not_nothing_written(bench, tmp_path, capsys):
    root = tmp_path / "reference_runs"
    run = _run(bench, root, "tracebench-last_k")
    (run / "run.json").write_text("[1, 2]")
    line = _one_line(capsys, 2, report.main(["--root", str(root)]))
    assert "run.json" in line and not (root / "metrics.json").exists()


def test_a_row_outside_the_runs_sample_does_not_count(bench, tmp_path, capsys):
    from pfc.benchmarks import get
    ids = [e.id for e in get("tracebench").scoring.load(bench, None)[0]]
    root = tmp_path / "reference_runs"
    run = _run(bench, root, "tracebench-last_k", ids=tuple(ids[:4]))
    rows = (run / "predictions.jsonl").read_text().splitlines()
    extra = {**json.loads(rows[0]), "id": ids[5]}  # an example of the build, but not one the run sampled
    with open(run / "predictions.jsonl", "a") as f:
        f.write(json.dumps(extra) + "\n")
    line = _one_line(capsys, 2, report.main(["--root", str(root)]))
    assert "predictions.jsonl" in line and "'id'" in line and ids[5] in line


@pytest.mark.parametrize("config, run_json, names", [
    ("[1, 2]", None, "config.json"),
    (None, '{"identity": "x"}', "run.json"),
])
def test_a_config_or_identity_that_is_not_an_object_is_a_user_error(bench, tmp_path, capsys, config, run_json, names):
    root = tmp_path / "reference_runs"
    run = _run(bench, root, "tracebench-last_k")
    if config is not None:
        (run / "config.json").write_text(config)
    if run_json is not None:
        doc = json.loads((run / "run.json").read_text())
        (run / "run.json").write_text(json.dumps({**json.loads(run_json), "plan": doc["plan"]}))
    line = _one_line(capsys, 2, report.main(["--root", str(root)]))
    assert names in line


def _planned(monkeypatch, tmp_path, out, history):
    """The plan's ``main`` on a plan of one run ``tracebench-retrieved`` at ``out`` (nothing is built or run)."""
    monkeypatch.chdir(tmp_path)
    tb = paths.BENCHMARKS / "tracebench"
    tb.mkdir(parents=True, exist_ok=True)
    (tb / "examples.jsonl").touch()
    monkeypatch.setattr("pfc.benchmarks.ptbench.plans.data", lambda seed: tmp_path / "pt")
    cfg = RunConfig("tracebench", tb, "hf", out, model=TOP[0], history=history, k=10,
                    plan=record("tracebench-retrieved", *TOP))
    monkeypatch.setattr(plan, "plan", lambda *a, **k: [Planned("tracebench-retrieved", cfg)])


def _made_by(out, **identity):
    out.mkdir(parents=True)
    base = {"benchmark": "tracebench", "backend": "hf", "model": TOP[0], "history": "last_k", "k": 10}
    (out / "run.json").write_text(json.dumps({"identity": {**base, **identity}}))
    return (out / "run.json").read_bytes()


def test_record_refuses_to_stamp_a_foreign_run(monkeypatch, tmp_path, capsys):
    out = tmp_path / "runs" / "tracebench-retrieved"
    before = _made_by(out)  # the last_k run copied into the retrieved run's folder
    _planned(monkeypatch, tmp_path, out, "retrieved")
    line = _one_line(capsys, 2, plan.main(["--record"]))
    assert "run.json" in line and "history" in line
    assert (out / "run.json").read_bytes() == before


def test_record_stamps_the_run_it_planned(monkeypatch, tmp_path, capsys):
    out = tmp_path / "runs" / "tracebench-retrieved"
    _made_by(out, history="retrieved")
    _planned(monkeypatch, tmp_path, out, "retrieved")
    assert plan.main(["--record"]) == 0
    assert json.loads((out / "run.json").read_text())["plan"] == record("tracebench-retrieved", *TOP)


@pytest.mark.parametrize("text", ['{"identity": {"bench', "[1, 2]", '{"identity": "x"}'])
def test_record_on_a_cut_or_non_object_run_json_is_one_line(monkeypatch, tmp_path, capsys, text):
    out = tmp_path / "runs" / "tracebench-retrieved"
    out.mkdir(parents=True)
    (out / "run.json").write_text(text)
    _planned(monkeypatch, tmp_path, out, "retrieved")
    line = _one_line(capsys, 2, plan.main(["--record"]))
    assert "run.json" in line
    assert (out / "run.json").read_text() == text
