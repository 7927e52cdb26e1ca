"""The proof that a benchmark is its adapter: a toy fourth benchmark registered from ``tests/toy/`` (an adapter
and a prompt module, ``PFC_BENCHMARKS=toybench=toybench``; no edit anywhere in ``lib/``) goes through
``pfc run`` (built-in baselines), ``pfc score``, ``pfc compare --paired``, ``pfc sweep --dry-run``,
``pfc report`` and ``pfc export`` (refused: it says what it can export)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PFC_BENCHMARKS": "toybench=toybench", "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg",
       "PYTHONPATH": os.pathsep.join([str(ROOT / "lib"), str(ROOT / "tests" / "toy")])}
ENV.pop("PFC_DEBUG", None)
PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

pytestmark = pytest.mark.slow  # a dozen subprocesses of the command line


def pfc(*args, ok=True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "pfc", *map(str, args)], capture_output=True, text=True, env=ENV,
                       cwd=ROOT, timeout=600)
    if ok:
        assert p.returncode == 0, p.stderr
    return p


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("toybench")
    tools = [{"app": "Maps", "function": "route", "description": "Plan a route", "parameters": PARAMS},
             {"app": "Maps", "function": "search", "description": "Find a place", "parameters": PARAMS}]
    (d / "tools.json").write_text(json.dumps(tools))
    rows = [{"id": f"t{i}", "benchmark": "toybench", "user_id": f"u{i % 2}", "query": f"{fn} in {city}",
             "gold": [{"app": "Maps", "function": fn, "arguments": {"city": city}}], "meta": {"level": i % 2}}
            for i, (fn, city) in enumerate([("route", "Lyon"), ("search", "Oslo"), ("route", "Rome"),
                                            ("search", "Kyiv"), ("route", "Pune"), ("search", "Lima")])]
    (d / "examples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return d


@pytest.fixture(scope="module")
def runs(toy, tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("toyruns")
    for b in ("oracle", "random"):
        pfc("run", "--benchmark", "toybench", "--examples", toy, "--backend", b, "--out", out / b, "--no-cache")
    return {b: out / b for b in ("oracle", "random")}


def test_pfc_run_lists_the_registered_benchmark():
    assert "toybench" in pfc("run", "--help").stdout


def test_the_oracle_run_scores_one_under_pfc_score(toy, runs, tmp_path):
    pfc("score", "--benchmark", "toybench", "--examples", toy, "--predictions", runs["oracle"] / "predictions.jsonl",
        "--out", tmp_path / "s")
    metrics = json.loads((tmp_path / "s" / "metrics.json").read_text())
    assert metrics["overall"] == 1.0 and metrics["format"] == 1.0


def test_compare_paired_reads_two_toy_runs(runs):
    p = pfc("compare", "--paired", runs["oracle"], runs["random"], "--n-boot", "50")
    assert "overall" in p.stdout


def test_a_sweep_dry_run_plans_the_toy_benchmark(toy, tmp_path):
    spec = tmp_path / "toy.yaml"
    spec.write_text(f"name: toy\nmodels:\n  - {{name: oracle, backend: oracle}}\nbenchmarks:\n"
                    f"  - {{name: toy, benchmark: toybench, examples: {toy}}}\n")
    p = pfc("sweep", spec, "--dry-run", "--out", tmp_path / "sw")
    assert "toy" in p.stdout + p.stderr


def test_pfc_report_writes_a_report_for_toy_runs(runs, tmp_path):
    pfc("report", runs["oracle"], runs["random"], "--out", tmp_path / "rep", "--n-boot", "20")
    assert "toybench" in (tmp_path / "rep" / "report.md").read_text()


def test_pfc_export_refuses_the_toy_benchmark_naming_what_it_exports(toy, tmp_path):
    p = pfc("export", "--benchmark", "toybench", "--examples", toy, "--out", tmp_path / "e", ok=False)
    assert p.returncode == 2 and "expected one of" in p.stderr and "Traceback" not in p.stderr
