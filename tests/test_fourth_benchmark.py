"""The proof that a benchmark is one package: a toy fourth benchmark registered from ``tests/toy/toybench/`` (its
adapter, prompts, report section, builder and real-model plan entries; ``PFC_BENCHMARKS=toybench=toybench``; no
edit anywhere in ``lib/``) goes through ``pfc build``, ``pfc run`` (built-in baselines), ``pfc score``,
``pfc compare --paired``, ``pfc sweep`` (its plan, and its data built by its own builder), ``pfc report`` (its
section), the real-model plan (a dry run), ``inspect eval`` and ``pfc export`` (refused: it says what it can
export)."""
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
PARAMS = {"type": "object", "properties": {"city": {"type": "string", "description": "a city"}}, "required": ["city"]}

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


def test_pfc_build_builds_the_toy_with_its_builder_seeded(tmp_path):
    for out, seed in (("a", 1), ("b", 1), ("c", 2)):
        pfc("build", "toybench", "--users", 4, "--seed", seed, "--out", tmp_path / out)
    rows = [json.loads(x) for x in (tmp_path / "a" / "examples.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["t0", "t1", "t2", "t3"] and rows[0]["gold"][0]["function"] == "route"
    assert (tmp_path / "a" / "examples.jsonl").read_bytes() == (tmp_path / "b" / "examples.jsonl").read_bytes()
    assert (tmp_path / "a" / "examples.jsonl").read_bytes() != (tmp_path / "c" / "examples.jsonl").read_bytes()


def test_a_sweep_builds_the_toy_with_its_own_builder(tmp_path):
    spec = tmp_path / "toy.yaml"
    spec.write_text("name: toy\nmodels:\n  - {name: oracle, backend: oracle}\nbenchmarks:\n"
                    "  - {name: toyb, benchmark: toybench, build: {n: 3, seed: 5}}\n")
    p = pfc("sweep", spec, "--dry-run", "--out", tmp_path / "sw")
    assert "# builds toybench 'toyb'" in p.stdout
    code = ("import sys; from pathlib import Path; from pfc.sweep.plan import plan; from pfc.sweep.command import _build; "
            "from pfc.sweep.spec import load_spec; "
            "out = Path(sys.argv[2]); _build(plan(load_spec(sys.argv[1]), sys.argv[1], out), out)")
    b = subprocess.run([sys.executable, "-c", code, str(spec), str(tmp_path / "sw")], capture_output=True, text=True,
                       env=ENV, cwd=ROOT, timeout=300)
    assert b.returncode == 0, b.stderr
    pfc("build", "toybench", "--users", 3, "--seed", 5, "--out", tmp_path / "direct")  # the same builder, by hand
    built = tmp_path / "sw" / "benchmarks" / "toyb"
    assert (built / "examples.jsonl").read_bytes() == (tmp_path / "direct" / "examples.jsonl").read_bytes()
    assert json.loads((built / "sweep_build.json").read_text()) == {"n": 3, "seed": 5}


def test_pfc_report_writes_the_toys_own_section(runs, tmp_path):
    pfc("report", runs["oracle"], runs["random"], "--out", tmp_path / "rep", "--n-boot", "20")
    table = (tmp_path / "rep" / "toybench_headline.csv").read_text()
    assert "oracle" in table and "random" in table


def test_the_real_model_plan_plans_the_toy_in_a_dry_run(toy, tmp_path):
    p = subprocess.run([sys.executable, "-m", "pfc.report.real_models", "--benchmarks", "toybench", "--data",
                        f"toybench={toy}", "--n-toybench", "3", "--dry-run", "--out", str(tmp_path / "real.md")], capture_output=True, text=True, env=ENV,
                       cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\t")[:3] == ["toybench-zero_shot", "toybench", "3 examples"]


def test_inspect_eval_scores_the_toy_through_the_generic_task(toy, tmp_path):
    """inspect's mockllm answers each prompt with its gold call, rendered as the toy's style: the task's pfc metric
    is 1.0 (a model that answers right scores right through inspect too)."""
    pytest.importorskip("inspect_ai", reason="the inspect extra (make venv-inspect; make test installs it)")
    code = """
import sys
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from pfc.integrations.inspect_tasks import benchmark
from pfc.render import render
from pfc.schema import Call

def answer(messages, tools, tool_choice, config):
    fn, city = messages[-1].text.split(" in ")
    out = ModelOutput.from_content("mockllm", render([Call("Maps", fn, {"city": city})], "json"))
    out.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)  # else mockllm fetches tiktoken
    return out

log = inspect_eval(benchmark(name="toybench", examples=sys.argv[1]), log_dir=sys.argv[2], display="none",
                   model=get_model("mockllm/model", custom_outputs=answer, memoize=False))[0]
metrics = {m.name: m.value for s in log.results.scores for m in s.metrics.values()}
print(log.status, len(log.samples), metrics["overall"], metrics["format"])
"""
    p = subprocess.run([sys.executable, "-c", code, str(toy), str(tmp_path / "logs")], capture_output=True,
                       text=True, env={**ENV, "PYTHONPATH": os.pathsep.join([ENV["PYTHONPATH"], *sys.path[1:]])},
                       cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.split() == ["success", "6", "1.0", "1.0"]

def test_make_reproduces_pipeline_runs_the_toys_steps_and_shows_its_table(tmp_path):
    code = """
from pfc.report.pipeline import planning as pp
from pfc.report.pipeline.index import write_index
from pfc.report.pipeline.running import reproduce
steps = pp.plan(real_model="none", n_boot=20)
toy = [s for s in steps if s.params.get("benchmark") == "toybench" or "toy benchmark" in s.name]
tables = next(s for s in steps if s.name == "evaluate")
assert all(r in tables.params["run_dirs"] for r in ("data/runs/toy-oracle", "data/runs/toy-random")), tables.params
runs = [pp.paths.RUNS / "toy-oracle", pp.paths.RUNS / "toy-random"]
records = reproduce(toy + [s for s in pp._tables(runs, 20) if s.name == "evaluate"], log=lambda *a, **k: None)
write_index(records, 0.0)
print([r["step"] for r in records])
"""
    env = {**ENV, "PFC_OUTPUT_ROOT": str(tmp_path)}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "build the toy benchmark" in p.stdout and "toy benchmark: the baselines' runs" in p.stdout
    csv = (tmp_path / "reports" / "evaluate" / "toybench_headline.csv").read_text()
    assert "oracle" in csv and "random" in csv
    assert "Toy benchmark: headline metrics" in (tmp_path / "reports" / "index.html").read_text()
