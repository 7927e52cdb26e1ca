"""Fault suite: atomic, lossless outputs (pfc.io.atomic) under a full disk, a file-size limit and kill -9."""
import errno
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from pfc import paths
from pfc.errors import UserError
from pfc.io import atomic

ENV = {**os.environ, "PYTHONPATH": str(paths.ROOT / "lib")}


def _enospc_after(monkeypatch, n_ok: int):
    """os.write succeeds ``n_ok`` times, then fails as on a full disk."""
    real, calls = os.write, {"n": 0}

    def write(fd, data):
        calls["n"] += 1
        if calls["n"] > n_ok:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)
    monkeypatch.setattr(os, "write", write)


def test_a_full_disk_leaves_the_old_file_unchanged_and_names_the_file(tmp_path, monkeypatch):
    target = tmp_path / "metrics.json"
    target.write_text("old\n")
    _enospc_after(monkeypatch, 0)
    with pytest.raises(UserError) as e:
        atomic.write_json(target, {"new": 1})
    assert str(e.value) == f"{target}: cannot write: no space left on device; the previous file, if any, is unchanged"
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json"]  # no temporary file left


def test_a_full_disk_while_staging_a_set_leaves_every_old_file_of_the_set(tmp_path, monkeypatch):
    old = {"metrics.json": "m0", "errors.csv": "e0", "score.json": "s0"}
    atomic.write_set(tmp_path, old, stamp="score.json")
    _enospc_after(monkeypatch, 1)  # the first new file stages, the second hits the full disk
    with pytest.raises(UserError, match="errors.csv: cannot write: no space left"):
        atomic.write_set(tmp_path, {"metrics.json": "m1", "errors.csv": "e1", "score.json": "s1"}, stamp="score.json")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == old


def test_a_set_is_written_whole_with_its_stamp(tmp_path):
    atomic.write_set(tmp_path, {"a": "1", "stamp": "2"}, stamp="stamp")
    atomic.write_set(tmp_path, {"a": "3", "stamp": "4"}, stamp="stamp")
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"a": "3", "stamp": "4"}


def test_a_real_file_size_limit_fails_the_write_naming_the_file_and_keeps_the_old_one(tmp_path):
    """No privileges needed: RLIMIT_FSIZE makes the kernel refuse writes past 64 KiB (EFBIG), like a full disk."""
    target = tmp_path / "big.json"
    target.write_text("old\n")

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, 1 << 16))
    code = "import sys; from pfc.io import atomic; atomic.write_text(sys.argv[1], 'x' * 200000)"
    p = subprocess.run([sys.executable, "-c", code, str(target)], env=ENV, preexec_fn=limit,
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert f"UserError: {target}: cannot write: file too large" in p.stderr
    assert target.read_text() == "old\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["big.json"]


def test_kill_9_mid_write_leaves_the_old_or_the_new_file_never_a_cut_one(tmp_path):
    target = tmp_path / "out.bin"
    old, new = b"o" * 3_000_000, b"n" * 3_000_000
    target.write_bytes(old)
    code = ("import sys; from pfc.io import atomic\n"
            "print('go', flush=True)\n"
            "while True: atomic.write_bytes(sys.argv[1], b'n' * 3000000)")
    p = subprocess.Popen([sys.executable, "-c", code, str(target)], env=ENV, stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "go"
    time.sleep(0.3)
    p.send_signal(signal.SIGKILL)
    p.wait(10)
    assert target.read_bytes() in (old, new)


def test_text_utf8_cannot_carry_is_written_as_a_json_escape_and_reads_back_the_same(tmp_path):
    obj = {"output": "a\ud800b", "ok": "é"}
    atomic.write_json(tmp_path / "x.json", obj, indent=None)
    raw = (tmp_path / "x.json").read_bytes()
    assert raw == b'{"output": "a\\ud800b", "ok": "\\u00e9"}\n'
    import json
    assert json.loads(raw) == obj


def test_valid_text_is_written_as_utf8_not_escaped(tmp_path):
    atomic.write_json(tmp_path / "x.json", {"ok": "é"}, indent=None)
    assert (tmp_path / "x.json").read_bytes() == '{"ok": "é"}\n'.encode()
