"""A bug in pfc is not a user error: a planted exception exits 1 with "this is a bug in pfc", not 2.

The command line's one user-error path (``pfc.cli._dispatch``) catches ``UserError`` (and an
``OSError`` on a user's path) only; these tests plant a ``ValueError`` and an ``ImportError``
where the scorer runs and check how ``python -m pfc score`` reports them.
"""
import pytest

from pfc import cli
from pfc.errors import EXIT_BUG, EXIT_USER_ERROR, UserError


@pytest.fixture
def score_args(tmp_path):
    (tmp_path / "examples.jsonl").write_text("")
    (tmp_path / "predictions.jsonl").write_text("")
    return ["score", "--benchmark", "tracebench", "--examples", str(tmp_path / "examples.jsonl"),
            "--predictions", str(tmp_path / "predictions.jsonl"), "--out", str(tmp_path / "out")]


def _plant(monkeypatch, exc):
    def broken(*_a, **_k):
        raise exc
    monkeypatch.setattr("pfc.eval.scoring.score_files", broken)


def test_user_error_is_not_a_value_error():
    assert not issubclass(UserError, ValueError)


def test_a_planted_value_error_exits_1_as_a_bug(monkeypatch, capsys, score_args):
    monkeypatch.delenv("PFC_DEBUG", raising=False)
    _plant(monkeypatch, ValueError("planted"))
    assert cli.main(score_args) == EXIT_BUG == 1


def test_a_planted_value_error_says_it_is_a_bug_with_a_short_traceback(monkeypatch, capsys, score_args):
    monkeypatch.delenv("PFC_DEBUG", raising=False)
    _plant(monkeypatch, ValueError("planted"))
    cli.main(score_args)
    err = capsys.readouterr().err
    assert "this is a bug in pfc (ValueError)" in err
    assert "in broken" in err and "ValueError: planted" in err  # the frame that raised, and the exception


def test_a_planted_import_error_is_a_bug_not_a_missing_stack(monkeypatch, capsys, score_args):
    monkeypatch.delenv("PFC_DEBUG", raising=False)
    _plant(monkeypatch, ImportError("planted"))
    assert cli.main(score_args) == EXIT_BUG
    assert "this is a bug in pfc (ImportError)" in capsys.readouterr().err


def test_pfc_debug_re_raises_a_planted_bug(monkeypatch, score_args):
    monkeypatch.setenv("PFC_DEBUG", "1")
    _plant(monkeypatch, ValueError("planted"))
    with pytest.raises(ValueError, match="planted"):
        cli.main(score_args)


def test_a_user_error_is_still_one_line_and_exit_2(monkeypatch, capsys, score_args):
    monkeypatch.delenv("PFC_DEBUG", raising=False)
    _plant(monkeypatch, UserError("bad field", file="p.jsonl", line=3, field="output"))
    assert cli.main(score_args) == EXIT_USER_ERROR
    assert capsys.readouterr().err == "pfc score: p.jsonl:3: field 'output': bad field\n"


def _raises(exc):
    def main(argv):
        raise exc
    return main


def test_script_main_passes_the_exit_code_through():
    from pfc.errors import script_main
    assert script_main("bench_x", lambda argv: 3) == 3
    assert script_main("bench_x", lambda argv: None) == 0


def test_script_main_turns_a_user_error_into_one_line_and_exit_2(capsys):
    from pfc.errors import script_main
    assert script_main("bench_x", _raises(UserError("bad", file="p.md", field="out"))) == EXIT_USER_ERROR
    assert capsys.readouterr().err == "bench_x: p.md: field 'out': bad\n"


def test_script_main_turns_an_os_error_into_one_line_and_exit_2(capsys):
    from pfc.errors import script_main
    assert script_main("bench_x", _raises(FileNotFoundError(2, "No such file", "d/x.md"))) == EXIT_USER_ERROR
    assert capsys.readouterr().err == "bench_x: d/x.md: not found\n"


def test_script_main_says_ctrl_c_in_one_line_and_exits_130(capsys):
    from pfc.errors import EXIT_INTERRUPTED, script_main
    assert script_main("bench_x", _raises(KeyboardInterrupt())) == EXIT_INTERRUPTED
    assert capsys.readouterr().err.startswith("bench_x: interrupted;")


def test_script_main_lets_a_bug_keep_its_traceback():
    from pfc.errors import script_main
    with pytest.raises(ZeroDivisionError):
        script_main("bench_x", _raises(ZeroDivisionError()))
