"""The command line of the reference plan (``python -m pfc.plans.reference``, whose ``main`` runs :func:`run_plan`
through the one error path): its arguments, the checks made before any planning work (a ``--model`` that names a folder,
not a path; ``--only`` names the plan can hold), ``--record``, and each step through the one executor. The plan itself
is :mod:`pfc.plans.reference`'s; this module plans nothing of its own and scores nothing.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pfc import benchmarks, paths
from pfc.errors import UserError
from pfc.plans import Planned, executor
from pfc.run.identity import planned, write_plan


def _arguments(argv, R) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m pfc.plans.reference", description=R.__doc__.splitlines()[0])
    ap.add_argument("--model", default=R.REAL_MODEL_NAME)
    ap.add_argument("--backend", default="hf", choices=R.BACKENDS,
                    help=f"hf (the first reference runs) or openvino (needs `make models-openvino`); {R.LONG_RUN_ENGINE}: "
                         "the long runs' engine (pfc.plans.LONG_RUN_ENGINE; reports/perf_engines.md)")
    ap.add_argument("--batch", type=int, default=R.BATCH,
                    help=f"requests handed to the engine at once (default {R.BATCH}); openvino writes a call's rows when "
                         "the whole call ends, so a smaller batch loses less to a stop")
    ap.add_argument("--only", nargs="+", help="run names (default: every run, in plan order)")
    ap.add_argument("--record", action="store_true",
                    help="write the plan's record into each existing run's run.json (what reports read of the plan: "
                         "its name, whether it joins the tables, whether its label names the engine); run nothing")
    return ap.parse_args(argv)


def _trainer(model: str, root: Path, R):
    """The plan's training step (``train`` of :func:`pfc.plans.executor.execute`): the LoRA adapter under ``root``."""
    def train(step: Planned) -> None:
        print(f"[reference] {step.name}: LoRA on {R.LORA['train_n']} training records", file=sys.stderr, flush=True)
        try:
            R.train_adapter(model, step.train, out=root / "lora-adapter",
                            work=None if root == R.OUT else paths.INTERIM / f"reference_lora-{root.name}")
        except KeyboardInterrupt:
            raise KeyboardInterrupt(f"{step.name}: interrupted; the same command resumes from the last checkpoint "
                                    f"(every {R.LORA['checkpoint_every']} steps)") from None
    return train


def _needs_adapter(step: Planned) -> None:
    adapter = step.config and step.config.backend_options.get("adapter")
    if adapter and not (Path(adapter) / "adapter_config.json").exists():
        raise UserError(f"{step.name}: no adapter in {adapter}; run --only lora-adapter first")


def run_plan(argv, R) -> int:
    """``python -m pfc.plans.reference``'s work on the plan module ``R`` (``pfc.plans.reference``, whose ``main``
    runs this through the one error path and hands itself over: this module never imports it, so no import loop)."""
    args = _arguments(argv, R)
    R.folder(args.model, args.backend)  # a --model that cannot name a folder under the root: refused before any work
    unknown = set(args.only or ()) - R.run_names()  # a name no plan holds: refused before the planning work
    if unknown:
        raise UserError(f"unknown run {sorted(unknown)[0]!r}; expected one of {sorted(R.run_names())}")
    os.chdir(paths.ROOT)  # the adapter is named relative to the repository root in each run's config
    tb = benchmarks.get(R.EVIDENCE_BENCHMARK).data_dir()
    if not (tb / "examples.jsonl").exists():
        raise UserError(f"{paths.relative(tb)}: no embedded TRACEBench; build it first (make reproduce, or "
                        "python -m pfc.report.real_models, which builds it)")
    # each package's data (a PTBench build of another synthesis where the plan builds ours is refused: a UserError)
    data = {R.EVIDENCE_BENCHMARK: tb, **{a.name: m.reference_data() for a, m in R.parts()}}
    steps = R.plan(data, args.model, args.backend, args.batch, set(args.only) if args.only else None)
    unknown = set(args.only or ()) - {s.name for s in steps}
    if unknown:
        raise UserError(f"run {sorted(unknown)[0]!r} is not in this plan (its data is not there?); expected one of "
                        f"{[s.name for s in steps]}")
    chosen = [s for s in steps if not args.only or s.name in args.only]
    if args.record:
        for step in chosen:
            if step.config and (Path(step.config.out_dir) / "run.json").is_file():
                write_plan(step.config.out_dir, step.config.plan, planned(step.config))
        return 0
    for step in chosen:
        _needs_adapter(step)  # checked when its turn comes: the adapter is trained by an earlier step
        executor.execute([step], label="reference", train=_trainer(args.model, R.out_root(args.model, args.backend), R))
    return 0


