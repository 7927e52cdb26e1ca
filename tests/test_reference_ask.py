"""Issue 64's real-model ask runs in the reference report (``pfc.report.reference.ask``): each model folder's
pooled entry of ``metrics.json``, the ask-model and ask-prompt pairs of ``paired.{json,md}``, and the follow-up
sets the report reads rebuilt from the committed first turns.

The "models" are the ask baselines (``pfc.run.backends.ask_baselines``), whose values are known by construction:
``always-ask`` asks on every item (over-ask 1, guess rate 0; its follow-up turn asks again, so no item ends right
within two turns and every item costs two questions), ``always-call`` never asks (over-ask 0, guess rate 1).
The plan's own ask runs (TRACEBench's ``plans.ask_runs``) are made on the tiny TRACEBench in a temporary root laid
out as the committed one: ``<model>-openvino/ask/…``."""
import shutil
from dataclasses import replace

import pytest

from pfc import benchmarks
from pfc.benchmarks.tracebench import plans as TP
from pfc.plans import ask as A
from pfc.plans import executor
from pfc.plans.reference import MODEL_PAIRS, RunConfig, command, record, tracebench_ids
from pfc.report.pipeline.ask import followup_sets
from pfc.report.reference import ask as R
from pfc.report.reference import pairs as P
from pfc.run.runner import execute

BIG, SMALL, ENGINE = MODEL_PAIRS[0]
SIDES = {SMALL: "always-ask", BIG: "always-call"}  # the "models": which baseline answers in each folder


def _make(tmp_path, tiny_tracebench, monkeypatch, sides=SIDES, followup=True):
    tb = tmp_path / "data" / "tracebench"
    tb.mkdir(parents=True)
    for f in ("examples.jsonl", "tools.json"):
        (tb / f).write_bytes((tiny_tracebench / f).read_bytes())
    monkeypatch.setattr(A, "ORIGINALS_N", 6)
    monkeypatch.setattr(A, "CANNOT_N", 3)
    root = tmp_path / "root"
    for model, backend in sides.items():
        steps = _steps(tb, root, model, backend)
        for name in TP.FIRST_TURNS:
            p = steps[name]
            if p.build is not None and not (p.config.examples / "perturb.json").exists():
                p.build()
            execute(p.config)
        execute(replace(steps[TP.STANDARD_RUN].config, backend="always-call"))  # the standard prompt never asks
        fu = steps[TP.FOLLOWUP_RUN]
        if followup and backend == "always-ask":  # an answerer that never asks has no second turn to make
            fu.build()
            known = {e.id for e in benchmarks.get("tracebench").scoring.load(fu.config.examples, None)[0]}
            execute(replace(fu.config, ids=tuple(i for i in fu.config.ids if i in known)))
    return root


def _steps(tb, root, model, backend) -> dict:
    """The plan's ask steps for one folder, by name."""
    exs, tools = benchmarks.get("tracebench").scoring.load(tb, None)
    like = RunConfig("tracebench", tb, backend, root / f"{model}-{ENGINE}" / "tracebench-last_k", model=model,
                     history="last_k", k=10, progress=False, use_cache=False)
    steps = {p.name: p for p in TP.ask_runs(tb, exs, tools, tracebench_ids(exs, per_cell=2), like, 20)}
    return {n: replace(p, config=replace(p.config, plan=record(n, model, ENGINE))) for n, p in steps.items()}


@pytest.fixture(scope="module")
def both(tmp_path_factory, tiny_tracebench):
    mp = pytest.MonkeyPatch()
    try:
        yield _make(tmp_path_factory.mktemp("both"), tiny_tracebench, mp)
    finally:
        mp.undo()


def _entry(root, model):
    return R.entries(root, n_boot=50)[f"{model}-{ENGINE}/ask"]


def test_an_always_ask_answerer_over_asks_every_call_item_and_never_guesses(both):
    m = _entry(both, SMALL)["action"]
    assert m["over_ask"]["value"] == 1.0 and m["guess_rate"]["value"] == 0.0
    assert m["over_ask"]["higher_is_better"] is False and m["over_ask"]["items"] == 6  # the six originals


def test_an_always_call_answerer_never_asks_and_guesses_on_every_ask_item(both):
    m = _entry(both, BIG)["action"]
    assert m["over_ask"]["value"] == 0.0 and m["guess_rate"]["value"] == 1.0 and m["guess_rate"]["items"] == 6


def test_an_always_ask_answerer_asks_again_in_the_follow_up_so_nothing_ends_right(both):
    m = _entry(both, SMALL)["action"]
    assert m["two_turn_success"]["value"] == 0.0 and m["questions_per_item"]["value"] == 2.0


def test_the_entry_counts_each_sets_rows_and_is_complete(both):
    e = _entry(both, SMALL)
    assert (e["runs"]["originals"]["n"], e["runs"]["ask"]["n"], e["runs"]["cannot"]["n"]) == (6, 6, 3)
    assert e["runs"]["followup"]["n"] == 15 and not e["partial"] and e["missing"] == []  # every item was asked
    assert e["n"] == 6 + 6 + 3 + 15


def test_a_folder_without_follow_up_turns_is_partial_and_names_the_run(tmp_path, tiny_tracebench, monkeypatch):
    root = _make(tmp_path, tiny_tracebench, monkeypatch, sides={SMALL: "always-ask"}, followup=False)
    e = R.entries(root, n_boot=0)
    assert list(e) == [f"{SMALL}-{ENGINE}/ask"]  # no entry for the model with no run
    one = e[f"{SMALL}-{ENGINE}/ask"]
    assert one["partial"] and one["missing"] == [f"{SMALL}-{ENGINE}/{TP.FOLLOWUP_RUN}"]
    assert one["action"]["two_turn_success"]["value"] is None  # no follow-up: NaN, never 0


