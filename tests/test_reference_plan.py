"""The reference-run plan (``pfc.plans.reference``): which runs, on which examples, with which settings.

Planning only: no model runs here (the runs themselves take hours; their rows are checked by
``tests/test_reference_report.py``)."""
from collections import Counter

import pytest

from pfc import benchmarks, paths
from pfc.groups import history_bin
from pfc.plans import reference as R


def _ids(bench, path):
    return {e.id for e in benchmarks.get(bench).scoring.load(path, None)[0]}


def test_tracebench_sample_holds_at_most_its_quota_per_vagueness_and_history_bin(tiny_tracebench):
    exs, _ = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    by_id = {e.id: e for e in exs}
    ids = R.tracebench_ids(exs, per_cell=2)
    cells = Counter((by_id[i].meta["vagueness"], history_bin(int(by_id[i].meta["history_length"]))) for i in ids)
    assert ids and max(cells.values()) <= 2 and ids == sorted(ids)
    assert R.tracebench_ids(exs, per_cell=2) == ids  # seeded by a string: the same in every process


def _plan(tb, pt, ts=None, **kw):
    return {p.name: p for p in R.plan({"tracebench": tb, "ptbench": pt, "toolspectrum": ts}, **kw)}


def test_each_ptbench_split_has_a_lora_run_on_the_same_data(tiny_tracebench, golden):
    pt = golden / "ptbench_official"
    runs = _plan(tiny_tracebench, pt)
    for split in ("trained", "untrained"):
        base, lora = runs[f"ptbench-{split}"].config, runs[f"ptbench-{split}-lora"].config
        assert lora.examples == base.examples and lora.ids == base.ids and lora.layout == "paper"
        assert lora.backend_options == {"adapter": paths.relative(R.OUT / "lora-adapter")} and base.backend_options == {}
    assert runs["lora-adapter"].train == pt / "train" / "data.json" and runs["lora-adapter"].config is None


def test_every_run_lives_under_its_models_root_and_records_the_plan(tiny_tracebench, golden, release):
    for model, backend in (("qwen2.5-coder-0.5b", "hf"), ("qwen2.5-coder-1.5b", "openvino")):
        root = R.out_root(model, backend)
        for name, p in _plan(tiny_tracebench, golden / "ptbench_official", release, model=model,
                             backend=backend, batch=16).items():
            if p.config is None:
                continue
            c = p.config
            assert c.out_dir == root / name and (c.model, c.backend, c.batch_size) == (model, backend, 16)
            assert c.plan == R.record(name, model, backend)
            assert c.plan["tables"] == ("/" not in name) and c.plan["names_engine"] == (backend != "hf")
        adapter = _plan(tiny_tracebench, golden / "ptbench_official", model=model, backend=backend)
        assert adapter["ptbench-trained-lora"].config.backend_options["adapter"] == \
            paths.relative(root / "lora-adapter")  # each model its own adapter


def test_layout_ablation_runs_take_a_seeded_subset_of_their_run_under_the_other_layout(tiny_tracebench, golden, release):
    by = _plan(tiny_tracebench, golden / "ptbench_official", release)
    for base, other in R.layout_ablation().items():
        ab, run = by[f"layout/{base}-{other}"].config, by[base].config
        pool = _ids(run.benchmark, run.examples)
        assert ab.layout == other != run.layout and ab.examples == run.examples
        assert set(ab.ids) <= pool and len(ab.ids) == min(R.ABLATION_N, len(pool))
    again = R.plan({"tracebench": tiny_tracebench, "ptbench": golden / "ptbench_official", "toolspectrum": release})
    assert [p.config and p.config.ids for p in again] == [p.config and p.config.ids for p in by.values()]


def test_no_tracebench_ablation_run_is_planned(tiny_tracebench, golden, release):
    """Both layouts build the same TRACEBench requests (checked by pfc.report.reference.pairs instead)."""
    names = list(_plan(tiny_tracebench, golden / "ptbench_official", release))
    assert not any(n.startswith("layout/tracebench") for n in names)


def test_dose_run_holds_every_k_of_the_same_requests_one_per_anchor(tiny_tracebench, golden):
    """The dose entry: the sampled requests (at most DOSE_ANCHORS, one per anchor) at every K, in the same variant
    set make reproduce builds; the same ids on a second plan (seeded by strings)."""
    from pfc.data.counterfactual_dose import DOSES
    exs, _ = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    anchor = {e.id: e.meta["anchor_id"] for e in exs}
    run = _plan(tiny_tracebench, golden / "ptbench_official")[R.DOSE_RUN].config
    originals = {i.split("~")[0] for i in run.ids}
    assert run.examples == tiny_tracebench.parent / f"{tiny_tracebench.name}_dose"
    assert originals and sorted(run.ids) == sorted(f"{o}~dose-{k}" for o in originals for k in DOSES)
    assert len({anchor[o] for o in originals}) == len(originals) <= R.DOSE_ANCHORS
    assert (run.history, run.k) == ("full", R.EVIDENCE_WINDOW)  # the whole window of each variant
    assert _plan(tiny_tracebench, golden / "ptbench_official")[R.DOSE_RUN].config.ids == run.ids


