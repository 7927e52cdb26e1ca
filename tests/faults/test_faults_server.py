"""Fault suite: a local OpenAI-compatible server misbehaving in each way (``stub_server``), run as a user would.

Every bad reply is a recorded, retried failure: exit 1 with the one-line summary, one row per
request in ``failures.jsonl``, no traceback, and the rows an earlier invocation wrote unchanged.
"""
import json
import sqlite3

import pytest
from faultkit import digest, last_line, pfc
from stub_server import serve

pytestmark = pytest.mark.slow  # each test drives `python -m pfc` subprocesses against a stub server: not in make test-fast


def run_args(bench, out, limit, *more):
    return ["run", "--benchmark", "tracebench", "--examples", bench, "--backend", "openai", "--model", "m",
            "--concurrency", "1", "--retries", "1", "--limit", limit, "--out", out, *more]


def env_for(stub, tmp_path):
    return {"OPENAI_BASE_URL": stub.url, "OPENAI_API_KEY": "sk-local", "PFC_OUTPUT_ROOT": str(tmp_path / "root")}


@pytest.mark.parametrize("mode, message", [
    ("choices_empty", 'malformed reply: "choices" is empty'),
    ("html", "malformed reply: not a chat completion (str: <html><body><h1>502 Bad Gateway"),
    ("cut_json", "malformed reply: JSONDecodeError: Unterminated string"),
    ("no_message", "malformed reply: the first choice has no message"),
    ("not_object", "malformed reply: not a chat completion (list: [1, 2, 3])"),
    ("http500", "InternalServerError: Error code: 500"),
])
def test_a_bad_reply_is_retried_recorded_and_exits_1_leaving_earlier_rows(bench, tmp_path, mode, message):
    out = tmp_path / "r"
    with serve("ok") as stub:
        env = env_for(stub, tmp_path)
        assert pfc(*run_args(bench, out, 1), env=env).returncode == 0
        before = digest(out / "predictions.jsonl")
        stub.mode, hits = mode, stub.hits
        p = pfc(*run_args(bench, out, 3), env=env)
        assert stub.hits - hits == 4  # two requests, each tried twice (--retries 1)
    line = last_line(p, 1)
    assert line.startswith("pfc run: 2 of 2 requests failed; 0 written (1 of 3 examples done); first error: ")
    assert f"gave up after 2 attempts: {message}" in line and "failures.jsonl" in line
    fails = [json.loads(x) for x in (out / "failures.jsonl").read_text().splitlines()]
    assert len(fails) == 2 and all(message in f["error"] for f in fails)
    assert digest(out / "predictions.jsonl") == before


def test_a_500_followed_by_a_good_reply_is_retried_to_success(bench, tmp_path):
    with serve("flaky") as stub:
        p = pfc(*run_args(bench, tmp_path / "r", 3), env=env_for(stub, tmp_path))
        assert stub.hits == 6  # each request: a 500, then ok
    assert p.returncode == 0, p.stderr[-2000:]
    assert len((tmp_path / "r" / "predictions.jsonl").read_text().splitlines()) == 3


def test_a_reply_utf8_cannot_carry_is_written_losslessly_and_read_back_from_the_cache(bench, tmp_path):
    with serve("lone_surrogate") as stub:
        env = env_for(stub, tmp_path)
        assert pfc(*run_args(bench, tmp_path / "a", 2), env=env).returncode == 0
        p = pfc(*run_args(bench, tmp_path / "b", 2), env=env)  # same requests: from the cache
        assert p.returncode == 0, p.stderr[-2000:]
        assert stub.hits == 2
    for run in ("a", "b"):
        rows = [json.loads(x) for x in (tmp_path / run / "predictions.jsonl").read_text().splitlines()]
        assert [r["output"] for r in rows] == ["A\ud800B", "A\ud800B"]
    assert '"A\\ud800B"' in (tmp_path / "b" / "predictions.jsonl").read_text()


def test_another_server_with_the_same_model_name_is_asked_not_answered_from_the_cache(bench, tmp_path):
    with serve("ok") as a, serve("ok") as b:
        assert pfc(*run_args(bench, tmp_path / "a", 2), env=env_for(a, tmp_path)).returncode == 0
        assert pfc(*run_args(bench, tmp_path / "b", 2), env=env_for(b, tmp_path)).returncode == 0
        assert (a.hits, b.hits) == (2, 2)
    ident = [json.loads((tmp_path / r / "run.json").read_text())["identity"]["model_identity"] for r in "ab"]
    assert ident == [f"m @ {a.url}", f"m @ {b.url}"]


def test_resuming_a_run_against_another_server_is_refused_naming_the_field(bench, tmp_path):
    out = tmp_path / "r"
    with serve("ok") as a:
        assert pfc(*run_args(bench, out, 1), env=env_for(a, tmp_path)).returncode == 0
    before = digest(out / "predictions.jsonl")
    with serve("ok") as b:
        p = pfc(*run_args(bench, out, 2), env=env_for(b, tmp_path))
        assert b.hits == 0
    line = last_line(p, 2)
    assert f"model_identity: \"m @ {a.url}\" -> \"m @ {b.url}\"" in line
    assert digest(out / "predictions.jsonl") == before


def test_credentials_in_the_base_url_are_not_recorded(bench, tmp_path):
    with serve("ok") as stub:
        env = {**env_for(stub, tmp_path), "OPENAI_BASE_URL": stub.url.replace("//", "//user:hunter2@") + "?k=s3"}
        assert pfc(*run_args(bench, tmp_path / "r", 1), env=env).returncode == 0
    for f in ("run.json", "config.json", "usage.json", "predictions.jsonl"):
        text = (tmp_path / "r" / f).read_text()
        assert "hunter2" not in text and "s3" not in text and "sk-local" not in text


def test_a_corrupt_response_cache_is_one_line_naming_it_and_is_left_alone(bench, tmp_path):
    cache = tmp_path / "root" / "data" / "cache" / "responses.sqlite"
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"this is not a database" * 100)
    before = digest(cache)
    with serve("ok") as stub:
        p = pfc(*run_args(bench, tmp_path / "r", 1), env=env_for(stub, tmp_path))
        assert stub.hits == 0
    line = last_line(p, 2)
    assert line == (f"pfc run: {cache}: the response cache cannot be used (file is not a database); "
                    "move it aside to start a new one, or run with --no-cache")
    assert digest(cache) == before


def test_an_unparsable_cache_row_is_asked_again_and_overwritten(bench, tmp_path):
    with serve("ok") as stub:
        env = env_for(stub, tmp_path)
        assert pfc(*run_args(bench, tmp_path / "a", 1), env=env).returncode == 0
        db = sqlite3.connect(tmp_path / "root" / "data" / "cache" / "responses.sqlite")
        with db:
            db.execute("UPDATE responses SET response = '{\"text\": '")
        db.close()
        assert pfc(*run_args(bench, tmp_path / "b", 1), env=env).returncode == 0
        assert stub.hits == 2
    assert (tmp_path / "a" / "predictions.jsonl").read_text() == (tmp_path / "b" / "predictions.jsonl").read_text()
