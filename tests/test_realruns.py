"""pfc.plans.real_models and pfc.report.real_models: the plan is the authority over its run directories, and the report scores them."""
import json

from pfc.plans import Planned
from pfc.plans import real_models as realruns
from pfc.report import real_models
from pfc.run.config import RunConfig


def test_a_changed_sample_moves_the_old_run_aside_instead_of_skipping_it(tiny_tracebench, tmp_path):
    # trap: the runner (rightly) refuses to resume a run made from another sample; realruns once
    # recorded that refusal as "unsupported" and reported a stale, smaller run
    bench = tiny_tracebench
    ids = sorted(json.loads(x)["id"] for x in (bench / "examples.jsonl").read_text().splitlines())
    def plan(sample):
        return [Planned("t", RunConfig("tracebench", bench, "hf", realruns.run_dir("t", "hf"), model="m", k=10,
                                       ids=tuple(sample)))]
    realruns.execute(plan(ids[:3]), backends=("history-prior",), progress=False, cache_path=tmp_path / "c.sqlite")
    realruns.execute(plan(ids[2:6]), backends=("history-prior",), progress=False, cache_path=tmp_path / "c.sqlite")
    out = realruns.run_dir("t", "history-prior")
    got = sorted(json.loads(x)["id"] for x in (out / "predictions.jsonl").read_text().splitlines())
    assert got == ids[2:6]
    assert not (out / "unsupported.txt").exists()
    old = list((out / "attic").rglob("predictions.jsonl"))
    assert len(old) == 1 and len(old[0].read_text().splitlines()) == 3


def test_tracebench_sample_covers_levels_and_bins_and_is_stable_across_sizes():
    # the first n ids of a larger sample are the n-sample's ids: growing a plan reuses cached answers
    from pfc.schema import Example
    exs = [Example(id=f"e{i:03d}", benchmark="tracebench", gold=None, query="q", meta={"vagueness": lv, "history_length": h})
           for i, (lv, h) in enumerate((lv, h) for lv in ("most_clear", "relevant_clear", "relevant_vague", "most_vague")
                                      for h in (120, 250, 350, 450) for _ in range(3))]
    from pfc.plans.sampling import tracebench_sample
    four = tracebench_sample(exs, 0, n=4)
    by_id = {e.id: e for e in exs}
    assert {by_id[i].meta["vagueness"] for i in four} == {"most_clear", "relevant_clear", "relevant_vague", "most_vague"}
    assert {by_id[i].meta["history_length"] // 100 for i in four} == {1, 2, 3, 4}
    assert set(four) <= set(tracebench_sample(exs, 0, n=8))


def test_seconds_per_example_sum_both_hierarchical_calls_as_recorded_per_row(tmp_path):
    # trap: the report once divided this invocation's timing by its backend calls, so a run
    # refilled from the cache showed "–", and a hierarchical run counted half an example per call
    pred = tmp_path / "predictions.jsonl"
    rows = [{"id": "a", "output": "x", "generation": {"prefill_s": 3.0, "decode_s": 1.0, "prompt_tokens": 1000},
             "domain_step": {"generation": {"prefill_s": 0.5, "decode_s": 0.5, "prompt_tokens": 200}}},
            {"id": "b", "output": "y", "cached": True, "generation": {"prefill_s": 1.0, "decode_s": 0.0,
                                                                      "prompt_tokens": 600}},
            {"id": "c", "output": "z", "generation": {"prefill_s": 99.0, "decode_s": 0.0, "prompt_tokens": 9}}]
    pred.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    # scored ids a and b only (c is outside the plan): (3+1+0.5+0.5 + 1+0) / 2 = 3.0 s; (1000+200+600) / 2 = 900
    assert real_models._generation(pred, {"a", "b"}) == {"s": 3.0, "prompt_tokens": 900.0}


def test_rows_without_a_recorded_cost_give_no_seconds_rather_than_a_partial_mean(tmp_path):
    pred = tmp_path / "predictions.jsonl"
    pred.write_text(json.dumps({"id": "a", "output": "x", "generation": {"prefill_s": 2.0, "decode_s": 0.0}}) + "\n"
                    + json.dumps({"id": "b", "output": "y"}) + "\n")
    assert real_models._generation(pred, {"a", "b"}) is None


def test_regenerating_the_report_keeps_the_hand_written_notes_below_it(tmp_path):
    # trap: the report is rewritten from the run directories, which silently dropped the session's notes
    out = tmp_path / "real_models.md"
    out.write_text("# old generated part\n\n## Notes (written by hand)\n\n- keep me\n")
    text = real_models.report([], "m", out)
    assert text.endswith("## Notes (written by hand)\n\n- keep me\n") and "old generated part" not in text
    assert out.read_text() == text


def test_an_out_path_in_a_missing_folder_is_refused_before_any_run(tmp_path, capsys):
    # trap: the report was written at the very end, so a mistyped --out cost the whole plan and a traceback
    import pytest
    with pytest.raises(SystemExit) as e:
        real_models.main(["--report-only", "--out", str(tmp_path / "missing" / "r.md")])
    assert e.value.code == 2 and "its folder does not exist (given as --out)" in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()


def test_ctrl_c_during_the_plan_is_one_line_and_exit_130(monkeypatch, tmp_path, capsys):
    # trap: realruns let the runner's interrupt escape as a traceback
    from pfc.run.checks import RunInterrupted

    def interrupted(*a, **k):
        raise RunInterrupted(3, 16, "data/runs/real/x--hf")
    monkeypatch.setattr("pfc.run.runner.execute_or_replace", interrupted)  # the plan's first run, through the executor
    monkeypatch.setattr(real_models, "tracebench_data", lambda: None)
    monkeypatch.setattr(realruns, "plan", lambda *a, **k: [Planned("tracebench-last_k", RunConfig(
        "tracebench", tmp_path, "hf", tmp_path / "x", model="m", ids=("a",)))])
    assert real_models.main(["--only", "tracebench-last_k", "--out", str(tmp_path / "r.md")]) == 130
    err = capsys.readouterr().err
    assert "3 of 16 saved" in err and "resumes" in err and "Traceback" not in err
    assert not (tmp_path / "r.md").exists()
