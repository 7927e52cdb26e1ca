"""Hand-computed scoring cases (tests/golden/scoring_cases.json) through the real scorer."""
import json

import pytest

from golden_cases import load_golden
from pfc.benchmarks.ptbench import official as official
from pfc.benchmarks.ptbench import load_official
from pfc.schema import Example, Tool
from pfc.eval.scoring import score
from pfc.eval.taxonomy import provenance_breakdown

CASES = load_golden("scoring_cases.json")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_hand_computed_metrics(case):
    examples = [Example.from_dict(e) for e in case["examples"]]
    tools = [Tool.from_dict(t, "t") for t in case.get("tools", [])]
    rep = score(examples, case["outputs"], case["benchmark"], tools)
    for key, want in case["expected"].items():
        assert rep.metrics[key] == pytest.approx(want, abs=1e-12), key


@pytest.mark.parametrize("case", [c for c in CASES if "expected_error_types" in c], ids=lambda c: c["name"])
def test_hand_labelled_error_types(case):
    examples = [Example.from_dict(e) for e in case["examples"]]
    tools = [Tool.from_dict(t, "t") for t in case.get("tools", [])]
    rep = score(examples, case["outputs"], case["benchmark"], tools)
    got = dict(zip(rep.per_example["id"], rep.per_example["error_type"]))
    assert got == case["expected_error_types"]


def test_unparsable_and_missing_outputs_stay_as_failure_rows():
    case = CASES[0]
    examples = [Example.from_dict(e) for e in case["examples"]]
    outputs = {k: v for k, v in case["outputs"].items() if k != "T1"}  # T1 has no prediction at all
    rep = score(examples, outputs, "tracebench")
    assert list(rep.per_example["id"]) == ["T1", "T2", "T3", "T4"]
    row = rep.per_example.set_index("id").loc["T1"]
    assert row["format"] == 0 and row["error_type"] == "input:missing_prediction"


def test_provenance_breakdown_counts_wrong_and_missing_values_by_source():
    # hand count on the TRACEBench case: T3 address (recent_context) wrong; T4 destination (query) missing
    case = CASES[0]
    rep = score([Example.from_dict(e) for e in case["examples"]], case["outputs"], "tracebench")
    table = provenance_breakdown(rep.errors).set_index("source")
    assert table.loc["recent_context", "wrong"] == 1 and table.loc["query", "missing"] == 1
    assert table["total"].sum() == 2


def test_official_compat_on_hand_computed_case(tmp_path):
    case = load_golden("ptbench_official_hand.json")
    (tmp_path / "data.json").write_text(json.dumps(case["data"]))
    examples = load_official(tmp_path / "data.json")
    outputs = {e.id: p for e, p in zip(examples, case["predict"])}
    rep = score(examples, outputs, "ptbench", compat="official")
    for key, want in case["expected"].items():
        assert rep.metrics[key] == pytest.approx(want, abs=1e-12), key


def test_official_combine_weights_splits_by_sample_count():
    # hand: (0.5*3 + 1.0*1)/4 = 0.625; counts add
    un = {k: 0.5 for k in official.ACC_KEYS} | {k: 2.0 for k in official.ERROR_KEYS}
    tr = {k: 1.0 for k in official.ACC_KEYS} | {k: 1.0 for k in official.ERROR_KEYS}
    out = official.combine(un, tr, 3, 1)
    assert out["overall"] == 0.625 and out["value_error"] == 3.0


def test_checker_returns_valid_error_type_and_details():
    from pfc.eval.scoring import check
    case = CASES[0]
    ex = {e["id"]: Example.from_dict(e) for e in case["examples"]}
    assert check(ex["T1"], case["outputs"]["T1"], "tracebench")[:2] == (True, None)
    valid, etype, details = check(ex["T3"], case["outputs"]["T3"], "tracebench")
    assert (valid, etype) == (False, "value:wrong")
    wrong = [a for a in details["arguments"] if a["status"] == "wrong"]
    assert wrong == [{"function": "order_food", "argument": "address", "status": "wrong", "source": "recent_context"}]
    # trap: garbage must come back as a typed failure, not an exception
    assert check(ex["T1"], "\x00" * 10, "tracebench")[:2] == (False, "input:control_characters")
