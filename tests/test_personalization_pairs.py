"""Paired personalization of two sides (``pfc.report.reference.personalization``): each side a model folder's run on the
originals and its run on their swap-user variants, compared on the variants all four runs answered."""
import shutil

import pytest

from pfc.data.counterfactual import build_variants
from pfc.plans.reference import SWAP_RUN, folder
from pfc.report.reference import personalization as PP
from pfc.report.reference import pairs as RP
from pfc.run.config import RunConfig
from pfc.run.runner import execute

A = ("qwen2.5-coder-1.5b", "openvino")  # side A answers with history-prior: it reads the (swapped) history
B = ("qwen2.5-coder-0.5b", "openvino")  # side B with no-history: it never sees a history, so it never moves


@pytest.fixture(scope="module")
def built(tiny_tracebench, tmp_path_factory):
    """A reference-run root with both sides' two runs, and the variants they answered."""
    tmp = tmp_path_factory.mktemp("personalization-pairs")
    var = tmp / "tracebench_swap-user"
    build_variants(tiny_tracebench, var, "swap-user", seed=0)
    root = tmp / "reference_runs"
    for side, backend in ((A, "history-prior"), (B, "no-history")):
        for examples, run in ((tiny_tracebench, PP.ORIGINALS_RUN), (var, SWAP_RUN)):
            execute(RunConfig("tracebench", examples, backend, root / folder(*side) / run,
                              cache_path=tmp / "cache.sqlite", progress=False))
    return root, var


@pytest.fixture
def root(built, tmp_path):
    """A private copy of the built root (a test may cut or remove its runs)."""
    shutil.copytree(built[0], tmp_path / "reference_runs")
    return tmp_path / "reference_runs"


def _metric(entry, key):
    return next(m for m in entry["metrics"] if m["key"] == key)


def test_a_context_blind_side_follows_nothing_so_the_difference_is_the_readers_own_value(root, built,
                                                                                          tiny_tracebench):
    from pfc.report.counterfactual import evaluate_pairs
    entry = PP.pair(root, A, B, n_boot=200)
    long, _, _ = evaluate_pairs("tracebench", tiny_tracebench, built[1],  # notebook 08's path, one run pair at a time
                                {"hp": tuple(root / folder(*A) / r for r in (PP.ORIGINALS_RUN, SWAP_RUN))},
                                n_boot=0)
    alone = long.set_index("metric")["value"]
    m = _metric(entry, "context_following")
    assert m["b"] == 0 and alone["context_following"] > 0
    assert m["a"] == pytest.approx(alone["context_following"], abs=1e-6)
    assert m["diff"] == pytest.approx(m["a"], abs=1e-6) and m["clusters"] == 2  # the tiny build's two users
    assert not entry["partial"] and entry["n"] == entry["planned"]


def test_both_sides_are_scored_on_the_variants_all_four_runs_answered(root):
    pred = root / folder(*B) / SWAP_RUN / "predictions.jsonl"
    pred.write_text("".join(pred.read_text().splitlines(keepends=True)[:3]))
    entry = PP.pair(root, A, B, n_boot=50)
    assert entry["n"] == 3 and entry["partial"] and entry["planned"] > 3
    assert _metric(entry, "sensitivity")["b"] == 0  # no-history answers a variant as it answered its original


def test_a_side_without_its_run_on_the_originals_is_pending_and_says_how_to_make_it(root):
    shutil.rmtree(root / folder(*B) / PP.ORIGINALS_RUN)
    entry = PP.pair(root, A, B)
    assert entry["pending"] and "metrics" not in entry
    line = RP._table(entry)[0]
    assert "pending (no rows in all four runs yet" in line
    assert ("python -m pfc.plans.reference --model qwen2.5-coder-0.5b --backend openvino --only tracebench-last_k"
            in line)


def test_sides_on_other_builds_of_the_variants_are_not_compared(root):
    import json
    f = root / folder(*B) / SWAP_RUN / "run.json"
    rec = json.loads(f.read_text())
    rec["identity"]["examples_sha256"] = "0" * 64
    f.write_text(json.dumps(rec))
    entry = PP.pair(root, A, B)
    assert entry.get("other_data") and "metrics" not in entry


def test_the_planned_sides_are_the_model_pair_then_the_engine_pair():
    assert PP.sides() == [(("qwen2.5-coder-1.5b", "openvino"), ("qwen2.5-coder-0.5b", "openvino")),
                          (("qwen2.5-coder-0.5b", "openvino"), ("qwen2.5-coder-0.5b", "hf"))]
