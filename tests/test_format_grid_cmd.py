"""``python -m pfc.report.format_grid`` (issue 65): baselines answer the same in every cell of the grid (they read
no prompt), runs differing in anything but prompt settings are refused naming the field, and the grid's numbers
are ``pfc.eval.format_sensitivity``'s on the runs' rows."""
from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest

from pfc import benchmarks
from pfc.report import format_grid as G
from pfc.report.format_grid_runs import GridRun, check
from pfc.run.config import RunConfig
from pfc.run.runner import execute

CELLS = (("default", "all", True), ("history-table", "history=table", True), ("order-newest", "order=newest", True),
         ("answer-python", "answer=python", False))


@pytest.fixture(scope="module")
def grid_runs(tiny_tracebench, tmp_path_factory):
    root = tmp_path_factory.mktemp("grid")
    exs, _ = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    ids = tuple(sorted(e.id for e in exs)[:12])
    out = {}
    for backend in ("history-prior", "no-history"):
        for cell, variant, native in CELLS:
            cfg = RunConfig("tracebench", tiny_tracebench, backend, root / backend / cell, history="last_k", k=10,
                            ids=ids, prompt_variant=variant, native=native, progress=False,
                            cache_path=root / "cache.sqlite")
            execute(cfg)
            out[backend, cell] = cfg
    return out


def test_baselines_score_the_same_in_every_cell(grid_runs, capsys):
    dirs = [c.out_dir for c in grid_runs.values()]
    assert G.main([str(d) for d in dirs] + ["--n-boot", "50"]) == 0
    printed = capsys.readouterr().out
    grid = json.loads(printed[printed.index("\n{") + 1:])
    assert grid["cells"] == sorted(c for c, _, _ in CELLS)
    assert grid["baselines_identical"] == {"history-prior": True, "no-history": True}
    for model in ("history-prior", "no-history"):
        effects = grid["models"][model]["main_effects"]
        assert {e["diff"] for e in effects} == {0} and grid["models"][model]["spread"]["overall"]["sd"] == 0
    assert "the same per-example results in every cell: True" in printed


@pytest.mark.parametrize("change, named", [({"k": 5}, "'k'"), ({"sampling": {"temperature": 0.7}},
                                                                 "'sampling.temperature'")])
def test_runs_differing_beyond_the_prompt_are_refused_naming_the_field(grid_runs, tmp_path, capsys, change, named):
    base = grid_runs["history-prior", "default"]
    other = replace(base, out_dir=tmp_path / "other", prompt_variant="history=json", **change)
    execute(other)
    assert G.main([str(base.out_dir), str(other.out_dir)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and named in err[0] and "prompt settings only" in err[0]


def test_two_runs_of_one_cell_are_refused(grid_runs):
    d = grid_runs["history-prior", "default"].out_dir
    from pfc.errors import UserError
    with pytest.raises(UserError, match="two runs of cell 'default'"):
        check([d, d])


def t(overall):
    return pd.DataFrame({"id": list("abcd"), "user_id": list("uuvv"), "overall": overall, "app": overall,
                         "function_param_values": overall, "format": [1, 1, 1, 1]})


def _run(model, backend, cell, overall):
    df = t(overall)
    return GridRun(None, {"backend": backend}, model, cell, df, df.assign(overall=0), {"prompt_tokens": 10.0})


def golden_runs():
    """Two models and a baseline in cells default and x (hand-computed in tests/test_format_sensitivity.py)."""
    return [_run("m-a", "openvino", "default", [1, 1, 0, 0]), _run("m-a", "openvino", "x", [1, 0, 1, 0]),
           _run("m-b", "openvino", "default", [1, 1, 1, 0]), _run("m-b", "openvino", "x", [0, 0, 1, 0]),
           _run("history-prior", "history-prior", "default", [1, 1, 1, 1]),
           _run("history-prior", "history-prior", "x", [1, 1, 1, 1])]


def test_compute_pairs_the_two_models_and_the_baseline_as_the_golden_grid():
    """The same tiny grid as tests/test_format_sensitivity.py (hand-computed there), through the command's code."""
    grid = G.compute(golden_runs(), n_boot=1000)
    assert (grid["stability"]["a"], grid["stability"]["b"]) == ("m-a", "m-b")
    assert grid["stability"]["summary"] == {"cells": 2, "same_sign": 1, "excludes_zero": 0,
                                            "same_sign_and_excludes_zero": 0, "gap_changes": 1}
    assert grid["baseline_beats"]["every_cell"] is False  # m-a's default: user u scores 1 as the baseline does
    assert grid["baselines_identical"] == {"history-prior": True}
    assert grid["models"]["m-a"]["strict_overall"] == {"default": 0.0, "x": 0.0}
    assert grid["models"]["m-a"]["spread"]["overall"]["max_delta"] == 0.0
    assert "m-b − m-a: default's sign kept in 1 of 2 cells" in G.table(grid)


def test_compute_adjusts_the_real_models_overall_effects_by_holm_leaving_the_baselines_out():
    # m-b's x − default: 0 right only in x, 2 only in the default: p = 2 * 1/4 = 0.5; m-a's: 1 vs 1, p = 1;
    # Holm over those two (the baseline's effect is no claim): 2 * 0.5 = 1.0, then max(1.0, 1 * 1) = 1.0
    grid = G.compute(golden_runs(), n_boot=50)
    overall = {m: next(e for e in grid["models"][m]["main_effects"] if e["key"] == "overall")
               for m in ("m-a", "m-b", "history-prior")}
    assert overall["m-b"]["mcnemar_p"] == 0.5 and overall["m-b"]["holm_p"] == 1.0
    assert overall["m-a"]["holm_p"] == 1.0 and "holm_p" not in overall["history-prior"]
    assert grid["multiplicity"]["size"] == 2
    assert "(McNemar p 0.5, Holm 1)" in G.table(grid)


def test_an_unfinished_run_is_refused_naming_its_predictions_file(grid_runs, tmp_path, capsys):
    """A run with a planned request unanswered would score that request as wrong: the command refuses it instead."""
    import shutil
    done = grid_runs["history-prior", "default"].out_dir
    part = tmp_path / "partial"
    shutil.copytree(done, part)
    lines = (part / "predictions.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (part / "predictions.jsonl").write_text("".join(lines[:5]), encoding="utf-8")
    assert G.main([str(part), str(grid_runs["history-prior", "history-table"].out_dir)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "5 of 12 planned requests answered" in err[0] and "predictions.jsonl" in err[0]


def test_a_run_whose_predictions_are_not_utf8_is_refused_in_one_line(grid_runs, tmp_path, capsys):
    import shutil
    bad = tmp_path / "bad"
    shutil.copytree(grid_runs["history-prior", "default"].out_dir, bad)
    (bad / "predictions.jsonl").write_bytes(b"\xff\xfe\n")
    assert G.main([str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "predictions.jsonl:1: not UTF-8" in err[0]
