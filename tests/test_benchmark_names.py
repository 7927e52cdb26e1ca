"""A benchmark's facts live in its package: no benchmark-name literal outside ``lib/pfc/benchmarks/``.

A *benchmark-name literal* is a string constant (an f-string's literal parts included) that is a
registered name, or starts with one followed by ``-``, ``_`` or ``/`` (``"ptbench-trained"``,
``"tracebench_table4"``). Allowed: everything under ``lib/pfc/benchmarks/`` (each benchmark's package:
its adapter, prompts, baselines, builder, report section, …), docstrings, and prose that
mentions a benchmark among other words (help texts, messages). ``NOT_YET`` lists the files that still
hold such literals, with how many: the count may only go down (a stale entry fails too).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pfc import benchmarks

LIB = Path(__file__).resolve().parents[1] / "lib"
PFC = LIB / "pfc"
PATTERN = re.compile(rf"(?:{'|'.join(map(re.escape, benchmarks.NAMES))})(?:[-_/].*)?", re.S)

# files still naming benchmarks outside their adapter -> literals left (issue 36, item 2: the run plans and the
# pipeline's TRACEBench steps become adapter-driven).
NOT_YET = {
}


def _docstrings(tree) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def name_literals(source: str) -> list[tuple[int, str]]:
    """``(line, literal)`` of every benchmark-name literal in ``source`` (docstrings aside)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip
            and PATTERN.fullmatch(n.value)]


def found() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for f in sorted(PFC.rglob("*.py")):
        if (PFC / "benchmarks") in f.parents:
            continue
        hits = name_literals(f.read_text(encoding="utf-8"))
        if hits:
            out[f.relative_to(PFC).as_posix()] = sorted(hits)
    return out


def test_the_checker_sees_a_name_a_prefixed_name_and_an_fstring_part():
    src = 'x = "ptbench"\ny = f"tracebench-{h}"\nz = d / "toolspectrum"\n'
    assert [v for _, v in name_literals(src)] == ["ptbench", "tracebench-", "toolspectrum"]


def test_the_checker_skips_docstrings_and_prose():
    src = '"""Reads ptbench."""\ndef f():\n    """ptbench"""\n    return "score ptbench data"\n'
    assert name_literals(src) == []


def test_each_benchmark_package_holds_its_prompts_and_report_section():
    for a in benchmarks.adapters():
        assert a.has("prompts") and a.has("section"), a.name
        assert (PFC / "benchmarks" / a.name / "prompts.py").is_file(), a.name


def test_no_benchmark_name_literal_outside_the_adapters():
    got = {f: len(v) for f, v in found().items()}
    over = {f: found()[f] for f, n in got.items() if n > NOT_YET.get(f, 0)}
    assert over == {}, "benchmark names belong in the adapter (pfc.benchmarks): " + repr(over)


@pytest.mark.parametrize("f", sorted(NOT_YET))
def test_each_not_yet_entry_is_still_needed_and_exact(f):
    assert len(found().get(f, [])) == NOT_YET[f], f"update NOT_YET[{f!r}]: the count went down"
