"""Command line ``pfc`` (also ``python -m pfc``): parse | score | simulate | preprocess | build | run | models | report | compare | sweep | perturb | export | personalize | diff | verify.

Exit statuses: 0 done; 1 ``run`` had failed requests or wrote nothing (one-line summary on stderr) or a bug in pfc (a
short traceback and "this is a bug in pfc"; ``PFC_DEBUG=1``: the full one); 2 a user error — one line ``pfc <cmd>:
<file>:<line>: field '<f>': <message>``, never a traceback (``pfc.errors``); 130 interrupted (Ctrl-C; a run resumes on
re-running).

This module assembles the command line and dispatches every command through that one error path. The
commands live with their group: ``parse``/``score`` in :mod:`pfc.cli_score`, ``simulate``/``preprocess``/
``build`` in :mod:`pfc.cli_build`, ``models`` in :mod:`pfc.cli_models`, ``report``/``compare`` in
:mod:`pfc.report.runs`, ``sweep`` in :mod:`pfc.sweep.command`, ``export`` in :mod:`pfc.integrations.hf_datasets`,
``perturb`` in :mod:`pfc.data.perturb_cli`, ``personalize`` in :mod:`pfc.report.personalize`, ``verify``'s checks in
:mod:`pfc.report.verify`; ``run``, ``diff`` (:mod:`pfc.report.diff`) and ``verify``'s flags are here (``run``'s
flags: :data:`pfc.run.run_args.FLAGS`, one per field of ``RunConfig``).

    $ echo "Shop:[buy(n=2)]" | pfc parse --style ptbench
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from pfc import __version__, cli_build, cli_models, cli_score
from pfc.errors import EXIT_RUN_FAILED, UserError, entry, existing, nonneg_int, out_dir


def _run_cmd(args) -> int:
    from pfc.models.registry import ModelError
    from pfc.run.checks import failure_summary
    from pfc.run.run_args import config_from_args
    from pfc.plans import Planned, executor
    cfg = config_from_args(args)  # the flag table (pfc.run.run_args); then the paths it names are checked
    options = dict(cfg.backend_options)
    if options.get("adapter"):
        options["adapter"] = str(existing(options["adapter"], "--adapter"))
    cfg = replace(cfg, examples=existing(cfg.examples, "--examples"), out_dir=out_dir(cfg.out_dir),
                  tools=cfg.tools and existing(cfg.tools, "--tools"), backend_options=options)
    try:
        usage = executor.run(Planned("pfc run", cfg))  # the one executor of planned runs
    except ModelError as e:
        raise UserError(str(e)) from None
    print(json.dumps(usage))
    line = failure_summary(usage, args.out)
    if line:
        print(f"pfc run: {line}", file=sys.stderr)
        return EXIT_RUN_FAILED
    return 0


# Ctrl-C in a command other than `pfc run` (which says how many rows it saved)
INTERRUPTED = ("interrupted: files it had finished are kept (score and report files are replaced whole or not "
               "at all); re-run the same command to finish")


def _dispatch(args) -> int:
    """The one error path (``pfc.errors.entry``): a UserError (or an OSError on a user's path) is one line
    and exit 2; any other exception is a bug in pfc: a short traceback, exit 1. PFC_DEBUG=1 re-raises."""
    return entry(f"pfc {args.cmd}", args.func, args, interrupted=INTERRUPTED)


EXAMPLES = {  # `pfc <cmd> --help` ends with one of these (a test checks every command has one)
    "parse": "echo \"Shop:[buy(n=2)]\" | pfc parse --style ptbench",
    "score": "pfc score --benchmark tracebench --examples data/benchmarks/tracebench "
             "--predictions data/runs/tb-history-prior/predictions.jsonl --out scores/hp --table",
    "simulate": "pfc simulate --users 10 --seed 0 --out data/raw/sim",
    "preprocess": "pfc preprocess --raw data/raw/sim --out data/interim/tracebench",
    "build": "pfc build tracebench --users 10 --seed 0 --out data/benchmarks/tracebench",
    "run": "pfc run --benchmark tracebench --examples data/benchmarks/tracebench --backend history-prior "
           "--out data/runs/hp",
    "models": "pfc models install qwen2.5-coder-0.5b",
    "report": "pfc report data/runs/hp data/runs/nh --out reports/runs",
    "compare": "pfc compare data/runs/hp data/runs/nh --by vagueness",
    "sweep": "pfc sweep sweeps/example.yaml --dry-run",
    "perturb": "pfc perturb --benchmark tracebench --examples data/benchmarks/tracebench --kind swap-user "
               "--out data/benchmarks/tracebench-swap",
    "personalize": "pfc personalize data/runs/tb-history-prior data/runs/tb-swap-hp",
    "diff": "pfc diff data/runs/hp data/runs/nh --out reports/diff --metric overall",
    "verify": "pfc verify reports/reference_runs/tracebench-last_k reports/reference_runs/toolspectrum",
}


def _examples(sub) -> None:
    for name, p in sub.choices.items():
        if not p.epilog and name in EXAMPLES:
            p.epilog = f"example:\n  {EXAMPLES[name]}"
        p.formatter_class = argparse.RawDescriptionHelpFormatter


def _add_run(sub) -> None:
    """``pfc run``: its flags are :data:`pfc.run.run_args.FLAGS`, one per field of ``RunConfig`` (``pfc sweep``
    writes and checks its runs' command lines with the same table)."""
    from pfc.run.run_args import add_run_parser
    add_run_parser(sub).set_defaults(func=_run_cmd)


def _diff_cmd(args) -> int:
    from pfc.report import diff  # pandas and the scorer load when a diff is made, not when `pfc` builds its parser
    result = diff.compute(existing(args.run_a, "RUN_A"), existing(args.run_b, "RUN_B"), args.metric, args.n_boot,
                          args.seed)
    print(diff.write(result, out_dir(args.out)))
    return 0


def _add_diff(sub) -> None:
    """``pfc diff``: two runs' paired counts and discordant examples as a static page (:mod:`pfc.report.diff`)."""
    p = sub.add_parser("diff", help="two runs compared in the browser: paired metrics with intervals and the "
                       "examples only one of them got right (diff.html, diff.json)")
    p.add_argument("run_a", help="run directory A (differences are A - B)")
    p.add_argument("run_b", help="run directory B, on the same data build")
    p.add_argument("--out", default="reports/diff", help="output directory (default: reports/diff)")
    p.add_argument("--metric", action="append", help="a metric to list discordant examples of (repeatable; "
                   "default: the benchmark's headline metrics)")
    p.add_argument("--n-boot", type=nonneg_int, default=1000, help="bootstrap resamples over users")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_diff_cmd)


def _verify_cmd(args) -> int:
    from pfc.report.verify import verify_cmd  # it loads the scorer: imported when run, not to build the parser
    return verify_cmd(args)


def _add_verify(sub) -> None:
    """``pfc verify``: the checks are :mod:`pfc.report.verify`'s."""
    p = sub.add_parser("verify", help="re-derive what run directories claim (examples, prompt template and sample "
                       "hashes; a reference run's predictions hash and metrics) from what they hold; exit 1 on any "
                       "difference")
    p.add_argument("runs", nargs="+", metavar="RUN", help="run directory (config.json, predictions.jsonl)")
    p.add_argument("--skip-unbuilt", action="store_true", help="a run whose examples are not built is skipped, "
                   "not a failure")
    p.set_defaults(func=_verify_cmd)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="pfc", description=__doc__.split("\n")[0])
    ap.add_argument("--version", action="version", version=f"pfc {__version__}")
    sub = ap.add_subparsers(dest="cmd", required=True)
    cli_score.add_commands(sub)  # parse, score
    cli_build.add_commands(sub)  # simulate, preprocess, build
    _add_run(sub)
    cli_models.add_command(sub)  # models
    from pfc.report.runs import add_commands
    add_commands(sub)  # report, compare
    from pfc.sweep.command import add_command
    add_command(sub)  # sweep
    from pfc.integrations import hf_datasets
    hf_datasets.add_command(sub)  # export
    from pfc.data.perturb_cli import add_command as add_perturb
    add_perturb(sub)
    from pfc.report.personalize import add_command as add_personalize
    add_personalize(sub)
    _add_diff(sub)
    _add_verify(sub)
    _examples(sub)
    return ap


def main(argv=None) -> int:
    """Parse the command line (through the one error path: the parser lists the registered benchmarks, and a
    malformed ``PFC_BENCHMARKS`` is one line) and run its command."""
    parsed = []
    code = entry("pfc", lambda: parsed.append(_parser().parse_args(argv)))
    return _dispatch(parsed[0]) if parsed else code


if __name__ == "__main__":
    sys.exit(main())
