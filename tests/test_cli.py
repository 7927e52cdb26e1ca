"""The command line, run as a user would (a subprocess with the venv's interpreter)."""
import json
import subprocess
import sys

import pytest

from pfc import paths


def run(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "pfc", *args], input=stdin, capture_output=True,
                          text=True, cwd=paths.ROOT, timeout=120)


def test_parse_prints_one_json_object_and_exit_0():
    p = run("parse", "--style", "ptbench", stdin="Shop:[buy(n=2*3, from='x')]")
    assert p.returncode == 0
    assert json.loads(p.stdout) == {"ok": True, "refusal": False, "error": None, "calls": [
        {"app": "Shop", "function": "buy", "arguments": {"n": 6, "from": "x"}}]}


def test_parse_failure_exits_1_with_typed_error():
    p = run("parse", stdin="no call here")
    assert p.returncode == 1 and json.loads(p.stdout)["error"] == "format:no_call_found"


def test_parse_message_with_tool_calls():
    msg = {"content": None, "tool_calls": [{"function": {"name": "A__f", "arguments": "{}"}}]}
    p = run("parse", "--message", stdin=json.dumps(msg))
    assert p.returncode == 0 and json.loads(p.stdout)["calls"][0]["app"] == "A"


def test_score_writes_three_files_with_official_headers(tmp_path):
    d = paths.GOLDEN / "ptbench_official" / "test_trained_user"
    p = run("score", "--benchmark", "ptbench", "--examples", str(d / "data.json"),
            "--predictions", str(d / "generation.jsonl"), "--out", str(tmp_path), "--compat", "official")
    assert p.returncode == 0, p.stderr
    m = json.loads((tmp_path / "metrics.json").read_text())
    assert list(m)[:14] == ["format", "platforms", "tool_names", "tool_param_names", "tool_param_values",
                            "query_params", "profile_params", "overall", "func_wrong_error",
                            "func_missing_error", "func_excessive_error", "param_missing_error",
                            "param_excessive_error", "value_error"]
    assert (tmp_path / "per_example.csv").exists() and (tmp_path / "errors.csv").exists()


def test_score_bad_file_names_file_record_and_field(tmp_path):
    bad = tmp_path / "data.json"
    bad.write_text(json.dumps([{"query": "q", "answer": ["A", []], "query_params": []}]))
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"predict": "A:[]"}) + "\n")
    p = run("score", "--benchmark", "ptbench", "--examples", str(bad), "--predictions", str(pred),
            "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert str(bad) in p.stderr and "record 0" in p.stderr and "profile_params" in p.stderr


def test_score_bad_prediction_line_names_line(tmp_path):
    d = paths.GOLDEN / "ptbench_official" / "test_trained_user"
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"predict": "A:[]"}) + "\n" + "{oops\n")
    p = run("score", "--benchmark", "ptbench", "--examples", str(d / "data.json"),
            "--predictions", str(pred), "--out", str(tmp_path / "o"))
    assert p.returncode == 2 and f"{pred}:2" in p.stderr


def test_version_prints_the_package_version():
    from pfc import __version__
    p = run("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"pfc {__version__}"


@pytest.mark.slow  # one subprocess per command
def test_every_command_help_ends_with_an_example():
    import re
    top = run("--help")
    commands = re.search(r"\{([a-z,-]+)\}", top.stdout)[1].split(",")
    assert {"parse", "score", "run", "export", "report"} <= set(commands)
    for cmd in commands:
        p = run(cmd, "--help")
        assert p.returncode == 0, (cmd, p.stderr)
        tail = p.stdout.strip().splitlines()[-2:]
        assert tail[0] == "example:" and tail[1].strip().startswith(f"pfc {cmd}") or \
            (cmd == "parse" and tail[1].strip().endswith("pfc parse --style ptbench")), (cmd, tail)
