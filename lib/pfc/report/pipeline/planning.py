"""The steps of ``make reproduce`` in order (:func:`plan`): the studies' benchmark's build and baseline runs
(TRACEBench), the real small model's sampled run, each registered benchmark's own steps (its package's
``pipeline.steps``, by ``RANK``: a ``BACKEND``/``MODEL`` run, the ToolSpectrum release, PTBench, an outside
benchmark's), the committed reference runs, notebooks 08, 09, 10, the prompt-format grid (11,
``pfc.report.pipeline.grid``), 04–06 and the walkthrough.

Only plans: builds :class:`~pfc.report.pipeline.step.Step` values and reads no run's output (the committed reference
runs' configs aside); running them is :mod:`pfc.report.pipeline.running`'s job.
"""
from __future__ import annotations

import sys
from pathlib import Path

from pfc import benchmarks, paths
from pfc.plans import rule, sample_run
from pfc.plans.evidence import EVIDENCE_BENCHMARK
from pfc.report.pipeline import grid as pipeline_grid
from pfc.report.pipeline.ask import ask_steps, followup_sets  # notebook 10 (issue 64): baselines only, never a model
from pfc.report.pipeline.step import Ask, Step, rel, run_step
from pfc.report.reference import ask as ask_report
from pfc.report.pipeline.studies import (counterfactual_steps, evidence_real_runs, evidence_steps, real_pair,
                                         reading_once, reference_pairs, reference_usable)


def _has_torch() -> bool:
    import importlib.util
    return all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))


def _real_model(bench: Path, real_model: str, sample: int) -> tuple[list[Step], tuple[str, Path] | None]:
    """The real small model on a stratified sample of TRACEBench (the sample run's plan, ``pfc.plans.sample_run``):
    the sample's and the run's steps, and ``(model name, run dir)``; none when the model or torch is missing."""
    real = sample_run.real_model_dir(real_model)
    if real is not None and not _has_torch():
        print(f"reproduce: a real model is at {real} but torch/transformers are missing "
              "(make venv-models); its run is left out", file=sys.stderr)
        real = None
    if real is None:
        return [], None
    # the registry name when it is the registry's model (runs, tables and reports never carry a home path)
    real_name = sample_run.REAL_MODEL_NAME if real_model == "auto" else str(real)
    sample_dir = paths.PROCESSED / f"{EVIDENCE_BENCHMARK}_sample{sample}"
    steps = [Step(f"stratified sample ({sample} + the walkthrough's)", None,
                  {"n": sample, "seed": 0, "walkthrough": True}, [bench / "examples.jsonl"],
                  [sample_dir / "examples.jsonl"],
                  fn=lambda: sample_run.stratified_sample(bench, sample_dir, sample, seed=0, walkthrough=True))]
    be = sample_run.BACKEND
    d, st = run_step(f"run real model {real.name} ({be}, {sample} + the walkthrough's examples)",
                     f"tb-{be}-{real.name}-sample{sample}", [sample_dir / "examples.jsonl", real / "config.json"],
                     benchmark=EVIDENCE_BENCHMARK, examples=rel(sample_dir), backend=be, model=real_name,
                     **sample_run.SETTINGS)
    st.background = d  # minutes of prefill on two cores: the mostly single-threaded notebooks after it run beside it
    return steps + [st], (real_name, d)


