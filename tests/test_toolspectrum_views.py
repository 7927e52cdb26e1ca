"""ToolSpectrum statistics, data quality and F1 behaviour on the real release.

Golden values come from an independent route: a direct scan of the raw release JSON here,
not the adapter under test.
"""
import json

import pytest

from pfc.benchmarks import toolspectrum as ts
from pfc.benchmarks.toolspectrum import views as R
from pfc.render import render_json
from pfc.schema import Call
from pfc.eval.scoring import score

FILES = {"profile": ("dataset_persona", "API_description_persona"),
         "environment": ("dataset_environment", "API_description_environment"),
         "both": ("dataset_persona_environment", "API_description")}


def _raw(release, subset):
    d, a = FILES[subset]
    return (json.loads((release / "data" / f"{d}.json").read_text()),
            json.loads((release / "api" / f"{a}.json").read_text()))


@pytest.mark.parametrize("subset", FILES)
def test_table2_statistics_match_a_direct_scan(release, subset):
    records, _ = _raw(release, subset)
    calls = [r["toolCall"] for r in records if r["toolCall"]]
    examples, _ = ts.load(release / "data" / f"{FILES[subset][0]}.json")
    st = R.stats(examples)
    assert st["samples"] == len(records) == {"profile": 449, "environment": 220, "both": 333}[subset]
    assert st["refusals"] == len(records) - len(calls)
    assert st["apps"] == len({c["APP"] for c in calls})
    assert st["apis"] == len({(c["APP"], c["API"]) for c in calls})
    assert st["avg_params"] == round(sum(len(c["params"]) for c in calls) / len(calls), 2)


def test_gold_arguments_missing_from_the_api_description_match_a_direct_scan(release):
    records, api = _raw(release, "profile")
    names = {(app, fn): {k.split(" (")[0] for grp in spec.values() if isinstance(grp, dict) for k in grp}
             for app, a in api.items() for fn, spec in a["APIs"].items()}
    want = sum(1 for r in records if r["toolCall"] for p in r["toolCall"]["params"]
               if p not in names.get((r["toolCall"]["APP"], r["toolCall"]["API"]), set()))
    examples, tools = ts.load(release / "data" / "dataset_persona.json")
    counts, rows = R.quality_report(examples, tools)
    assert counts.loc["gold argument not in the API description", "profile"] == want > 0
    missing = set(rows.loc[rows["check"] == "gold argument not in the API description", "argument"])
    assert any(a.endswith(".productId") for a in missing) and any(a.endswith(".pageSize") for a in missing)


def test_booleans_stored_as_strings_are_reported_as_type_mismatches(release):
    examples, tools = ts.load(release / "data" / "dataset_environment.json")
    _, rows = R.quality_report(examples, tools)
    mism = rows[rows["check"] == "type mismatch"]
    assert len(mism) > 0 and set(mism["value"]) <= {'"True"', '"False"', '"true"', '"false"'} | set(mism["value"])
    assert (mism["detail"] == "declared boolean").any()


@pytest.mark.parametrize("subset", FILES)
def test_dropping_one_optional_argument_lowers_only_op(release, subset):
    examples, tools = ts.load(release / "data" / f"{FILES[subset][0]}.json")
    outputs = {}
    for e in examples:
        if e.gold is None:
            outputs[e.id] = "null"
            continue
        g = e.gold[0]
        optional = [a for a in g.arguments if not g.role(a).required]
        args = {a: v for a, v in g.arguments.items() if not optional or a != optional[0]}
        outputs[e.id] = render_json([Call(g.app, g.function, args)])
    m = score(examples, outputs, "toolspectrum", tools).metrics
    assert (m["APP"], m["API"], m["RP"]) == (1.0, 1.0, 1.0) and m["OP"] < 1.0


def test_table_layouts_keep_paper_and_ours_apart(release):
    examples, tools = ts.load(release)
    per = {k: score(examples, v, "toolspectrum", tools).per_example for k, v in R.reference_runs(examples).items()}
    ours, paper = R.table3(per), R.paper_table3()
    assert ours.index.name == "model (ours)" and paper.index.name == "model (paper)"
    assert list(ours.columns) == list(paper.columns) and len(paper) == 19
    assert ours.loc["reference: oracle"].eq(1.0).all()
    assert R.paper_results()["label"].startswith("PUBLISHED BY THE PAPER")


def test_refusal_metrics_on_the_both_subset(release):
    # hand: always-refuse refuses all 240 gold refusals (recall 1) and 93 answerable ones (precision 240/333)
    examples, tools = ts.load(release / "data" / "dataset_persona_environment.json")
    m = score(examples, {e.id: "null" for e in examples}, "toolspectrum", tools).metrics
    assert m["refusal_recall"] == 1.0 and m["refusal_precision"] == pytest.approx(240 / 333)
