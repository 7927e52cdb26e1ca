"""The ``pfc run`` arguments, in one place: the sub-command's parser and the check ``pfc sweep`` runs on each
planned run with the same parser (so a dry run never prints a ``pfc run`` line that ``pfc run`` refuses).

It parses and checks; it runs nothing (``pfc.cli`` attaches the command, ``pfc.run.runner`` runs).
"""
from __future__ import annotations

import argparse

from pfc import benchmarks
from pfc.errors import UserError, nonneg_float, nonneg_int, positive_float, positive_int, unit_float


def add_run_parser(sub):
    """The ``pfc run`` sub-command and its argument checks (also what ``pfc sweep`` checks each planned run with)."""
    rn = sub.add_parser("run", help="run a backend over a benchmark into a resumable run directory")
    rn.add_argument("--benchmark", choices=list(benchmarks.NAMES), required=True)
    rn.add_argument("--examples", required=True)
    rn.add_argument("--backend", required=True, help="oracle | query-oracle | random | history-prior | no-history | hf | openai | vllm | openvino")
    rn.add_argument("--model", help="model name (backends that load models)")
    rn.add_argument("--strategy", default="zero_shot")
    rn.add_argument("--history", default="full", choices=["full", "last_k", "retrieved"])
    rn.add_argument("--k", type=positive_int, default=50, help="records kept by last_k / retrieved")
    rn.add_argument("--limit", type=positive_int, help="run only the first N examples")
    rn.add_argument("--prompt-format", action="store_true", help="tools in the prompt instead of native tools")
    rn.add_argument("--seed", type=int, default=0)
    rn.add_argument("--tools")
    rn.add_argument("--prompt-variant", default="all",
                    help="ptbench profile ablation: all | no_basic | no_history | no_basic_history | no_personal")
    rn.add_argument("--layout", choices=["paper", "prefix"], default="paper",
                    help="prompt layout: paper (the papers' templates, default) | prefix (instructions and tools "
                         "first, then profile/history, then the request: long shared prefixes, faster)")
    rn.add_argument("--adapter", help="hf backend: a LoRA adapter directory (pfc.train.lora) merged into --model")
    rn.add_argument("--out", required=True, help="run directory, e.g. data/runs/<run_id>")
    rn.add_argument("--max-tokens", type=positive_int, help="generation limit (default 512)")
    rn.add_argument("--temperature", type=nonneg_float, help="0 = greedy (default 0.1, the papers' setting)")
    rn.add_argument("--top-p", type=unit_float, help="nucleus mass (default 0.1, the papers' setting)")
    rn.add_argument("--batch-size", type=positive_int, default=16,
                    help="examples handed to the backend at once (results are still cached one by one)")
    rn.add_argument("--concurrency", type=positive_int, help="openai: requests in flight (default 4)")
    rn.add_argument("--timeout", type=positive_float, help="openai: seconds per request (default 60)")
    rn.add_argument("--retries", type=nonneg_int, help="openai: attempts after the first on 429/5xx/timeouts/"
                    "malformed replies, with exponential backoff (default 6)")
    rn.add_argument("--dtype", choices=["auto", "bfloat16", "float16", "float32"],
                    help="hf/vllm weights dtype (hf default: bfloat16 on CPU)")
    rn.add_argument("--no-prefix-reuse", action="store_true",
                    help="hf: prefill every prompt from scratch (default: reuse the previous prompt's KV prefix)")
    rn.add_argument("--engine", choices=["batch", "single", "continuous"],
                    help="hf: continuous (default: requests sharing a prefix decoded together, a stopped row replaced "
                    "by the next request at once) | batch (fixed groups, decoded until their last row stops) | "
                    "single (one at a time)")
    rn.add_argument("--device", help="hf: torch device (default cpu; e.g. cuda)")
    rn.add_argument("--force", action="store_true", help="start afresh: move this directory's run files to attic/")
    rn.add_argument("--no-cache", action="store_true", help="neither read nor write the response cache")
    return rn


class _Refused(argparse.ArgumentParser):
    def error(self, message):
        raise UserError(message)


def check_run_args(argv: list[str]) -> argparse.Namespace:
    """``pfc run`` ``argv`` parsed by ``pfc run``'s own parser; what it would refuse is a UserError (no exit)."""
    sub = _Refused(prog="pfc").add_subparsers(parser_class=_Refused)
    return add_run_parser(sub).parse_args(argv[1:] if argv[:1] == ["run"] else argv)
