"""One error path: every ``main()`` of ``lib/pfc`` ends through ``pfc.errors.entry``; bugs keep their traceback
under ``PFC_DEBUG=1``; no literal exit code is returned outside it."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pfc.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_USER_ERROR, UserError, entry

LIB = Path(__file__).resolve().parents[1] / "lib" / "pfc"
# models/openvino_export.py runs in the exporter's own venv, where pfc is not importable
OUTSIDE = {"models/openvino_export.py"}


def _files():
    return [f for f in sorted(LIB.rglob("*.py")) if f.relative_to(LIB).as_posix() not in OUTSIDE]


def test_a_user_error_is_one_line_and_exit_2(capsys):
    def main():
        raise UserError("bad value", file="x.json", field="k")
    assert entry("pfc thing", main) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pfc thing: ") and "x.json" in err


def test_ctrl_c_is_one_line_and_exit_130(capsys):
    def main():
        raise KeyboardInterrupt
    assert entry("pfc thing", main, interrupted="stopped; kept") == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "pfc thing: stopped; kept\n"


def test_a_bug_says_so_and_exits_1(capsys):
    assert entry("pfc thing", lambda: 1 / 0) == EXIT_BUG
    assert "this is a bug in pfc (ZeroDivisionError)" in capsys.readouterr().err


@pytest.mark.parametrize("exc", [ZeroDivisionError, UserError, KeyboardInterrupt])
def test_pfc_debug_keeps_the_traceback(monkeypatch, exc):
    monkeypatch.setenv("PFC_DEBUG", "1")

    def main():
        raise exc("x")
    with pytest.raises(exc):
        entry("pfc thing", main)


def test_every_module_run_as_a_script_goes_through_entry():
    bad = []
    for f in _files():
        tree = ast.parse(f.read_text(encoding="utf-8"))
        mains = " ".join(ast.unparse(n) for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
        for node in tree.body:
            if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
                # the block calls entry(), or main() dispatches through it (pfc.cli)
                # (pfc/__main__.py: main() catches Ctrl-C while pfc.cli loads, then hands over to pfc.cli.main)
                if not re.search(r"\bentry\(", ast.unparse(node) + mains) and not re.search(r"_dispatch\(|cli_main\(", mains):
                    bad.append(f.relative_to(LIB).as_posix())
    assert bad == []


def test_no_literal_exit_code_is_returned():
    bad = [f"{f.relative_to(LIB).as_posix()}:{n.lineno}" for f in _files()
           for n in ast.walk(ast.parse(f.read_text(encoding="utf-8")))
           if isinstance(n, ast.Return) and isinstance(n.value, ast.Constant) and n.value.value in (2, 130)]
    assert bad == []
