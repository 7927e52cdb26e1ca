"""The reference-run plan (``pfc.run.reference``): which runs, on which examples, with which settings.

Planning only: no model runs here (the runs themselves take hours; their rows are checked by
``tests/test_reference_report.py``)."""
from collections import Counter

import pytest

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


def test_dose_run_holds_every_k_of_the_same_requests_one_per_anchor(tiny_tracebench, golden):
    """The dose entry: the sampled requests (at most DOSE_ANCHORS, one per anchor) at every K, in the same variant
    set make reproduce builds; the same ids on a second plan (seeded by strings)."""
    from pfc.data.counterfactual_dose import DOSES
    exs, _ = benchmarks.get("tracebench").load(tiny_tracebench, None)
    anchor = {e.id: e.meta["anchor_id"] for e in exs}
    run = {r["name"]: r for r in R.plan(tiny_tracebench, golden / "ptbench_official", None)}[R.DOSE_RUN]
    originals = {i.split("~")[0] for i in run["ids"]}
    assert run["examples"] == tiny_tracebench.parent / f"{tiny_tracebench.name}_dose"
    assert originals and sorted(run["ids"]) == sorted(f"{o}~dose-{k}" for o in originals for k in DOSES)
    assert len({anchor[o] for o in originals}) == len(originals) <= R.DOSE_ANCHORS
    assert (run["history"], run["k"]) == ("last_k", 10)  # tracebench-last_k's settings
    again = {r["name"]: r for r in R.plan(tiny_tracebench, golden / "ptbench_official", None)}[R.DOSE_RUN]
    assert again["ids"] == run["ids"]


def test_dose_build_writes_exactly_the_planned_variants(tiny_tracebench, golden, tmp_path):
    import shutil
    bench = tmp_path / "tracebench"
    shutil.copytree(tiny_tracebench, bench)
    runs = {r["name"]: r for r in R.plan(bench, golden / "ptbench_official", None)}
    for name in (R.DOSE_RUN, R.STATED_RUN):
        runs[name]["build"]()
        assert _ids("tracebench", runs[name]["examples"]) == set(runs[name]["ids"])


def test_contradict_stated_runs_pair_variants_with_their_originals(tiny_tracebench, golden):
    exs, _ = benchmarks.get("tracebench").load(tiny_tracebench, None)
    runs = {r["name"]: r for r in R.plan(tiny_tracebench, golden / "ptbench_official", None)}
    var, orig = runs[R.STATED_RUN], runs[R.STATED_ORIGINALS_RUN]
    assert var["ids"] and all(i.endswith("~contradict-stated-8") for i in var["ids"])
    assert len(var["ids"]) <= R.STATED_ANCHORS
    assert orig["ids"] == sorted(i.split("~")[0] for i in var["ids"]) and orig["examples"] == tiny_tracebench
    assert set(orig["ids"]) <= {e.id for e in exs}
    assert {n: (r["history"], r["k"]) for n, r in runs.items() if n in (R.STATED_RUN, R.STATED_ORIGINALS_RUN)} \
        == {R.STATED_RUN: ("last_k", 10), R.STATED_ORIGINALS_RUN: ("last_k", 10)}


@pytest.mark.slow  # builds the default TRACEBench (about a minute)
def test_evidence_runs_on_the_default_build_have_100_dose_requests_and_200_override_variants(tmp_path):
    """On the embedded TRACEBench (the default build, made here: a test never depends on what another left in
    the checkout) the counts are the issue's: 100 requests x 6 K and 200 variants."""
    from pfc.data.build import build_tracebench
    tb = tmp_path / "tracebench"
    build_tracebench(tb, progress=False)
    exs, _ = benchmarks.get("tracebench").load(tb, None)
    runs = {r["name"]: r for r in R.evidence_runs(tb, exs)}
    assert len(runs[R.DOSE_RUN]["ids"]) == 600 and len(runs[R.STATED_RUN]["ids"]) == 200
    assert len(runs[R.STATED_ORIGINALS_RUN]["ids"]) == 200
