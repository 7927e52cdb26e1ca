"""Fault suite: one writer per run directory, kill -9 mid-run, complete run identity (``pfc run``)."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from faultkit import digest, last_line, pfc, tree
from stub_server import serve

from pfc import paths
from pfc.io.lock import writer_lock
from pfc.run.identity import RunIdentityError
from pfc.run.config import RunConfig
from pfc.run.runner import execute
from pfc.run.writer import finished_ids

pytestmark = pytest.mark.slow  # subprocess runs killed, raced and starved of disk: not in make test-fast

PT = paths.GOLDEN / "ptbench_official" / "test_trained_user" / "data.json"


def run_cmd(bench, out, limit):
    return [sys.executable, "-m", "pfc", "run", "--benchmark", "tracebench", "--examples", str(bench),
            "--backend", "openai", "--model", "m", "--concurrency", "1", "--limit", str(limit), "--out", str(out)]


def env_for(stub, tmp_path):
    return {**os.environ, "OPENAI_BASE_URL": stub.url, "OPENAI_API_KEY": "sk-local",
            "PFC_OUTPUT_ROOT": str(tmp_path / "root")}


def rows(out):
    return [json.loads(x)["id"] for x in (out / "predictions.jsonl").read_text().splitlines()]


def test_two_racing_pfc_runs_on_one_directory_one_writes_the_other_is_refused(bench, tmp_path):
    out, n = tmp_path / "r", 20
    with serve("slow") as stub:  # 0.2 s per answer: the winner holds the directory for at least 4 s
        env = env_for(stub, tmp_path)
        procs = [subprocess.Popen(run_cmd(bench, out, n), env=env, cwd=paths.ROOT, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
        results = [(p.wait(300), p.stderr.read()) for p in procs]
    assert sorted(code for code, _ in results) == [0, 2], [e[-500:] for _, e in results]
    winner = procs[[code for code, _ in results].index(0)]
    err = next(e for code, e in results if code == 2)
    assert "Traceback" not in err
    assert f"another writer holds this run directory (pid {winner.pid} on " in err.strip().splitlines()[-1]
    ids = rows(out)
    assert len(ids) == n and len(set(ids)) == n  # one writer's rows, each id once


def test_a_run_directory_held_by_another_process_is_refused_and_left_alone(bench, tmp_path):
    out = tmp_path / "r"
    execute(RunConfig("tracebench", bench, "oracle", out, limit=3, cache_path=tmp_path / "c.sqlite", progress=False))
    before = tree(out)
    with writer_lock(out, "run directory"):
        p = pfc("run", "--benchmark", "tracebench", "--examples", bench, "--backend", "oracle", "--limit", 5,
                "--out", out, env={"PFC_OUTPUT_ROOT": str(tmp_path / "root")})
        line = last_line(p, 2)
        assert line == f"pfc run: {out}: another writer holds this run directory ({open(out / '.pfc-writer.lock').read().strip()}); wait for it to finish or stop it"
        assert f"pid {os.getpid()} on " in line
        assert tree(out) == before


def test_a_run_killed_with_sigkill_resumes_with_no_row_lost_or_doubled(bench, tmp_path):
    out, n = tmp_path / "r", 12
    with serve("slow") as stub:
        env = env_for(stub, tmp_path)
        proc = subprocess.Popen(run_cmd(bench, out, n), env=env, cwd=paths.ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while time.time() < deadline and len(finished_ids(out / "predictions.jsonl")) < 2:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        kept = (out / "predictions.jsonl").read_bytes()
        kept = kept[:kept.rfind(b"\n") + 1]  # whole rows only (a kill may cut the last one)
        assert 2 <= kept.count(b"\n") < n
        again = subprocess.run(run_cmd(bench, out, n), env=env, cwd=paths.ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr[-2000:]
    assert (out / "predictions.jsonl").read_bytes().startswith(kept)  # earlier rows untouched
    ids = rows(out)
    assert len(ids) == n and len(set(ids)) == n


def test_resuming_a_ptbench_run_after_the_prompt_source_changed_is_refused_naming_the_field(tmp_path, monkeypatch):
    monkeypatch.delenv("PFC_PTBENCH_DIR", raising=False)
    out = tmp_path / "r"
    execute(RunConfig("ptbench", PT, "oracle", out, limit=2, cache_path=tmp_path / "c.sqlite", progress=False))
    before = tree(out)
    (tmp_path / "ptb" / "src").mkdir(parents=True)
    (tmp_path / "ptb" / "src" / "template.py").write_text('prompt = "P={profile} {platforms} {tools} {format}"\n'
                                                         'format = "p:[f(a=1)]"\n')
    monkeypatch.setenv("PFC_PTBENCH_DIR", str(tmp_path / "ptb"))
    with pytest.raises(RunIdentityError, match=r'\(prompt_template.sha256: [0-9a-f]{12}… -> [0-9a-f]{12}…; '
                                               r'prompt_template.source: "own" -> "official"\)'):
        execute(RunConfig("ptbench", PT, "oracle", out, limit=4, cache_path=tmp_path / "c.sqlite", progress=False))
    assert tree(out) == before


def test_a_run_json_recorded_before_the_prompt_template_field_resumes_and_is_upgraded(bench, tmp_path):
    out = tmp_path / "r"
    execute(RunConfig("tracebench", bench, "oracle", out, limit=2, cache_path=tmp_path / "c.sqlite", progress=False))
    rec = json.loads((out / "run.json").read_text())
    template = rec["identity"].pop("prompt_template")
    (out / "run.json").write_text(json.dumps(rec))
    execute(RunConfig("tracebench", bench, "oracle", out, limit=2, cache_path=tmp_path / "c.sqlite", progress=False))
    assert json.loads((out / "run.json").read_text())["identity"]["prompt_template"] == template
    assert digest(out / "predictions.jsonl") and len(rows(out)) == 2


def test_a_full_disk_mid_run_names_the_file_keeps_the_rows_and_the_run_resumes(bench, tmp_path):
    """RLIMIT_FSIZE (no privileges needed): predictions.jsonl cannot grow past 4 KiB, as on a full disk."""
    import resource
    out = tmp_path / "r"
    cmd = [sys.executable, "-m", "pfc", "run", "--benchmark", "tracebench", "--examples", str(bench),
           "--backend", "oracle", "--limit", "40", "--no-cache", "--out", str(out)]

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    p = subprocess.run(cmd, cwd=paths.ROOT, capture_output=True, text=True, preexec_fn=limit)
    line = last_line(p, 2)
    assert line == (f"pfc run: {out}/predictions.jsonl: cannot write: file too large; the rows written before "
                    "are kept; re-run the same command to resume")
    kept = len(finished_ids(out / "predictions.jsonl"))
    assert 0 < kept < 40
    again = subprocess.run(cmd, cwd=paths.ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr[-2000:]
    ids = rows(out)
    assert len(ids) == 40 and len(set(ids)) == 40
