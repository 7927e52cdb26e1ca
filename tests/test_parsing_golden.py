"""Golden parse cases (tests/golden/parse_cases.json): each names its trap and source."""
import pytest

from golden_cases import load_golden
from pfc.eval.parsing import parse

CASES = load_golden("parse_cases.json")


@pytest.mark.parametrize("case", CASES, ids=[c["trap"] for c in CASES])
def test_golden_parse_case(case):
    r = parse(case["input"], case["style"])
    assert r.ok == case["ok"], r.error
    if case["ok"]:
        assert [c.to_dict() for c in r.calls] == case["calls"]
        assert r.refusal == (case["calls"] == [])
    else:
        assert r.error.startswith(case["error"]) and r.calls == []


def test_native_tool_calls_message_parses_app_from_name():
    # trap: OpenAI encodes arguments as a JSON *string*; the app rides in the name
    msg = {"content": None, "tool_calls": [{"id": "c0", "type": "function", "function": {
        "name": "Cainiao_Guoguo__createShipment", "arguments": "{\"weight\": 2.5}"}}]}
    r = parse(msg)
    assert r.ok and r.style == "tool_calls"
    assert r.calls[0].to_dict() == {"app": "Cainiao_Guoguo", "function": "createShipment",
                                    "arguments": {"weight": 2.5}}


def test_native_message_without_tool_calls_falls_back_to_content():
    r = parse({"content": "Shop:[buy(n=1)]", "tool_calls": []})
    assert r.ok and r.calls[0].function == "buy"


def test_native_tool_call_with_broken_arguments_is_a_typed_failure():
    r = parse({"tool_calls": [{"function": {"name": "a__b", "arguments": "{not json"}}]})
    assert not r.ok and r.error.startswith("format")


def test_closing_think_tag_inside_a_string_value_does_not_cut_the_answer():
    # trap: templates that put <think> in the prompt leave a bare </think>; a value may contain one too
    r = parse("Shop:[note(text='</think>')]")
    assert r.ok and r.calls[0].arguments == {"text": "</think>"}


def test_bare_closing_think_tag_from_prompt_template_is_stripped():
    r = parse("the user wants tea, so QuickBuy</think>QuickBuy:[search(keyword='tea')]")
    assert r.ok and r.calls[0].app == "QuickBuy"


def test_unknown_style_is_a_typed_failure_not_an_exception():
    assert parse("x", style="yaml").error.startswith("input:bad_style")


def test_non_text_input_is_a_typed_failure():
    assert parse(12345).error.startswith("input:not_text")
    assert parse(None).error.startswith("input:not_text")


def test_backticks_inside_a_string_value_do_not_split_the_code_fence():
    # trap: found by hypothesis — a value containing ``` cut the fence and a fragment parsed
    r = parse("```\nA:[f(x={'```': None}), g()]\n```")
    assert r.ok and [c.function for c in r.calls] == ["f", "g"] and r.calls[0].arguments == {"x": {"```": None}}


def test_single_line_fence_still_reads():
    r = parse('```json {"APP": "Keep", "API": "log", "params": {}} ```')
    assert r.ok and r.calls[0].app == "Keep"
