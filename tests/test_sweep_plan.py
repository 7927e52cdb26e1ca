"""`pfc sweep` without Ray: the spec, its plan (what is crossed, what is skipped), --dry-run, the index,
the writer lock, and `pfc report` over a sweep directory. Runs here go through pfc.sweep.one_run.execute
serially (Ray's part is tests/test_sweep_ray.py)."""
import json

import pytest

from pfc import paths
from pfc.cli import main
from pfc.sweep import index as sweep_index, plan as sweep_plan, spec as sweep_spec
from pfc.sweep.one_run import execute, writer_lock

PT = paths.GOLDEN / "ptbench_official" / "test_trained_user" / "data.json"


def write_spec(tmp_path, text: str):
    p = tmp_path / "spec.yaml"
    p.write_text(text)
    (tmp_path / "tb_dir").mkdir(exist_ok=True)  # the spec's examples: a missing path is refused before Ray
    return p


SPEC = f"""
models:
  - {{name: oracle, backend: oracle}}
  - {{name: qo, backend: query-oracle}}
benchmarks:
  - {{name: tb, benchmark: tracebench, examples: tb_dir}}
  - {{name: pt, benchmark: ptbench, examples: "{PT}"}}
settings:
  strategy: [zero_shot, hierarchical]
  history: [full, last_k]
  k: [5, 10]
  seed: [0, 1]
"""


def test_plan_crosses_history_and_k_for_tracebench_only(tmp_path):
    spec = write_spec(tmp_path, SPEC)
    p = sweep_plan.plan(sweep_spec.load_spec(spec), spec, tmp_path / "out")
    # by hand: tracebench {full, last_k-k5, last_k-k10} x 2 strategies x 2 seeds = 12 per model (both models);
    # ptbench: zero_shot only (no hierarchical), no history axis, 2 seeds = 2 for oracle, 0 for query-oracle
    assert len(p.runs) == 12 + 12 + 2
    assert sorted(r.name for r in p.runs if r.config.benchmark == "ptbench") == ["oracle__pt__zero_shot__s0",
                                                                           "oracle__pt__zero_shot__s1"]
    assert "oracle__tb__hierarchical__last_k-k10__s1" in {r.name for r in p.runs}


def test_plan_lists_combinations_pfc_run_would_refuse_as_skipped(tmp_path):
    spec = write_spec(tmp_path, SPEC)
    p = sweep_plan.plan(sweep_spec.load_spec(spec), spec, tmp_path / "out")
    assert "oracle__pt__hierarchical__s0: ptbench has no strategy 'hierarchical'" in p.skipped
    assert "qo__pt__zero_shot__s1: backend query-oracle does not answer ptbench" in p.skipped
    assert len(p.skipped) == 2 + 4  # oracle: hierarchical x 2 seeds; query-oracle: 2 strategies x 2 seeds


def test_relative_paths_in_a_spec_are_relative_to_the_spec_file(tmp_path):
    spec = write_spec(tmp_path, SPEC)
    p = sweep_plan.plan(sweep_spec.load_spec(spec), spec, tmp_path / "out")
    assert {r.config.examples for r in p.runs if r.config.benchmark == "tracebench"} == {str(tmp_path / "tb_dir")}


def test_spec_hash_ignores_key_order():
    assert sweep_spec.spec_hash({"a": 1, "b": [1, 2]}) == sweep_spec.spec_hash({"b": [1, 2], "a": 1})


def test_each_planned_run_is_exactly_a_pfc_run_command(tmp_path, monkeypatch):
    """The arguments --dry-run prints parse with `pfc run`'s own parser into the planned settings."""
    from pfc import cli
    spec = write_spec(tmp_path, SPEC.replace("- {name: qo, backend: query-oracle}",
                                             "- {name: qo, backend: query-oracle, sampling: {temperature: 0}}"))
    p = sweep_plan.plan(sweep_spec.load_spec(spec), spec, tmp_path / "out")
    r = next(r for r in p.runs if r.name == "qo__tb__zero_shot__last_k-k5__s1")
    seen = []
    monkeypatch.setattr(cli, "_run_cmd", lambda args: seen.append(args) or 0)
    assert main(r.pfc_run_args(tmp_path / "out")) == 0
    a = seen[0]
    assert (a.benchmark, a.backend, a.strategy, a.history, a.k, a.seed, a.temperature) == \
        ("tracebench", "query-oracle", "zero_shot", "last_k", 5, 1, 0.0)
    assert a.out == str(tmp_path / "out" / "runs" / "qo__tb__zero_shot__last_k-k5__s1")
    from dataclasses import replace
    from pfc.run.run_args import config_from_args
    assert config_from_args(a) == replace(r.config, sampling={"temperature": 0.0}, progress=True, out_dir=a.out)


