"""Strict scoring (TRACEBench App. C.1: exact template with the app named, exact values) on hand-computed cases."""
import json

import pytest

from golden_cases import load_golden
from pfc.errors import UserError
from pfc.cli import main
from pfc.eval.matching import values_identical
from pfc.schema import Example, Tool
from pfc.eval.scoring import score
from pfc.eval.strict import exact_template

CASES = load_golden("strict_cases.json")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
@pytest.mark.parametrize("mode", ["robust", "strict"])
def test_strict_and_robust_give_the_hand_computed_numbers(case, mode):
    examples = [Example.from_dict(e) for e in case["examples"]]
    tools = [Tool.from_dict(t, "t") for t in case.get("tools", [])]
    rep = score(examples, case["outputs"], case["benchmark"], tools, strict=mode == "strict")
    assert rep.mode == mode
    for key, want in case[f"expected_{mode}"].items():
        assert rep.metrics[key] == pytest.approx(want, abs=1e-12), key


def test_strict_mode_keeps_the_metric_keys():
    case = CASES[0]
    examples = [Example.from_dict(e) for e in case["examples"]]
    robust = score(examples, case["outputs"], "tracebench").metrics
    strict = score(examples, case["outputs"], "tracebench", strict=True).metrics
    assert list(robust) == list(strict)


def test_exact_values_refuse_every_normalisation():
    # trap: bool is an int in Python (True == 1), and 3 == 3.0
    assert values_identical(["a", "b"], ["a", "b"]) and values_identical({"x": 1}, {"x": 1})
    for pred, gold in (("Latte", "latte"), (" Latte", "Latte"), ("3", 3), (3.0, 3), (True, 1), (["b", "a"], ["a", "b"]),
                       ("a", ["a"])):
        assert not values_identical(pred, gold), (pred, gold)


def test_templates_per_benchmark():
    assert exact_template({"content": None, "tool_calls": [{"function": {"name": "Keep__log_exercise",
                                                                          "arguments": "{\"exercise\": \"yoga\"}"}}]},
                          "tracebench") is None
    assert exact_template({"content": "ok", "tool_calls": [{"function": {"name": "log_exercise", "arguments": "{}"}}]},
                          "tracebench")
    assert exact_template('  {"APP": "Keep", "API": "log", "params": {}}\n', "toolspectrum") is None
    assert exact_template("null", "toolspectrum") is None
    assert exact_template('<think>hm</think>{"APP": "Keep", "API": "log", "params": {}}', "toolspectrum")
    assert exact_template("{MegaMart:[place_order(item='rice')]}", "ptbench")  # braces around: not the template


def test_toolspectrum_template_is_the_releases_own_answer_form():
    # prompt_call_api*.txt: "a dictionary containing the app name, API name, corresponding parameters and
    # the explanation"; requirement 4: "set the APP, API, and params to null"
    ok = ['{"APP": "Keep", "API": "log", "params": {"a": 1}, "explanation": "why"}',
          '{"APP": null, "API": null, "params": null, "explanation": "the policy forbids it"}',
          '{"APP": null, "API": null, "params": null}']
    for text in ok:
        assert exact_template(text, "toolspectrum") is None, text
    bad = ['{"APP": "Keep", "API": "log", "params": {}, "reason": "why"}',      # a key the template lacks
           '{"APP": "Keep", "API": "log", "params": {}, "explanation": {"a": 1}}',  # explanation not text
           '{"APP": null, "API": "log", "params": null}',                         # half a refusal
           '{"APP": "Keep", "API": "log", "explanation": "why"}',                 # no params
           '{"APP": "Keep", "API": " ", "params": {}}']                             # a blank API names no API
    for text in bad:
        assert exact_template(text, "toolspectrum").startswith("format:not_exact_template"), text


def test_cli_strict_flag_scores_strictly_and_records_the_mode(tmp_path, capsys):
    case = CASES[0]
    ex = tmp_path / "examples.jsonl"
    ex.write_text("".join(json.dumps(e) + "\n" for e in case["examples"]))
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": k, "output": v}) + "\n" for k, v in case["outputs"].items()))
    assert main(["score", "--benchmark", "tracebench", "--examples", str(ex), "--predictions", str(preds),
                 "--out", str(tmp_path / "s"), "--strict"]) == 0
    metrics = json.loads((tmp_path / "s" / "metrics.json").read_text())
    assert metrics["overall"] == pytest.approx(case["expected_strict"]["overall"])
    assert json.loads((tmp_path / "s" / "score.json").read_text())["mode"] == "strict"
    assert main(["score", "--benchmark", "tracebench", "--examples", str(ex), "--predictions", str(preds),
                 "--out", str(tmp_path / "r")]) == 0
    assert json.loads((tmp_path / "r" / "score.json").read_text())["mode"] == "robust"


def test_strict_and_official_compat_are_refused_together():
    case = CASES[1]
    examples = [Example.from_dict(e) for e in case["examples"]]
    with pytest.raises(UserError, match="choose one"):
        score(examples, case["outputs"], "ptbench", compat="official", strict=True)
