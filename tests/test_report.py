"""`pfc report` / `pfc compare` over run directories: layouts, ordering, paper rows apart, hashes."""
import hashlib
import json

import pandas as pd
import pytest

from pfc.report import tables as T
from pfc.cli import main
from pfc.data.querygen import LEVELS
from pfc.run.config import RunConfig
from pfc.run.runner import execute


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory, tiny_tracebench):
    d = tmp_path_factory.mktemp("rep")
    for backend in ("oracle", "no-history"):
        execute(RunConfig("tracebench", tiny_tracebench, backend, d / "runs" / backend, cache_path=d / "cache.sqlite", progress=False))
    return d


def test_report_writes_table4_with_paper_rows_apart_and_run_hashes(two_runs, capsys):
    out = two_runs / "report"
    assert main(["report", str(two_runs / "runs" / "oracle"), str(two_runs / "runs" / "no-history"),
                 "--out", str(out), "--n-boot", "100"]) == 0
    t4 = pd.read_csv(out / "tracebench_table4.csv")
    assert list(t4.columns[:2]) == ["source", "run"]
    ours, paper = t4[t4["source"] == "ours"], t4[t4["source"] == "paper"]
    assert set(ours["run"]) == {"oracle", "no-history"}
    # the oracle emits the gold calls: every metric is exactly 1 with a zero-width interval
    assert ours.set_index("run").loc["oracle", "overall"] == "1.000 [1.000, 1.000]"
    # paper rows are the printed Table 4 (GPT-4o overall 0.3267, §5.2) and never carry our intervals
    assert paper.set_index("run").loc["GPT-4o(FC)", "overall"] == "0.3267"
    assert not paper["overall"].str.contains(r"\[").any()
    manifest = json.loads((out / "runs.json").read_text())
    want = hashlib.sha256((two_runs / "runs" / "oracle" / "predictions.jsonl").read_bytes()).hexdigest()
    assert next(m for m in manifest if m["run"] == "oracle")["sha256"]["predictions.jsonl"] == want
    for stem in ("fig3_vagueness", "fig4_history"):
        for ext in ("png", "pdf"):
            assert (out / "figures" / f"{stem}.{ext}").stat().st_size > 1000
    assert "TRACEBench Fig. 3" in (out / "report.md").read_text()
    assert "oracle" in capsys.readouterr().out  # the summary on stdout


def test_vagueness_groups_come_in_the_papers_order(two_runs):
    runs = [T.load_run(two_runs / "runs" / "no-history")]
    g = T.group_table(runs, "vagueness", ["overall"], n_boot=0)
    assert list(g["group"]) == [lv for lv in LEVELS if lv in set(g["group"])]
    assert list(g["group"])[0] == "most_clear"


def test_history_bins_ascend_numerically_not_alphabetically():
    # trap: "100-199" sorts before "50-99" as a string
    assert T.group_order("history_bin", ["200+", "100-199", "50-99", "0-49"]) == ["0-49", "50-99", "100-199", "200+"]
    assert T.group_order("history_bin", ["x"], {"history_bins": ["y", "x"]}) == ["x"]


def test_compare_refuses_a_directory_without_config_in_one_line(tmp_path, capsys):
    (tmp_path / "predictions.jsonl").write_text("")
    assert main(["compare", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "config.json" in err


def test_two_runs_with_the_same_model_are_never_merged(two_runs):
    a = T.load_run(two_runs / "runs" / "oracle")
    b = T.load_run(two_runs / "runs" / "oracle")
    b.run_dir = "elsewhere/oracle-2"
    names = [r.name for r in T.unique_names([a, b])]
    assert len(set(names)) == 2


@pytest.mark.notebook
def test_pfc_report_and_the_evaluate_notebook_give_the_same_table(two_runs):
    import papermill as pm

    from pfc import paths
    dirs = [two_runs / "runs" / "oracle", two_runs / "runs" / "no-history"]
    assert main(["report", *map(str, dirs), "--out", str(two_runs / "cli"), "--n-boot", "100"]) == 0
    pm.execute_notebook(str(paths.NOTEBOOKS / "04_evaluate.ipynb"), str(two_runs / "04.ipynb"), kernel_name="python3",
                        progress_bar=False, parameters={"run_dirs": ",".join(map(str, dirs)),
                                                        "out_dir": str(two_runs / "nb"), "n_boot": 100})
    cli = (two_runs / "cli" / "tracebench_table4.csv").read_text()
    assert cli == (two_runs / "nb" / "tracebench_table4.csv").read_text()
    assert "oracle" in cli and "GPT-4o(FC)" in cli


def test_ptbench_runs_get_table1_the_split_tables_and_the_error_pies(tmp_path):
    from pfc import benchmarks, paths
    fixture = paths.GOLDEN / "ptbench_official"
    adapter = benchmarks.get("ptbench")
    examples, _ = adapter.scoring.load(fixture, None)
    outputs = adapter.scoring.load_predictions(fixture, examples)  # the fixture's synthetic outputs, by split
    run_dir = tmp_path / "pt"
    run_dir.mkdir()
    (run_dir / "predictions.jsonl").write_text("".join(json.dumps({"id": e.id, "output": outputs.get(e.id)}) + "\n"
                                                       for e in examples))
    (run_dir / "config.json").write_text(json.dumps({"benchmark": "ptbench", "examples": str(fixture),
                                                     "backend": "fixture", "model": "synthetic"}))
    from pfc.report.runs import write_report
    out = tmp_path / "rep"
    write_report([T.load_run(run_dir)], out, n_boot=50)
    t1 = pd.read_csv(out / "ptbench_table1.csv")
    # the paper's Table 1 is printed in percent; beside ours it is on our 0-1 scale (Ours overall 26.78 -> 0.2678)
    assert t1.set_index("run").loc["Ours", "overall"] == "0.2678"
    assert (out / "ptbench_table11.csv").exists() and (out / "ptbench_table12.csv").exists()
    assert (out / "figures" / "ptbench_fig4.png").exists()
    shares = pd.read_csv(out / "ptbench_fig4_errors.csv")
    assert abs(shares["share"].sum() - 1) < 0.01


def test_toolspectrum_report_shows_both_scoring_modes_side_by_side(release, tmp_path):
    from pfc.benchmarks import toolspectrum as ts
    from pfc.benchmarks.toolspectrum.views import reference_runs
    from pfc.report.runs import write_report
    data = release / "data" / "dataset_persona_environment.json"
    examples, _ = ts.load(data)
    run_dir = tmp_path / "refuse"
    run_dir.mkdir()
    outputs = reference_runs(examples)["reference: always refuse"]
    (run_dir / "predictions.jsonl").write_text("".join(json.dumps({"id": e.id, "output": outputs[e.id]}) + "\n"
                                                       for e in examples))
    (run_dir / "config.json").write_text(json.dumps({"benchmark": "toolspectrum", "examples": str(data),
                                                     "backend": "always-refuse"}))
    write_report([T.load_run(run_dir)], tmp_path / "rep", n_boot=50)
    both = pd.read_csv(tmp_path / "rep" / "toolspectrum_both_modes.csv").set_index("mode")
    # trap: refusing everything earns APP F1 > 0.6 when a correct refusal is a hit, and nothing in paper mode
    assert both.loc["paper-compatible", "APP"].startswith("0.000")
    assert float(both.loc["ours (refusal = hit)", "APP"].split()[0]) > 0.6
    t3 = pd.read_csv(tmp_path / "rep" / "toolspectrum_table3.csv")
    assert t3.set_index("run").loc["GPT-4o", "both/OP"] == "0.4500"  # paper Table 3, §4.2 (printed 0.45)
