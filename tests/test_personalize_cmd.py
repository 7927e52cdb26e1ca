"""``pfc personalize ORIGINALS_RUN VARIANTS_RUN``: notebook 08's numbers on a swap-user pair, the dose and override
sections when the variants hold them, and one-line refusals of what is not a pair."""
import json
import shutil

import pytest

from pfc.cli import main
from pfc.data.counterfactual import build_variants
from pfc.run.config import RunConfig
from pfc.run.runner import execute


@pytest.fixture(scope="module")
def pairs(tiny_tracebench, tmp_path_factory):
    root = tmp_path_factory.mktemp("personalize")
    out = {}
    for kind in ("swap-user", "dose:0,2,8", "contradict-stated"):
        var = root / kind.replace(":", "_").replace(",", "-")
        build_variants(tiny_tracebench, var, kind, seed=0)
        execute(RunConfig("tracebench", var, "history-prior", root / f"run-{var.name}", cache_path=root / "c.sqlite", progress=False))
        out[kind] = (var, root / f"run-{var.name}")
    execute(RunConfig("tracebench", tiny_tracebench, "history-prior", root / "run-orig", cache_path=root / "c.sqlite", progress=False))
    return root / "run-orig", out


def personalize(capsys, *args):
    code = main(["personalize", *map(str, args)])
    cap = capsys.readouterr()
    return code, (json.loads(cap.out) if code == 0 else cap.err.strip().splitlines())


def test_a_swap_user_pair_gives_the_numbers_of_notebook_08s_path(pairs, tiny_tracebench, capsys):
    from pfc.report.counterfactual import evaluate_pairs
    orig, sets = pairs
    var, var_run = sets["swap-user"]
    code, got = personalize(capsys, orig, var_run, "--n-boot", 200, "--seed", 4)
    assert code == 0 and got["kinds"] == {"swap-user": got["variants"]} and "dose" not in got
    long, _, _ = evaluate_pairs("tracebench", tiny_tracebench, var, {"hp": (orig, var_run)}, n_boot=200, seed=4)
    want = {r["metric"]: [round(r[k], 4) for k in ("value", "lo", "hi")] + [r["items"]] for _, r in long.iterrows()}
    assert {r["metric"]: [r["value"], r["lo"], r["hi"], r["items"]] for r in got["personalization"]} == want
    assert want["context_following"][0] > 0  # history-prior follows the swapped history


def test_a_dose_pair_gives_the_curve_and_the_threshold(pairs, capsys):
    orig, sets = pairs
    code, got = personalize(capsys, orig, sets["dose:0,2,8"][1], "--n-boot", 100)
    assert code == 0
    curve = {(r["k"], r["metric"]): r for r in got["dose"]["curve"]}
    assert sorted({k for k, _ in curve}) == [0, 2, 8]
    assert curve[(0, "switch_rate")]["value"] == 0.0  # no supporting record: nothing moved yet
    assert curve[(8, "switch_rate")]["value"] > curve[(2, "switch_rate")]["value"] > 0
    k = got["dose"]["threshold_k"]
    assert k is None or curve[(k, "switch_rate")]["lo"] > 0.5
    assert "threshold_withheld" not in got["dose"]  # the whole set answered


def test_a_dose_run_on_part_of_the_set_gets_its_curve_but_no_threshold(pairs, tmp_path, capsys):
    orig, sets = pairs
    var, run = sets["dose:0,2,8"]
    part = tmp_path / "part"
    shutil.copytree(run, part)
    rows = (part / "predictions.jsonl").read_text().splitlines(keepends=True)
    (part / "predictions.jsonl").write_text("".join(rows[:len(rows) // 2]))  # a run stopped half way
    code, got = personalize(capsys, orig, part, "--n-boot", 100)
    assert code == 0 and got["dose"]["curve"]
    assert got["dose"]["threshold_k"] is None
    assert got["dose"]["threshold_withheld"] == (f"{len(rows) // 2} of the set's {len(rows)} dose variants answered: "
                                                 "a threshold once the run is complete")


def test_a_contradict_stated_pair_gives_stated_wins_and_overrides(pairs, capsys):
    orig, sets = pairs
    code, got = personalize(capsys, orig, sets["contradict-stated"][1], "--n-boot", 50)
    assert code == 0
    assert {r["metric"]: r["value"] for r in got["override"]} == {"stated_wins": 1.0, "overrides": 0.0}


def test_a_missing_run_directory_is_one_line(pairs, tmp_path, capsys):
    orig, _ = pairs
    code, err = personalize(capsys, orig, tmp_path / "nope")
    assert code == 2 and err == [f"pfc personalize: {tmp_path / 'nope'}: not found (given as run directory)"]


def test_runs_on_different_benchmarks_are_not_a_pair(pairs, tmp_path, capsys):
    orig, sets = pairs
    other = shutil.copytree(sets["swap-user"][1], tmp_path / "pt")
    cfg = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**cfg, "benchmark": "ptbench"}))
    code, err = personalize(capsys, orig, other)
    assert code == 2 and len(err) == 1
    assert err[0] == (f"pfc personalize: {other}: the originals run is on tracebench and the variants run on "
                      "ptbench: not a pair")


