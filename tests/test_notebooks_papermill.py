"""Notebooks run under papermill with injected parameters (nbval covers the defaults)."""
import json

import papermill as pm
import pytest

from pfc import paths
from pfc.benchmarks import toolspectrum as ts
from pfc.render import render_json

pytestmark = pytest.mark.notebook


def test_toolspectrum_notebook_scores_a_given_run_with_hierarchical_preview(release, tmp_path):
    examples, _ = ts.load(release)
    run = tmp_path / "run-oracle"
    run.mkdir()
    (run / "predictions.jsonl").write_text("".join(
        json.dumps({"id": e.id, "output": render_json(e.gold)}) + "\n" for e in examples))
    (run / "config.json").write_text(json.dumps({"model": "oracle-as-model", "strategy": "cot"}))
    out = tmp_path / "out.ipynb"
    pm.execute_notebook(str(paths.NOTEBOOKS / "toolspectrum.ipynb"), str(out), kernel_name="python3",
                        parameters={"runs": str(run), "strategy": "hierarchical", "subsets": "profile,both",
                                    "reference_runs": False, "figures_dir": str(tmp_path / "figs")},
                        progress_bar=False)
    text = out.read_text()
    assert "oracle-as-model / cot" in text  # the given run was scored and named from its config
    assert "Answer with the domain name only." in text  # the hierarchical domain step was shown
    for name in ("table3_ours.png", "table3_ours.csv", "fig4_domains.png", "taxonomy.png"):
        assert (tmp_path / "figs" / name).exists(), name


def test_walkthrough_notebook_scores_toolspectrum_parameters(release, tmp_path):
    examples, _ = ts.load(release / "data" / "dataset_environment.json")
    pred = tmp_path / "p.jsonl"
    pred.write_text("".join(json.dumps({"index": i, "output": "null"}) + "\n" for i in range(len(examples))))
    pm.execute_notebook(str(paths.NOTEBOOKS / "00_scoring_walkthrough.ipynb"), str(tmp_path / "o.ipynb"),
                        kernel_name="python3", progress_bar=False,
                        parameters={"benchmark": "toolspectrum", "predictions": str(pred), "out_dir": str(tmp_path / "s"),
                                    "examples": str(release / "data" / "dataset_environment.json")})
    assert json.loads((tmp_path / "s" / "metrics.json").read_text())["APP"] == 0.0


def test_no_api_key_lands_in_an_executed_notebook_run_files_or_reports(tiny_tracebench, tmp_path, monkeypatch):
    secret = "sk-pfctest" + "0123456789abcdefghijklmnop"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    out = tmp_path / "o.ipynb"
    pm.execute_notebook(str(paths.NOTEBOOKS / "03_run_model.ipynb"), str(out), kernel_name="python3",
                        progress_bar=False, parameters={"examples": str(tiny_tracebench), "run_id": "secret-check", "limit": 10})
    reports = [*paths.REPORTS.glob("*.md"), *paths.REPORTS.glob("*.json"), *(paths.ROOT / "reports").glob("*.md"),
               *(paths.ROOT / "reports").glob("*.json")]
    files = [out, *(paths.RUNS / "secret-check").iterdir(), *reports]
    for f in files:
        assert secret not in f.read_text(errors="ignore"), f
