"""Bad inputs, run as a user would (``python -m pfc`` in a subprocess): each is refused loudly.

Every test checks one behaviour: the exit status, that the one-line message names the
file / record / field, that no traceback is printed, and — where there was one — that the
earlier result is byte-for-byte unmodified.
"""
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from openai_stub import Endpoint, completion, serve
from pfc import paths
from pfc.render import render_json
from pfc.run.config import RunConfig
from pfc.run.runner import execute
from pfc.run.writer import finished_ids
from pfc.schema import load_examples

pytestmark = pytest.mark.slow  # each test runs `python -m pfc` in a subprocess, as a user would: not in make test-fast

PT = paths.GOLDEN / "ptbench_official" / "test_trained_user"


def pfc(*args, env=None, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "pfc", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or paths.ROOT, timeout=timeout, env={**os.environ, **(env or {})})


def refused(p, *names, status=2):
    """Exit ``status``, no traceback, one message line naming every one of ``names``."""
    assert p.returncode == status, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr, p.stderr
    line = p.stderr.strip().splitlines()[-1]
    for n in names:
        assert str(n) in line, (n, line)
    return line


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def examples(tiny_tracebench):
    return load_examples(tiny_tracebench / "examples.jsonl")


@pytest.fixture
def oracle_preds(examples, tmp_path):
    p = tmp_path / "oracle.jsonl"
    p.write_text("".join(json.dumps({"id": e.id, "output": render_json(e.gold)}) + "\n" for e in examples))
    return p


@pytest.fixture
def prior_run(tiny_tracebench, tmp_path):
    """A finished 10-example oracle run: the earlier result that a refused command must not touch."""
    out = tmp_path / "run"
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", out, limit=10, cache_path=tmp_path / "c.sqlite", progress=False))
    return out


