"""The reference plan's evidence runs (issue 40): the dose and contradict-stated variant sets and their runs.

One request per TRACEBench anchor (anchors in a seeded order, ``pfc.data.counterfactual.sample``), each
variant's history a window of ``EVIDENCE_WINDOW`` records that the runs show whole:
``DOSE_ANCHORS`` requests at every dose K (``counterfactual/tracebench-dose``), ``STATED_ANCHORS``
contradict-stated variants (``counterfactual/tracebench-contradict-stated``) and the originals they came from
(``…-originals``: stated-wins needs the model's answer on each original). :func:`build_evidence` writes the
variant sets beside TRACEBench, the very sets ``make reproduce``'s baselines answer for notebook 09;
:func:`evidence_runs` gives ``pfc.plans.reference.plan`` their steps, and those of issue 64's ask-or-infer runs
(its package's ``plans.ask_runs``, on ``pfc.plans.ask``'s sets: the same window). It runs nothing and scores
nothing.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pfc import benchmarks
from pfc.data.counterfactual import VariantSet, sample, write
from pfc.plans import Planned
from pfc.run.config import RunConfig
from pfc.data.counterfactual_dose import HABIT_RECORDS
from pfc.schema import load_tools

DOSE_RUN = "counterfactual/tracebench-dose"
STATED_RUN = "counterfactual/tracebench-contradict-stated"
STATED_ORIGINALS_RUN = "counterfactual/tracebench-contradict-stated-originals"
# requests per variant set (one per anchor, seeded): 100 per dose point (x 6 K), 200 override variants
DOSE_ANCHORS = 100
STATED_ANCHORS = 200
EVIDENCE_SETS = {"dose": DOSE_ANCHORS, "contradict-stated": STATED_ANCHORS}
# every variant's history is a window of this many records, shown whole to the model (``--history full``): the
# largest dose (16) fits, and contradict-stated keeps the original's latest 12 records beside its 8-record habit
# (its originals run with last_k, k = 12: the same history without the habit). Without a window a model shown the
# last 10 records of a ~290-record history sees almost none of the dose (pfc.data.counterfactual_dose).
EVIDENCE_WINDOW = 20
# the dose and contradict-stated kinds count call-history records: the benchmark whose prompts select them
EVIDENCE_BENCHMARK = next(n for n in benchmarks.BUILT_IN if benchmarks.get(n).running.history_selection)
EVIDENCE_BASELINES = ("history-prior", "no-history", "always-habit")  # the baselines notebook 09 shows


def evidence_dir(tracebench: Path, kind: str) -> Path:
    """Where a sampled variant set of :data:`EVIDENCE_SETS` lives, beside TRACEBench (what make reproduce
    builds for notebook 09: the same set, so the baselines and the models answer the same variants)."""
    return tracebench.parent / f"{tracebench.name}_{kind}"


def build_evidence(tracebench: Path, kinds=tuple(EVIDENCE_SETS)) -> None:
    """Write each kind's variants of :data:`EVIDENCE_SETS`'s sampled anchors (seed 0) into :func:`evidence_dir`,
    reading TRACEBench once (the pipeline's step builds both); the manifest records ``sampled_anchors``."""
    examples, tools = benchmarks.get(EVIDENCE_BENCHMARK).scoring.load(tracebench, None)
    for kind in kinds:
        variants, skipped = sample(examples, windowed(kind), EVIDENCE_SETS[kind], seed=0)
        write(evidence_dir(tracebench, kind), tracebench, VariantSet(EVIDENCE_BENCHMARK, windowed(kind), 0, variants,
                                                                     skipped, tools, examples, EVIDENCE_SETS[kind]))


def windowed(kind: str) -> str:
    """The kind as the plan builds it: ``windowed("dose")`` is ``'dose@20'``."""
    return f"{kind}@{EVIDENCE_WINDOW}"


def evidence_runs(tracebench: Path, exs: list, like: RunConfig, reference_ids=None, only=None) -> list[Planned]:
    """The dose and contradict-stated runs (and the latter's originals), with ``like``'s settings (the plan's
    ``tracebench-last_k``) but the history each needs: the variants' whole window (``full``), the originals' last
    ``EVIDENCE_WINDOW - HABIT_RECORDS`` records (``last_k``). Ids drawn here, deterministically; each run's ``out_dir``
    is its name under the root ``like``'s directory sits in. With ``reference_ids`` (the plan's TRACEBench sample),
    issue 64's ask-or-infer runs follow, in the same window (:func:`_ask_runs`). ``only`` (a set of run names; None:
    all): a group none of whose runs is wanted is left out, its variants never drawn (drawing them is most of the
    planning time)."""
    def wanted(*names: str) -> bool:
        return only is None or not only.isdisjoint(names)
    root = Path(like.out_dir).parent

    def run(name: str, examples: Path, ids, history: str = "full", k: int = EVIDENCE_WINDOW) -> RunConfig:
        return replace(like, examples=examples, ids=tuple(ids), out_dir=root / name, history=history, k=k)
    steps = []
    if wanted(DOSE_RUN):
        dose, _ = sample(exs, windowed("dose"), DOSE_ANCHORS, seed=0)
        steps.append(Planned(DOSE_RUN, run(DOSE_RUN, evidence_dir(tracebench, "dose"), [v.id for v in dose]),
                             build=lambda: build_evidence(tracebench, ("dose",))))
    if wanted(STATED_RUN, STATED_ORIGINALS_RUN):
        stated, _ = sample(exs, windowed("contradict-stated"), STATED_ANCHORS, seed=0)
        originals = sorted(v.meta["counterfactual"]["original_id"] for v in stated)
        steps += [Planned(STATED_RUN, run(STATED_RUN, evidence_dir(tracebench, "contradict-stated"),
                                          [v.id for v in stated]),
                          build=lambda: build_evidence(tracebench, ("contradict-stated",))),
                  Planned(STATED_ORIGINALS_RUN, run(STATED_ORIGINALS_RUN, tracebench, originals, "last_k",
                                                    EVIDENCE_WINDOW - HABIT_RECORDS))]
    return steps + ([] if reference_ids is None else _ask_runs(tracebench, exs, reference_ids, like, only))


def _ask_runs(tracebench: Path, exs: list, reference_ids, like: RunConfig, only=None) -> list[Planned]:
    """The ask-or-infer runs of ``like``'s benchmark (its package's ``plans.ask_runs``), if it admits ask items and
    ``only`` (None: all) wants one of them (its ``ASK_RUNS``)."""
    adapter = benchmarks.get(like.benchmark)
    if "ask" not in adapter.building.action_kinds:
        return []
    if only is not None and only.isdisjoint(adapter.part("plans").ASK_RUNS):
        return []
    return adapter.part("plans").ask_runs(tracebench, exs, load_tools(Path(tracebench) / "tools.json"), reference_ids,
                                          like, EVIDENCE_WINDOW)
