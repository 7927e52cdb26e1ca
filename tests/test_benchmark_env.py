"""PFC_BENCHMARKS is read at first use, never at import: a malformed value breaks no import and is one line
(exit 2) from the command that reads it; a built-in benchmark needs no PFC_BENCHMARKS at all."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PFC_BENCHMARKS": "not-a-pair", "PYTHONPATH": str(ROOT / "lib")}
ENV.pop("PFC_DEBUG", None)


def _python(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=300)


def test_a_malformed_value_breaks_no_import_and_no_built_in_benchmark():
    p = _python("-c", "import pfc.benchmarks as b, pfc.schema, pfc.run.config, pfc.run.runner, pfc.plans.reference\n"
                      "import pfc.cli, pfc.report.runs, pfc.sweep.plan, pfc.sweep.spec\n"
                      "print(b.get('ptbench').name)")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ptbench"


def test_a_malformed_value_is_one_line_from_the_command_that_reads_it():
    p = _python("-m", "pfc", "score", "--help")
    assert p.returncode == 2
    assert p.stderr.strip() == "pfc: PFC_BENCHMARKS: expected name=module, got 'not-a-pair'"