def _reference(planned: set[str]) -> tuple[list[Step], list[Path]]:
    """The committed reference runs (reports/reference_runs/) whose benchmark is ``planned``: re-scored, never
    run here. Their steps (the earlier PTBench synthesis when a history run needs it; metrics.json and the paired
    comparisons) and the runs that join the tables (history runs never do)."""
    from pfc.report.reference import score as reference
    from pfc.report.reference import pairs as pairs_report
    from pfc.report.reference.run import history_builds
    refs = [d for d in reference.run_dirs() if reference_usable(d, planned)]
    history = [d for d in refs if reference.is_history(d)]  # PTBench runs on an earlier synthesis
    steps = []
    if history:
        from pfc.train.sft import build_ptbench
        old = paths.BENCHMARKS / history_builds()["ptool-v1"]
        steps.append(Step("build PTBench v1 (the earlier synthesis the history reference runs answered)", None,
                          {"seed": 0, "synthesis": 1}, [], [old / "stats.json"], fn=lambda: build_ptbench(old, 0, 1)))
    if refs:
        ablations = [reference.ROOT / a for q, a, _ in pairs_report.pairs()  # the layout ablation's runs, as planned
                     if q == "layout" and (reference.ROOT / a / "predictions.jsonl").is_file()]
        abl = f", {len(ablations)} layout ablation{'s' * (len(ablations) != 1)}" if ablations else ""
        asks = [reference.ROOT / r for r in ask_report.runs()  # issue 64's, as committed
                if (reference.ROOT / r / "predictions.jsonl").is_file()]
        abl += f", {len(asks)} ask-or-infer run{'s' * (len(asks) != 1)}" if asks else ""
        asks += [reference.ROOT / a for q, a, _ in pairs_report.pairs()  # the re-run pairs' format-grid default cells
                 if q == "rerun" and (reference.ROOT / a / "predictions.jsonl").is_file()]
        steps.append(Step(f"reference runs: metrics.json, paired comparisons ({len(refs)} run{'s' * (len(refs) != 1)}{abl})", None, {},
                          [p for d in refs + ablations + asks for p in (d / "predictions.jsonl", d / "config.json")],
                          [paths.REPORTS / "reference_runs" / n
                           for n in ("metrics.json", "paired.json", "paired.md")],
                          fn=lambda: (followup_sets(), rule.make(reference.ROOT), reading_once(reference.write, pairs_report.write))))
    return steps, [d for d in refs if d not in history]  # history: metrics.json and paired.md only, never the tables


def _tables(runs: list[Path], n_boot: int) -> list[Step]:
    """Notebooks 04 (evaluate), 05 (error taxonomy) and 06 (figures) on every run of the plan."""
    run_inputs = [p for d in runs for p in (d / "predictions.jsonl", d / "config.json")]
    common = {"run_dirs": ",".join(rel(d) for d in runs), "n_boot": n_boot, "seed": 0}
    steps = []
    for name, notebook, sub in (("evaluate", "04_evaluate.ipynb", "evaluate"),
                                ("error taxonomy", "05_error_taxonomy.ipynb", "taxonomy"),
                                ("figures", "06_figures.ipynb", "figures")):
        out = paths.REPORTS / sub
        steps.append(Step(name, notebook, {**common, "out_dir": rel(out)}, run_inputs, [out / "report.md"],
                          copy_name=notebook[:-6]))
    return steps


def _counterfactuals(bench: Path, var: Path, cf_pairs: dict, real_run, n_boot: int) -> Step:
    """Notebook 08 on the baselines' original/variant pairs and the real model's."""
    cf_out = paths.REPORTS / "counterfactuals"
    return Step("counterfactual contexts", "08_counterfactuals.ipynb",
                {"originals": rel(bench), "variants": rel(var),
                 "run_pairs": ",".join(f"{n}={rel(o)}:{rel(v) if v else '-'}" for n, (o, v) in cf_pairs.items()),
                 # the real model on the variants is never run here (CPU): the committed reference pair
                 # (pfc.plans.reference) when there is one, else the sample run, which the notebook says lacks them
                 "real_run": real_pair(real_run),
                 "out_dir": rel(cf_out), "n_boot": n_boot, "seed": 0},
                [var / "examples.jsonl", *[p / "predictions.jsonl" for o, v in cf_pairs.values() for p in (o, v) if p],
                 *[p / "predictions.jsonl" for pair in reference_pairs() for p in pair]],
                [cf_out / "personalization.csv"], copy_name="08_counterfactuals")


