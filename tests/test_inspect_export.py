"""``pfc export --inspect RUN…``: one inspect_ai ``.eval`` log per run directory, read back with inspect_ai's reader
and opened in ``inspect view`` (headless Chromium, driven over the DevTools protocol)."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

inspect_log = pytest.importorskip("inspect_ai.log")

from pfc import benchmarks, paths  # noqa: E402
from pfc.cli import main  # noqa: E402
from pfc.run.config import RunConfig  # noqa: E402
from pfc.run.requests import RequestBuilder  # noqa: E402
from pfc.run.runner import execute  # noqa: E402

N = 16  # examples per run on the tiny TRACEBench (four anchors, each in its vagueness variants)


@pytest.fixture(scope="module")
def runs(tiny_tracebench, tmp_path_factory):
    """Two finished runs of the built-in baselines on the tiny TRACEBench and their exported logs."""
    root = tmp_path_factory.mktemp("inspect-runs")
    for backend in ("oracle", "history-prior"):
        execute(RunConfig("tracebench", tiny_tracebench, backend, root / backend, limit=N, history="last_k", k=10,
                          use_cache=False, progress=False))
    assert main(["export", "--inspect", str(root / "oracle"), str(root / "history-prior"), "--out",
                 str(root / "logs")]) == 0
    return root


def log_of(root: Path, backend: str):
    (f,) = [p for p in (root / "logs").glob("*.eval") if p.name.endswith(f"_{backend}.eval")]
    return inspect_log.read_eval_log(str(f))


def rows(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]


def test_one_log_per_run_named_after_its_path(runs):
    names = sorted(p.name for p in (runs / "logs").iterdir())
    assert len(names) == 2 and all(n.endswith(("_oracle.eval", "_history-prior.eval")) for n in names)
    assert not [p for p in (runs / "logs").iterdir() if not p.name.endswith(".eval")]  # no temporary file left


def test_one_sample_per_answered_example(runs):
    for backend in ("oracle", "history-prior"):
        log = log_of(runs, backend)
        assert sorted(s.id for s in log.samples) == sorted(r["id"] for r in rows(runs / backend))
        assert len(log.samples) == N and log.status == "success"


def test_sample_input_is_the_request_the_runner_sent(runs, tiny_tracebench):
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    by_id = {e.id: e for e in exs}
    rb = RequestBuilder("tracebench", tools, history="last_k", k=10)
    for s in log_of(runs, "history-prior").samples:
        req = rb.answer(by_id[s.id])
        assert [(m.role, m.text) for m in s.input] == [(m["role"], m["content"]) for m in req.messages]
        assert s.metadata["tools"] == req.tools


def test_the_oracle_scores_one_on_every_example(runs):
    log = log_of(runs, "oracle")
    assert {s.scores["pfc"].value["overall"] for s in log.samples} == {1}
    assert log.results.scores[0].metrics["overall"].value == 1.0


def test_scores_are_the_scorers_per_example_columns(runs, tiny_tracebench):
    from pfc.eval.scoring import score_files
    per = score_files("tracebench", tiny_tracebench, runs / "history-prior" / "predictions.jsonl").per_example
    want = {r["id"]: r for r in per.to_dict("records")}
    samples = log_of(runs, "history-prior").samples
    for s in samples:
        got = s.scores["pfc"].value
        labels = ("id", "error_type", "vagueness", "history_bin", "personalization")  # the row's groups, not scores
        assert got == {k: v for k, v in want[s.id].items() if k not in labels}
        assert {"overall", "format", "app", "function_param_values", "correct_long_term_history"} <= set(got)
        assert s.metadata["vagueness"] == want[s.id]["vagueness"]
    # the baseline gets some wrong: the log says which, and its header's overall is their mean
    overall = [s.scores["pfc"].value["overall"] for s in samples]
    assert 0 < sum(overall) < len(overall)
    assert log_of(runs, "history-prior").results.scores[0].metrics["overall"].value == pytest.approx(
        sum(overall) / len(overall))


def test_raw_answer_is_the_prediction_row(runs):
    by_id = {r["id"]: r for r in rows(runs / "history-prior")}
    for s in log_of(runs, "history-prior").samples:
        assert s.metadata["prediction_row"] == by_id[s.id]
        assert s.output.completion == by_id[s.id]["output"] == s.scores["pfc"].answer


def test_metadata_names_user_gold_and_value_provenance(runs, tiny_tracebench):
    exs = {e.id: e for e in benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)[0]}
    for s in log_of(runs, "oracle").samples:
        gold = exs[s.id].to_dict()["gold"]
        assert s.metadata["user"] == exs[s.id].user_id and s.metadata["gold"] == gold
        assert s.metadata["value_provenance"] == [{a: r["source"] for a, r in c["roles"].items()} for c in gold]
        assert json.loads(s.target) == gold


def test_header_carries_the_run_identity(runs):
    log = log_of(runs, "history-prior")
    assert log.eval.metadata["run"] == json.loads((runs / "history-prior" / "run.json").read_text())
    assert log.eval.metadata["config"]["backend"] == "history-prior" and log.eval.model == "history-prior/history-prior"
    assert log.eval.task_args["history"] == "last_k" and log.eval.task_args["k"] == 10


def test_the_toolspectrum_release_exports_too(release, tmp_path):
    execute(RunConfig("toolspectrum", release, "oracle", tmp_path / "ts", limit=6, use_cache=False, progress=False))
    assert main(["export", "--format", "inspect", str(tmp_path / "ts"), "--out", str(tmp_path / "logs")]) == 0
    (f,) = (tmp_path / "logs").glob("*.eval")
    log = inspect_log.read_eval_log(str(f))
    assert len(log.samples) == 6 and {s.scores["pfc"].value["overall"] for s in log.samples} == {1}
    assert {s.metadata["subset"] for s in log.samples} <= {"profile", "environment", "both"}


def test_default_out_is_inspect_logs_under_reports(runs, tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "REPORTS", tmp_path / "reports")
    assert main(["export", "--inspect", str(runs / "oracle")]) == 0
    assert len(list((tmp_path / "reports" / "inspect_logs").glob("*_oracle.eval"))) == 1


def test_the_log_is_dated_by_the_runs_finish_not_by_when_its_files_were_copied(runs, tmp_path):
    from pfc.integrations.run_export import read_run
    run = shutil.copytree(runs / "oracle", tmp_path / "oracle")
    usage = json.loads((run / "usage.json").read_text())
    (run / "usage.json").write_text(json.dumps({**usage, "finished_at": "2026-01-02T03:04:05"}))
    os.utime(run / "predictions.jsonl", (1e9, 1e9))  # 2001: a checkout's time, not the run's
    assert read_run(run)["created"] == "2026-01-02T03:04:05+00:00"
    assert main(["export", "--inspect", str(run), "--out", str(tmp_path / "logs")]) == 0
    (f,) = (tmp_path / "logs").glob("*.eval")
    assert inspect_log.read_eval_log(str(f)).eval.created.startswith("2026-01-02T03:04:05")


def test_a_run_without_a_finish_time_is_dated_by_its_last_row(runs, tmp_path):
    from pfc.integrations.run_export import read_run
    run = shutil.copytree(runs / "oracle", tmp_path / "oracle")
    (run / "usage.json").unlink()
    os.utime(run / "predictions.jsonl", (1e9, 1e9))  # 2001-09-09T01:46:40 UTC
    assert read_run(run)["created"] == "2001-09-09T01:46:40+00:00"


def refusal(capsys, *argv) -> str:
    assert main(["export", *argv]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    return lines[-1]


def test_a_folder_that_is_not_a_run_is_refused(tmp_path, capsys):
    line = refusal(capsys, "--inspect", str(tmp_path), "--out", str(tmp_path / "logs"))
    assert "config.json: no such file (not a pfc run directory)" in line
    assert not (tmp_path / "logs").exists()


def test_a_run_whose_examples_are_not_built_is_refused(runs, tmp_path, capsys):
    run = shutil.copytree(runs / "oracle", tmp_path / "oracle")
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "examples": str(tmp_path / "gone")}))
    line = refusal(capsys, "--inspect", str(run), "--out", str(tmp_path / "logs"))
    assert "config.json: field 'examples'" in line and "is not built" in line


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _page_text(url: str, want: list[str], profile: Path, timeout: float = 60) -> str:
    """The text headless Chromium shows at ``url`` once every string of ``want`` is on it (or at ``timeout``): the
    viewer renders in the browser, so the page is read over the DevTools protocol, not with ``--dump-dom``."""
    websocket = pytest.importorskip("websocket")  # websocket-client
    browser = subprocess.Popen(["/usr/bin/chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
                                "--window-size=1600,4000", f"--user-data-dir={profile}",
                                "--remote-debugging-port=0", url],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        port_file, end, text = Path(profile) / "DevToolsActivePort", time.time() + timeout, ""
        while not (port_file.exists() and port_file.read_text().strip()) and time.time() < end:
            time.sleep(0.2)
        port = port_file.read_text().split()[0]
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        ws = websocket.create_connection(next(p["webSocketDebuggerUrl"] for p in pages if p["type"] == "page"),
                                         suppress_origin=True, timeout=10)
        try:
            while time.time() < end and not all(w in text for w in want):
                time.sleep(0.5)
                ws.send(json.dumps({"id": 1, "method": "Runtime.evaluate",
                                    "params": {"expression": "document.body.innerText", "returnByValue": True}}))
                text = json.loads(ws.recv()).get("result", {}).get("result", {}).get("value") or ""
        finally:
            ws.close()
        return text
    finally:
        os.killpg(browser.pid, signal.SIGTERM)
        browser.wait(30)


def viewer_text(log_dir: Path, log_name: str, want: list[str], profile: Path) -> str:
    """The text ``inspect view`` (started on a free loopback port over ``log_dir``) shows for the log ``log_name`` in
    headless Chromium once every string of ``want`` is on it; both processes are stopped after."""
    inspect = Path(sys.executable).parent / "inspect"  # the inspect_ai installed beside this interpreter
    assert inspect.exists(), f"no inspect CLI at {inspect}: make test installs the inspect extra"
    port = _free_port()
    view = subprocess.Popen([str(inspect), "view", "start", "--log-dir", str(log_dir), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        end = time.time() + 60
        while time.time() < end:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/logs", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        return _page_text(f"http://127.0.0.1:{port}/#/logs/{log_name}", want, profile)
    finally:
        os.killpg(view.pid, signal.SIGTERM)
        view.wait(30)


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="no Chromium at /usr/bin/chromium")
def test_inspect_view_lists_the_exported_samples(runs, tmp_path):  # ~6 s: inspect view, then a headless browser
    (name,) = [p.name for p in (runs / "logs").glob("*_oracle.eval")]
    ids = [s.id for s in log_of(runs, "oracle").samples]
    text = viewer_text(runs / "logs", name, ids, tmp_path / "chromium")
    assert all(i in text for i in ids), text[:2000]
    assert "pfc/tracebench" in text and f"{N} rows" in text


def test_a_hierarchical_run_shows_step_two_in_the_domain_step_one_chose(tiny_tracebench, tmp_path):
    execute(RunConfig("tracebench", tiny_tracebench, "history-prior", tmp_path / "h", strategy="hierarchical", limit=4,
                      use_cache=False, progress=False))
    assert main(["export", "--inspect", str(tmp_path / "h"), "--out", str(tmp_path / "logs")]) == 0
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    rb, by_id = RequestBuilder("tracebench", tools, strategy="hierarchical"), {e.id: e for e in exs}
    (f,) = (tmp_path / "logs").glob("*.eval")
    for s in inspect_log.read_eval_log(str(f)).samples:
        step2 = rb.answer(by_id[s.id], s.metadata["prediction_row"]["domain_step"]["domain"])
        assert s.metadata["tools"] == step2.tools and len(step2.tools) < len(rb.answer(by_id[s.id]).tools)
        assert [(m.role, m.text) for m in s.input] == [(m["role"], m["content"]) for m in step2.messages]
