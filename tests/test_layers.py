"""The library's import order (README, "The library follows the path raw data → report").

Stages, lowest first: ``eval`` (parsing, matching, metrics: what every later stage uses) →
``data`` → ``run`` → ``report``, the order the project's before-stop hook checks. A module in a
stage imports only its own stage and lower ones; the modules below the stages (``pfc/*.py``
other than the ``cli`` on top, and ``pfc/io``) import no stage at all. Every ``import``
statement counts, lazy ones inside functions included (the hook sees top-level lines only).
``benchmarks/`` and ``integrations/`` are adapters beside the path and are not checked here.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib" / "pfc"
STAGES = ("eval", "data", "run", "report")   # lowest first, the order the project's before-stop check uses
ON_TOP = {"cli.py", "__main__.py"}


def imported_pfc_packages(source: str) -> set[str]:
    """The ``pfc.<name>`` first components that ``source`` imports, at any depth of the file."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] if node.module != "pfc" else [f"pfc.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found |= {n.split(".")[1] for n in names if n.startswith("pfc.")}
    return found


def violations(module_stage: str | None, source: str) -> set[str]:
    """The stages ``source`` may not import: higher ones for a stage, every stage below the stages."""
    allowed = set(STAGES[:STAGES.index(module_stage) + 1]) if module_stage else set()
    return {p for p in imported_pfc_packages(source) if p in STAGES and p not in allowed}


def test_checker_sees_a_lazy_import_of_a_higher_stage():
    src = "def f():\n    from pfc.data.anchors import x\n    return x\n"
    assert violations("eval", src) == {"data"}


def test_checker_allows_own_and_lower_stages_and_the_foundation():
    src = "import pfc.eval.metrics\nfrom pfc.data import build\nfrom pfc.schema import Call\nfrom pfc import render\n"
    assert violations("run", src) == set()


def test_checker_sees_a_stage_imported_by_name_from_pfc():
    assert violations(None, "from pfc import eval as e\n") == {"eval"}


@pytest.mark.parametrize("stage", STAGES)
def test_no_module_imports_a_higher_stage(stage):
    bad = {str(f.relative_to(LIB)): sorted(v) for f in sorted((LIB / stage).rglob("*.py"))
           if (v := violations(stage, f.read_text(encoding="utf-8")))}
    assert bad == {}


def test_modules_below_the_stages_import_no_stage():
    files = [f for f in LIB.glob("*.py") if f.name not in ON_TOP] + sorted((LIB / "io").rglob("*.py"))
    bad = {f.name: sorted(v) for f in files if (v := violations(None, f.read_text(encoding="utf-8")))}
    assert bad == {}
