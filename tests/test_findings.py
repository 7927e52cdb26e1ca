"""README's "What the evidence says" against the committed ``metrics.json``, ``paired.json`` and ``format_grid.json``:
equal to what ``python -m pfc.report.findings`` generates (no model, no build), a hand-changed number caught, an interval
that touches zero never said to exclude it, and the prompt-format grid's lines (hand-made grids)."""
import shutil

from pfc import paths
from pfc.report.findings import END, START, main, pair_line, side


def test_the_readme_section_equals_the_committed_reports(capsys):
    assert main(["--check"]) == 0, capsys.readouterr().err


def test_a_hand_changed_number_in_the_readme_section_is_detected(tmp_path, capsys):
    readme = shutil.copy(paths.ROOT / "README.md", tmp_path / "README.md")
    head, body = readme.read_text().split(START)
    assert "+0.087 [+0.040, +0.131]" in body.split(END)[0]  # TRACEBench last_k, app, 1.5B − 0.5B (paired.md)
    changed = head + START + body.replace("+0.087 [+0.040, +0.131]", "+0.088 [+0.040, +0.131]", 1)
    readme.write_text(changed)
    assert main(["--check", "--readme", str(readme)]) == 1
    assert "differs" in capsys.readouterr().err
    assert readme.read_text() == changed  # --check writes nothing


