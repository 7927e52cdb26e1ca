"""The committed reference runs against the code: they re-score to the committed ``metrics.json`` and
``paired.json``, and the committed base-vs-LoRA pair keeps its narrower paired interval.

Slow tier (``make test``, not ``make test-fast``): each check needs the default-size builds the runs
answered (TRACEBench with full histories, both PTBench syntheses, the swap-user variants), built once
for the module (~45 s on an idle 2-core machine), then every committed run re-scored (~25 s).
``pfc verify`` passes on every committed run. The report stage on small runs is tested in ``test_reference_report.py``.
"""
import json

import pytest

from pfc.io.reuse import reading_once
from pfc.report.reference import score as reference
from pfc.report.reference.run import history_builds

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def committed_data(tmp_path_factory):
    """The data the committed runs answered, built afresh in a private output root (a fresh clone has none):
    the default TRACEBench build and our PTBench synthesis (seed 0; the first synthesis too, beside it, when
    committed runs answered it). ``present`` refuses a build whose content hash is not the run's
    ``examples_sha256``, so a drifted build fails here instead of re-scoring other data."""
    from pfc import paths
    from pfc.data.build import build_tracebench
    from pfc.train.sft import build_ptbench
    tmp_path = tmp_path_factory.mktemp("committed")
    mp = pytest.MonkeyPatch()
    mp.setattr(paths, "OUTPUT_ROOT", tmp_path)  # paths.source reads built data from here first
    need = {json.loads((d / "config.json").read_text())["benchmark"] for d in reference.run_dirs()}
    if "tracebench" in need:
        build_tracebench(tmp_path / "data" / "benchmarks" / "tracebench", progress=False)
    if "ptbench" in need:
        build_ptbench(tmp_path / "data" / "benchmarks" / "ptbench", 0)
        if any(reference.is_history(d) for d in reference.run_dirs()):  # runs made on the first synthesis
            build_ptbench(tmp_path / "data" / "benchmarks" / history_builds()["ptool-v1"], 0, 1)
    from pfc.plans.reference import SWAP_RUN
    if any((d / "predictions.jsonl").is_file() for d in reference.ROOT.glob(f"*/{SWAP_RUN}")):  # a model pair on them
        from pfc.data.counterfactual import build_variants
        tb = tmp_path / "data" / "benchmarks" / "tracebench"
        build_variants(tb, tb.parent / f"{tb.name}_swap-user", "swap-user", seed=0)
    from pfc.plans.reference import DOSE_RUN, STATED_RUN
    if any((d / "predictions.jsonl").is_file() for r in (DOSE_RUN, STATED_RUN) for d in reference.ROOT.glob(f"*/{r}")):
        from pfc.plans.evidence import build_evidence  # the dose and contradict-stated sets (pfc verify reads them)
        build_evidence(tmp_path / "data" / "benchmarks" / "tracebench")
    from pfc.report.reference import ask as ask_report
    names, _ = ask_report.run_names()
    on_sets = [r for r in ask_report.runs() if r.endswith(tuple(n for s, n in names.items() if s != "originals"))]
    if any((reference.ROOT / r / "predictions.jsonl").is_file() for r in on_sets):  # ask runs on the study's sets
        from pfc.plans.ask import study_sets
        from pfc.report.pipeline.ask import followup_sets
        study_sets(tmp_path / "data" / "benchmarks" / "tracebench")  # the ask and cannot sets (make reproduce's)
        followup_sets()  # each committed follow-up run's set, from its committed first turns
    from pfc.plans import rule
    rule.make(reference.ROOT)  # the history-prior rule on each model run's ids (paired.json's rule pairs; make reproduce's)
    try:
        with reading_once():  # every test here reads the same builds: each is read and hashed once
            yield
    finally:
        mp.undo()


def test_committed_reference_runs_rescore_to_the_committed_metrics(committed_data):
    committed = reference.ROOT / "metrics.json"
    runs = reference.run_dirs()
    if not runs:  # nothing committed yet: no metrics file may claim runs, and no entry is made up
        assert not committed.exists() or json.loads(committed.read_text()) == {}
        assert reference.metrics() == {}
        return
    assert committed.exists(), "reference runs are committed without metrics.json: run python -m pfc.report.reference"
    assert json.loads(committed.read_text()) == json.loads(json.dumps(reference.metrics(), sort_keys=True)), \
        "reports/reference_runs/metrics.json is stale (rows were added?): run python -m pfc.report.reference"


