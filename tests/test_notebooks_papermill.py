"""Notebooks run under papermill with injected parameters (nbval covers the defaults)."""
import json

import papermill as pm
import pytest

from pfc import benchmarks, paths
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


def test_evidence_dose_notebook_draws_given_runs_and_names_a_real_run_not_committed_or_not_answered(tiny_tracebench, tmp_path):
    import csv

    from pfc.data.counterfactual import VariantSet, sample, write
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    sets, runs = {}, {}
    for kind, n in (("dose:0,2,8", 4), ("contradict-stated", 6)):
        variants, skipped = sample(exs, kind, n, seed=0)
        sets[kind] = tmp_path / kind.split(":")[0]
        write(sets[kind], tiny_tracebench, VariantSet("tracebench", kind, 0, variants, skipped, tools, exs))
        runs[kind] = tmp_path / "runs" / kind.split(":")[0]
        execute(RunConfig("tracebench", sets[kind], "history-prior", runs[kind], cache_path=tmp_path / "c.sqlite", progress=False))
    orig = tmp_path / "runs" / "orig"
    execute(RunConfig("tracebench", tiny_tracebench, "history-prior", orig, cache_path=tmp_path / "c.sqlite", progress=False))
    started = tmp_path / "runs" / "started"  # a run in its first batch: predictions.jsonl opened, no row finished
    started.mkdir()
    (started / "config.json").write_bytes((runs["dose:0,2,8"] / "config.json").read_bytes())
    (started / "predictions.jsonl").write_text("")
    copied = tmp_path / "runs" / "copied"  # answers without their run's config: the notebook reads predictions only
    copied.mkdir()
    (copied / "predictions.jsonl").write_bytes((runs["dose:0,2,8"] / "predictions.jsonl").read_bytes())
    out = tmp_path / "o.ipynb"
    pm.execute_notebook(str(paths.NOTEBOOKS / "09_evidence_dose.ipynb"), str(out), kernel_name="python3",
                        progress_bar=False, parameters={
                            "originals": str(tiny_tracebench), "dose_variants": str(sets["dose:0,2,8"]),
                            "stated_variants": str(sets["contradict-stated"]),
                            "dose_runs": f"history-prior={runs['dose:0,2,8']}",
                            "override_runs": f"history-prior={orig}:{runs['contradict-stated']}",
                            "real_dose_runs": f"ghost={tmp_path / 'not-yet'},started={started},copied={copied}",
                            "out_dir": str(tmp_path / "ev"),
                            "n_boot": 50})
    text = out.read_text()
    assert "ghost: no answers on the dose variants yet" in text
    assert "started: no answers on the dose variants yet" in text
    rows = list(csv.DictReader((tmp_path / "ev" / "evidence_dose.csv").open()))
    assert {r["run"] for r in rows} == {"history-prior", "copied"}  # the ghost and the started run are left out
    assert {r["k"] for r in rows if r["part"] == "dose"} == {"0", "2", "8"}
    stated = {r["metric"]: float(r["value"]) for r in rows if r["part"] == "override"}
    assert stated == {"stated_wins": 1.0, "overrides": 0.0}  # history-prior never overrules a stated value
    assert (tmp_path / "ev" / "figures" / "dose_response.png").read_bytes()[:4] == b"\x89PNG"


def test_counterfactual_notebook_names_a_real_pair_whose_variants_run_has_no_finished_answer(tmp_path):
    started = tmp_path / "started"  # a swap-user run in its first batch: predictions.jsonl opened, no row finished
    started.mkdir()
    (started / "config.json").write_text(json.dumps({"benchmark": "tracebench", "model": "m", "backend": "hf"}))
    (started / "predictions.jsonl").write_text("")
    out = tmp_path / "o.ipynb"
    pm.execute_notebook(str(paths.NOTEBOOKS / "08_counterfactuals.ipynb"), str(out), kernel_name="python3",
                        progress_bar=False, parameters={"real_run": f"m={tmp_path / 'orig'}:{started}",
                                                        "out_dir": str(tmp_path / "cf"), "n_boot": 50})
    text = out.read_text()
    assert "m: its answers on the counterfactual variants are not available (no finished answer on them" in text
    assert not (tmp_path / "cf" / "personalization_real_model.csv").exists()  # left out, never an error
    assert (tmp_path / "cf" / "personalization.csv").is_file()  # the baselines are still scored


def test_ask_or_infer_notebook_runs_the_baselines_and_says_no_real_model_run_is_committed(tmp_path):
    import csv
    out = tmp_path / "o.ipynb"
    runs = tmp_path / "ask" / "demo" / "runs"  # made by the notebook's demo before the paired table reads them
    pm.execute_notebook(str(paths.NOTEBOOKS / "10_ask_or_infer.ipynb"), str(out), kernel_name="python3",
                        progress_bar=False, parameters={
                            "real_runs": f"ghost={tmp_path / 'a'}:{tmp_path / 'b'}:{tmp_path / 'c'}",
                            "standard_runs": f"ghost={tmp_path / 'a'}:{tmp_path / 'b'},two={runs / 'tb-ask-always-call-originals'}"
                                             f":{runs / 'tb-ask-always-ask-originals'}",
                            "out_dir": str(tmp_path / "ask"), "n_boot": 50})
    text = out.read_text()
    assert "ghost: 3 of its 3 runs have no answers yet: left out" in text
    assert "ghost: no answers on the originals under both prompts yet" in text
    assert "no real-model runs committed yet" in text
    rows = {(r["run"], r["metric"]): r["value"] for r in csv.DictReader((tmp_path / "ask" / "ask_or_infer.csv").open())}
    assert (rows["always-ask", "over_ask"], rows["always-ask", "guess_rate"]) == ("1.0", "0.0")
    assert (rows["always-call", "over_ask"], rows["always-call", "guess_rate"]) == ("0.0", "1.0")
    assert (tmp_path / "ask" / "figures" / "risk_coverage.png").read_bytes()[:4] == b"\x89PNG"
    paired = {(r["pair"], r["metric"]): r for r in csv.DictReader((tmp_path / "ask" / "ask_or_infer_paired.csv").open())}
    two = paired["two: ask-allowed − standard prompt (originals)", "over_ask"]  # always-call − always-ask on call items
    assert (float(two["a"]), float(two["b"]), float(two["diff"])) == (0.0, 1.0, -1.0)
