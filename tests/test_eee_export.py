"""``pfc export --format eee RUN…``: each run as an Every Eval Ever aggregate record and its instance-level JSONL,
checked by the ``every-eval-ever`` package itself (its validator, its record types), which needs Python 3.12 and so
lives in its own ``.venv-eee`` (``make test`` builds it): the files are validated and read back there, in a
subprocess, and compared here with what ``pfc``'s scorer computes. Marked slow: ``make test-fast`` runs on the core
stack alone, without ``.venv-eee``."""
import json
import re
import subprocess
from pathlib import Path

import pytest

from pfc import paths
from pfc.cli import main
from pfc.eval.scoring import score_files
from pfc.run.config import RunConfig
from pfc.run.runner import execute

ROOT = Path(__file__).resolve().parents[1]
EEE = ROOT / ".venv-eee" / "bin"
N = 16  # examples per run on the tiny TRACEBench
MEAN_COLUMNS = ("overall", "format", "app", "function_name", "function_param_names", "function_param_values")
pytestmark = pytest.mark.slow  # a second interpreter (.venv-eee), which only `make test` builds
UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
READ = r"""
import json, sys
from pathlib import Path
from every_eval_ever.eval_types import EvaluationLog
from every_eval_ever.instance_level_types import InstanceLevelEvaluationLog
from every_eval_ever.validator import strict_json_loads
root, out = Path(sys.argv[1]), {}
for f in sorted(root.glob("data/*/*/*/*.json")):
    log = EvaluationLog.model_validate(strict_json_loads(f.read_text(encoding="utf-8")))
    lines = (root / log.detailed_evaluation_results.file_path).read_text(encoding="utf-8").splitlines()
    rows = [InstanceLevelEvaluationLog.model_validate(strict_json_loads(line)) for line in lines if line.strip()]
    samples = {}
    for r in rows:
        samples.setdefault(r.sample_id, {})[r.evaluation_result_id] = [r.evaluation.score, r.evaluation.is_correct]
    out[log.model_info.id] = {"aggregate": {r.evaluation_result_id: r.score_details.score
                                            for r in log.evaluation_results}, "samples": samples}
print(json.dumps(out))
"""


def eee_bin(name: str) -> str:
    """A program of ``.venv-eee``; missing, the test fails (never skips): ``make test`` builds it."""
    if not (EEE / name).exists():
        pytest.fail(f"{EEE / name} is missing: `make test` builds .venv-eee (Python 3.12, requirements-eee.txt)")
    return str(EEE / name)


@pytest.fixture(scope="module")
def runs(tiny_tracebench, tmp_path_factory):
    """Two finished runs of the built-in baselines on the tiny TRACEBench, exported into ``eee/``."""
    root = tmp_path_factory.mktemp("eee-runs")
    for backend in ("oracle", "history-prior"):
        execute(RunConfig("tracebench", tiny_tracebench, backend, root / backend, limit=N, history="last_k", k=10,
                          use_cache=False, progress=False))
    assert main(["export", "--format", "eee", str(root / "oracle"), str(root / "history-prior"), "--out",
                 str(root / "eee")]) == 0
    return root


