"""--compat official equals the published PTBench evaluator, sample by sample and in total.

Golden numbers: tests/golden/ptbench_official/expected.json, the published evaluator's own
output on the committed data beside it (see its "source"). Quirks get one test each.
"""
import json

import pytest

from golden_cases import load_golden
from pfc import paths
from pfc.benchmarks.ptbench.official import OfficialFormatError, official_include, official_parse
from pfc.eval.scoring import score_files

DIR = paths.GOLDEN / "ptbench_official"
EXPECTED = load_golden("ptbench_official/expected.json")


@pytest.mark.parametrize("split", ["test_untrained_user", "test_trained_user"])
def test_split_metrics_equal_published_evaluator(split):
    rep = score_files("ptbench", DIR / split / "data.json", DIR / split / "generation.jsonl", compat="official")
    for key, want in EXPECTED["splits"][split].items():
        assert abs(rep.metrics[key] - want) <= 1e-9, key


def test_overall_file_equals_published_conclude():
    rep = score_files("ptbench", DIR, DIR, compat="official")
    for key, want in EXPECTED["splits"]["overall"].items():
        assert abs(rep.metrics[key] - want) <= 1e-9, key


@pytest.mark.parametrize("split", ["test_untrained_user", "test_trained_user"])
def test_every_sample_equals_published_evaluator(split):
    rep = score_files("ptbench", DIR / split / "data.json", DIR / split / "generation.jsonl", compat="official")
    for (_, row), want in zip(rep.per_example.iterrows(), EXPECTED["per_sample"][split]):
        assert row["format"] == want["format"], row["id"]
        if want["format"]:
            got = [row["overall"], row["platforms"], row["tool_names"], row["tool_param_names"],
                   row["tool_param_values"], row["query"], row["profile"]]
            assert got == want["acc"], row["id"]


def test_fixture_covers_the_required_output_kinds():
    outs = [json.loads(l)["predict"] for s in ("test_untrained_user", "test_trained_user")
            for l in (DIR / s / "generation.jsonl").read_text().splitlines()]
    text = [o for o in outs if isinstance(o, str)]
    for marker in ("<think>", "{", "'Fresh Go'", "*", "from=", "[", "True", "```", "None"):
        assert any(marker in o for o in text), marker
    assert any(o is None for o in outs)


def test_quirk_unary_plus_negates():
    assert official_parse("S:[f(n=+5)]") == ("S", [{"f": {"n": -5}}])


def test_quirk_keyword_named_parameter_is_a_format_error():
    with pytest.raises(OfficialFormatError):
        official_parse("S:[f(from='A')]")


def test_quirk_braces_and_think_are_format_errors():
    for text in ("{S:[f()]}", "<think>x</think>S:[f()]", "```\nS:[f()]\n```"):
        with pytest.raises(OfficialFormatError):
            official_parse(text)


def test_quirk_integer_compared_with_first_acceptable_value_only():
    assert official_include(6, [6, 7]) and not official_include(7, [6, 7])


def test_quirk_string_prediction_against_integer_gold_raises():
    with pytest.raises(AttributeError):
        official_include("3", [3])


def test_quirk_true_matches_one():
    assert official_include(True, [1]) and official_include("true", [True])


def test_quirk_nested_call_values():
    assert official_parse("S:[f(a=g(1), b=g(x=1), c=items[0], d=(1, 2), e=word)]") == \
        ("S", [{"f": {"a": "g(1)", "b": {"g": {"x": 1}}, "c": "items[0]", "d": (1, 2), "e": "word"}}])


def test_arithmetic_is_folded_never_evaluated():
    assert official_parse("S:[f(n=2*3, s='ab'*2, t=True+1)]") == ("S", [{"f": {"n": 6, "s": "abab", "t": 2}}])
    with pytest.raises(OfficialFormatError):  # the original would call len(); we refuse
        official_parse("S:[f(n=len('ab')+1)]")
