"""Fault suite: ``pfc build ptbench`` options that leave no training split (``--held-out`` >= the users, or a
synthesis whose training split comes out empty, hence an empty TF-IDF vocabulary) are one line, exit 2, and
nothing is written."""
import pytest

from pfc.benchmarks.ptbench import build
from pfc.cli import main


@pytest.mark.parametrize("ks, held_out", [("1,1,2", 2), ("1,1,2", 5), ("1,1,1", 1)])
def test_holding_out_every_user_is_one_line_before_anything_is_built(tmp_path, capsys, ks, held_out):
    code = main(["build", "ptbench", "--ks", ks, "--held-out", str(held_out), "--out", str(tmp_path / "pt")])
    users = {"1,1,2": 2, "1,1,1": 1}[ks]
    assert code == 2
    assert capsys.readouterr().err.strip() == (f"pfc build: --held-out {held_out} keeps every one of the {users} "
                                               f"users (--ks {ks}) out of training; expected fewer than {users}")
    assert not (tmp_path / "pt").exists()


def test_a_synthesis_leaving_no_training_query_is_one_line_and_writes_nothing(tmp_path, capsys, monkeypatch):
    real = build.synthesize

    def no_train(**options):  # a real synthesis whose training queries all went to the test splits
        result = real(**options)
        splits = result["splits"]
        splits["test_trained_user"] += splits["train"]
        splits["train"] = []
        return result
    monkeypatch.setattr(build, "synthesize", no_train)
    code = main(["build", "ptbench", "--ks", "1,1,2", "--held-out", "1", "--per-user", "1", "--out",
                 str(tmp_path / "pt")])
    assert code == 2
    assert capsys.readouterr().err.strip() == ("pfc build: --ks 1,1,2, --per-user 1 and --held-out 1 leave no "
                                               "training query; give more users or queries per user, or hold "
                                               "fewer out")
    assert not (tmp_path / "pt").exists()