def test_a_variants_run_of_another_model_is_not_a_pair(pairs, tmp_path, capsys):
    orig, sets = pairs
    other = shutil.copytree(sets["swap-user"][1], tmp_path / "other")
    cfg = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**cfg, "backend": "openvino", "model": "qwen2.5-coder-1.5b"}))
    code, err = personalize(capsys, orig, other)
    assert code == 2 and len(err) == 1
    assert err[0] == (f"pfc personalize: {other / 'config.json'}: field 'backend': \"openvino\", the originals "
                      "run's \"history-prior\": another answerer, not a pair")


def test_a_variants_run_with_another_history_window_is_still_a_pair(pairs, tmp_path, capsys):
    orig, sets = pairs
    other = shutil.copytree(sets["contradict-stated"][1], tmp_path / "full")
    cfg = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**cfg, "history": "full", "k": 20}))
    code, got = personalize(capsys, orig, other)
    assert code == 0 and got["kinds"] == {"contradict-stated": got["variants"]}


def test_a_variants_run_sharing_no_ids_with_the_originals_is_refused(pairs, capsys):
    orig, _ = pairs
    code, err = personalize(capsys, orig, orig)
    assert code == 2 and len(err) == 1 and "shares no ids with the originals run: 0 of its" in err[0]
    assert "none of an example of /" not in err[0]  # the originals' set named relative to the project, not absolute


def test_a_run_on_a_sample_of_the_variants_is_scored_on_what_both_answered(pairs, tiny_tracebench, tmp_path, capsys):
    """A reference run answers a sample of the variant set: the rest are not counted wrong (notebook 08 scores the
    real model the same way, answered_only), and the coverage says how many were scored."""
    from pfc.report.counterfactual import evaluate_pairs
    orig, sets = pairs
    var, var_run = sets["swap-user"]
    part = tmp_path / "part"
    shutil.copytree(var_run, part)
    lines = (part / "predictions.jsonl").read_text().splitlines()
    (part / "predictions.jsonl").write_text("\n".join(lines[:5]) + "\n")
    code = main(["personalize", str(orig), str(part), "--n-boot", "50"])
    cap = capsys.readouterr()
    got = json.loads(cap.out)
    assert code == 0 and got["coverage"]["answered_by_both"] == got["variants"] == 5
    assert got["coverage"]["variants_in_set"] == len(lines) > 5 and "scored 5 of" in cap.err
    long, _, _ = evaluate_pairs("tracebench", tiny_tracebench, var, {"hp": (orig, part)}, n_boot=50, seed=0,
                                answered_only=True)
    want = {r["metric"]: round(r["value"], 4) for _, r in long.iterrows()}
    assert {r["metric"]: r["value"] for r in got["personalization"]} == want


def test_a_variants_run_with_no_row_is_refused_in_one_line(pairs, tmp_path, capsys):
    orig, sets = pairs
    empty = tmp_path / "empty"
    shutil.copytree(sets["swap-user"][1], empty)
    (empty / "predictions.jsonl").write_text("")
    code, err = personalize(capsys, orig, empty)
    assert code == 2 and len(err) == 1 and "no variant of" in err[0] and "answer in both runs" in err[0]


def test_a_dose_curve_needs_no_answer_on_the_originals_and_gives_notebook_09s_numbers(pairs, tmp_path, capsys):
    """The originals run answered only its first 3 rows: the swap-style metrics are scored on the few variants
    both runs answered, but the dose curve on every dose variant answered (each request's K = 0 is its base),
    the numbers notebook 09 computes from the dose run alone."""
    from pfc.report import evidence_dose as ed
    orig, sets = pairs
    var, run = sets["dose:0,2,8"]
    few = tmp_path / "few"
    shutil.copytree(orig, few)
    lines = (few / "predictions.jsonl").read_text().splitlines(keepends=True)
    (few / "predictions.jsonl").write_text("".join(lines[:3]))
    answered = len((run / "predictions.jsonl").read_text().splitlines())
    code = main(["personalize", str(few), str(run), "--n-boot", "100"])
    cap = capsys.readouterr()
    got = json.loads(cap.out)
    assert code == 0 and got["coverage"]["dose_answered"] == answered > got["coverage"]["answered_by_both"]
    assert f"; the dose curve {answered} (the variants run's own)" in cap.err
    assert sum(r["variants"] for r in got["dose"]["curve"] if r["metric"] == "switch_rate") == answered
    want = ed.dose_curve(ed._load(var), run, n_boot=100, seed=0, answered_only=True)
    assert {(r["k"], r["metric"]): r["value"] for r in got["dose"]["curve"]} == \
        {(r["k"], r["metric"]): round(r["value"], 4) for _, r in want.iterrows()}
