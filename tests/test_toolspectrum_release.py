"""The real ToolSpectrum release, read in place: oracle = 1.0 through the CLI; non-answers = 0."""
import json
import subprocess
import sys

import pytest

from pfc import paths
from pfc.benchmarks import toolspectrum as ts
from pfc.render import render_json

SUBSETS = {"persona": 449, "environment": 220, "persona_environment": 333}


@pytest.mark.parametrize("subset, n", SUBSETS.items())
def test_release_counts(release, subset, n):
    examples, tools = ts.load(release / "data" / f"dataset_{subset}.json")
    assert len(examples) == n and len({t.app for t in tools}) == 23 and len(tools) == 42
    assert all(t.domain for t in tools)


def test_refusals_in_the_both_subset(release):
    examples, _ = ts.load(release / "data" / "dataset_persona_environment.json")
    assert sum(e.is_refusal for e in examples) == 240


@pytest.mark.parametrize("subset", SUBSETS)
def test_oracle_scores_one_at_all_levels_through_the_cli(release, subset, tmp_path):
    data = release / "data" / f"dataset_{subset}.json"
    examples, _ = ts.load(data)
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"index": i, "output": render_json(e.gold)}) + "\n"
                            for i, e in enumerate(examples)))
    tools = release / "api" / ("API_description.json" if subset == "persona_environment"
                               else f"API_description_{subset}.json")
    p = subprocess.run([sys.executable, "-m", "pfc", "score", "--benchmark", "toolspectrum",
                        "--examples", str(data), "--tools", str(tools), "--predictions", str(pred),
                        "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=paths.ROOT)
    assert p.returncode == 0, p.stderr
    m = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert (m["APP"], m["API"], m["RP"], m["OP"]) == (1.0, 1.0, 1.0, 1.0)


def test_non_answers_score_zero_at_app_on_profile(release):
    from pfc.eval.scoring import score
    examples, tools = ts.load(release / "data" / "dataset_persona.json")
    rep = score(examples, {e.id: "I am not sure." for e in examples}, "toolspectrum", tools)
    assert rep.metrics["APP"] == 0.0
