"""``make reproduce``: the notebooks in order under papermill, each step skipped when its inputs are unchanged.

Steps: preprocess (01) → build TRACEBench (02) → model runs (03: the built-in baselines; the real small model on a
stratified sample when one is available; ``BACKEND``/``MODEL`` add that model's run on each benchmark: TRACEBench, the
ToolSpectrum release when configured, PTBench on the official test data when ``PFC_PTBENCH_DIR`` is set, else on our
PTool build) → the ToolSpectrum release views (toolspectrum.ipynb) and PTBench (ptbench.ipynb) when configured → the
committed reference runs re-scored → counterfactual contexts (swap-user variants, the baselines on them, 08:
personalization metrics) → evidence dose (dose and contradict-stated variants of the reference plan's sampled requests,
history-prior / no-history / always-habit on them, 09: dose-response curves, overrides) → evaluate (04: Table 4 with CIs
beside the paper) → error taxonomy (05) → figures (06: Fig. 3/4) → walkthrough (00) → ``reports/index.{md,html}``.
Executed notebooks go to ``reports/notebooks/`` with an HTML copy.

A step's key is the SHA-256 of its notebook, its parameters, the library source and its input files; a step whose key
and outputs are unchanged is skipped (``reports/pipeline.json`` holds the keys). Every step says whether it ran or was
skipped and how long it took. The real small model's sampled run goes on beside the steps after it until the first one
that reads its run (``running``). This module is the command line; the package's other modules are named in its
docstring.

    python -m pfc.report.pipeline [--backend vllm --model Qwen/Qwen2.5-7B-Instruct] [--real-model auto|DIR|none]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from pfc import benchmarks
from pfc.errors import EXIT_RUN_FAILED, UserError, entry, positive_int
from pfc.plans.sample_run import REAL_MODEL_NAME, real_model_dir
from pfc.report.pipeline.index import write_index
from pfc.report.pipeline.planning import plan
from pfc.report.pipeline.running import reproduce
from pfc.report.pipeline.step import StepFailed, rel
from pfc.run.backends.builtin import BASELINES


def main(argv=None) -> int:
    """``make reproduce``'s command line, through the one error path (``pfc.errors.entry``)."""
    return entry("reproduce", _main, argv, interrupted="interrupted; every step that finished is kept "
                 "(reports/pipeline.json) and is skipped next time: run make reproduce again to resume")


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default=os.environ.get("BACKEND", ""), help="add a run with this backend (vllm, openai, hf)")
    ap.add_argument("--model", default=os.environ.get("MODEL", ""), help="model for --backend")
    ap.add_argument("--real-model", default=os.environ.get("REAL_MODEL", "auto"),
                    help="the packaged real small model: auto (models cache), a directory, or none")
    ap.add_argument("--sample", type=positive_int, default=os.environ.get("SAMPLE", "4"),
                    help="the real small model: this many examples covering every vagueness level and history bin, plus the walkthrough's")
    ap.add_argument("--n-boot", type=positive_int, default=1000)
    ap.add_argument("--leave-out", action="append", default=[], metavar="BENCHMARK",
                    help="leave this benchmark's own steps out (repeatable; e.g. toolspectrum)")
    ap.add_argument("--force", action="store_true", help="run every step even when its inputs are unchanged")
    args = ap.parse_args(argv)
    if args.backend and not args.model and args.backend not in BASELINES:
        raise UserError(f"BACKEND={args.backend} needs MODEL=<name or path>")
    if args.real_model not in ("", "auto", "none") and not (Path(args.real_model) / "config.json").is_file():
        # refused before step 1, not at step 13
        raise UserError(f"{args.real_model}: not a model directory (no config.json); REAL_MODEL / --real-model is "
                        "auto, none or a model directory")
    t0 = time.perf_counter()
    names = benchmarks.names()
    unknown = sorted(set(args.leave_out) - set(names))
    if unknown:
        raise UserError(f"--leave-out: unknown benchmark {unknown[0]!r}; expected one of {', '.join(names)}")
    steps = plan(args.backend, args.model, args.real_model, args.sample, args.n_boot, tuple(args.leave_out))
    if args.real_model == "none":
        print("reproduce: REAL_MODEL=none: the real small model's sampled run is left out, as asked.", file=sys.stderr)
    elif real_model_dir(args.real_model) is None:
        print("reproduce: no real small model found (REAL_MODEL=auto looks in $PFC_MODELS_DIR or "
              f"~/.cache/pfc/models/{REAL_MODEL_NAME}); its sampled run is left out. Set REAL_MODEL=<model dir>.",
              file=sys.stderr)
    try:
        records = reproduce(steps, force=args.force, log=lambda *a, **k: print(*a, file=sys.stderr, **k))
    except StepFailed as e:  # one line naming the step; PFC_DEBUG=1: the step's own traceback
        if os.environ.get("PFC_DEBUG"):
            raise
        print(f"reproduce: {e}", file=sys.stderr)
        return EXIT_RUN_FAILED
    dt = time.perf_counter() - t0
    md = write_index(records, dt)
    ran = [r["step"] for r in records if r["status"] == "ran"]
    print(f"reproduce: {len(ran)} of {len(records)} steps ran ({', '.join(ran) or 'none'}) in {dt:.0f}s; "
          f"see {rel(md)} and reports/index.html", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
