"""PTBench's builder (``pfc.benchmarks.adapter.Builder``): ``pfc build ptbench`` by PTool synthesis.

``pfc.data.ptool.build`` synthesizes (LLM agents when ``--llm-backend`` is given) and ``pfc.train.sft`` writes the
training split's chat records beside it. A sweep cannot build PTBench (its ``Building.params`` is empty).
"""
from __future__ import annotations

import json
from pfc.data.ptool.build import synthesize, write
from pfc.errors import UserError, out_dir
from pfc.run.backends import chat_from_args
from pfc.train.sft import write_train


def command(args) -> int:
    """``pfc build ptbench``: Table 5's query counts on stdout."""
    try:
        ks = tuple(int(x) for x in args.ks.split(","))
    except ValueError:
        ks = ()
    if len(ks) != 3 or min(ks) < 1:
        raise UserError(f"--ks needs three positive integers k0,k1,k2 (N = k0*k1*k2 users), got {args.ks!r}")
    users = ks[0] * ks[1] * ks[2]
    if args.held_out >= users:
        raise UserError(f"--held-out {args.held_out} keeps every one of the {users} users (--ks {args.ks}) out of "
                        f"training; expected fewer than {users}")
    out = out_dir(args.out)
    result = synthesize(seed=args.seed, ks=ks, per_user=args.per_user, chat=chat_from_args(args),
                        llm_verify=args.llm_screen, expand_tools=args.llm_tools, held_out=args.held_out,
                        version=args.synthesis)
    if not result["splits"]["train"]:  # nothing to train on, nor to measure the test queries' overlap against
        raise UserError(f"--ks {args.ks}, --per-user {args.per_user} and --held-out {args.held_out} leave no "
                        "training query; give more users or queries per user, or hold fewer out")
    st = write(result, out)
    write_train(out)
    print(json.dumps({k: v["queries"] for k, v in st["table5"].items()}))
    return 0