def test_a_readme_that_is_not_utf8_is_refused_in_one_line_naming_it(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_bytes(b"# x\n\xff\xfe\n")
    assert main(["--check", "--readme", str(readme)]) != 0
    err = capsys.readouterr().err
    assert "README.md" in err and "not UTF-8" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_interval_touching_zero_does_not_exclude_it():
    assert side({"paired_lo": 0.0, "paired_hi": 0.014}) == 0
    assert side({"paired_lo": 0.0004, "paired_hi": 0.014}) == 0  # printed [+0.000, +0.014]
    assert side({"paired_lo": 0.0006, "paired_hi": 0.014}) == 1  # printed [+0.001, +0.014]
    assert side({"paired_lo": -0.14, "paired_hi": -0.071}) == -1


def test_a_pair_line_names_each_side_and_what_holds_zero():
    m = [{"key": "app", "diff": 0.0875, "paired_lo": 0.039838, "paired_hi": 0.131399, "clusters": 10},
         {"key": "format", "diff": 0.005, "paired_lo": 0.0, "paired_hi": 0.013785, "clusters": 10}]
    line = pair_line({"n": 400, "planned": 400, "metrics": m}, "`tracebench-last_k`", "1.5B", "0.5B")
    assert line == ("  - `tracebench-last_k` (n = 400, 10 users): 1.5B higher on app +0.087 [+0.040, +0.131]; "
                    "the interval does not exclude zero on format +0.005 [+0.000, +0.014].")


def test_an_ask_line_gives_each_rate_with_its_interval_and_items_and_names_the_runs_to_come():
    from pfc.report.findings import ask_line
    m = lambda v, lo, hi, n: {"value": v, "lo": lo, "hi": hi, "items": n}  # noqa: E731
    e = {"model": "qwen2.5-coder-0.5b", "n": 500, "partial": True,
         "runs": {"originals": {"n": 200, "planned": 200}, "ask": {"n": 150, "planned": 200}, "followup": None},
         "action": {"guess_rate": m(0.985, 0.965, 1.0, 200), "over_ask": m(0.015, 0.0, 0.029, 200),
                    "two_turn_success": {"value": None, "lo": None, "hi": None, "items": 0}}}
    assert ask_line("q/ask", e) == ("  - 0.5B (`q/ask`, 350 first-turn items, partial: ask, followup to come): "
                                    "guess rate 0.985 [0.965, 1.000] (200 ask items), "
                                    "over-ask 0.015 [0.000, 0.029] (200 originals).")


def test_an_ask_line_counts_follow_up_turns_apart_from_first_turn_items():
    from pfc.report.findings import ask_line
    e = {"model": "qwen2.5-coder-1.5b", "n": 508, "partial": False, "action": {},
         "runs": {"originals": {"n": 200, "planned": 200}, "ask": {"n": 200, "planned": 200},
                  "cannot": {"n": 100, "planned": 100}, "followup": {"n": 8, "planned": 8}}}
    assert ask_line("q/ask", e).startswith("  - 1.5B (`q/ask`, 500 first-turn items, 8 follow-up turns): ")


def _grid():
    acc = lambda cell, v, lo, hi: {"cell": cell, "key": "overall", "value": v, "lo": lo, "hi": hi}  # noqa: E731
    return {"baselines_identical": {"history-prior": True},
            "models": {"history-prior": {"accuracy": [acc("default", 0.6, 0.55, 0.65)]},
                       "qwen2.5-coder-0.5b": {"accuracy": [acc("default", 0.1, 0.063, 0.137)]},
                       "qwen2.5-coder-1.5b": {"accuracy": [acc("history-json", 0.2, 0.15, 0.25),
                                                           acc("default", 0.15, 0.1, 0.2)],
                                              "spread": {"overall": {"sd": 0.035355, "sd_lo": 0.0, "sd_hi": 0.07,
                                                                     "max_delta": 0.05, "max_delta_lo": 0.0,
                                                                     "max_delta_hi": 0.1, "cells": 2}},
                                              "main_effects": [{"cell": "history-json", "key": "app", "diff": 0.1,
                                                                "paired_lo": 0.0, "paired_hi": 0.2, "a_only": 30,
                                                                "b_only": 10, "mcnemar_p": 0.002},
                                                               {"cell": "history-json", "key": "overall", "diff": 0.05,
                                                                "paired_lo": 0.01, "paired_hi": 0.09, "a_only": 6,
                                                                "b_only": 1, "mcnemar_p": 0.125,
                                                                "holm_p": 0.25}]}},
            "multiplicity": {"method": "Holm", "size": 2},  # as if a second effect had p >= 0.125: 2 * 0.125
            "stability": {"a": "qwen2.5-coder-0.5b", "b": "qwen2.5-coder-1.5b",
                          "rows": [{"cell": "default", "diff": 0.05, "paired_lo": 0.01, "paired_hi": 0.09}],
                          "summary": {"cells": 1, "same_sign": 1, "excludes_zero": 1}},
            "baseline_beats": {"baseline": "history-prior", "every_cell": False,
                               "rows": [{"model": "qwen2.5-coder-0.5b", "cell": "default", "beats": True},
                                        {"model": "qwen2.5-coder-1.5b", "cell": "default", "beats": True},
                                        {"model": "qwen2.5-coder-1.5b", "cell": "history-json", "beats": False}]}}


def test_a_grid_line_gives_each_model_its_finished_cells_in_plan_order_and_names_the_ones_to_run():
    from pfc.report.findings import grid_lines
    lines = grid_lines(_grid())
    assert lines[1] == ("  - 0.5B, 1 of 7 cells (to run: history-json, history-table, history-sentences, order-newest, "
                        "answer-prompt-json, answer-python): default 0.100 [0.063, 0.137].")
    assert lines[2].startswith("  - 1.5B, 2 of 7 cells (to run: history-table,")
    assert ": default 0.150 [0.100, 0.200], history-json 0.200 [0.150, 0.250]; across them SD 0.035 [0.000, 0.070], " \
           "max-Δ 0.050 [0.000, 0.100];" in lines[2]


def test_a_grid_line_gives_each_cells_overall_effect_with_the_requests_that_changed_and_their_exact_test():
    # 6 right only in history-json, 1 only in the default: p = 2 * (1 + 7) / 2**7 = 0.125 (the app effect is not listed);
    # Holm's over a family of 2 with this the smaller p: 2 * 0.125
    from pfc.report.findings import grid_lines
    assert grid_lines(_grid())[2].endswith("max-Δ 0.050 [0.000, 0.100]; each cell − default, paired (requests right "
                                           "only in the cell vs only in the default, exact McNemar p, Holm's over the "
                                           "grid's 2 overall main effects): history-json +0.050 [+0.010, +0.090] (6 vs "
                                           "1, p 0.12, Holm 0.25).")


def test_a_grid_line_says_where_the_larger_model_keeps_its_lead_and_whether_the_rule_beats_both():
    from pfc.report.findings import grid_lines
    lines = grid_lines(_grid())
    assert lines[3] == ("  - 1.5B − 0.5B, overall, paired, in the 1 cell both have: the default's sign kept in 1, the "
                        "interval excluding zero in 1 (default +0.050 [+0.010, +0.090]).")
    assert lines[4] == ("  - The `history-prior` rule (it reads no prompt: the same answers in every cell) beats "
                               "every model in every cell measured: no (3 model-cells; not in 1.5B history-json).")


def test_a_grid_line_says_how_far_each_cells_gap_moves_from_the_defaults():
    from pfc.report.findings import grid_lines
    grid = _grid()
    grid["stability"]["rows"].append({"cell": "history-json", "diff": 0.15, "paired_lo": 0.05, "paired_hi": 0.25,
                                      "gap_change": 0.1, "gap_change_lo": 0.02, "gap_change_hi": 0.18})
    grid["stability"]["summary"].update(cells=2, same_sign=2, excludes_zero=2, gap_changes=1)
    assert grid_lines(grid)[3].endswith("history-json +0.150 [+0.050, +0.250]); the gap − the default's gap, paired, "
                                        "with an interval excluding zero in 1 of 1 (history-json +0.100 [+0.020, "
                                        "+0.180]).")


def test_no_committed_grid_is_said_not_measured_yet():
    from pfc.report.findings import grid_lines
    assert grid_lines(None)[0].endswith(": not measured yet.") and len(grid_lines(None)) == 1


def test_a_grid_missing_a_field_is_one_line_naming_the_field_and_exit_2(tmp_path, capsys):
    import json
    root = paths.ROOT / "reports" / "reference_runs"
    for name in ("metrics.json", "paired.json"):
        (tmp_path / name).write_text((root / name).read_text(encoding="utf-8"), encoding="utf-8")
    grid = json.loads((root / "format_grid.json").read_text(encoding="utf-8"))
    for e in grid["models"]["qwen2.5-coder-0.5b"]["main_effects"]:
        del e["mcnemar_p"]
    (tmp_path / "format_grid.json").write_text(json.dumps(grid), encoding="utf-8")
    readme = shutil.copy(paths.ROOT / "README.md", tmp_path / "README.md")
    assert main(["--root", str(tmp_path), "--readme", str(readme), "--check"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "lacks the field 'mcnemar_p'" in err