def test_committed_paired_comparisons_recompute_to_the_committed_file(committed_data):
    from pfc.report.reference import pairs as reference_pairs
    committed = reference.ROOT / "paired.json"
    if not reference.run_dirs():
        assert not committed.exists()
        return
    assert committed.exists(), "reference runs are committed without paired.json: run python -m pfc.report.reference"
    assert json.loads(committed.read_text()) == json.loads(json.dumps(reference_pairs.compute(), sort_keys=True)), \
        "reports/reference_runs/paired.json is stale: run python -m pfc.report.reference"


def test_the_committed_format_grid_is_the_grid_command_on_the_committed_runs(committed_data, tmp_path, monkeypatch):
    """Issue 65: ``reports/reference_runs/format_grid.json`` is, byte for byte, ``python -m pfc.report.format_grid
    --reference --json`` on the committed grid runs whose every request has a row and the grid baselines (made here,
    on the fresh build, in a temporary directory): the runs notebook 11 reads under ``make reproduce``, through the same
    ``compute``."""
    from pfc import paths
    from pfc.report import format_grid as G
    from pfc.report.format_grid_views import usable
    from pfc.report.pipeline.grid import committed_runs
    committed = reference.ROOT / "format_grid.json"
    finished, _ = usable(committed_runs())
    assert committed.is_file() or not finished, "finished grid runs are committed but format_grid.json is not"
    if not committed.is_file():
        return
    monkeypatch.setattr(paths, "BENCHMARKS", paths.OUTPUT_ROOT / "data" / "benchmarks")  # committed_data's build
    monkeypatch.setattr(paths, "RUNS", tmp_path / "runs")
    assert G.main(["--reference", "--json", str(tmp_path / "grid.json")]) == 0
    assert (tmp_path / "grid.json").read_bytes() == committed.read_bytes()


def test_the_committed_lora_pair_of_trained_users_has_a_narrower_paired_interval(committed_data):
    """Issue 19: on the committed base-vs-LoRA pair of trained users (433 examples, 73 users) the paired
    interval (the same users drawn for both runs) is narrower than the unpaired one. Widths are compared at
    20,000 resamples: at the report's 1,000, two intervals this close differ by a few per cent of resampling
    noise either way. No metric may be wider (1% noise allowed: LoRA is right on every example's ``format``,
    so there both intervals are the base run's alone and equal in expectation), and the headline ``overall``
    must be narrower. (The untrained-user pair has 6 users whose per-user base and LoRA results are
    anti-correlated on platforms and tool names; pairing widens those, as it must: docs/personalization.md.)"""
    from pfc.report.reference import pairs as reference_pairs
    a, b = "ptbench-trained-lora", "ptbench-trained"
    entry = reference_pairs.pair(reference.ROOT, "lora", a, b, n_boot=20_000)
    assert not entry["pending"] and not entry["partial"], f"{a}: not every planned row is committed"
    width = {m["key"]: (m["paired_hi"] - m["paired_lo"], m["unpaired_hi"] - m["unpaired_lo"]) for m in entry["metrics"]}
    assert set(width) == {"format", "platforms", "tool_names", "tool_param_values", "overall"}
    for key, (paired, unpaired) in width.items():
        assert paired <= 1.01 * unpaired, (key, paired, unpaired)
    assert width["overall"][0] < 0.98 * width["overall"][1], width["overall"]


def test_every_committed_reference_run_verifies(committed_data, capsys):
    """``pfc verify`` over every committed run of the plan (the tables' and the side runs: layout ablations,
    variants, ask-or-infer): its examples, prompt template and sample hashes, and for a run of the tables its
    committed ``metrics.json`` entry (predictions hash, scores) re-derived from what it holds."""
    from pfc.cli import main
    from pfc.report.reference.run import planned_runs
    runs = [d for d, _ in planned_runs(reference.ROOT)]
    assert set(reference.run_dirs()) <= set(runs) and len(runs) > len(reference.run_dirs())
    code = main(["verify", *map(str, runs)])
    out = capsys.readouterr().out.splitlines()
    assert (code, len(out)) == (0, len(runs)) and all(line.startswith("ok ") for line in out), out


@pytest.fixture(scope="module")
def inspect_logs(committed_data, tmp_path_factory):
    """Every committed run of the plan exported as an inspect log (``pfc export --inspect``): ``{run dir: log}``."""
    from pfc.integrations.inspect_logs import export
    from pfc.report.reference.run import planned_runs
    runs = [d for d, _ in planned_runs(reference.ROOT)]
    return dict(zip(runs, export(runs, tmp_path_factory.mktemp("inspect"))))


