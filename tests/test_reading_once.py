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
        _write(f, ["c", "d", "e"])
        os.utime(f, ns=(1, 1))  # even a rewrite within the clock's resolution changes size or time
        assert [e.query for e in load_examples(f)] == ["c", "d", "e"]
