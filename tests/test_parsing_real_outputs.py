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