# ---------------------------------------------------------------- run identity
def test_resuming_with_another_backend_is_refused_naming_the_field(tiny_tracebench, prior_run):
    before = digest(prior_run / "predictions.jsonl")
    # trap: today the rows of two backends were silently mixed under a config claiming the second
    p = pfc("run", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--backend", "random", "--out", prior_run)
    line = refused(p, prior_run, 'backend: "oracle" -> "random"', "--force")
    assert "examples_sha256" not in line  # only what differs is named
    assert digest(prior_run / "predictions.jsonl") == before


def test_resuming_on_another_dataset_is_refused(tiny_tracebench, prior_run, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(tiny_tracebench, other)
    rows = (other / "examples.jsonl").read_text().splitlines()
    first = json.loads(rows[0])
    first["query"] += " please"
    (other / "examples.jsonl").write_text("\n".join([json.dumps(first), *rows[1:]]) + "\n")
    before = digest(prior_run / "predictions.jsonl")
    p = pfc("run", "--benchmark", "tracebench", "--examples", other, "--backend", "oracle", "--out", prior_run)
    refused(p, "examples_sha256")
    assert digest(prior_run / "predictions.jsonl") == before


def test_force_moves_the_old_run_to_the_attic_and_starts_afresh(tiny_tracebench, prior_run):
    before = (prior_run / "predictions.jsonl").read_bytes()
    p = pfc("run", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--backend", "random", "--out", prior_run,
            "--limit", 4, "--force")
    assert p.returncode == 0, p.stderr
    assert (prior_run / "attic" / "1" / "predictions.jsonl").read_bytes() == before
    rows = [json.loads(x) for x in (prior_run / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 4  # none of the 10 oracle rows came along
    assert json.loads((prior_run / "run.json").read_text())["identity"]["backend"] == "random"


def test_a_run_directory_without_run_json_is_refused(tiny_tracebench, prior_run):
    (prior_run / "run.json").unlink()  # a run made before run identities existed, or copied by hand
    p = pfc("run", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--backend", "oracle", "--out", prior_run)
    refused(p, prior_run, "no run.json")


# ---------------------------------------------------------------- runs that cannot work
def test_an_examples_file_takes_tools_json_from_beside_it(tiny_tracebench, tmp_path):
    p = pfc("run", "--benchmark", "tracebench", "--examples", tiny_tracebench / "examples.jsonl", "--backend", "history-prior",
            "--limit", 5, "--out", tmp_path / "r")
    assert p.returncode == 0, p.stderr
    assert len(finished_ids(tmp_path / "r" / "predictions.jsonl")) == 5  # trap: every request used to fail


def test_an_examples_file_without_tools_is_refused_before_any_request(tiny_tracebench, tmp_path):
    lone = tmp_path / "lone" / "examples.jsonl"
    lone.parent.mkdir()
    shutil.copy(tiny_tracebench / "examples.jsonl", lone)
    p = pfc("run", "--benchmark", "tracebench", "--examples", lone, "--backend", "history-prior", "--out", tmp_path / "r")
    refused(p, lone, "tools.json", "--tools")
    assert not (tmp_path / "r" / "predictions.jsonl").exists()


def test_a_builtin_baseline_on_ptbench_data_is_refused_with_what_it_supports(tmp_path):
    # trap: random/history-prior/no-history do run on PTBench data now; query-oracle does not
    p = pfc("run", "--benchmark", "ptbench", "--examples", PT / "data.json", "--backend", "query-oracle",
            "--out", tmp_path / "r")
    refused(p, "query-oracle backend cannot run ptbench", "tracebench, toolspectrum")


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_a_dead_openai_base_url_is_refused_before_any_request(tiny_tracebench, tmp_path):
    secret = "sk-deadurl-0123456789abcdef"
    env = {"OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1", "OPENAI_API_KEY": secret}
    p = pfc("run", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--backend", "openai", "--model", "m",
            "--out", tmp_path / "r", env=env)
    refused(p, "cannot reach", "127.0.0.1", "OPENAI_BASE_URL")
    assert secret not in p.stderr + p.stdout and not (tmp_path / "r" / "failures.jsonl").exists()


class _Rejecting(Endpoint):
    """Answers every request with HTTP 400."""

    def reply(self):
        return 400, {"error": {"message": "model not found", "type": "invalid_request_error"}}


@pytest.fixture
def rejecting_server():
    with serve(_Rejecting) as url:
        yield url


def test_a_run_whose_requests_fail_exits_1_with_a_one_line_summary(tiny_tracebench, tmp_path, rejecting_server):
    env = {"OPENAI_BASE_URL": rejecting_server, "OPENAI_API_KEY": "sk-local"}
    p = pfc("run", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--backend", "openai", "--model", "m",
            "--limit", 3, "--out", tmp_path / "r", env=env)
    line = refused(p, "3 of 3 requests failed", "0 written", "first error:", "HTTP 400", status=1)
    assert "failures.jsonl" in line
    assert len((tmp_path / "r" / "failures.jsonl").read_text().splitlines()) == 3


@pytest.mark.notebook
def test_notebook_03_raises_when_the_run_failed(tiny_tracebench, tmp_path, rejecting_server, monkeypatch):
    import papermill as pm
    monkeypatch.setenv("OPENAI_BASE_URL", rejecting_server)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    with pytest.raises(pm.PapermillExecutionError) as e:
        pm.execute_notebook(str(paths.NOTEBOOKS / "03_run_model.ipynb"), str(tmp_path / "o.ipynb"),
                            kernel_name="python3", progress_bar=False,
                            parameters={"examples": str(tiny_tracebench), "backend": "openai", "model": "m", "limit": 2,
                                        "run_id": "failing"})
    assert e.value.ename == "RunFailed" and "2 of 2 requests failed" in e.value.evalue


class _Slow(Endpoint):
    """Answers each chat request after 0.2 s, as a model would."""

    def reply(self):
        time.sleep(0.2)
        return 200, completion('{"name": "A__f", "arguments": {}}')


@pytest.fixture
def slow_server():
    with serve(_Slow) as url:
        yield url


@pytest.mark.slow
def test_ctrl_c_saves_finished_rows_and_says_how_to_resume(tiny_tracebench, examples, tmp_path, slow_server):
    # trap: against a baseline the whole run took under a second on an idle machine, so the interrupt
    # landed after the last row (exit 0) however early the test sent it; a model that takes 0.2 s per
    # answer leaves the run certainly unfinished when the first row is saved
    env = {**os.environ, "OPENAI_BASE_URL": slow_server, "OPENAI_API_KEY": "sk-local"}
    out, n = tmp_path / "r", 20
    cmd = [sys.executable, "-m", "pfc", "run", "--benchmark", "tracebench", "--examples", str(tiny_tracebench),
           "--backend", "openai", "--model", "m", "--concurrency", "1", "--limit", str(n), "--no-cache",
           "--out", str(out)]
    # trap: a shell starts background jobs (`make test &`, nohup) with SIGINT ignored, and that is
    # inherited: the child never saw the Ctrl-C and finished with exit 0. With a Python handler in this
    # process, exec resets SIGINT to its default in the child, as in a terminal.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                                env=env)
        signal.signal(signal.SIGINT, before)
        deadline = time.time() + 120
        while time.time() < deadline and not finished_ids(out / "predictions.jsonl"):
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and "Traceback" not in err, err[-2000:]
        saved = len(finished_ids(out / "predictions.jsonl"))
        assert 0 < saved < n and f"{saved} of {n} saved" in err and "re-run the same command to resume" in err
        again = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
        assert again.returncode == 0, again.stderr[-2000:]
    finally:
        signal.signal(signal.SIGINT, before)
    ids = [json.loads(x)["id"] for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert sorted(ids) == sorted(e.id for e in examples[:n])  # nothing lost, nothing twice


@pytest.mark.parametrize("args, flag", [
    (["simulate", "--users", "0", "--out", "{tmp}/s"], "--users"),
    (["run", "--benchmark", "tracebench", "--examples", "{tmp}", "--backend", "oracle", "--out", "{tmp}/r",
      "--limit", "-5"], "--limit"),
    (["run", "--benchmark", "tracebench", "--examples", "{tmp}", "--backend", "oracle", "--out", "{tmp}/r",
      "--k", "-1"], "--k"),
])
def test_an_invalid_number_is_refused_naming_the_option(args, flag, tmp_path):
    p = pfc(*[a.format(tmp=tmp_path) for a in args])
    refused(p, flag, "expected an integer >= 1")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- files and directories
def test_an_existing_file_as_out_is_refused_and_left_alone(tiny_tracebench, oracle_preds, tmp_path):
    target = tmp_path / "metrics.txt"
    target.write_text("keep me")
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", oracle_preds, "--out", target)
    refused(p, target, "--out must be a directory")
    assert target.read_text() == "keep me"


def test_a_directory_as_predictions_is_refused(tiny_tracebench, tmp_path):
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", tmp_path, "--out", tmp_path / "o")
    refused(p, tmp_path, "is a directory, expected a file")


def test_a_missing_examples_path_is_refused_naming_the_option(oracle_preds, tmp_path):
    p = pfc("score", "--benchmark", "tracebench", "--examples", tmp_path / "nope", "--predictions", oracle_preds,
            "--out", tmp_path / "o")
    refused(p, tmp_path / "nope", "not found", "--examples")


# ---------------------------------------------------------------- scoring coverage and shape
@pytest.fixture
def earlier_score(tiny_tracebench, oracle_preds, tmp_path):
    out = tmp_path / "score"
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", oracle_preds, "--out", out)
    assert p.returncode == 0, p.stderr
    return out


def test_predictions_that_match_no_example_are_refused(tiny_tracebench, earlier_score, tmp_path):
    before = digest(earlier_score / "metrics.json")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "q-17", "output": "x"}) + "\n")
    # trap: this used to score 0.0 everywhere and exit 0, a silent zero
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", other, "--out", earlier_score)
    refused(p, other, "field 'id'", "no prediction matches", "'q-17'")
    assert digest(earlier_score / "metrics.json") == before


def test_examples_of_another_benchmark_say_which_benchmark_they_look_like(oracle_preds, tmp_path):
    p = pfc("score", "--benchmark", "tracebench", "--examples", PT / "data.json", "--predictions", oracle_preds,
            "--out", tmp_path / "o")
    refused(p, PT / "data.json", "looks like a ptbench file, not tracebench")


def test_predictions_given_as_examples_are_named_as_such(tiny_tracebench, oracle_preds, tmp_path):
    p = pfc("score", "--benchmark", "tracebench", "--examples", oracle_preds, "--predictions", oracle_preds,
            "--out", tmp_path / "o")
    refused(p, oracle_preds, "looks like a predictions file")


def test_strict_makes_a_missing_id_an_error_and_keeps_the_earlier_score(tiny_tracebench, earlier_score, oracle_preds, tmp_path):
    before = digest(earlier_score / "metrics.json")
    part = tmp_path / "part.jsonl"
    part.write_text("".join(oracle_preds.read_text().splitlines(keepends=True)[:-1]))  # the last example dropped
    assert pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", part,
               "--out", tmp_path / "lenient").returncode == 0  # without --strict: scored, missing counted
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", part, "--out", earlier_score,
            "--strict")
    refused(p, part, "--strict: 1 missing")
    assert digest(earlier_score / "metrics.json") == before


def test_score_json_counts_matched_missing_unknown_and_conflicting_duplicates(tiny_tracebench, examples, tmp_path):
    a, b = examples[0], examples[1]
    lines = [{"id": a.id, "output": render_json(a.gold)}, {"id": b.id, "output": "x"},
             {"id": b.id, "output": "y"},  # duplicate with another output
             {"id": "not-an-example", "output": "z"}]
    pred = tmp_path / "p.jsonl"
    pred.write_text("".join(json.dumps(x) + "\n" for x in lines))
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", pred, "--out", tmp_path / "o")
    assert p.returncode == 0, p.stderr
    cov = json.loads((tmp_path / "o" / "score.json").read_text())["coverage"]
    n = len(examples)
    assert (cov["examples"], cov["prediction_lines"], cov["matched"], cov["missing"], cov["unknown"],
            cov["duplicate"], cov["conflicting"]) == (n, 4, 2, n - 2, 1, 1, 1)
    assert f"matched 2 of {n} examples; {n - 2} missing, 1 unknown, 1 duplicate (1 with differing outputs)" in p.stderr


def test_score_json_records_inputs_mode_and_versions_without_absolute_paths(tiny_tracebench, oracle_preds, tmp_path):
    shutil.copytree(tiny_tracebench, tmp_path / "ex")
    shutil.copy(oracle_preds, tmp_path / "p.jsonl")
    p = pfc("score", "--benchmark", "tracebench", "--examples", "ex", "--predictions", "p.jsonl", "--out", "o",
            "--strict", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    prov = json.loads((tmp_path / "o" / "score.json").read_text())
    assert prov["inputs"]["predictions"] == {"path": "p.jsonl", "sha256": digest(tmp_path / "p.jsonl")}
    assert prov["inputs"]["examples"]["path"] == "ex"
    assert prov["options"] == {"compat": "robust", "strict": True, "style": "auto"}
    assert prov["mode"] == "strict"
    assert prov["pfc_version"] and prov["git_commit"] and str(tmp_path) not in json.dumps(prov)


def test_stdout_is_one_strict_json_object_with_null_for_undefined_metrics(tiny_tracebench, oracle_preds, tmp_path):
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", oracle_preds, "--out", tmp_path)

    def no_nan(c):
        raise AssertionError(f"not strict JSON: {c}")
    m = json.loads(p.stdout, parse_constant=no_nan)
    assert len(p.stdout.strip().splitlines()) == 1 and m["overall"] == 1.0
    assert m["value_acc_profile"] is None  # TRACEBench examples have no profile-sourced value: undefined, not NaN


def test_table_prints_one_metric_per_line(tiny_tracebench, oracle_preds, tmp_path):
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", oracle_preds,
            "--out", tmp_path, "--table")
    rows = dict(line.split() for line in p.stdout.strip().splitlines())
    assert rows["overall"] == "1.0000" and rows["value_acc_profile"] == "n/a"


def test_a_non_string_output_is_rejected_naming_file_line_and_field(tiny_tracebench, examples, tmp_path):
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"id": examples[0].id, "output": "x"}) + "\n"
                    + json.dumps({"id": examples[1].id, "output": 42}) + "\n")
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", pred, "--out", tmp_path / "o")
    refused(p, f"{pred}:2", "field 'output'", "got int 42")


