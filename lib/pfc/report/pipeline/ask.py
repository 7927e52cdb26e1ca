"""``make reproduce``'s ask-or-infer steps (issue 64): the sets and the three ask baselines' runs, then notebook 10.

The sets are ``pfc.plans.ask``'s (the reference plan's requests that admit ``ask@20``, their ask variants, the cannot
variants of 100 of them), built from the pipeline's TRACEBench; the baselines of ``pfc.run.backends.ask_baselines``
answer each with the ask-allowed prompt. The notebook is given each reference root's committed real-model ask runs
(:func:`real_runs`); the pipeline never runs a model. Only plans: running is ``pfc.report.pipeline.running``'s job; the
notebook's readers are ``pfc.report.ask_study``.
"""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from pfc import benchmarks, paths
from pfc.io.reuse import reading_once
from pfc.plans.ask import (ASK_BENCHMARK as BENCH, CANNOT_N, ORIGINALS_N, build_followup, run_baselines, run_dirs,
                           set_dir, study_sets)
from pfc.report.pipeline.step import Step, rel, run_replacing
from pfc.report.reference import ask as ask_report
from pfc.report.reference import run as reference


def real_runs(root: Path | None = None) -> tuple[str, str]:
    """Notebook 10's ``real_runs`` and ``standard_runs``: each reference-run root's ask runs (its package's plans:
    originals, ask, cannot, follow-up) and its (ask-allowed, standard prompt) pair on the originals, committed or not
    (the notebook leaves out those without answers)."""

    p = benchmarks.get(BENCH).part("plans")  # its package's ask runs (TRACEBench's ask/…)
    runs = (p.ORIGINALS_RUN, p.ASK_RUN, p.CANNOT_RUN, p.FOLLOWUP_RUN)
    asks, standard = [], []
    for base in reference.plan_roots(Path(root or reference.ROOT)):
        cfg = base / p.ORIGINALS_RUN / "config.json"
        if cfg.is_file():
            c = json.loads(cfg.read_text(encoding="utf-8"))
            name = f"{c.get('model')} · {c.get('backend')}".replace(",", " ")
            asks.append(f"{name}=" + ":".join(rel(base / r) for r in runs))
            standard.append(f"{name}={rel(base / p.ORIGINALS_RUN)}:{rel(base / p.STANDARD_RUN)}")
    return ",".join(asks), ",".join(standard)


def followup_sets(root: Path | None = None) -> list[Path]:
    """Build the follow-up set each committed follow-up run answered, from its folder's committed first turns
    (``pfc.plans.ask.build_followup``: deterministic, kept when its answers are unchanged), where the reference report
    reads it (``pfc.report.reference.ask``); returns the sets. Needs the ask and cannot sets built."""
    p = benchmarks.get(BENCH).part("plans")
    made = []
    for base in reference.plan_roots(Path(root or reference.ROOT)):
        cfg = base / p.FOLLOWUP_RUN / "config.json"
        if not (cfg.is_file() and reference.has_rows(cfg.parent)):
            continue
        first = []
        for name in p.FIRST_TURNS:
            c = json.loads((base / name / "config.json").read_text(encoding="utf-8"))
            first.append((name, SimpleNamespace(benchmark=c["benchmark"], examples=paths.source(c["examples"]),
                                                out_dir=base / name, ids=c["ids"])))
        out = paths.output(json.loads(cfg.read_text(encoding="utf-8"))["examples"])
        build_followup(first, out)
        made.append(out)
    return made


def ask_steps(bench: Path, n_boot: int) -> list:
    """``make reproduce``'s steps: the sets and the baselines' runs (one Python step; the pipeline puts it before
    the reference report, whose committed ask runs answered these sets), then notebook 10."""
    dirs = run_dirs(paths.RUNS)

    def build_and_run():
        ids = study_sets(bench)
        with reading_once():
            run_baselines(bench, ids, paths.RUNS, lambda ex, b, d, i: run_replacing(BENCH, ex, b, d, ids=i,
                                                                                     prompt_variant="ask"))
    preds = [d / "predictions.jsonl" for sets in dirs.values() for d in sets.values()]
    real = [reference.ROOT / r / "predictions.jsonl" for r in ask_report.runs()]  # committed rows: absent ones too
    sets = [set_dir(bench, s) / "perturb.json" for s in ("ask", "cannot")]
    out = paths.REPORTS / "ask_or_infer"
    return [Step("ask or infer: the ask and cannot sets and the three baselines' runs", None,
                 {"originals": ORIGINALS_N, "cannot": CANNOT_N, "baselines": list(dirs), "seed": 0},
                 [bench / "examples.jsonl"], [*sets, *preds], fn=build_and_run),
            Step("ask or infer", "10_ask_or_infer.ipynb",
                 {"originals": rel(bench), "out_dir": rel(out), "n_boot": n_boot, "seed": 0,
                  **dict(zip(("real_runs", "standard_runs"), real_runs())),
                  "baseline_runs": ",".join(f"{b}=" + ":".join(rel(d) for d in s.values()) for b, s in dirs.items())},
                 [*sets, *preds, *real], [out / "ask_or_infer.csv"], copy_name="10_ask_or_infer")]