def test_an_answerer_that_never_asks_owes_no_follow_up_turn(both):
    e = _entry(both, BIG)
    assert e["runs"]["followup"] == {"run": f"{BIG}-{ENGINE}/{TP.FOLLOWUP_RUN}", "n": 0, "planned": 0}
    assert not e["partial"] and e["missing"] == [] and e["n"] == 6 + 6 + 3
    assert e["action"]["questions_per_item"]["value"] == 0.0 and e["action"]["questions_per_item"]["items"] == 15


def test_the_plan_says_and_skips_a_follow_up_set_without_questions(tmp_path, tiny_tracebench, monkeypatch):
    root = _make(tmp_path, tiny_tracebench, monkeypatch, sides={BIG: "always-call"}, followup=False)
    said = []
    usage = executor.run(_steps(tmp_path / "data" / "tracebench", root, BIG, "always-call")[TP.FOLLOWUP_RUN],
                         label="reference", tell=said.append)
    assert usage["written"] == 0 and usage["failures"] == 0 and not (root / f"{BIG}-{ENGINE}" / TP.FOLLOWUP_RUN).exists()
    assert said == [f"[reference] {TP.FOLLOWUP_RUN}: 0 examples: {BIG}-always-call holds none of its 15 planned ids; "
                    "nothing to run"]


def test_the_model_pair_is_pending_while_a_model_has_no_run_and_names_its_commands(tmp_path, tiny_tracebench,
                                                                                    monkeypatch):
    root = _make(tmp_path, tiny_tracebench, monkeypatch, sides={SMALL: "always-ask"}, followup=False)
    model = next(p for p in R.pairs(root, n_boot=0) if p["question"] == "ask-model")
    assert model["pending"] and command(TP.ORIGINALS_RUN, BIG, ENGINE) in model["commands"]
    md = P.markdown({"pairs": [model], P.LAYOUTS: {"pending": True}})
    assert "pending (a side has no rows yet" in md and f"`{command(TP.CANNOT_RUN, BIG, ENGINE)}`" in md


def test_the_model_pair_names_the_resume_command_of_an_unfinished_run(tmp_path, tiny_tracebench, monkeypatch):
    root = _make(tmp_path, tiny_tracebench, monkeypatch)
    run = root / f"{BIG}-{ENGINE}" / TP.ASK_RUN
    preds = run / "predictions.jsonl"
    preds.write_text("".join(preds.read_text().splitlines(keepends=True)[:2]))  # stopped after 2 of its 6 items
    (run / "usage.json").unlink(missing_ok=True)
    model = next(p for p in R.pairs(root, n_boot=0) if p["question"] == "ask-model")
    assert not model["pending"] and model["partial"]
    # the run to resume; its follow-up turns are owed until the first turns show whether it asked
    assert model["commands"] == [command(TP.ASK_RUN, BIG, ENGINE), command(TP.FOLLOWUP_RUN, BIG, ENGINE)]


def test_the_model_pair_is_the_larger_model_minus_the_smaller_on_the_pooled_sets(both):
    model = next(p for p in R.pairs(both, n_boot=50) if p["question"] == "ask-model")
    m = {r["key"]: r for r in model["metrics"]}
    assert not model["pending"] and (model["a_model"], model["b_model"]) == (BIG, SMALL)
    assert not model["partial"] and model["commands"] == []  # it never asked: no follow-up turn is due
    assert model["n"] == 6 + 6 + 3  # the first turns both answered
    assert (m["over_ask"]["a"], m["over_ask"]["b"], m["over_ask"]["diff"]) == (0.0, 1.0, -1.0)
    assert (m["guess_rate"]["a"], m["guess_rate"]["b"], m["guess_rate"]["diff"]) == (1.0, 0.0, 1.0)


def test_the_prompt_pair_is_ask_allowed_minus_standard_on_the_same_originals(both):
    prompt = next(p for p in R.pairs(both, n_boot=50) if p["question"] == "ask-prompt" and SMALL in p["a"])
    m = {r["key"]: r for r in prompt["metrics"]}
    assert prompt["n"] == 6 and prompt["a"].endswith(TP.ORIGINALS_RUN) and prompt["b"].endswith(TP.STANDARD_RUN)
    assert (m["over_ask"]["a"], m["over_ask"]["b"]) == (1.0, 0.0)
    assert m["overall"]["a"] == 0.0  # a question on a call item is never the right call


def test_paired_markdown_shows_both_ask_sections(both):
    md = P.markdown({"pairs": R.pairs(both, n_boot=50), P.LAYOUTS: {"pending": True}})
    assert P.TITLES["ask-model"] in md and P.TITLES["ask-prompt"] in md
    assert f"`{BIG}-{ENGINE}/ask` ({BIG}) − `{SMALL}-{ENGINE}/ask` ({SMALL}), n = 15 paired" in md


def test_the_follow_up_set_is_rebuilt_from_the_committed_first_turns_byte_for_byte(both):
    made = followup_sets(both)
    assert len(made) == 1  # the one answerer that asked
    before = {d: (d / "examples.jsonl").read_bytes() for d in made}
    for d in made:
        shutil.rmtree(d)
    assert followup_sets(both) == made and all((d / "examples.jsonl").read_bytes() == before[d] for d in made)
