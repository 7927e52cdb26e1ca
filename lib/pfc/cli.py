"""Command line: ``python -m pfc parse | score | simulate | preprocess | build tracebench``.

``parse`` reads one model output on stdin and prints ``{"ok", "calls", "refusal", "error"}``
(exit 0 when it parsed, 1 when not). ``score`` writes ``metrics.json``,
``per_example.csv`` and ``errors.csv`` to ``--out``. Bad input files are reported with
file, record and field, and exit status 2 — never a traceback.

    $ echo "Shop:[buy(n=2)]" | python -m pfc parse --style ptbench
"""
from __future__ import annotations

import argparse
import json
import sys

from . import benchmarks
from .parsing import STYLES, parse
from .schema import SchemaError


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
    from .paths import relative
    from .scoring import score_files
    try:
        report = score_files(args.benchmark, args.examples, args.predictions, args.tools,
                             args.style, args.compat)
    except (SchemaError, FileNotFoundError, ValueError) as e:
        print(f"pfc score: {e}", file=sys.stderr)
        return 2
    out = report.write(args.out)
    headline = {k: round(v, 4) for k, v in report.metrics.items() if "/" not in k}
    print(json.dumps(headline))
    print(f"wrote {relative(out)}/metrics.json, per_example.csv ({len(report.per_example)} rows), "
          f"errors.csv ({len(report.errors)} rows)", file=sys.stderr)
    return 0


def _simulate_cmd(args) -> int:
    from .paths import relative
    from .simulate import simulate
    out = simulate(args.users, args.seed, args.out, records=args.records, workers=args.workers)
    print(f"wrote {relative(out)}/events.jsonl and manifest.json", file=sys.stderr)
    return 0