def test_every_committed_run_exports_to_inspect_and_reads_back_with_its_committed_scores(inspect_logs):
    """Issue 67: inspect_ai's own reader sees one sample per answered example, and the header's scores equal the
    committed ``metrics.json`` entry of each run of the tables (the side runs: their samples' ``overall`` mean)."""
    from inspect_ai.log import read_eval_log
    from pfc.report.reference.run import run_key
    committed = json.loads((reference.ROOT / "metrics.json").read_text())
    compared = 0
    for run, f in inspect_logs.items():
        log = read_eval_log(str(f))
        ids = {json.loads(line)["id"] for line in (run / "predictions.jsonl").read_text().splitlines() if line.strip()}
        assert sorted(s.id for s in log.samples) == sorted(ids), run
        header = {m.name: m.value for m in log.results.scores[0].metrics.values()}
        per = [s.scores["pfc"].value for s in log.samples]
        if "overall" in header:
            assert header["overall"] == pytest.approx(sum(v["overall"] for v in per) / len(per)), run
        entry = committed.get(run_key(run, reference.ROOT))
        if entry is not None:
            shared = [k for k in entry["robust"] if k in header]
            assert shared, run
            for k in shared:
                assert header[k] == pytest.approx(entry["robust"][k][0], abs=1e-6), (run, k)
            compared += 1
    assert compared == len(reference.run_dirs())


def test_inspect_view_lists_a_committed_reference_runs_samples(inspect_logs, tmp_path):
    """``inspect view`` on the 1.5B's ``tracebench-last_k`` log, read in headless Chromium: its samples are listed."""
    import shutil
    from inspect_ai.log import read_eval_log
    from test_inspect_export import viewer_text  # the export tests' inspect view + DevTools reader
    run = reference.ROOT / "qwen2.5-coder-1.5b-openvino" / "tracebench-last_k"
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(inspect_logs[run], logs / inspect_logs[run].name)
    first = [s.id for s in read_eval_log(str(inspect_logs[run])).samples[:3]]
    text = viewer_text(logs, inspect_logs[run].name, first, tmp_path / "chromium")
    assert all(i in text for i in first), text[:2000]


EEE_READ = r"""
import json, sys
from pathlib import Path
from every_eval_ever.eval_types import EvaluationLog
from every_eval_ever.instance_level_types import InstanceLevelEvaluationLog
from every_eval_ever.validator import strict_json_loads
root, out = Path(sys.argv[1]), {}
for name in sys.argv[2:]:
    log = EvaluationLog.model_validate(strict_json_loads((root / name).read_text(encoding="utf-8")))
    lines = (root / log.detailed_evaluation_results.file_path).read_text(encoding="utf-8").splitlines()
    rows = [InstanceLevelEvaluationLog.model_validate(strict_json_loads(line)) for line in lines if line.strip()]
    overall = [r.evaluation.score for r in rows if r.evaluation_result_id == "pfc:overall"]
    out[name] = {"aggregate": {r.evaluation_result_id: r.score_details.score for r in log.evaluation_results},
                 "samples": sorted({r.sample_id for r in rows}), "overall_rows": overall}
print(json.dumps(out))
"""


def test_every_committed_run_exports_to_eee_and_reads_back_with_its_committed_scores(committed_data, tmp_path):
    """Issue 67: ``pfc export --format eee`` on every committed run of the plan; the ``every-eval-ever`` package's
    own record types (``.venv-eee``) read each back: one sample per answered example, an aggregate ``overall`` that
    is its rows' mean, and for each run of the tables the committed ``metrics.json`` scores."""
    import subprocess
    from pfc.integrations.eee import export
    from pfc.report.reference.run import planned_runs, run_key
    from test_eee_export import eee_bin
    runs = [d for d, _ in planned_runs(reference.ROOT)]
    files = {d: f.relative_to(tmp_path).as_posix() for d, f in zip(runs, export(runs, tmp_path, now=0))}
    p = subprocess.run([eee_bin("python"), "-c", EEE_READ, str(tmp_path), *files.values()], capture_output=True,
                       text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    back = json.loads(p.stdout)
    committed = json.loads((reference.ROOT / "metrics.json").read_text())
    compared = 0
    for run, name in files.items():
        got = back[name]
        ids = {json.loads(line)["id"] for line in (run / "predictions.jsonl").read_text().splitlines() if line.strip()}
        assert got["samples"] == sorted(ids), run
        if got["overall_rows"]:
            assert got["aggregate"]["pfc:overall"] == pytest.approx(sum(got["overall_rows"]) / len(ids)), run
        entry = committed.get(run_key(run, reference.ROOT))
        if entry is not None:
            shared = [k for k in entry["robust"] if f"pfc:{k}" in got["aggregate"]]
            assert shared, run
            for k in shared:
                assert got["aggregate"][f"pfc:{k}"] == pytest.approx(entry["robust"][k][0], abs=1e-6), (run, k)
            compared += 1
    assert compared == len(reference.run_dirs())