# ---------------------------------------------------------------- encodings and file shapes
def test_non_utf8_predictions_name_the_file_and_line(tiny_tracebench, examples, tmp_path):
    pred = tmp_path / "p.jsonl"
    pred.write_bytes(json.dumps({"id": examples[0].id, "output": "x"}).encode() + b"\n"
                     + b'{"id": "a", "output": "caf\xe9"}\n')
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", pred, "--out", tmp_path / "o")
    refused(p, f"{pred}:2", "not UTF-8 text (byte 0xe9")


def test_a_binary_file_is_refused_as_binary(tiny_tracebench, tmp_path):
    pred = tmp_path / "p.jsonl"
    pred.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", pred, "--out", tmp_path / "o")
    refused(p, f"{pred}:", "binary")


def test_a_bom_and_crlf_predictions_file_scores_like_the_plain_one(tiny_tracebench, oracle_preds, tmp_path):
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(b"\xef\xbb\xbf" + oracle_preds.read_bytes().replace(b"\n", b"\r\n"))
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", crlf, "--out", tmp_path / "o")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["overall"] == 1.0


def test_a_json_array_instead_of_jsonl_says_so(tiny_tracebench, examples, tmp_path):
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps([{"id": e.id, "output": "x"} for e in examples[:3]], indent=1))
    p = pfc("score", "--benchmark", "tracebench", "--examples", tiny_tracebench, "--predictions", pred, "--out", tmp_path / "o")
    refused(p, f"{pred}:1", "a JSON array, expected JSONL")


