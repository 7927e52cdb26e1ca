"""Personalization metrics on the default TRACEBench build under swap-user, with the built-in baselines.

Expected by construction: ``history-prior`` reads the history, so its answers move to what the
donor's history implies; ``no-history`` never sees a history and the gold ``oracle`` of the
original example ignores the context, so neither moves; ``query-oracle`` states exactly the
request's values, so it keeps every one of them.
"""
import pytest

from pfc.data.build import build_tracebench
from pfc.data.counterfactual import perturb
from pfc.eval.bootstrap import clustered_intervals
from pfc.eval.metrics import METRICS, aggregate
from pfc.eval.paired import paired_metric
from pfc.render import render
from pfc.report.counterfactual import personalization
from pfc.run.backends.builtin import BUILTINS
from pfc.schema import load_examples, load_tools

pytestmark = pytest.mark.slow  # its fixture builds the default TRACEBench: not in make test-fast


@pytest.fixture(scope="module")
def swapped(tmp_path_factory):
    out = tmp_path_factory.mktemp("tracebench-default")
    build_tracebench(out, progress=False)  # the default build: 10 users, seed 0
    originals = load_examples(out / "examples.jsonl")
    variants, _ = perturb(originals, "swap-user", seed=0)
    tools = load_tools(out / "tools.json")
    answers = {}
    for name in ("history-prior", "no-history", "query-oracle", "oracle"):
        b = BUILTINS[name](tools=tools)
        answers[name] = ({e.id: render(b.predict(e), "tracebench") for e in originals},
                         {v.id: render(b.predict(v), "tracebench") for v in variants})
    return originals, variants, answers


def _metric(swapped, name, metric, same_answer=False):
    originals, variants, answers = swapped
    df = personalization("tracebench", originals, variants, answers[name][0], answers[name][1], same_answer)
    return aggregate(METRICS[metric], df), df


def test_history_prior_follows_the_swapped_context(swapped):
    value, df = _metric(swapped, "history-prior", "context_following")
    lo, _ = clustered_intervals(df, {"cf": "context_following"}, n_boot=500)["cf"]
    assert value > 0.3 and lo > 0.2 and df["follow_total"].sum() > 1000


def test_no_history_never_follows_the_context(swapped):
    value, df = _metric(swapped, "no-history", "context_following")
    assert value == 0.0 and df["follow_total"].sum() > 1000


def test_no_history_answers_never_change_under_swap_user(swapped):
    assert _metric(swapped, "no-history", "sensitivity")[0] == 0.0


def test_the_original_oracle_does_not_follow_the_context(swapped):
    value, df = _metric(swapped, "oracle", "context_following", same_answer=True)
    assert value == 0.0 and df["follow_total"].sum() > 1000


def test_query_oracle_keeps_every_stated_value(swapped):
    value, df = _metric(swapped, "query-oracle", "request_faithfulness")
    assert value == 1.0 and df["faithful_base"].sum() > 3000


def test_paired_interval_is_narrower_than_unpaired_on_two_real_runs(swapped):
    """history-prior vs no-history on the same originals (no per-example base/LoRA answers are committed)."""
    from pfc.eval.scoring import score
    originals, _, answers = swapped
    users = {e.id: e.user_id for e in originals}
    a, b = (score(originals, answers[n][0], "tracebench").per_example for n in ("history-prior", "no-history"))
    a, b = a.assign(user_id=a["id"].map(users)), b.assign(user_id=b["id"].map(users))
    r = paired_metric(a, b, "overall", n_boot=1000)
    assert r["paired_hi"] - r["paired_lo"] < r["unpaired_hi"] - r["unpaired_lo"]
    assert r["mcnemar_p"] < 1e-6 and r["diff"] > 0
