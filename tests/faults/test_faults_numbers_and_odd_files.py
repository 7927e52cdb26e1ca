"""Fault suite: a JSON(L) integer longer than Python reads (4,300 digits) is one line naming file, line and field;
a path that is not a regular file (``/dev/zero``, a FIFO), given on the command line or named by a config, is
refused in one line before anything is read, never read until memory runs out or forever."""
import json
import os
import threading

import pytest
from faultkit import last_line, pfc

from pfc.errors import UserError, existing, read_json
from pfc.jsonl import iter_jsonl
from pfc.schema import load_examples, load_tools

LONG = "7" * 5000


def within(seconds, fn):
    """``fn()``'s exception (or None), from a daemon thread given ``seconds``: a read that hangs fails the test."""
    got = []

    def call():
        try:
            fn()
            got.append(None)
        except BaseException as e:  # noqa: B036 -- handed to the test
            got.append(e)
    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(seconds)
    assert got, f"still reading after {seconds} s"
    return got[0]


def test_an_integer_too_long_to_read_names_file_line_and_field(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text('{"id": "a", "output": "x"}\n{"id": "b", "score": {"n": 1, "big": %s}}\n' % LONG)
    with pytest.raises(UserError) as e:
        list(iter_jsonl(f))
    assert str(e.value).startswith(f"{f}:2: field 'big': an integer of 5000 digits")
    t = tmp_path / "tools.json"
    t.write_text('[\n{"app": "A",\n "n": -%s}]' % LONG)
    with pytest.raises(UserError, match=rf"^{t}:3: field 'n': an integer of 5000 digits"):
        load_tools(t)


def test_an_integer_at_the_limit_still_reads(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text('{"n": %s}\n' % ("1" * 4300))
    assert list(iter_jsonl(f)) == [(1, {"n": int("1" * 4300)})]


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "fifo.jsonl"
    os.mkfifo(p)
    return p


@pytest.mark.parametrize("read", [lambda p: list(iter_jsonl(p)), load_examples, read_json,
                                  lambda p: existing(p, "--examples")])
@pytest.mark.parametrize("odd", ["fifo", "/dev/zero"])
def test_what_is_not_a_regular_file_is_refused_before_it_is_read(request, odd, read):
    path = request.getfixturevalue("fifo") if odd == "fifo" else odd
    e = within(20, lambda: read(path))
    assert isinstance(e, UserError) and str(e) == f"{path}: not a regular file (a FIFO, a device or a socket)", e


@pytest.mark.slow
def test_the_commands_refuse_dev_zero_and_a_long_integer_in_one_line(bench, tmp_path):
    line = last_line(pfc("score", "--benchmark", "tracebench", "--examples", "/dev/zero", "--predictions",
                         "/dev/zero", "--out", tmp_path / "s", timeout=60), 2)
    assert line == "pfc score: /dev/zero: not a regular file (a FIFO, a device or a socket)"
    line = last_line(pfc("run", "--benchmark", "tracebench", "--examples", "/dev/zero", "--backend", "oracle",
                         "--out", tmp_path / "r", timeout=60), 2)
    assert line == "pfc run: /dev/zero: not a regular file (a FIFO, a device or a socket)"
    ex = (bench / "examples.jsonl").read_text().splitlines()
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"id": json.loads(ex[0])["id"], "output": "null"}) + "\n"
                     + '{"id": "%s", "output": %s}\n' % (json.loads(ex[1])["id"], LONG))
    line = last_line(pfc("score", "--benchmark", "tracebench", "--examples", bench, "--predictions", preds,
                         "--out", tmp_path / "s"), 2)
    assert line.startswith(f"pfc score: {preds}:2: field 'output': an integer of 5000 digits")
    data = tmp_path / "data"
    data.mkdir()
    (data / "tools.json").write_bytes((bench / "tools.json").read_bytes())
    (data / "examples.jsonl").write_text(ex[0] + "\n" + ex[1][:-1] + ', "extra": %s}\n' % LONG)
    line = last_line(pfc("run", "--benchmark", "tracebench", "--examples", data, "--backend", "oracle",
                         "--out", tmp_path / "r"), 2)
    assert line.startswith(f"pfc run: {data / 'examples.jsonl'}:2: field 'extra': an integer of 5000 digits")