def test_preprocess_skips_and_counts_undecodable_lines(tmp_path):
    from pfc.data.preprocess import preprocess
    from pfc.data.simulate import simulate
    raw = simulate(1, 3, tmp_path / "raw", records=100, progress=False)
    clean = preprocess(raw, tmp_path / "clean", progress=False)
    log = next(raw.glob("*.jsonl"))
    log.write_bytes(b"\xef\xbb\xbf" + log.read_bytes().replace(b"\n", b"\r\n") + b'{"session": "s\xff"}\r\n')
    dirty = preprocess(raw, tmp_path / "dirty", progress=False)
    assert dirty["dropped_lines:not_utf8"] == 1 and dirty["lines"] == clean["lines"] + 1
    assert dirty["calls_kept"] == clean["calls_kept"]  # the BOM and CRLF cost no record


def test_preprocess_of_a_file_instead_of_a_directory_is_refused(tmp_path):
    f = tmp_path / "events.jsonl"
    f.write_text("{}\n")
    p = pfc("preprocess", "--raw", f, "--out", tmp_path / "o")
    refused(p, f, "expected a directory of raw *.jsonl logs")


# ---------------------------------------------------------------- notebooks
@pytest.mark.notebook
def test_a_notebook_parameter_of_the_wrong_type_is_named_in_the_first_cell(tmp_path):
    import papermill as pm
    with pytest.raises(pm.PapermillExecutionError) as e:
        pm.execute_notebook(str(paths.NOTEBOOKS / "03_run_model.ipynb"), str(tmp_path / "o.ipynb"),
                            kernel_name="python3", progress_bar=False, parameters={"limit": "five"})
    assert e.value.ename == "ParameterError"
    assert "field 'limit': expected an integer >= 0, got 'five' (str)" in e.value.evalue
    cells = json.loads((tmp_path / "o.ipynb").read_text())["cells"]
    failed = [c for c in cells if any(o.get("output_type") == "error" for o in c.get("outputs", []))]
    assert len(failed) == 1 and "from pfc.nbparams import check" in "".join(failed[0]["source"])  # stopped there


def test_an_empty_examples_file_is_refused_not_scored(oracle_preds, tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "examples.jsonl").write_text("\n")
    p = pfc("score", "--benchmark", "tracebench", "--examples", tmp_path / "empty", "--predictions", oracle_preds,
            "--out", tmp_path / "o")
    refused(p, tmp_path / "empty", "no examples")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("row, field", [({"id": "e1", "output": "x", "cached": "yes"}, "cached"),
                                        ({"id": "e1", "output": "x", "generation": [1]}, "generation"),
                                        ({"id": True, "output": "x"}, "id"),
                                        ({"id": "e1", "output": 3}, "output")])
def test_a_run_row_of_the_wrong_shape_is_refused_naming_file_line_and_field(tmp_path, row, field):
    """Rows in pfc run's form are read back through their type (pfc.rows.PredictionRow), field by field."""
    from pfc.benchmarks.common import load_predictions
    from pfc.schema import SchemaError
    p = tmp_path / "predictions.jsonl"
    p.write_text('{"id": "e0", "output": "ok"}\n' + json.dumps(row) + "\n")
    with pytest.raises(SchemaError) as e:
        load_predictions(p, [])
    assert f"{p}:2" in str(e.value) and field in str(e.value) and "\n" not in str(e.value)
