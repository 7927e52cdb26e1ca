"""Fault suite, sweeps: hostile names, bad specs, infeasible resources, dead clusters, a large or broken index.

Every bad spec is refused at the plan, before Ray starts, with one line naming the spec and the field,
and nothing in the sweep folder changes. Ray is never started here except where a test says so.
"""
import json
import sys
import time
import types

import pytest
import yaml
from faultkit import last_line, pfc, tree

from pfc.sweep import index as sweep_index, plan as sweep_plan

pytestmark = pytest.mark.slow  # subprocess sweeps on bad specs: not in make test-fast


def spec(tmp_path, bench, models=None, benchmarks=None, settings=None):
    doc = {"name": "t", "models": models or [{"name": "oracle", "backend": "oracle"}],
           "benchmarks": benchmarks or [{"name": "tb", "benchmark": "tracebench", "examples": str(bench)}]}
    if settings:
        doc["settings"] = settings
    p = tmp_path / "spec.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


@pytest.fixture
def earlier(tmp_path):
    """A sweep folder holding an earlier run's files (what a destructive name would remove)."""
    out = tmp_path / "sweep"
    (out / "runs" / "old").mkdir(parents=True)
    (out / "runs" / "old" / "predictions.jsonl").write_text('{"id": "a", "output": "x"}\n')
    return out


@pytest.mark.parametrize("name", ["..", ".", ".hidden", "..."])
def test_a_benchmark_name_that_is_not_a_plain_folder_name_is_refused_and_removes_nothing(bench, tmp_path, earlier,
                                                                                          name):
    p = spec(tmp_path, bench, benchmarks=[{"name": name, "benchmark": "tracebench", "build": {"users": 2}}])
    before = tree(earlier)
    line = last_line(pfc("sweep", p, "--out", earlier), 2)
    assert "field 'benchmarks[0].name'" in line and "cannot name a folder" in line and str(p) in line
    assert tree(earlier) == before


def test_a_spec_file_name_that_is_not_a_plain_folder_name_needs_an_out(bench, tmp_path):
    p = spec(tmp_path, bench).rename(tmp_path / "...yaml")
    line = last_line(pfc("sweep", p, "--dry-run"), 2)
    assert "field 'spec file name (give --out)'" in line and "cannot name a folder" in line


def test_a_model_name_that_is_not_a_plain_folder_name_is_refused(bench, tmp_path, earlier):
    p = spec(tmp_path, bench, models=[{"name": "..", "backend": "oracle"}])
    line = last_line(pfc("sweep", p, "--out", earlier, "--dry-run"), 2)
    assert "field 'models[0].name'" in line and "cannot name a folder" in line


@pytest.mark.parametrize("change, field", [
    ({"settings": {"history": ["bogus"]}}, "run oracle__tb"),
    ({"settings": {"layout": ["bogus"]}}, "run oracle__tb"),
    ({"models": [{"name": "o", "backend": "oracle", "options": {"timeout": -1}}]}, "run o__tb"),
    ({"models": [{"name": "o", "backend": "oracle", "options": {"concurrency": 0}}]}, "run o__tb"),
    ({"models": [{"name": "o", "backend": "oracle", "resources": {"cpus": float("nan")}}]}, "models[0].resources.cpus"),
    ({"models": [{"name": "o", "backend": "oracle", "resources": {"gpus": float("inf")}}]}, "models[0].resources.gpus"),
    ({"models": [{"name": "o", "backend": "oracle", "sampling": {"temperature": "hot"}}]},
     "models[0].sampling.temperature"),
    ({"models": [{"name": "o", "backend": "oracle", "sampling": {"max_tokens": -1}}]}, "run o__tb"),
    ({"models": [{"name": "o", "backend": "oracle", "sampling": {"top_p": 2}}]}, "run o__tb"),
    ({"models": [{"name": "o", "backend": "oracle", "resources": {"custom": {"TPU": "many"}}}]},
     "models[0].resources.custom"),
    ({"benchmarks": [{"name": "tb", "benchmark": "tracebench", "build": {"users": -1}}]}, "benchmarks[0].build.users"),
])
def test_a_bad_spec_value_is_refused_at_the_plan_before_ray(bench, tmp_path, earlier, change, field):
    doc = {"models": [{"name": "oracle", "backend": "oracle"}],
           "benchmarks": [{"name": "tb", "benchmark": "tracebench", "examples": str(bench)}], **change}
    p = spec(tmp_path, bench, doc["models"], doc["benchmarks"], doc.get("settings"))
    before = tree(earlier)
    t0 = time.monotonic()
    line = last_line(pfc("sweep", p, "--out", earlier), 2)
    assert time.monotonic() - t0 < 60 and "bug in pfc" not in line
    assert str(p) in line and f"field '{field}" in line, line
    assert tree(earlier) == before and not (earlier / "sweep.json").exists()


