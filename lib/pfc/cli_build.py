"""``pfc simulate``, ``pfc preprocess`` and ``pfc build``: make benchmark data.

``simulate`` writes seeded raw phone logs (:mod:`pfc.data.simulate`), ``preprocess`` anonymizes, validates and
standardizes raw logs (:mod:`pfc.data.preprocess`), and ``build <benchmark>`` builds a benchmark end to end through its
package's ``build`` module (:func:`builders`; TRACEBench from simulated or given logs, PTBench by PTool synthesis), with
an LLM for screening, role-play or agents when ``--llm-backend`` is given. This module defines the commands' arguments
and hands the parsed values to those modules; it builds nothing itself, and ``pfc.cli`` assembles and dispatches the
command line.

    >>> builders()[:2]
    ['tracebench', 'ptbench']
"""
from __future__ import annotations

import json
import sys

from pfc.errors import existing, nonneg_int, out_dir, positive_int


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


def builders() -> list[str]:
    """The benchmarks pfc can build: those whose package has a ``build`` module (``pfc.benchmarks.adapter.Builder``);
    an outside one that cannot be used is listed too, and ``pfc build <it>`` refuses it in one line."""
    from pfc import benchmarks
    return [n for n in benchmarks.names() if (a := benchmarks.usable(n)) is None or a.has("build")]


def _build_cmd(args) -> int:
    from pfc import benchmarks
    return benchmarks.get(args.benchmark).builder().command(args)


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
    """``pfc build``: the benchmarks whose package has a builder."""
    b = sub.add_parser("build", help="build a benchmark end to end")
    b.add_argument("benchmark", choices=builders())
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
