"""Gold answers fed back score perfectly in every style; one perturbation moves only its metric."""
import copy
import math

import pytest

from golden_cases import load_golden
from pfc import paths
from pfc.benchmarks import ptbench as ptb
from pfc.render import render
from pfc.schema import Call, Example, Tool
from pfc.eval.scoring import score

PERFECT = {"format", "app", "function_name", "function_param_names", "function_param_values", "overall",
           "platforms", "tool_names", "tool_param_names", "tool_param_values", "APP", "API", "RP", "OP"}


def _oracle(examples, style):
    return {e.id: render([Call(g.app, g.function, g.arguments) for g in e.gold] if e.gold else None, style)
            for e in examples}


def _ptbench_examples():
    return ptb.load(paths.GOLDEN / "ptbench_official")[0]


def _golden(bench):
    case = next(c for c in load_golden("scoring_cases.json") if c["benchmark"] == bench)
    return [Example.from_dict(e) for e in case["examples"]], [Tool.from_dict(t, "t") for t in case.get("tools", [])]


@pytest.mark.parametrize("style", ["ptbench", "json", "tool_calls"])
@pytest.mark.parametrize("bench", ["tracebench", "ptbench", "toolspectrum"])
def test_gold_fed_back_scores_perfectly(bench, style):
    examples, tools = (_ptbench_examples(), []) if bench == "ptbench" else _golden(bench)
    if style == "ptbench":  # one platform per output in this style
        examples = [e for e in examples if e.gold and len({g.app for g in e.gold}) == 1]
    rep = score(examples, _oracle(examples, style), bench, tools, style="auto")
    for key, value in rep.metrics.items():
        name = key.split("/")[-1]
        if name in PERFECT:
            assert value == 1.0, key
        elif name.endswith("_error"):
            assert value == 0.0, key
    assert (rep.per_example["error_type"] == "").all()


def test_official_compat_oracle_is_perfect_except_keyword_named_parameters():
    # trap: the published evaluator cannot read from= (a Python keyword); exactly those fail
    examples = _ptbench_examples()
    rep = score(examples, _oracle(examples, "ptbench"), "ptbench", compat="official")
    import keyword
    kw = {e.id for e in examples if any(keyword.iskeyword(a) for g in e.gold for a in g.arguments)}
    fails = set(rep.per_example.loc[rep.per_example["format"] == 0, "id"])
    assert fails == kw and len(kw) > 0
    ok = rep.per_example[rep.per_example["format"] == 1]
    assert ok["overall"].all()


def _moved(before, after):
    # trap: metrics with no items are NaN on both sides, and NaN != NaN
    return {k for k in before if "/" not in k and before[k] != after[k]
            and not (math.isnan(before[k]) and math.isnan(after[k]))}


def test_wrong_platform_moves_platform_and_overall_only():
    examples = _ptbench_examples()[:200]
    base = score(examples, _oracle(examples, "ptbench"), "ptbench").metrics
    bad = copy.deepcopy(examples)
    for e in bad:
        for g in e.gold:
            g.app = g.app + "Other"
    after = score(examples, _oracle(bad, "ptbench"), "ptbench").metrics
    assert _moved(base, after) == {"platforms", "overall"}


def test_wrong_value_moves_value_metrics_only():
    examples, _ = _golden("tracebench")
    base = score(examples, _oracle(examples, "json"), "tracebench").metrics
    bad = copy.deepcopy(examples)
    bad[0].gold[0].arguments["address"] = "Somewhere else"
    after = score(examples, _oracle(bad, "json"), "tracebench").metrics
    assert _moved(base, after) == {"function_param_values", "overall", "value_acc_long_term_history"}


def test_missing_argument_moves_names_values_overall_only():
    examples, _ = _golden("tracebench")
    base = score(examples, _oracle(examples, "json"), "tracebench").metrics
    bad = copy.deepcopy(examples)
    bad[2].gold[0].arguments.pop("count")
    after = score(examples, _oracle(bad, "json"), "tracebench").metrics
    assert _moved(base, after) == {"function_param_names", "function_param_values", "overall", "value_acc_query"}


def test_dropping_an_optional_argument_moves_only_op():
    examples, tools = _golden("toolspectrum")
    base = score(examples, _oracle(examples, "json"), "toolspectrum", tools).metrics
    bad = copy.deepcopy(examples)
    bad[0].gold[0].arguments.pop("intensity")
    after = score(examples, _oracle(bad, "json"), "toolspectrum", tools).metrics
    assert {k for k in _moved(base, after) if k in ("APP", "API", "RP", "OP")} == {"OP"}