def test_a_missing_examples_path_is_refused_at_the_plan(bench, tmp_path, earlier):
    p = spec(tmp_path, bench, benchmarks=[{"name": "tb", "benchmark": "tracebench", "examples": "nowhere/x.jsonl"}])
    before = tree(earlier)
    line = last_line(pfc("sweep", p, "--out", earlier), 2)
    assert "field 'run oracle__tb" in line and "not found" in line and "nowhere/x.jsonl" in line
    assert tree(earlier) == before


def test_a_dry_run_names_a_missing_examples_path(bench, tmp_path):
    p = spec(tmp_path, bench, benchmarks=[{"name": "tb", "benchmark": "tracebench", "examples": "nowhere/x.jsonl"}])
    r = pfc("sweep", p, "--out", tmp_path / "sw", "--dry-run")
    assert r.returncode == 0 and "# missing here (the sweep refuses it):" in r.stdout and "nowhere/x.jsonl" in r.stdout


def test_the_dry_run_prints_only_run_lines_pfc_run_accepts(bench, tmp_path):
    from pfc.run.run_args import parse_run_args
    p = spec(tmp_path, bench, models=[{"name": "o", "backend": "oracle", "sampling": {"temperature": 0.5,
                                                                                       "max_tokens": 64}}],
             settings={"history": ["full", "last_k"], "k": [5]})
    r = pfc("sweep", p, "--out", tmp_path / "sw", "--dry-run")
    assert r.returncode == 0, r.stderr
    lines = [ln.split("python -m pfc ", 1)[1] for ln in r.stdout.splitlines() if "python -m pfc run" in ln]
    assert len(lines) == 2
    import shlex
    for ln in lines:
        cfg = parse_run_args(shlex.split(ln))  # pfc run's own parser: raises on anything it refuses
        assert cfg.sampling == {"max_tokens": 64, "temperature": 0.5}


def test_the_index_is_appended_per_result_not_rewritten(bench, tmp_path):
    out = tmp_path / "sw"
    plan = sweep_plan.plan({"models": [{"name": "o", "backend": "oracle"}],
                   "benchmarks": [{"name": "tb", "benchmark": "tracebench", "examples": str(bench)}],
                   "settings": {"seed": list(range(300))}}, tmp_path / "spec.yaml", out)
    sweep_index.write_index(out, plan, {}, "spec.yaml")
    head = (out / sweep_index.INDEX).read_bytes()
    for r in plan.runs:
        sweep_index.append_result(out, r.name, {"status": "complete", "done": 3, "n_examples": 3})
    assert (out / sweep_index.INDEX).read_bytes() == head                        # never rewritten per result
    assert len((out / sweep_index.RESULTS).read_bytes().splitlines()) == len(plan.runs)
    assert sweep_index.read_index(out)["counts"] == {"complete": 300}
    sweep_index.write_index(out, plan, {r.name: {"status": "complete"} for r in plan.runs}, "spec.yaml")  # the sweep's end
    assert not (out / sweep_index.RESULTS).exists() and json.loads((out / sweep_index.INDEX).read_text())["counts"] == {"complete": 300}


def test_a_cut_last_index_line_left_by_a_kill_is_ignored(bench, tmp_path):
    out = tmp_path / "sw"
    plan = sweep_plan.plan({"models": [{"name": "o", "backend": "oracle"}],
                   "benchmarks": [{"name": "tb", "benchmark": "tracebench", "examples": str(bench)}],
                   "settings": {"seed": [0, 1]}}, tmp_path / "spec.yaml", out)
    sweep_index.write_index(out, plan, {}, "spec.yaml")
    sweep_index.append_result(out, plan.runs[0].name, {"status": "complete"})
    with open(out / sweep_index.RESULTS, "a") as fh:
        fh.write('{"name": "%s", "status": "comp' % plan.runs[1].name)
    assert [r["status"] for r in sweep_index.read_index(out)["runs"]] == ["complete", "planned"]


@pytest.mark.parametrize("index, message", [
    ("{not json", "not valid JSON (the sweep index)"),
    ("[1, 2]", "not a sweep index"),
    ('{"runs": [{"name": 1}]}', "not a sweep index"),
])
def test_a_malformed_sweep_index_is_one_line_naming_it(tmp_path, index, message):
    (tmp_path / "sw").mkdir()
    (tmp_path / "sw" / "sweep.json").write_text(index)
    line = last_line(pfc("report", tmp_path / "sw", "--out", tmp_path / "rep", "--n-boot", 0), 2)
    assert str(tmp_path / "sw" / "sweep.json") in line and message in line


def test_an_index_pointing_a_run_outside_the_sweep_is_refused(tmp_path):
    (tmp_path / "sw").mkdir()
    (tmp_path / "sw" / "sweep.json").write_text(json.dumps({"runs": [{"name": "x", "run_dir": "../../etc"}]}))
    line = last_line(pfc("report", tmp_path / "sw", "--out", tmp_path / "rep", "--n-boot", 0), 2)
    assert "resolves outside its output folder" in line


