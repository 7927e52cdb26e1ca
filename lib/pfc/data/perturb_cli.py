"""``pfc perturb``: the command-line edge of ``pfc.data.counterfactual`` (argument parsing and messages only).

    python -m pfc perturb --benchmark tracebench --examples data/benchmarks/tracebench --kind swap-user --out DIR
"""
from __future__ import annotations

import json

ACTION_KINDS = ("ask", "cannot")  # kinds whose gold is not a call (pfc.data.counterfactual_ask)


def _perturb_cmd(args) -> int:
    from pfc import benchmarks
    from pfc.data import counterfactual as cf
    from pfc.errors import UserError, existing, out_dir
    from pfc.io.safepath import not_input
    name, _ = cf.parse_kind(args.kind)  # a bad kind fails before any loading
    if name in ACTION_KINDS and name not in benchmarks.get(args.benchmark).building.action_kinds:
        admit = [n for n in benchmarks.NAMES if name in benchmarks.get(n).building.action_kinds]
        raise UserError(f"--kind {name} is built for {', '.join(admit) or 'no benchmark'}, not {args.benchmark} "
                        "(its adapter's action_kinds)", field="--kind")
    src = existing(args.examples, "--examples")
    not_input(out_dir(args.out), {"--examples": src, "--tools": args.tools})  # before any loading
    examples, tools = benchmarks.get(args.benchmark).scoring.load(src, args.tools and existing(args.tools, "--tools"))
    if not examples:
        raise UserError("no examples", file=str(src))
    other = sorted({e.benchmark for e in examples} - {args.benchmark})
    if other:
        raise UserError(f"holds {'/'.join(other)} examples, not {args.benchmark} (check --benchmark)",
                        file=str(src), field="benchmark")
    variants, skipped = cf.perturb(examples, args.kind, args.seed, tools)
    if not variants:
        raise UserError(f"no example admits --kind {args.kind}: {dict(skipped)}", file=str(src))
    manifest = cf.write(out_dir(args.out), src,
                        cf.VariantSet(args.benchmark, args.kind, args.seed, variants, skipped, tools, examples))
    print(json.dumps({k: manifest[k] for k in ("kind", "originals", "variants", "skipped",
                                               "with_counterfactual_gold")}))
    return 0


def add_command(sub) -> None:
    """Register ``perturb`` on the ``python -m pfc`` sub-command parser."""
    from pfc import benchmarks
    from pfc.data.counterfactual import KINDS
    p = sub.add_parser("perturb", help="counterfactual variants of a benchmark (swap-user, shuffle-history, ...)")
    p.add_argument("--benchmark", required=True, choices=list(benchmarks.NAMES))
    p.add_argument("--examples", required=True, help="benchmark directory or examples file")
    p.add_argument("--tools", help="tool file (ToolSpectrum)")
    p.add_argument("--kind", required=True, help=f"one of {', '.join(KINDS)}")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="output directory (examples.jsonl, tools.json, perturb.json)")
    p.set_defaults(func=_perturb_cmd)
