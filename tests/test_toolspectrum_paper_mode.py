"""ToolSpectrum paper-compatible F1 (no refusal item; RP/OP over gold-call samples) beside ours."""
import json

import pytest

from pfc.errors import UserError
from pfc import paths
from pfc.benchmarks import toolspectrum as ts
from pfc.benchmarks.toolspectrum.views import reference_runs
from pfc.schema import Example, Tool
from pfc.eval.scoring import score


def _five_example_case():
    cases = json.loads((paths.GOLDEN / "scoring_cases.json").read_text())
    return next(c for c in cases if c["name"] == "toolspectrum_f1_five_examples")


def test_paper_mode_on_the_five_hand_scored_examples():
    # Hand computation (the case's own source describes A-E). Paper mode drops the refusal item:
    # A right: APP tp1 API tp1 RP tp2 OP tp1. B wrong app: APP fp1 fn1, API tp1, RP tp1 fp1 fn1, OP fp1 fn1.
    # C gold null, a call: APP fp1, API fp1, nothing at RP/OP (not a gold-call sample).
    # D gold null, null: nothing (trap: ours counts a TP here). E unparsable: fn1 at every level.
    # APP tp1 fp2 fn2 -> 2/6; API tp2 fp1 fn1 -> 4/6; RP tp3 fp1 fn2 -> 6/9; OP tp1 fp1 fn2 -> 2/5.
    c = _five_example_case()
    ex = [Example.from_dict(e) for e in c["examples"]]
    tools = [Tool.from_dict(t, "t") for t in c["tools"]]
    m = score(ex, c["outputs"], "toolspectrum", tools).metrics
    assert m["APP_paper"] == pytest.approx(2 / 6)
    assert m["API_paper"] == pytest.approx(4 / 6)
    assert m["RP_paper"] == pytest.approx(6 / 9)
    assert m["OP_paper"] == pytest.approx(2 / 5)
    # ours is unchanged beside it (the case's expected values)
    for k, want in c["expected"].items():
        assert m[k] == pytest.approx(want)


def test_always_refuse_earns_nothing_in_paper_mode_but_much_in_ours(release):
    # trap: 240 of 333 "both" samples expect a refusal; ours credits each correct refusal
    examples, tools = ts.load(release / "data" / "dataset_persona_environment.json")
    outputs = reference_runs(examples)["reference: always refuse"]
    m = score(examples, outputs, "toolspectrum", tools).metrics
    assert m["APP_paper"] == 0.0 and m["OP_paper"] == 0.0
    assert m["APP"] > 0.6


def test_oracle_is_perfect_in_both_modes(release):
    examples, tools = ts.load(release / "data" / "dataset_persona_environment.json")
    m = score(examples, reference_runs(examples)["reference: oracle"], "toolspectrum", tools).metrics
    for lv in ts.LEVELS:
        assert m[lv] == 1.0 and m[f"{lv}_paper"] == 1.0


def test_unknown_mode_is_refused():
    with pytest.raises(UserError, match="paper"):
        ts.level_counts(None, {}, mode="appbench")
