"""A benchmark's own baseline (PTBench's ``nearest-train``) elsewhere, and its training file without words
(issue 66, group 6): one line and exit 2 from ``pfc run``, a skipped combination in a sweep, never answers of
one benchmark written for another."""
import json

import pytest

from pfc import benchmarks, paths
from pfc.cli import main
from pfc.errors import UserError
from pfc.run import backends
from pfc.sweep import plan as sweep_plan, spec as sweep_spec

TRAIN = paths.GOLDEN / "ptbench_official" / "test_trained_user" / "data.json"  # an official data.json: a training file


def _one_line(capsys, status, got):
    err = capsys.readouterr().err.strip().splitlines()
    assert got == status and len(err) == 1 and "Traceback" not in err[0] and "bug in pfc" not in err[0], err
    return err[0]


@pytest.mark.parametrize("bench", sorted(set(benchmarks.NAMES) - {"ptbench"}))
def test_nearest_train_answers_only_the_benchmark_that_declares_it(bench):
    cls = backends.get("nearest-train", model=str(TRAIN)).__class__
    assert not cls.supports(bench) and cls.supports("ptbench")


def test_nearest_train_on_tracebench_is_refused_in_one_line(bench, tmp_path, capsys):
    out = tmp_path / "r"
    line = _one_line(capsys, 2, main(["run", "--benchmark", "tracebench", "--examples", str(bench),
                                      "--backend", "nearest-train", "--model", str(TRAIN), "--out", str(out)]))
    assert "nearest-train" in line and "tracebench" in line
    assert not (out / "predictions.jsonl").exists()


def test_a_sweep_does_not_plan_nearest_train_on_tracebench(tmp_path):
    (tmp_path / "tb_dir").mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"""
models:
  - {{name: nt, backend: nearest-train, model: "{TRAIN}"}}
benchmarks:
  - {{name: tb, benchmark: tracebench, examples: tb_dir}}
  - {{name: pt, benchmark: ptbench, examples: "{TRAIN}"}}
settings:
  strategy: [zero_shot]
""")
    p = sweep_plan.plan(sweep_spec.load_spec(spec), spec, tmp_path / "out")
    assert [r.name for r in p.runs if "__tb__" in r.name] == []
    assert any(s.startswith("nt__tb__") and "nearest-train" in s for s in p.skipped)
    assert [r.name for r in p.runs if "__pt__" in r.name]  # PTBench still runs it


@pytest.mark.parametrize("queries", [[], ["?!", "..."], ["", " "]])
def test_training_queries_without_a_word_are_one_line(tmp_path, queries):
    train = tmp_path / "train.json"
    rec = json.loads(TRAIN.read_text())[0]
    train.write_text(json.dumps([{**rec, "query": q} for q in queries]))
    with pytest.raises(UserError, match="train.json"):
        backends.get("nearest-train", model=str(train))
