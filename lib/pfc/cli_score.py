"""``pfc parse`` and ``pfc score``: read model outputs, and score predictions against a benchmark's examples.

``parse`` reads one model output on stdin and prints ``{"ok", "calls", "refusal", "error"}`` (exit 0 when it parsed, 1
when not). ``score`` writes ``metrics.json``, ``score.json``, ``per_example.csv`` and ``errors.csv`` to ``--out`` and
prints strict JSON (or ``--table``). Both are light: they load no plotting or scipy stack
(``tests/test_cli_startup.py``). This module defines the two commands' arguments and handlers; the parser is
:mod:`pfc.eval.parsing`, the scorer :mod:`pfc.eval.scoring`, and ``pfc.cli`` assembles and dispatches the command line.

    $ echo "Shop:[buy(n=2)]" | pfc parse --style ptbench
"""
from __future__ import annotations

import json
import sys

from pfc import benchmarks
from pfc.errors import existing, out_dir
from pfc.eval.parsing import parse, styles


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


def add_commands(sub) -> None:
    """``pfc parse`` and ``pfc score`` on the subcommand parsers ``sub``."""
    p = sub.add_parser("parse", help="parse one model output read from stdin")
    p.add_argument("--style", choices=styles(), default="auto")
    p.add_argument("--message", action="store_true",
                   help="stdin is an assistant message JSON with tool_calls")
    p.set_defaults(func=_parse_cmd)
    s = sub.add_parser("score", help="score predictions against examples")
    s.add_argument("--benchmark", choices=benchmarks.NAMES, required=True)
    s.add_argument("--examples", required=True, help="examples.jsonl / benchmark dir / official file")
    s.add_argument("--predictions", required=True, help="predictions JSONL")
    s.add_argument("--out", required=True, help="output directory")
    s.add_argument("--tools", help="tool file (ToolSpectrum: API_description*.json)")
    s.add_argument("--style", choices=styles(), help="output style (default: the benchmark's)")
    s.add_argument("--compat", choices=["official"], help="PTBench: the published evaluator's numbers")
    s.add_argument("--strict", action="store_true",
                   help="strict coverage (any missing, unknown or duplicate prediction id is an error) and strict "
                        "matching (format only for exactly the required template with the app named; values and "
                        "app names compared exactly); score.json records the mode")
    s.add_argument("--table", action="store_true", help="print a readable table instead of JSON")
    s.set_defaults(func=_score_cmd)