@pytest.mark.parametrize("text,where", [
    ("models: []\nbenchmarks: [{name: tracebench, examples: x}]\n", "field 'models'"),
    ("models: [{name: m, backend: nope}]\nbenchmarks: [{name: tracebench, examples: x}]\n",
     "field 'models[0].backend'"),
    ("models: [{name: m, backend: oracle}]\nbenchmarks: [{name: tracebench, examples: x}]\nsettings: {k: [0]}\n",
     "field 'settings.k'"),
    ("models: [{name: m, backend: oracle, resources: {gpus: -1}}]\nbenchmarks: [{name: tracebench, examples: x}]\n",
     "field 'models[0].resources.gpus'"),
    ("models: [{name: m, backend: oracle}]\nbenchmarks: [{name: ptbench, build: {users: 2}}]\n",
     "field 'benchmarks[0].build'"),
    ("models: [{name: m, backend: oracle}]\n  bad: [\n", "not valid YAML"),
])
def test_a_bad_spec_is_one_line_naming_file_and_field_with_exit_2(tmp_path, capsys, text, where):
    spec = write_spec(tmp_path, text)
    assert main(["sweep", str(spec), "--dry-run", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(spec) in err and where in err


def test_dry_run_prints_every_run_with_its_directory_and_starts_nothing(tmp_path, capsys):
    spec = write_spec(tmp_path, SPEC)
    assert main(["sweep", str(spec), "--dry-run", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert out.count("python -m pfc run --benchmark") == 26
    assert "runs/oracle__tb__zero_shot__last_k-k5__s0\t" in out
    assert not (tmp_path / "o").exists()


def test_a_run_directory_held_by_another_writer_is_a_failed_run_naming_the_holder(tmp_path):
    import os
    spec = write_spec(tmp_path, f"""
models: [{{name: oracle, backend: oracle}}]
benchmarks: [{{name: pt, benchmark: ptbench, examples: "{PT}"}}]
""")
    (r,) = sweep_plan.plan(sweep_spec.load_spec(spec), spec, tmp_path / "o").runs
    with writer_lock(r.run_dir(tmp_path / "o")):
        res = execute(r, tmp_path / "o", cache_path=tmp_path / "c.sqlite")
    assert res["status"] == "failed" and f"pid {os.getpid()} on " in res["error"]
    assert not (r.run_dir(tmp_path / "o") / "predictions.jsonl").exists()


def test_a_second_sweep_into_the_same_directory_is_refused_with_exit_2(tmp_path, capsys):
    spec = write_spec(tmp_path, SPEC)
    with writer_lock(tmp_path / "o"):
        assert main(["sweep", str(spec), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "another writer holds this sweep directory (pid " in err


def test_a_run_that_cannot_work_is_a_failed_result_naming_why_and_the_others_still_run(tmp_path):
    spec = write_spec(tmp_path, f"""
models: [{{name: oracle, backend: oracle}}]
benchmarks:
  - {{name: missing, benchmark: ptbench, examples: nowhere.json}}
  - {{name: pt, benchmark: ptbench, examples: "{PT}"}}
""")
    p = sweep_plan.plan(sweep_spec.load_spec(spec), spec, tmp_path / "o")
    bad, good = (execute(r, tmp_path / "o", cache_path=tmp_path / "c.sqlite") for r in p.runs)
    assert bad["status"] == "failed" and "nowhere.json" in bad["error"]
    assert good["status"] == "complete" and good["done"] == good["n_examples"] == 474


def test_report_over_a_sweep_directory_shows_every_run_it_wrote(tmp_path, capsys):
    spec = write_spec(tmp_path, f"""
models: [{{name: oracle, backend: oracle}}, {{name: rnd, backend: random}}]
benchmarks: [{{name: pt, benchmark: ptbench, examples: "{PT}"}}]
settings: {{seed: [0, 3]}}
""")
    out = tmp_path / "o"
    p = sweep_plan.plan(sweep_spec.load_spec(spec), spec, out)
    status = {r.name: execute(r, out, cache_path=tmp_path / "c.sqlite") for r in p.runs}
    sweep_index.write_index(out, p, status, "spec.yaml")
    index = json.loads((out / "sweep.json").read_text())
    assert index["counts"] == {"complete": 4} and index["spec_hash"] == p.spec_hash
    assert main(["report", str(out), "--out", str(tmp_path / "rep"), "--n-boot", "0"]) == 0
    table = (tmp_path / "rep" / "ptbench_table1.md").read_text()
    for label in ("| ours | oracle |", "| ours | oracle [seed=3] |", "| ours | rnd |", "| ours | rnd [seed=3] |"):
        assert label in table
    assert "| paper |" in table
