"""pfc.io.reuse: inside reading_once an unchanged examples file is read once; a changed one is read again."""
import json
import os

from pfc.io.reuse import reading_once
from pfc.schema import load_examples


def _write(path, queries):
    path.write_text("".join(json.dumps({"id": f"e{i}", "benchmark": "ptbench", "query": q, "gold": None}) + "\n"
                            for i, q in enumerate(queries)), encoding="utf-8")


def test_an_unchanged_file_is_read_once_inside_the_block(tmp_path):
    f = tmp_path / "examples.jsonl"
    _write(f, ["a", "b"])
    with reading_once():
        first, second = load_examples(f), load_examples(f)
    assert first is not second and first[0] is second[0]      # a new list of the same examples
    assert load_examples(f)[0] is not first[0]                 # outside the block: read anew


def test_a_changed_file_is_read_again_inside_the_block(tmp_path):
    f = tmp_path / "examples.jsonl"
    _write(f, ["a", "b"])
    with reading_once():
        assert [e.query for e in load_examples(f)] == ["a", "b"]
        _write(f, ["c", "d"])            # the same size: only the modification time tells
        os.utime(f, ns=(1, 1))
        assert [e.query for e in load_examples(f)] == ["c", "d"]
        _write(f, ["c", "d", "e"])       # another size
        os.utime(f, ns=(1, 1))
        assert [e.query for e in load_examples(f)] == ["c", "d", "e"]


def test_a_directory_is_unchanged_only_while_every_file_in_it_is(tmp_path):
    from pfc.io.reuse import once
    d = tmp_path / "build"
    d.mkdir()
    (d / "tools.json").write_text("[]")
    calls = []
    with reading_once():
        once("k", [d], lambda: calls.append(1))
        once("k", [d], lambda: calls.append(1))
        assert len(calls) == 1
        (d / "tools.json").write_text("[1]")  # a file inside changed: the directory's value is made again
        once("k", [d], lambda: calls.append(1))
        assert len(calls) == 2


def test_runs_inside_the_block_hash_an_unchanged_build_once(tiny_tracebench, tmp_path, monkeypatch):
    from pfc import benchmarks
    from pfc.run import identity
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute
    # the independent route: the build's hash computed directly, outside any block
    want = identity.content_hash(*benchmarks.get("tracebench").scoring.load(tiny_tracebench, None))
    calls = []
    real = identity.content_hash
    monkeypatch.setattr(identity, "content_hash", lambda *a: calls.append(1) or real(*a))
    with reading_once():
        for name in ("a", "b"):
            execute(RunConfig("tracebench", tiny_tracebench, "oracle", tmp_path / name, limit=2, use_cache=False, progress=False))
    assert len(calls) == 1
    for name in ("a", "b"):
        assert json.loads((tmp_path / name / "run.json").read_text())["identity"]["examples_sha256"] == want
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", tmp_path / "c", limit=2, use_cache=False, progress=False))
    assert len(calls) == 2                                      # outside the block: hashed anew
