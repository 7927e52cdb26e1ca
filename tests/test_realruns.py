"""pfc.run.realruns: the plan is the authority over its run directories, and the report scores them."""
import json

from pfc.data.build import build_tracebench
from pfc.run import realruns


def test_a_changed_sample_moves_the_old_run_aside_instead_of_skipping_it(tmp_path):
    # trap: the runner (rightly) refuses to resume a run made from another sample; realruns once
    # recorded that refusal as "unsupported" and reported a stale, smaller run
    bench = tmp_path / "tb"
    build_tracebench(bench, users=1, seed=2, records=150, queries=8, progress=False)
    ids = sorted(json.loads(x)["id"] for x in (bench / "examples.jsonl").read_text().splitlines())
    plan = {"name": "t", "benchmark": "tracebench", "examples": bench, "strategy": "zero_shot", "history": "full",
            "k": 10}
    realruns.execute([{**plan, "ids": ids[:3]}], "", {}, backends=("history-prior",), progress=False,
                     cache_path=tmp_path / "c.sqlite")
    realruns.execute([{**plan, "ids": ids[2:6]}], "", {}, backends=("history-prior",), progress=False,
                     cache_path=tmp_path / "c.sqlite")
    out = realruns.run_dir("t", "history-prior")
    got = sorted(json.loads(x)["id"] for x in (out / "predictions.jsonl").read_text().splitlines())
    assert got == ids[2:6]
    assert not (out / "unsupported.txt").exists()
    old = list((out / "attic").rglob("predictions.jsonl"))
    assert len(old) == 1 and len(old[0].read_text().splitlines()) == 3


def test_tracebench_sample_covers_levels_and_bins_and_is_stable_across_sizes():
    # the first n ids of a larger sample are the n-sample's ids: growing a plan reuses cached answers
    from pfc.schema import Example
    exs = [Example(id=f"e{i:03d}", benchmark="tracebench", gold=None, query="q", meta={"vagueness": lv, "history_length": h})
           for i, (lv, h) in enumerate((lv, h) for lv in ("most_clear", "relevant_clear", "relevant_vague", "most_vague")
                                      for h in (120, 250, 350, 450) for _ in range(3))]
    four = realruns.tracebench_sample(exs, 4, seed=0)
    by_id = {e.id: e for e in exs}
    assert {by_id[i].meta["vagueness"] for i in four} == {"most_clear", "relevant_clear", "relevant_vague", "most_vague"}
    assert {by_id[i].meta["history_length"] // 100 for i in four} == {1, 2, 3, 4}
    assert set(four) <= set(realruns.tracebench_sample(exs, 8, seed=0))
