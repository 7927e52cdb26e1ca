"""``pfc.eval.action.classify`` (issue 64): any reply -> call | ask | cannot | invalid, on golden cases
(tests/golden/ask_actions.json, each with its source) and on hostile input; it never raises, never runs a reply."""
import pytest

from golden_cases import load_golden
from pfc.eval.action import KINDS, classify

CASES = load_golden("ask_actions.json")["cases"]


def test_the_cases_carry_their_source_and_cover_every_action():
    assert CASES and all(c["source"] and c["trap"] for c in CASES)
    assert {c["kind"] for c in CASES} == set(KINDS)


@pytest.mark.parametrize("case", CASES, ids=[c["trap"] for c in CASES])
def test_golden_reply_reads_as_the_action_a_person_reads(case):
    a = classify(case["input"])
    assert (a.kind, a.question) == (case["kind"], case["question"])
    assert (a.reason is not None) == (a.kind == "invalid")


@pytest.mark.parametrize("reply", [None, 5, {"content": None}, "\x00", "{" * 5000, "?" * 10, "x" * 3_000_000,
                                   {"content": "", "tool_calls": "not a list"}])
def test_hostile_replies_are_typed_never_raised(reply):
    assert classify(reply).kind in KINDS


def test_native_tool_calls_message_reads_its_question():
    msg = {"role": "assistant", "content": "",
           "tool_calls": [{"function": {"name": "ask_user", "arguments": '{"question": "Which hotel?"}'}}]}
    assert (classify(msg).kind, classify(msg).question) == ("ask", "Which hotel?")
