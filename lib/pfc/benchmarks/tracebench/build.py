"""TRACEBench's builder (``pfc.benchmarks.adapter.Builder``): ``pfc build tracebench`` and a sweep's ``build``.

Both go through ``pfc.data.build.build_tracebench`` (simulated or given logs -> anchors -> queries); this module only
hands it the parsed arguments or the sweep's parameters (``Building.params``).
"""
from __future__ import annotations

import json
from pathlib import Path

from pfc.data.build import build_tracebench
from pfc.errors import existing, out_dir
from pfc.run.backends import chat_from_args


def command(args) -> int:
    """``pfc build tracebench``: the build's Table 2 counts on stdout."""
    chat = chat_from_args(args)
    st = build_tracebench(out_dir(args.out), raw_dir=args.raw and existing(args.raw, "--raw"), users=args.users,
                          seed=args.seed, records=args.records, queries=args.queries, workers=args.workers,
                          review_sheet=args.review_sheet and existing(args.review_sheet, "--review-sheet"),
                          chat=chat if args.llm_queries else None, judge=chat if args.llm_screen else None)
    print(json.dumps(st["table2"]))
    return 0


def build(out: Path, **params) -> None:
    """A sweep's build into ``out`` with the spec's ``users``, ``seed``, ``records``, ``queries``."""
    build_tracebench(out, progress=False, **params)
