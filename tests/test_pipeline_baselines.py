"""make reproduce's step for several built-in baselines' runs on one build (``baseline_runs_step``): the runs
notebook 03 would make, with the build read once for all of them."""
import shutil

import pytest

from pfc import paths
from pfc.report.pipeline.step import baseline_runs_step


@pytest.fixture
def out_root(tmp_path, monkeypatch, tiny_tracebench):
    """Every output folder of ``pfc.paths`` under ``tmp_path/out``, with a copy of the tiny TRACEBench in it."""
    out = tmp_path / "out"
    root = paths.OUTPUT_ROOT
    for name in ("OUTPUT_ROOT", "OUT_DATA", "BENCHMARKS", "RUNS", "REPORTS", "PROCESSED", "INTERIM", "FIGURES", "CACHE"):
        monkeypatch.setattr(paths, name, out / getattr(paths, name).relative_to(root))
    shutil.copytree(tiny_tracebench, paths.BENCHMARKS / "tracebench")
    return out


def test_the_baselines_step_makes_the_same_runs_as_separate_notebook_03_runs(out_root, tmp_path):
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute
    bench = paths.BENCHMARKS / "tracebench"
    step = baseline_runs_step("runs", "tracebench", bench, {"history-prior": "tb-a", "random": "tb-b"},
                              [bench / "examples.jsonl"])
    step.fn()
    for b, run_id in (("history-prior", "tb-a"), ("random", "tb-b")):
        # notebook 03's call (RunConfig with its default settings), each run on its own into another folder
        alone = tmp_path / f"alone-{b}"
        usage = execute(RunConfig("tracebench", bench, b, alone, progress=False,
                                  cache_path=tmp_path / "other-cache.sqlite"))
        assert usage["failures"] == 0 and usage["written"] == usage["n_examples"] > 0
        for f in ("predictions.jsonl", "run.json"):
            assert (paths.RUNS / run_id / f).read_bytes() == (alone / f).read_bytes(), (b, f)
    assert [p.name for p in step.outputs] == ["predictions.jsonl", "predictions.jsonl"]
    assert all(p.is_file() for p in step.outputs)


def test_the_baselines_step_reads_and_hashes_the_build_once_for_all_its_runs(out_root, monkeypatch):
    from pfc import schema
    from pfc.run import identity
    reads, hashes = [], []
    read, content_hash = schema._read_examples, identity.content_hash
    monkeypatch.setattr(schema, "_read_examples", lambda p: reads.append(p) or read(p))
    monkeypatch.setattr(identity, "content_hash", lambda e, t: hashes.append(1) or content_hash(e, t))
    bench = paths.BENCHMARKS / "tracebench"
    baseline_runs_step("runs", "tracebench", bench, {"oracle": "tb-o", "history-prior": "tb-h", "no-history": "tb-n"},
                       [bench / "examples.jsonl"]).fn()
    assert len(reads) == 1 and len(hashes) == 1
    assert all((paths.RUNS / r / "predictions.jsonl").is_file() for r in ("tb-o", "tb-h", "tb-n"))


def test_the_baselines_step_is_keyed_by_its_benchmark_build_and_run_ids(out_root):
    bench = paths.BENCHMARKS / "tracebench"
    step = baseline_runs_step("runs", "tracebench", bench, {"oracle": "tb-oracle"}, [bench / "examples.jsonl"])
    assert step.notebook is None
    assert step.params == {"benchmark": "tracebench", "examples": "data/benchmarks/tracebench",
                           "run_ids": {"oracle": "tb-oracle"}}
    assert step.outputs == [paths.RUNS / "tb-oracle" / "predictions.jsonl"]


def test_toolspectrum_runs_the_baselines_declared_for_a_large_release(tmp_path, monkeypatch):
    """The release is large: its step runs the baselines whose ``on_large_data`` is set (``builtin.ON_LARGE_DATA``),
    the same three, in the same order and under the same run ids as the table's first three before the flag."""
    from pfc.benchmarks.toolspectrum import pipeline as ts_pipeline
    from pfc.report.pipeline.step import Ask
    from pfc.run.backends.builtin import BASELINES
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "dataset_persona.json").write_text("[]")
    monkeypatch.setenv("PFC_TOOLSPECTRUM_DIR", str(tmp_path))
    steps, runs = ts_pipeline.steps(Ask(tuple(BASELINES)))
    want = {"oracle": "ts-oracle", "history-prior": "ts-history-prior", "no-history": "ts-no-history"}
    assert steps[0].params["run_ids"] == want and list(steps[0].params["run_ids"]) == list(want)
    assert [d.name for d in runs] == list(want.values())
