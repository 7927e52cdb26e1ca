"""Real model outputs as golden parse cases (tests/golden/real_outputs.json): everything a person
reads as one call parses to that call (expected calls read off each output by a person); the rest
are typed failures. Each case names its source run and example."""
import pytest

from golden_cases import load_golden
from pfc.eval.parsing import parse

CASES = load_golden("real_outputs.json")["cases"]


def test_the_cases_carry_their_source():
    assert CASES and all(c["source"] and c["trap"] for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["trap"] for c in CASES])
def test_real_output_parses_to_what_a_person_reads(case):
    r = parse(case["input"], case.get("style", "auto"))
    assert r.ok == case["ok"], r.error
    if case["ok"]:
        assert [c.to_dict() for c in r.calls] == case["calls"]
    else:
        assert r.error.startswith(case["error"]) and r.calls == []


QWEN15 = [c for c in CASES if c["source"].startswith("real: qwen2.5-coder-1.5b")]


@pytest.mark.parametrize("case", QWEN15, ids=[c["trap"] for c in QWEN15])
def test_the_1_5b_fenced_answer_fails_strict_tracebench_format_as_other_content(case):
    """Strict mode (TRACEBench App. C.1's letter) takes only the bare template: the fence is other content."""
    from pfc.eval.strict import exact_template
    assert QWEN15 and exact_template(case["input"], "tracebench") == "format:not_exact_template: not one JSON object"