@pytest.fixture(scope="module")
def read_back(runs):
    """``{model id: {"aggregate": {result id: score}, "samples": {id: {result id: [score, is_correct]}}}}`` as
    the package's own record types read the exported files."""
    p = subprocess.run([eee_bin("python"), "-c", READ, str(runs / "eee")], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


def test_one_aggregate_and_one_samples_file_per_run_in_the_datastore_layout(runs):
    found = files(runs / "eee")
    assert len(found) == 4, found
    for backend in ("oracle", "history-prior"):
        mine = [f for f in found if f.startswith(f"data/tracebench/{backend}/{backend}/")]
        assert len(mine) == 2 and re.fullmatch(rf".*/({UUID4})\.json", mine[0])
        assert mine[1] == mine[0][:-len(".json")] + "_samples.jsonl"


def test_the_packages_validator_passes_both_files_of_each_run_without_warnings(runs):
    targets = [str(runs / "eee" / f) for f in files(runs / "eee")]  # absolute: checked as data/<...> paths
    p = subprocess.run([eee_bin("every_eval_ever"), "validate", "--format", "json", *targets], capture_output=True,
                       text=True, timeout=300)
    reports = json.loads(p.stdout)
    assert p.returncode == 0, reports
    assert [(r["valid"], r["errors"], r["warnings"]) for r in reports] == [(True, [], [])] * 4
    assert sorted(r["file_type"] for r in reports) == ["aggregate", "aggregate", "instance", "instance"]


def test_the_oracle_reads_back_as_one_on_every_example(read_back):
    samples = read_back["oracle/oracle"]["samples"]
    assert len(samples) == N and {s["pfc:overall"][0] for s in samples.values()} == {1.0}
    assert read_back["oracle/oracle"]["aggregate"]["pfc:overall"] == 1.0


def scorer_rows(runs: Path, tiny_tracebench: Path) -> list[dict]:
    """The scorer's per-example rows of the history-prior run's answered examples (``score_files`` counts the
    rest of the benchmark as unanswered)."""
    answered = {json.loads(line)["id"] for line in (runs / "history-prior" / "predictions.jsonl").open()}
    per = score_files("tracebench", tiny_tracebench, runs / "history-prior" / "predictions.jsonl").per_example
    return [r for r in per.to_dict("records") if r["id"] in answered]


def test_scores_read_back_are_the_scorers_per_example_columns(runs, read_back, tiny_tracebench):
    want = {r["id"]: {f"pfc:{c}": [float(r[c]), r[c] == 1] for c in MEAN_COLUMNS}
            for r in scorer_rows(runs, tiny_tracebench)}
    got = read_back["history-prior/history-prior"]["samples"]
    assert len(want) == N and got == want
    overall = [s["pfc:overall"][0] for s in got.values()]
    assert 0 < sum(overall) < N  # the baseline gets some wrong, so the comparison can fail


def test_each_aggregate_score_is_the_mean_of_its_rows_or_the_scorers_ratio(runs, read_back, tiny_tracebench):
    rows, back = scorer_rows(runs, tiny_tracebench), read_back["history-prior/history-prior"]
    assert {f"pfc:{c}" for c in MEAN_COLUMNS} < set(back["aggregate"])
    for rid, value in back["aggregate"].items():
        key, back_rows = rid.removeprefix("pfc:"), [s[rid][0] for s in back["samples"].values() if rid in s]
        if key in MEAN_COLUMNS:
            assert len(back_rows) == N and value == pytest.approx(sum(back_rows) / N)
            assert value == pytest.approx(sum(r[key] for r in rows) / N)
        else:  # value_acc_<source>: correct values / all values of that source, no per-example score to carry
            source = key.removeprefix("value_acc_")
            assert back_rows == [] and value == pytest.approx(sum(r[f"correct_{source}"] for r in rows)
                                                              / sum(r[f"total_{source}"] for r in rows))


def test_exporting_again_replaces_the_same_files(runs, tmp_path):
    assert main(["export", "--format", "eee", str(runs / "oracle"), "--out", str(tmp_path)]) == 0
    assert main(["export", "--format", "eee", str(runs / "oracle"), "--out", str(tmp_path)]) == 0
    assert files(tmp_path) == [f for f in files(runs / "eee") if "/oracle/" in f]


def test_default_out_is_eee_under_reports(runs, tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "REPORTS", tmp_path / "reports")
    assert main(["export", "--format", "eee", str(runs / "oracle")]) == 0
    assert len(list((tmp_path / "reports" / "eee").glob("data/tracebench/oracle/oracle/*_samples.jsonl"))) == 1


def test_a_folder_that_is_not_a_run_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["export", "--format", "eee", str(tmp_path), "--out", str(tmp_path / "eee")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "config.json: no such file (not a pfc run directory)" in err[-1]
    assert len([line for line in err if not line.startswith("pfc export: [")]) == 1
    assert not (tmp_path / "eee").exists()