def test_a_report_of_a_sweep_with_no_finished_run_is_refused_not_empty(tmp_path):
    (tmp_path / "sw").mkdir()
    (tmp_path / "sw" / "sweep.json").write_text(json.dumps({"runs": [{"name": "x", "run_dir": "runs/x"}]}))
    line = last_line(pfc("report", tmp_path / "sw", "--out", tmp_path / "rep", "--n-boot", 0), 2)
    assert "nothing to report" in line and not (tmp_path / "rep" / "report.md").exists()


# ------------------------------------------------------------------ Ray: resources, addresses, secrets
def test_an_unreachable_cluster_address_fails_in_seconds_with_one_line(bench, tmp_path):
    p = spec(tmp_path, bench)
    t0 = time.monotonic()
    line = last_line(pfc("sweep", p, "--out", tmp_path / "sw", "--address", "127.0.0.1:1"), 2)
    assert time.monotonic() - t0 < 30
    assert "cannot join the Ray cluster at '127.0.0.1:1'" in line and "field '--address'" in line


class FakeRay(types.ModuleType):
    """Just enough of ``ray`` for connect/infeasible: records ``init``'s arguments, reports fixed nodes."""

    def __init__(self, nodes):
        super().__init__("ray")
        self.inits, self._nodes = [], nodes

    def init(self, **kw):
        self.inits.append(kw)

    def nodes(self):
        return self._nodes

    def cluster_resources(self):
        return {"CPU": 2.0}


def _planned(resources):
    from pfc.run.config import RunConfig
    return sweep_plan.PlannedRun(name="r", model_name="m", benchmark_name="tb",
                                 config=RunConfig("tracebench", "x", "oracle", "out/runs/r"), resources=resources)


@pytest.mark.parametrize("resources, missing", [
    ({"cpus": 1, "gpus": 1}, "GPU=1"), ({"cpus": 1000}, "CPU=1000"), ({"cpus": 1, "custom": {"tpu": 1}}, "tpu=1")])
def test_a_run_no_node_can_hold_is_named_instead_of_waiting_forever(monkeypatch, resources, missing):
    from pfc.sweep import ray_tasks
    monkeypatch.setitem(sys.modules, "ray", FakeRay([{"Alive": True, "Resources": {"CPU": 2.0, "memory": 1e9}}]))
    why = ray_tasks.infeasible([_planned(resources)])
    assert why and "run r needs" in why and missing in why and "CPU=2" in why
    assert ray_tasks.infeasible([_planned({"cpus": 2})]) is None


def test_the_api_settings_reach_every_task_as_an_argument_not_as_logged_job_environment(monkeypatch):
    import socket
    from pfc.sweep import ray_tasks
    fake = FakeRay([])
    sent = []
    fake.put = lambda value: ("ref", dict(value))

    class Remote:
        def __init__(self, fn):
            self.fn = fn

        def options(self, **kw):
            return self

        def remote(self, *args):
            sent.append(args)
            return object()

    fake.remote = Remote
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-marker")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    with socket.socket() as srv:  # a listening "head" so the address answers
        srv.bind(("127.0.0.1", 0))
        srv.listen()
        ray_tasks.connect(f"127.0.0.1:{srv.getsockname()[1]}")
    assert "runtime_env" not in fake.inits[0]  # Ray's runtime_env agent writes env_vars into its log
    ray_tasks.submit_all([_planned({"cpus": 1})], "out")
    assert sent[0][-1] == ("ref", {"OPENAI_API_KEY": "sk-test-marker", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})


def test_a_task_takes_only_the_api_settings_into_its_environment(monkeypatch):
    import os
    from pfc.sweep import ray_tasks
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("PATH_INJECTED", raising=False)
    ray_tasks.apply_env({"OPENAI_API_KEY": "sk-x", "PATH_INJECTED": "1"})
    assert os.environ["OPENAI_API_KEY"] == "sk-x" and "PATH_INJECTED" not in os.environ
    monkeypatch.delenv("OPENAI_API_KEY")


@pytest.mark.model  # starts local Ray (seconds); skipped where Ray is not installed
def test_a_gpu_run_on_a_cpu_only_local_ray_fails_in_seconds_with_one_line(bench, tmp_path):
    pytest.importorskip("ray")
    p = spec(tmp_path, bench, models=[{"name": "g", "backend": "oracle", "resources": {"cpus": 1, "gpus": 1}}])
    t0 = time.monotonic()
    line = last_line(pfc("sweep", p, "--out", tmp_path / "sw", "--num-cpus", 1, timeout=240), 2)
    assert time.monotonic() - t0 < 180
    assert "run g__tb" in line and "needs CPU=1, GPU=1" in line and "no node of this Ray has that" in line
