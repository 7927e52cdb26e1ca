"""Command line: ``python -m pfc parse`` and ``python -m pfc score``.

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
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
