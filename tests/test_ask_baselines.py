"""Issue 64's baselines with known answers (``pfc.run.backends.ask_baselines``) on the tiny TRACEBench's
ask-or-infer sets (``pfc.plans.ask.study_sets``: the pipeline's sets, built small): always-ask over-asks on every call
item and never guesses, always-call the reverse and is history-prior; the threshold policy's curve is monotone
in τ and its run at τ is the curve's point; ``pfc personalize`` and ``pfc report`` show the action metrics."""
import json
import math
import shutil

import pytest

from pfc.cli import main
from pfc.data.counterfactual_ask import supports
from pfc.errors import UserError
from pfc.plans import ask as A
from pfc.report import ask_study as S
from pfc.run.backends import get
from pfc.run.backends.ask_baselines import BY_POLICY, TAU, WINDOW
from pfc.run.config import RunConfig
from pfc.run.runner import execute


@pytest.fixture(scope="module")
def made(tiny_tracebench, tmp_path_factory):
    root = tmp_path_factory.mktemp("ask-baselines")
    bench = root / "tracebench"
    shutil.copytree(tiny_tracebench, bench)
    ids = A.study_sets(bench, n=12)

    def run(examples, backend, out, run_ids, variant="ask"):
        execute(RunConfig("tracebench", examples, backend, out, ids=run_ids and tuple(run_ids), progress=False,
                          cache_path=root / "c.sqlite", prompt_variant=variant))
    runs = A.run_baselines(bench, ids, root / "runs", run)
    run(bench, "history-prior", root / "runs" / "hp", ids, "all")
    return bench, ids, runs, root


def _metrics(made, name):
    return {r["metric"]: r["value"] for r in S.ask.table(S.pooled(made[2][name].values()), n_boot=0)}


def test_always_ask_and_always_call_have_their_known_values(made):
    m = {p: _metrics(made, BY_POLICY[p]) for p in ("ask", "call")}
    assert (m["ask"]["over_ask"], m["ask"]["guess_rate"], m["ask"]["tool_hallucination"]) == (1.0, 0.0, 0.0)
    assert (m["call"]["over_ask"], m["call"]["guess_rate"], m["call"]["tool_hallucination"]) == (0.0, 1.0, 1.0)
    n, c = len(made[1]), _n_cannot(made)  # the originals, as many ask items, c cannot items
    assert m["ask"]["action_accuracy"] == pytest.approx(n / (2 * n + c))  # right on the ask items only
    assert m["call"]["action_accuracy"] == pytest.approx(n / (2 * n + c))  # right on the call items only
    assert m["call"]["discrimination"] == 0.0 and m["ask"]["discrimination"] == 0.0  # neither tells them apart


def _n_cannot(made):
    return sum(1 for _ in open(made[2]["always-call"]["cannot"] / "predictions.jsonl"))


def test_always_call_is_history_prior(made):
    root = made[3]
    read = lambda d: {json.loads(x)["id"]: json.loads(x)["output"] for x in open(d / "predictions.jsonl")}  # noqa: E731
    assert read(made[2]["always-call"]["originals"]) == read(root / "runs" / "hp")


def test_the_threshold_curve_is_monotone_and_its_run_is_a_point_on_it(made):
    bench, _, runs, _ = made
    ev = S.evidence(runs["always-call"].values())
    cur = S.curve(S.pooled(runs["always-call"].values()), ev, n_boot=0)
    cov = list(cur[("value", "call_coverage")])
    assert cov[0] == 1.0 and all(a >= b for a, b in zip(cov, cov[1:])) and len(cov) >= 3
    point = _metrics(made, "ask-threshold")
    first = S.pooled(runs["ask-threshold"].values())
    called = set(first.loc[first["pred_action"] == "call", "id"])
    assert called == {i for i in first["id"] if ev[i] >= TAU}  # the run asks exactly below τ
    at = cur.loc[TAU]
    got = S.ask.table(first, n_boot=0, names=S.ask.CURVE_METRICS)
    assert {r["metric"]: r["value"] for r in got} == pytest.approx(
        {"call_coverage": at[("value", "call_coverage")], "call_risk": at[("value", "call_risk")]})
    assert point["over_ask"] <= 1.0


def test_evidence_counts_supporting_records_in_the_window(made):
    bench, ids, _, _ = made
    from pfc import benchmarks
    from pfc.plans.ask import set_dir
    from pfc.plans.evidence import EVIDENCE_WINDOW
    assert WINDOW == EVIDENCE_WINDOW
    exs, tools = benchmarks.get("tracebench").scoring.load(set_dir(bench, "ask"), None)
    be = get("always-call", tools=tools)
    for ex in exs:
        n, slot = be.evidence(ex)
        call = be.predict(ex)[0]
        assert (n, slot) == be.evidence(ex, call)  # the run's call gives the same evidence
        last = ex.history[len(ex.history) - WINDOW:]
        if slot is not None and slot in call.arguments:  # counted by hand: the shown records supporting the value
            assert n == sum(supports(h, call.function, slot, [call.arguments[slot]]) for h in last)
        assert slot is not None or math.isinf(n)


def test_a_bad_tau_is_one_line():
    with pytest.raises(UserError, match="backend_options.tau"):
        get("ask-threshold", tau="high")


def test_personalize_and_report_show_the_action_metrics(made, capsys, tmp_path):
    runs = made[2]["always-ask"]
    code = main(["personalize", str(runs["originals"]), str(runs["ask"]), "--n-boot", "50"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    by = {r["metric"]: r["value"] for r in out["action"]}
    assert by["over_ask"] == 1.0 and by["guess_rate"] == 0.0 and by["discrimination"] == 0.0
    assert main(["report", *(str(d) for d in runs.values()), "--out", str(tmp_path / "rep"), "--n-boot", "20"]) == 0
    capsys.readouterr()
    table = json.loads((tmp_path / "rep" / "tracebench_ask_or_infer.json").read_text())
    pooled = [r for r in table["rows"] if r["run"].startswith("pooled") and r["metric"] == "over_ask"]
    assert [r["value"] for r in pooled] == [1.0]
