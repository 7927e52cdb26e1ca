"""Fault suite: ``pfc score`` and ``pfc report`` outputs under a full disk, a held directory and kill -9."""
import json
import os
import resource
import signal
import subprocess
import sys

import pytest
from faultkit import last_line, pfc, tree

from pfc import paths
from pfc.render import render_json
from pfc.io.lock import writer_lock
from pfc.schema import load_examples

pytestmark = pytest.mark.slow  # subprocess scoring and reports under faults: not in make test-fast


@pytest.fixture
def scored(bench, tmp_path):
    """Oracle predictions and an earlier score of them: the result a failed command must not touch."""
    preds = tmp_path / "oracle.jsonl"
    preds.write_text("".join(json.dumps({"id": e.id, "output": render_json(e.gold)}) + "\n"
                             for e in load_examples(bench / "examples.jsonl")))
    out = tmp_path / "score"
    assert pfc("score", "--benchmark", "tracebench", "--examples", bench, "--predictions", preds,
               "--out", out).returncode == 0
    return preds, out


def score_args(bench, preds, out):
    return ["score", "--benchmark", "tracebench", "--examples", bench, "--predictions", preds, "--out", out]


def test_a_full_disk_while_scoring_keeps_the_earlier_score_whole_and_names_the_file(bench, scored):
    """RLIMIT_FSIZE (no privileges needed) makes the kernel refuse any file past 8 KiB: a real failed write."""
    preds, out = scored
    before = tree(out)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
    p = subprocess.run([sys.executable, "-m", "pfc", *map(str, score_args(bench, preds, out))], cwd=paths.ROOT,
                       capture_output=True, text=True, preexec_fn=limit, env=os.environ)
    line = last_line(p, 2)
    assert line.startswith(f"pfc score: {out}/") and "cannot write: file too large" in line
    assert tree(out) == before
    assert not [f for f in os.listdir(out) if ".tmp-" in f]  # no temporary file left behind


def test_a_score_directory_held_by_another_writer_is_refused_and_left_alone(bench, scored):
    preds, out = scored
    before = tree(out)
    with writer_lock(out, "score directory"):
        line = last_line(pfc(*score_args(bench, preds, out)), 2)
    assert line.startswith(f"pfc score: {out}: another writer holds this score directory (pid {os.getpid()} on ")
    assert tree(out) == before


def test_a_rescore_replaces_every_file_of_the_set_with_the_stamp_last(bench, scored, tmp_path):
    preds, out = scored
    first = json.loads((out / "score.json").read_text())
    half = tmp_path / "half.jsonl"
    half.write_text("".join(preds.read_text().splitlines(keepends=True)[:5]))
    assert pfc(*score_args(bench, half, out)).returncode == 0
    second = json.loads((out / "score.json").read_text())
    assert second["coverage"]["matched"] == 5 != first["coverage"]["matched"]
    assert sorted(os.listdir(out)) == [".pfc-writer.lock", "errors.csv", "metrics.json", "per_example.csv",
                                       "score.json"]


def test_a_report_directory_held_by_another_writer_is_refused_and_left_alone(bench, tmp_path):
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute
    execute(RunConfig("tracebench", bench, "oracle", tmp_path / "run", limit=3, cache_path=tmp_path / "c.sqlite", progress=False))
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "report.md").write_text("earlier\n")
    with writer_lock(rep, "report directory"):
        line = last_line(pfc("report", tmp_path / "run", "--out", rep, "--n-boot", 10), 2)
    assert line.startswith(f"pfc report: {rep}: another writer holds this report directory (pid {os.getpid()} on ")
    assert (rep / "report.md").read_text() == "earlier\n"


def test_compare_and_report_on_a_partial_run_say_how_much_it_covers(bench, tmp_path):
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute
    execute(RunConfig("tracebench", bench, "oracle", tmp_path / "run", limit=3, cache_path=tmp_path / "c.sqlite", progress=False))
    n = len(load_examples(bench / "examples.jsonl"))
    want = f"matched 3 of {n} examples; {n - 3} missing, 0 unknown, 0 duplicate; missing examples are scored as failures"
    p = pfc("compare", tmp_path / "run", "--n-boot", 10)
    assert p.returncode == 0 and p.stderr.strip().splitlines()[-1].endswith(want)
    p = pfc("report", tmp_path / "run", "--out", tmp_path / "rep", "--n-boot", 10)
    assert p.returncode == 0 and want in p.stderr and want in (tmp_path / "rep" / "report.md").read_text()