def test_dose_build_writes_exactly_the_planned_variants(tiny_tracebench, golden, tmp_path):
    import shutil
    bench = tmp_path / "tracebench"
    shutil.copytree(tiny_tracebench, bench)
    runs = _plan(bench, golden / "ptbench_official")
    for name in (R.DOSE_RUN, R.STATED_RUN):
        runs[name].build()
        assert _ids("tracebench", runs[name].config.examples) == set(runs[name].config.ids)


def test_contradict_stated_runs_pair_variants_with_their_originals(tiny_tracebench, golden):
    exs, _ = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    runs = _plan(tiny_tracebench, golden / "ptbench_official")
    var, orig = runs[R.STATED_RUN].config, runs[R.STATED_ORIGINALS_RUN].config
    assert var.ids and all(i.endswith("~contradict-stated-8") for i in var.ids)
    assert len(var.ids) <= R.STATED_ANCHORS
    assert list(orig.ids) == sorted(i.split("~")[0] for i in var.ids) and orig.examples == tiny_tracebench
    assert set(orig.ids) <= {e.id for e in exs}
    assert {n: (r.config.history, r.config.k) for n, r in runs.items() if n in (R.STATED_RUN, R.STATED_ORIGINALS_RUN)} \
        == {R.STATED_RUN: ("full", R.EVIDENCE_WINDOW), R.STATED_ORIGINALS_RUN: ("last_k", R.EVIDENCE_WINDOW - 8)}


@pytest.mark.slow  # builds the default TRACEBench (about a minute)
def test_evidence_runs_on_the_default_build_have_100_dose_requests_and_200_override_variants(tmp_path):
    """On the embedded TRACEBench (the default build, made here: a test never depends on what another left in
    the checkout) the counts are the issue's: 100 requests x 6 K and 200 variants."""
    from pfc.data.build import build_tracebench
    from pfc.run.config import RunConfig
    tb = tmp_path / "tracebench"
    build_tracebench(tb, progress=False)
    exs, _ = benchmarks.get("tracebench").scoring.load(tb, None)
    like = RunConfig("tracebench", tb, "hf", tmp_path / "out" / "tracebench-last_k", history="last_k", k=10)
    runs = {r.name: r.config for r in R.evidence_runs(tb, exs, like)}
    assert len(runs[R.DOSE_RUN].ids) == 600 and len(runs[R.STATED_RUN].ids) == 200
    assert len(runs[R.STATED_ORIGINALS_RUN].ids) == 200


def test_every_planned_run_name_is_known_before_planning(tiny_tracebench, golden, release):
    # --only is checked against R.run_names() before any data is read (issue 66): it must hold every planned name
    for model, backend in (("qwen2.5-coder-0.5b", "hf"), ("qwen2.5-coder-1.5b", "openvino")):
        names = set(_plan(tiny_tracebench, golden / "ptbench_official", release, model=model, backend=backend))
        assert names <= R.run_names() and "toolspectrum" in names


def test_only_leaves_out_the_variant_groups_it_does_not_want_without_drawing_them(tiny_tracebench, golden, monkeypatch):
    # issue 66: planning for --only (or --record) of one run must not draw every group's variants (most of its time)
    from pfc.plans import evidence
    full = _plan(tiny_tracebench, golden / "ptbench_official")
    drawn = []
    real = evidence.sample
    monkeypatch.setattr(evidence, "sample", lambda exs, kind, *a, **k: drawn.append(kind) or real(exs, kind, *a, **k))
    only = _plan(tiny_tracebench, golden / "ptbench_official", only={R.DOSE_RUN})
    assert drawn == ["dose@20"]
    assert R.DOSE_RUN in only and R.STATED_RUN not in only and R.STATED_ORIGINALS_RUN not in only
    assert not any(n.startswith("ask/") for n in only)
    assert set(full) - set(only) == {n for n in full if n in (R.STATED_RUN, R.STATED_ORIGINALS_RUN) or n.startswith("ask/")}
    assert only[R.DOSE_RUN].config == full[R.DOSE_RUN].config  # what is planned is planned as always
    drawn.clear()
    stated = _plan(tiny_tracebench, golden / "ptbench_official", only={R.STATED_ORIGINALS_RUN})
    assert drawn == ["contradict-stated@20"] and R.STATED_RUN in stated and R.DOSE_RUN not in stated
