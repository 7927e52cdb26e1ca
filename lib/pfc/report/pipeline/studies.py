"""The steps and parameters ``make reproduce`` adds around TRACEBench's runs: the swap-user variants and the
baselines' runs on them (notebook 08, :func:`counterfactual_steps`), the evidence dose and contradict-stated
sets and the baselines' runs on them (notebook 09, :func:`evidence_steps`), and the committed real-model
reference runs these notebooks and the tables read (:func:`evidence_real_runs`, :func:`real_pair`,
:func:`reference_usable`).

Does not order the steps (:mod:`pfc.report.pipeline.planning`) nor run them (:mod:`pfc.report.pipeline.running`); the
reference runs are only read here, never run (CPU).
"""
from __future__ import annotations

import json
from pathlib import Path

from pfc import paths
from pfc.report.pipeline.step import Step, baseline_runs_step, rel, run_replacing
from pfc.data.counterfactual import build_variants
from pfc.io.reuse import reading_once as block
from pfc.plans.evidence import EVIDENCE_BASELINES, EVIDENCE_BENCHMARK, build_evidence, evidence_dir, windowed
from pfc.plans.reference import DOSE_RUN, HISTORY_RUNS, STATED_ORIGINALS_RUN, STATED_RUN, SWAP_RUN
from pfc.report.reference.run import shown
from pfc.run.backends.builtin import BASELINES
from pfc.schema import load_examples
from pfc.report.reference import score as reference
from pfc.report.tables import run_label

EVIDENCE_KINDS = ("dose", "contradict-stated")


def counterfactual_steps(bench: Path, baselines) -> tuple[list[Step], dict, Path]:
    """Notebook 08's inputs: the swap-user variants of TRACEBench and the baselines' runs on them.

    Returns (steps, {baseline: (run on the originals, run on the variants | None)}, variants dir); the gold oracle gets
    no variants run (the original's gold ignores the context by construction)."""
    var = paths.BENCHMARKS / f"{EVIDENCE_BENCHMARK}_swap-user"
    steps = [Step("counterfactual variants (swap-user, seed 0)", None, {"kind": "swap-user", "seed": 0},
                  [bench / "examples.jsonl"], [var / "examples.jsonl", var / "perturb.json"],  # manifest: finished
                  # read and written like the notebooks' paths (pfc.paths.source / output)
                  fn=lambda: build_variants(paths.source(rel(bench)), paths.output(rel(var)), "swap-user", seed=0))]
    ids = {b: f"tb-swap-user-{b}" for b in baselines if b != "oracle"}
    steps.append(baseline_runs_step(f"swap-user variants: the {len(ids)} baselines' runs ({', '.join(ids)})",
                                    EVIDENCE_BENCHMARK, var, ids, [var / "examples.jsonl"]))
    pairs = {b: (paths.RUNS / f"tb-{b}", paths.RUNS / ids[b] if b in ids else None) for b in baselines}
    return steps, pairs, var