def _preprocess_cmd(args) -> int:
    from .preprocess import preprocess
    try:
        report = preprocess(args.raw, args.out)
    except FileNotFoundError as e:
        print(f"pfc preprocess: {e}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1))
    return 0


def _build_ptbench(args) -> int:
    """``pfc build ptbench``: PTool synthesis (pfc.ptool); LLM agents when --llm-backend is given."""
    from .ptool.build import synthesize, write
    from .schema import SchemaError as _SE
    chat = None
    if args.llm_backend:
        from .backends import chat_function, get
        chat = chat_function(get(args.llm_backend, args.llm_model or ""))
    try:
        ks = tuple(int(x) for x in args.ks.split(","))
        if len(ks) != 3 or min(ks) < 1:
            raise ValueError("--ks needs three positive integers k0,k1,k2 (N = k0*k1*k2 users)")
        result = synthesize(seed=args.seed, ks=ks, per_user=args.per_user or 100, chat=chat,
                            llm_verify=args.llm_screen, expand_tools=args.llm_tools, held_out=args.held_out)
        st = write(result, args.out)
    except (FileNotFoundError, ValueError, _SE) as e:
        print(f"pfc build: {e}", file=sys.stderr)
        return 2
    print(json.dumps({k: v["queries"] for k, v in st["table5"].items()}))
    return 0


def _build_cmd(args) -> int:
    if args.benchmark == "ptbench":
        return _build_ptbench(args)
    from .build import build_tracebench
    from .schema import SchemaError as _SE
    chat = None
    if args.llm_backend:
        from .backends import chat_function, get
        chat = chat_function(get(args.llm_backend, args.llm_model or ""))
    try:
        st = build_tracebench(args.out, raw_dir=args.raw, users=args.users, seed=args.seed, records=args.records,
                              per_user=args.per_user or 60, workers=args.workers, review_sheet=args.review_sheet,
                              chat=chat if args.llm_queries else None, judge=chat if args.llm_screen else None)
    except (FileNotFoundError, _SE) as e:
        print(f"pfc build: {e}", file=sys.stderr)
        return 2
    print(json.dumps(st["table2"]))
    return 0


def _run_cmd(args) -> int:
    from .runner import run
    from .schema import SchemaError as _SE
    try:
        usage = run(args.benchmark, args.examples, args.backend, args.out, model=args.model or "",
                    strategy=args.strategy, history=args.history, k=args.k, limit=args.limit,
                    native=not args.prompt_format, seed=args.seed, tools_path=args.tools,
                    prompt_variant=args.prompt_variant,
                    backend_options={"adapter": args.adapter} if args.adapter else None)
    except (FileNotFoundError, ValueError, _SE) as e:
        print(f"pfc run: {e}", file=sys.stderr)
        return 2
    print(json.dumps(usage))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pfc", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
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
    s.set_defaults(func=_score_cmd)
    sim = sub.add_parser("simulate", help="simulate raw phone interaction logs")
    sim.add_argument("--users", type=int, default=10)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--records", type=int, default=300, help="records per user (at least 100 recommended)")
    sim.add_argument("--workers", type=int, default=1)
    sim.add_argument("--out", required=True)
    sim.set_defaults(func=_simulate_cmd)
    pre = sub.add_parser("preprocess", help="anonymize, validate and standardize raw logs")
    pre.add_argument("--raw", required=True)
    pre.add_argument("--out", required=True)
    pre.set_defaults(func=_preprocess_cmd)
    b = sub.add_parser("build", help="build a benchmark end to end")
    b.add_argument("benchmark", choices=["tracebench", "ptbench"])
    b.add_argument("--raw", help="raw logs directory (default: simulate)")
    b.add_argument("--users", type=int, default=10)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--records", type=int, default=300)
    b.add_argument("--per-user", type=int, help="anchors per user (tracebench, default 60); queries per user (ptbench, default 100)")
    b.add_argument("--ks", default="4,4,5", help="ptbench: profiles per level of the feature tree, N = k0*k1*k2")
    b.add_argument("--held-out", type=int, default=6, help="ptbench: users kept out of training (untrained)")
    b.add_argument("--llm-tools", type=int, default=0, help="ptbench: new APIs per scenario proposed by the LLM")
    b.add_argument("--workers", type=int, default=1)
    b.add_argument("--review-sheet", help="a reviewed anchors_review.csv to apply")
    b.add_argument("--llm-backend", help="model backend for LLM screening / role-play (openai, hf, vllm)")
    b.add_argument("--llm-model", help="model for --llm-backend")
    b.add_argument("--llm-screen", action="store_true", help="tracebench: fine-screen anchors with the LLM; ptbench: model-based verification of solutions")
    b.add_argument("--llm-queries", action="store_true", help="generate queries by LLM role-play (checked)")
    b.add_argument("--out", required=True)
    b.set_defaults(func=_build_cmd)
    rn = sub.add_parser("run", help="run a backend over a benchmark into a resumable run directory")
    rn.add_argument("--benchmark", choices=["tracebench", "ptbench", "toolspectrum"], required=True)
    rn.add_argument("--examples", required=True)
    rn.add_argument("--backend", required=True, help="oracle | random | history-prior | no-history | hf | openai | vllm")
    rn.add_argument("--model", help="model name (backends that load models)")
    rn.add_argument("--strategy", default="zero_shot")
    rn.add_argument("--history", default="full", choices=["full", "last_k", "retrieved"])
    rn.add_argument("--k", type=int, default=50, help="records kept by last_k / retrieved")
    rn.add_argument("--limit", type=int)
    rn.add_argument("--prompt-format", action="store_true", help="tools in the prompt instead of native tools")
    rn.add_argument("--seed", type=int, default=0)
    rn.add_argument("--tools")
    rn.add_argument("--prompt-variant", default="all",
                    help="ptbench profile ablation: all | no_basic | no_history | no_basic_history | no_personal")
    rn.add_argument("--adapter", help="hf backend: a LoRA adapter directory (pfc.train) merged into --model")
    rn.add_argument("--out", required=True, help="run directory, e.g. data/runs/<run_id>")
    rn.set_defaults(func=_run_cmd)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
