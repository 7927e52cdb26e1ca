"""``pfc simulate``, ``pfc preprocess`` and ``pfc build``: make benchmark data.

``simulate`` writes seeded raw phone logs (:mod:`pfc.data.simulate`), ``preprocess`` anonymizes,
validates and standardizes raw logs (:mod:`pfc.data.preprocess`), and ``build <benchmark>`` builds a
benchmark end to end through the ``builder`` its adapter names (:func:`builders`): TRACEBench from
simulated or given logs (:func:`build_tracebench`), PTBench by PTool synthesis (:func:`build_ptbench`),
with an LLM for screening, role-play or agents when ``--llm-backend`` is given. This module defines the
commands' arguments and hands the parsed values to those functions; it builds nothing itself, and
``pfc.cli`` assembles and dispatches the command line.

    >>> all(":" in where for where in builders().values())  # "module:function" each
    True
"""
from __future__ import annotations

import importlib
import json
import sys

from pfc.errors import UserError, existing, nonneg_int, out_dir, positive_int


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


def build_ptbench(args) -> int:
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
    from pfc.train.sft import write_train
    write_train(out)
    print(json.dumps({k: v["queries"] for k, v in st["table5"].items()}))
    return 0


def build_tracebench(args) -> int:
    """``pfc build tracebench``: simulated (or given) logs -> anchors -> queries (pfc.data.build)."""
    from pfc.data.build import build_tracebench as build
    chat = _llm_chat(args)
    st = build(out_dir(args.out), raw_dir=args.raw and existing(args.raw, "--raw"), users=args.users,
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


def add_commands(sub) -> None:
    """``pfc simulate``, ``pfc preprocess`` and ``pfc build`` on the subcommand parsers ``sub``."""
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
    _add_build(sub)


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