def evidence_steps(bench: Path) -> tuple[list[Step], dict, list[Path]]:
    """Notebook 09's inputs: the dose and contradict-stated variants of the reference plan's sampled requests
    (``pfc.plans.evidence.build_evidence``: the very sets the real models' reference runs answer, 600 and 200 variants)
    and the three baselines' runs on them, in one Python step (seven runner calls; through notebook 03 each would pay a
    kernel start; the sets are read once, in one ``reading_once`` block). The originals runs of the override pairs are
    the pipeline's ``tb-<baseline>`` runs, and for ``always-habit`` (not one of the table's baselines) a run on the
    sampled originals only.

    Returns (steps, notebook 09's run parameters, the prediction files they read)."""
    sets = {k: evidence_dir(bench, k) for k in EVIDENCE_KINDS}
    dose_runs = {b: paths.RUNS / f"tb-dose-{b}" for b in EVIDENCE_BASELINES}
    stated = {b: (paths.RUNS / (f"tb-{b}" if b in BASELINES else f"tb-contradict-stated-originals-{b}"),
                  paths.RUNS / f"tb-contradict-stated-{b}") for b in EVIDENCE_BASELINES}

    def build_and_run():
        build_evidence(bench, tuple(sets))  # each set replaced whole: the same bytes for the same TRACEBench
        originals = sorted({v.meta["counterfactual"]["original_id"]
                            for v in load_examples(sets["contradict-stated"] / "examples.jsonl")})
        with block():  # the runs only read the sets: each is read and hashed once for the three baselines
            for b in EVIDENCE_BASELINES:
                run_replacing(EVIDENCE_BENCHMARK, sets["dose"], b, dose_runs[b])
                run_replacing(EVIDENCE_BENCHMARK, sets["contradict-stated"], b, stated[b][1])
                if b not in BASELINES:  # the table's baselines have their run on every original already
                    run_replacing(EVIDENCE_BENCHMARK, bench, b, stated[b][0], ids=originals)

    runs = [*dose_runs.values(), *(d for pair in stated.values() for d in pair)]
    step = Step("evidence dose: variants (100 requests x 6 K, 200 contradict-stated) and the baselines' runs", None,
                {"kinds": [windowed(k) for k in EVIDENCE_KINDS], "baselines": list(EVIDENCE_BASELINES), "seed": 0},
                [bench / "examples.jsonl"], [*(d / "perturb.json" for d in sets.values()),
                                             *(d / "predictions.jsonl" for d in runs)], fn=build_and_run)
    params = {"originals": rel(bench), "dose_variants": rel(sets["dose"]),
              "stated_variants": rel(sets["contradict-stated"]),
              "dose_runs": ",".join(f"{b}={rel(d)}" for b, d in dose_runs.items()),
              "override_runs": ",".join(f"{b}={rel(o)}:{rel(v)}" for b, (o, v) in stated.items())}
    return [step], params, [d / "predictions.jsonl" for d in runs]


def evidence_real_runs(root: Path | None = None) -> tuple[str, str, list[Path]]:
    """Notebook 09's ``real_dose_runs`` and ``real_override_runs``: each reference-run root's (the top one, each
    ``<model>-<backend>/`` folder of ``root``, default the committed runs) dose run and contradict-stated pair,
    committed or not (the notebook names those not committed yet and leaves them out), and the run directories named; a
    root with no run config to name its model by is left out. The roots are where the runs' own plan records put them
    (``pfc.report.reference.run.plan_roots``)."""
    root = Path(root or reference.ROOT)
    dose, override, dirs = [], [], []
    for base in reference.plan_roots(root):
        cfg = next((base / r / "config.json" for r in (DOSE_RUN, STATED_RUN, HISTORY_RUNS["last_k"])
                    if (base / r / "config.json").is_file()), None)
        if cfg is None:
            continue
        c = json.loads(cfg.read_text())
        name = f"{c.get('model')} · {c.get('backend')} (reference runs)".replace(",", " ")
        dose.append(f"{name}={rel(base / DOSE_RUN)}")
        override.append(f"{name}={rel(base / STATED_ORIGINALS_RUN)}:{rel(base / STATED_RUN)}")
        dirs += [base / DOSE_RUN, base / STATED_ORIGINALS_RUN, base / STATED_RUN]
    return ",".join(dose), ",".join(override), dirs


def reference_pairs() -> list[tuple[Path, Path]]:
    """The committed real-model runs on TRACEBench's originals and on their swap-user variants, for the top-level
    runs and each model folder (``<model>-<backend>/``) holding both with a finished row each (a run in its first batch
    is pending, ``pfc.report.reference.run.has_rows``)."""
    pairs = [(base / HISTORY_RUNS["last_k"], base / SWAP_RUN) for base in reference.plan_roots(reference.ROOT)]
    return [p for p in pairs if all(reference.has_rows(d) for d in p)]


def real_pair(real_run) -> str:
    """Notebook 08's ``real_run``: ``NAME=ORIGINALS:VARIANTS,…`` (the reference pairs, one per model and engine),
    or the sample run alone."""
    found = [f"{run_label(shown(json.loads((o / 'config.json').read_text()), o), 'real model')} (reference runs)"
             f"={rel(o)}:{rel(v)}" for o, v in reference_pairs()]
    if found:
        return ",".join(found)
    return f"{real_run[0]}={rel(real_run[1])}:" if real_run else ""


def reference_usable(run_dir: Path, planned: set[str]) -> bool:
    """A reference run joins the tables when its benchmark's data is part of this plan (``planned``: the
    benchmarks the plan's own runs read)."""
    return json.loads((run_dir / "config.json").read_text()).get("benchmark") in planned


def reading_once(*fns) -> None:
    """Call each function in one ``pfc.io.reuse.reading_once`` block (they read the same builds)."""
    with block():
        for fn in fns:
            fn()
