"""TRACEBench's entries in the real-model plan (``pfc.plans.real_models``): ``n`` examples covering every
vagueness level and history bin (``pfc.plans.sampling.tracebench_sample``), history ``last_k`` and ``retrieved``; and
its ask-or-infer runs in the reference plan (issue 64, :func:`ask_runs`, which ``pfc.plans.evidence`` adds; their sets
are ``pfc.plans.ask``'s), under ``ask/``, beside the accuracy tables, never in them:

- ``ask/tracebench-originals``, ``…-ask``, ``…-cannot``: the ask-allowed prompt (``prompt_variant="ask"``);
- ``ask/tracebench-originals-standard``: the standard prompt on the same originals (what allowing a question costs; no
  committed run shows these requests with k = W);
- ``ask/tracebench-followup``: the second turn (``prompt_variant="ask-followup"``) of every first-turn row read as a
  question, on the set ``pfc.plans.ask.build_followup`` writes from the three first-turn runs once they are complete.

Every ask run shows the last W records (``--history last_k --k W``, W the evidence window). Plans only: running them is
``pfc.plans.real_models.execute``'s and ``pfc.plans.reference``'s job."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pfc.benchmarks.tracebench import ADAPTER
from pfc.plans import Planned
from pfc.plans.ask import build_followup, build_sets, chosen, set_dir
from pfc.plans.sampling import tracebench_sample
from pfc.run.config import RunConfig

N = 16                                   # default examples per history mode
N_HELP = "per history mode; 16 = every level x bin cell"
RANK = {"tracebench-last_k": 0, "tracebench-retrieved": 9}  # the order real_models runs the plan in
ORIGINALS_RUN, ASK_RUN, CANNOT_RUN = "ask/tracebench-originals", "ask/tracebench-ask", "ask/tracebench-cannot"
STANDARD_RUN, FOLLOWUP_RUN = "ask/tracebench-originals-standard", "ask/tracebench-followup"
ASK_RUNS = (ORIGINALS_RUN, ASK_RUN, CANNOT_RUN, STANDARD_RUN, FOLLOWUP_RUN)  # every name ask_runs plans
FIRST_TURNS = (ORIGINALS_RUN, ASK_RUN, CANNOT_RUN)


def real_models(run, n: int, seed: int, data: Path | None = None) -> list:
    """The model's runs (``run(name, benchmark, examples, ids, strategy=, history=)`` makes each)."""
    tb = Path(data) if data else ADAPTER.data_dir()
    exs, _ = ADAPTER.scoring.load(tb, None)
    ids = tracebench_sample(exs, seed, n=n)
    return [run(f"tracebench-{hist}", "tracebench", tb, ids, history=hist) for hist in ("last_k", "retrieved")]


def ask_runs(tracebench: Path, exs, tools, reference_ids, like: RunConfig, window: int) -> list[Planned]:
    """The five ask-or-infer runs of the module doc, with ``like``'s settings (the plan's ``tracebench-last_k``)
    but the last ``window`` records (the evidence window); each ``out_dir`` is its name under ``like``'s root."""
    ids, cannot_ids = chosen(exs, tools, reference_ids, window)
    root = Path(like.out_dir).parent
    follow = set_dir(tracebench, "ask-followup") / f"{like.model}-{like.backend}"

    def run(name, examples, run_ids, variant="ask") -> RunConfig:
        return replace(like, examples=examples, ids=tuple(run_ids), out_dir=root / name, history="last_k",
                       k=window, prompt_variant=variant)
    build = lambda: build_sets(tracebench, ids, cannot_ids, window, like.benchmark)  # noqa: E731
    first = [Planned(ORIGINALS_RUN, run(ORIGINALS_RUN, tracebench, ids)),
             Planned(ASK_RUN, run(ASK_RUN, set_dir(tracebench, "ask"), [f"{i}~ask" for i in ids]), build=build),
             Planned(CANNOT_RUN, run(CANNOT_RUN, set_dir(tracebench, "cannot"), [f"{i}~cannot" for i in cannot_ids]),
                     build=build)]
    every = [f"{i}~followup" for p in first for i in p.config.ids]
    return [*first, Planned(STANDARD_RUN, run(STANDARD_RUN, tracebench, ids, "all")),
            Planned(FOLLOWUP_RUN, run(FOLLOWUP_RUN, follow, every, "ask-followup"),
                    build=lambda: build_followup([(p.name, p.config) for p in first], follow))]
