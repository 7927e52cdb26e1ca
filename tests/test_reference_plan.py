"""The reference-run plan (``pfc.run.reference``): which runs, on which examples, with which settings.

Planning only: no model runs here (the runs themselves take hours; their rows are checked by
``tests/test_reference_report.py``)."""
from collections import Counter

from pfc import benchmarks
from pfc.groups import history_bin
from pfc.run import reference as R


def _ids(bench, path):
    return {e.id for e in benchmarks.get(bench).load(path, None)[0]}


def test_tracebench_sample_holds_at_most_its_quota_per_vagueness_and_history_bin(tiny_tracebench):
    exs, _ = benchmarks.get("tracebench").load(tiny_tracebench, None)
    by_id = {e.id: e for e in exs}
    ids = R.tracebench_ids(exs, per_cell=2)
    cells = Counter((by_id[i].meta["vagueness"], history_bin(int(by_id[i].meta["history_length"]))) for i in ids)
    assert ids and max(cells.values()) <= 2 and ids == sorted(ids)
    assert R.tracebench_ids(exs, per_cell=2) == ids  # seeded by a string: the same in every process


def test_each_ptbench_split_has_a_lora_run_on_the_same_data(tiny_tracebench, golden):
    pt = golden / "ptbench_official"
    runs = {r["name"]: r for r in R.plan(tiny_tracebench, pt, None)}
    for split in ("trained", "untrained"):
        base, lora = runs[f"ptbench-{split}"], runs[f"ptbench-{split}-lora"]
        assert lora["examples"] == base["examples"] and lora["ids"] == base["ids"] and lora["layout"] == "paper"
        assert lora["adapter"] == R.ADAPTER and "adapter" not in base
    assert runs["lora-adapter"]["train"] == pt / "train" / "data.json"


def test_layout_ablation_runs_take_a_seeded_subset_of_their_run_under_the_other_layout(tiny_tracebench, golden, release):
    runs = R.with_ablation(R.plan(tiny_tracebench, golden / "ptbench_official", release))
    by = {r["name"]: r for r in runs}
    for base, other in R.LAYOUT_ABLATION.items():
        ab = by[f"layout/{base}-{other}"]
        pool = _ids(by[base]["benchmark"], by[base]["examples"])
        assert ab["layout"] == other != by[base]["layout"] and ab["examples"] == by[base]["examples"]
        assert set(ab["ids"]) <= pool and len(ab["ids"]) == min(R.ABLATION_N, len(pool))
    again = R.with_ablation(R.plan(tiny_tracebench, golden / "ptbench_official", release))
    assert [r.get("ids") for r in again] == [r.get("ids") for r in runs]


def test_no_tracebench_ablation_run_is_planned(tiny_tracebench, golden, release):
    """Both layouts build the same TRACEBench requests (checked by pfc.report.reference_pairs instead)."""
    names = [r["name"] for r in R.with_ablation(R.plan(tiny_tracebench, golden / "ptbench_official", release))]
    assert not any(n.startswith("layout/tracebench") for n in names)