def _evidence(bench: Path, n_boot: int) -> list[Step]:
    """The evidence sets and the baselines' runs on them, then notebook 09 (with the committed reference runs)."""
    ev_steps, ev_params, ev_inputs = evidence_steps(bench)
    real_dose, real_override, real_dirs = evidence_real_runs()  # committed reference runs, never run here (CPU)
    ev_out = paths.REPORTS / "evidence_dose"
    return [*ev_steps, Step("evidence dose and overrides", "09_evidence_dose.ipynb",
                            {**ev_params, "real_dose_runs": real_dose, "real_override_runs": real_override,
                             "out_dir": rel(ev_out), "n_boot": n_boot, "seed": 0},
                            [*ev_inputs, *(d / "predictions.jsonl" for d in real_dirs)],  # absent ones too: None
                            [ev_out / "evidence_dose.csv"], copy_name="09_evidence_dose")]


def _walkthrough(bench: Path, real_run) -> Step:
    """Notebook 00 with the real small model when it has a run, else the history-prior baseline."""
    walk = {"examples": rel(bench), "out_dir": rel(paths.REPORTS / "walkthrough"), "backend": "history-prior"}
    inputs = [bench / "examples.jsonl"]
    if real_run is not None:  # the sample run's model and settings: its answers come from the response cache
        walk.update(backend=sample_run.BACKEND, model=real_run[0], k=sample_run.SETTINGS["k"])
        inputs.append(real_run[1] / "predictions.jsonl")
    return Step("walkthrough", "00_walkthrough.ipynb", walk, inputs,
                [paths.REPORTS / "walkthrough" / "run" / "predictions.jsonl"], copy_name="00_walkthrough")


def parts(leave_out=()) -> list:
    """``(adapter, its pipeline module)`` of every registered benchmark with ``pipeline`` steps, by ``RANK``."""
    found = [(a, a.part("pipeline")) for a in benchmarks.adapters() if a.name not in leave_out and a.has("pipeline")]
    return sorted(found, key=lambda am: getattr(am[1], "RANK", len(found)))


def plan(backend: str = "", model: str = "", real_model: str = "auto", sample: int = 4, n_boot: int = 1000,
         leave_out: tuple = ()) -> list[Step]:
    """The steps of ``make reproduce`` in order (see :mod:`pfc.report.pipeline`); ``leave_out``: benchmarks whose
    steps are left out (the studies' benchmark, TRACEBench, is always built)."""
    from pfc.run.backends.builtin import BASELINES
    study = benchmarks.get(EVIDENCE_BENCHMARK)  # the benchmark the studies (notebooks 08, 09, 00) read
    bench = study.data_dir()
    steps, runs = study.part("pipeline").build_steps(bench, BASELINES)
    cf_steps, cf_pairs, var = counterfactual_steps(bench, BASELINES)
    steps += cf_steps
    real_steps, real_run = _real_model(bench, real_model, sample)
    steps += real_steps
    runs += [real_run[1]] if real_run else []
    own = f"{backend}-{Path(model).name or 'default'}".replace("/", "_")  # BACKEND=/MODEL=: one run per benchmark
    ask = Ask(tuple(BASELINES), backend, model, own)
    for _, part in parts(leave_out):
        more, more_runs = part.steps(ask)
        steps += more
        runs += more_runs
    ask_sets, ask_notebook = ask_steps(bench, n_boot)  # the sets first: the committed ask runs answered them
    ref_steps, ref_runs = _reference({st.params["benchmark"] for st in steps if st.params.get("benchmark")})
    steps += [ask_sets, *ref_steps]
    runs += ref_runs
    # the studies before the tables: they do not read the real model's sampled run, so they go on beside it
    # (pfc.report.pipeline.running), and the tables, which read it, come after
    steps += [_counterfactuals(bench, var, cf_pairs, real_run, n_boot), *_evidence(bench, n_boot),
              ask_notebook, *pipeline_grid.steps(bench, n_boot),
              *_tables(runs, n_boot), _walkthrough(bench, real_run)]
    nb = paths.REPORTS / "notebooks"
    for s in steps:
        s.outputs.append(nb / f"{s.copy_name}.ipynb") if s.notebook else None
    return steps
