"""Fault suite, folders replaced whole (``pfc.io.dirset``): the swap, a dead builder's leftovers, other hosts'."""
import socket
import subprocess
import sys

import pytest

from pfc.io import dirset


def build(target, files):
    with dirset.replace_dir(target, "manifest.json", "set") as tmp:
        for name, text in files.items():
            (tmp / name).write_text(text)


def test_a_second_set_replaces_the_first_whole(tmp_path):
    build(tmp_path / "s", {"a": "1", "manifest.json": "{}"})
    build(tmp_path / "s", {"b": "2", "manifest.json": "{}"})
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["b", "manifest.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["s"]


def test_the_swap_without_an_atomic_exchange_still_leaves_one_whole_set(tmp_path, monkeypatch):
    monkeypatch.setattr(dirset, "_exchange", lambda a, b: False)
    build(tmp_path / "s", {"a": "1", "manifest.json": "{}"})
    build(tmp_path / "s", {"b": "2", "manifest.json": "{}"})
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["b", "manifest.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["s"]


def test_a_build_that_fails_leaves_the_old_set_and_no_build_folder(tmp_path):
    build(tmp_path / "s", {"a": "1", "manifest.json": "{}"})
    with pytest.raises(ZeroDivisionError):
        with dirset.replace_dir(tmp_path / "s", "manifest.json", "set") as tmp:
            (tmp / "a").write_text("half")
            1 / 0
    assert (tmp_path / "s" / "a").read_text() == "1" and [p.name for p in tmp_path.iterdir()] == ["s"]


def test_a_build_folder_left_by_a_dead_process_is_removed_on_the_next_build(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    left = tmp_path / f".s.building-{dead}-abcdef-{socket.gethostname()}"
    left.mkdir()
    build(tmp_path / "s", {"manifest.json": "{}"})
    assert not left.exists()


def test_a_build_folder_of_another_host_is_kept(tmp_path):
    other = tmp_path / ".s.building-1-abcdef-some-other-node"
    other.mkdir()
    build(tmp_path / "s", {"manifest.json": "{}"})
    assert other.exists()


def test_a_folder_with_other_files_is_never_replaced(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "thesis.tex").write_text("years of work")
    with pytest.raises(Exception, match="holds other files and no manifest.json"):
        build(tmp_path / "s", {"manifest.json": "{}"})
    assert (tmp_path / "s" / "thesis.tex").read_text() == "years of work"
