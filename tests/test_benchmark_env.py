"""PFC_BENCHMARKS is read at first use, never at import: a malformed value breaks no import and no command that does
not use it (one line, exit 2, from one that does: tests/faults/test_faults_benchmark_env.py); a built-in benchmark
needs no PFC_BENCHMARKS at all."""
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


def test_a_malformed_value_breaks_no_parser_and_is_one_line_from_what_lists_every_benchmark():
    p = _python("-m", "pfc", "score", "--help")
    assert p.returncode == 0, p.stderr
    p = _python("-c", "import pfc.benchmarks as b\nfrom pfc.errors import entry\nraise SystemExit(entry('x', b.adapters))")
    assert p.returncode == 2
    assert p.stderr.strip() == "x: PFC_BENCHMARKS entry 'not-a-pair': expected name=module"
