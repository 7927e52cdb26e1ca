"""The ``pfc run`` flags, in one table (:data:`FLAGS`): each flag is a field of :class:`pfc.run.config.RunConfig`.

From the table come ``pfc run``'s parser (:func:`add_run_parser`), the configuration a parsed command
line describes (:func:`config_from_args`) and the command line that describes a configuration
(:func:`run_args`: what ``pfc sweep`` prints for each planned run, and checks with ``pfc run``'s own parser,
:func:`parse_run_args`, so a dry run never prints a line that ``pfc run`` refuses). A field is either a
field of ``RunConfig`` (``k``) or a key of one of its dict fields (``sampling.max_tokens``,
``backend_options.dtype``); a switch (``store``) gives its field one value when present. The fields without
a flag (``cache_path``, ``progress``, ``ids``, ``plan``, a Backend object) are not in a command line.

It parses and checks; it runs nothing (``pfc.cli`` attaches the command, ``pfc.run.runner`` runs).

    >>> from pfc.run.config import RunConfig
    >>> run_args(RunConfig("tracebench", "tb", "oracle", "out", history="last_k", k=5))
    ['run', '--benchmark', 'tracebench', '--examples', 'tb', '--backend', 'oracle', '--history', 'last_k', '--k', '5', '--out', 'out']
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields

from pfc import benchmarks
from pfc.errors import UserError, nonneg_float, nonneg_int, positive_float, positive_int, unit_float
from pfc.run.config import RunConfig

_ABSENT = object()


@dataclass(frozen=True)
class Flag:
    flag: str                       # "--max-tokens"
    field: str                      # a RunConfig field, or "<dict field>.<key>" ("sampling.max_tokens")
    help: str | None = None
    type: object = None             # argparse type (a checker from pfc.errors, int, …)
    choices: tuple | Callable | None = None  # a callable: read when the parser is built (the benchmarks)
    required: bool = False
    store: object = _ABSENT         # a switch: the value the field takes when the flag is given

    @property
    def dest(self) -> str:
        return self.flag[2:].replace("-", "_")

    def default(self):
        """The field's own default (``RunConfig``'s); a dict field's key: absent (None)."""
        if "." in self.field:
            return None
        f = next(f for f in fields(RunConfig) if f.name == self.field)
        return None if f.default is MISSING else f.default


FLAGS = (
    Flag("--benchmark", "benchmark", choices=benchmarks.names, required=True),
    Flag("--examples", "examples", required=True),
    Flag("--backend", "backend", required=True,
         help="oracle | query-oracle | random | history-prior | no-history | hf | openai | vllm | openvino"),
    Flag("--model", "model", help="model name (backends that load models)"),
    Flag("--strategy", "strategy"),
    Flag("--history", "history", choices=("full", "last_k", "retrieved")),
    Flag("--k", "k", "records kept by last_k / retrieved", positive_int),
    Flag("--limit", "limit", "run only the first N examples", positive_int),
    Flag("--prompt-format", "native", "tools in the prompt instead of native tools", store=False),
    Flag("--seed", "seed", type=int),
    Flag("--tools", "tools"),
    Flag("--prompt-variant", "prompt_variant",
         "ptbench profile ablation: all | no_basic | no_history | no_basic_history | no_personal; tracebench "
         "prompt axes: all, or history=json|table|sentences, order=newest, answer=python joined by commas"),
    Flag("--layout", "layout", "prompt layout: paper (the papers' templates, default) | prefix (instructions and "
         "tools first, then profile/history, then the request: long shared prefixes, faster)", choices=("paper", "prefix")),
    Flag("--max-tokens", "sampling.max_tokens", "generation limit (default 512)", positive_int),
    Flag("--temperature", "sampling.temperature", "0 = greedy (default 0.1, the papers' setting)", nonneg_float),
    Flag("--top-p", "sampling.top_p", "nucleus mass (default 0.1, the papers' setting)", unit_float),
    Flag("--batch-size", "batch_size", "examples handed to the backend at once (results are still cached one by one)",
         positive_int),
    Flag("--concurrency", "backend_options.concurrency", "openai: requests in flight (default 4)", positive_int),
    Flag("--timeout", "backend_options.timeout", "openai: seconds per request (default 60)", positive_float),
    Flag("--retries", "backend_options.max_retries", "openai: attempts after the first on 429/5xx/timeouts/"
         "malformed replies, with exponential backoff (default 6)", nonneg_int),
    Flag("--dtype", "backend_options.dtype", "hf/vllm weights dtype (hf default: bfloat16 on CPU)",
         choices=("auto", "bfloat16", "float16", "float32")),
    Flag("--device", "backend_options.device", "hf: torch device (default cpu; e.g. cuda)"),
    Flag("--engine", "backend_options.engine", "hf: continuous (default: requests sharing a prefix decoded together, "
         "a stopped row replaced by the next request at once) | batch (fixed groups, decoded until their last row "
         "stops) | single (one at a time)", choices=("batch", "single", "continuous")),
    Flag("--max-batched-tokens", "backend_options.max_batched_tokens", "openvino: tokens a scheduler step (default "
         "2048; another value is named in the run identity, :step-N)", positive_int),
    Flag("--no-prefix-reuse", "backend_options.prefix_reuse",
         "hf: prefill every prompt from scratch (default: reuse the previous prompt's KV prefix)", store=False),
    Flag("--adapter", "backend_options.adapter",
         "hf and openvino backends: a LoRA adapter directory (pfc.train.lora) merged into --model"),
    Flag("--force", "force", "start afresh: move this directory's run files to attic/", store=True),
    Flag("--no-cache", "use_cache", "neither read nor write the response cache", store=False),
    Flag("--out", "out_dir", "run directory, e.g. data/runs/<run_id>", required=True),
)


def flag_keys(field: str) -> tuple[str, ...]:
    """The keys of a dict field of ``RunConfig`` that ``pfc run`` has a flag for (what a sweep spec may set).

    >>> flag_keys("sampling")
    ('max_tokens', 'temperature', 'top_p')
    """
    return tuple(f.field.partition(".")[2] for f in FLAGS if f.field.startswith(field + "."))


def add_run_parser(sub):
    """The ``pfc run`` sub-command, built from :data:`FLAGS` (also what ``pfc sweep`` checks each planned run with)."""
    rn = sub.add_parser("run", help="run a backend over a benchmark into a resumable run directory")
    for f in FLAGS:
        if f.store is not _ABSENT:
            rn.add_argument(f.flag, action="store_true", help=f.help)
            continue
        choices = f.choices() if callable(f.choices) else f.choices
        kw = {k: v for k, v in (("type", f.type), ("choices", choices and list(choices))) if v is not None}
        rn.add_argument(f.flag, required=f.required, help=f.help, **kw,
                        **({} if f.required else {"default": f.default()}))
    return rn


def config_from_args(ns: argparse.Namespace) -> RunConfig:
    """The configuration a parsed ``pfc run`` command line describes (no file is checked here)."""
    top: dict = {}
    nested: dict = {"sampling": {}, "backend_options": {}}
    for f in FLAGS:
        value = getattr(ns, f.dest)
        if f.store is not _ABSENT:
            if not value:
                continue
            value = f.store
        elif value is None and "." in f.field:
            continue
        head, _, key = f.field.partition(".")
        if key:
            nested[head][key] = value
        else:
            top[head] = value
    return RunConfig(**top, **nested)


def run_args(cfg: RunConfig) -> list[str]:
    """The ``pfc run`` arguments describing ``cfg``: every required flag, and each other flag whose field
    differs from its default (a dict field's key: when present). Fields without a flag are left out."""
    out = ["run"]
    for f in FLAGS:
        head, _, key = f.field.partition(".")
        value = getattr(cfg, head)
        if key:
            value = (value or {}).get(key, _ABSENT)
            if value is _ABSENT:
                continue
        elif not f.required and value == f.default():
            continue
        if f.store is not _ABSENT:
            out += [f.flag] if value == f.store else []
        else:
            out += [f.flag, str(value)]
    return out


class _Refused(argparse.ArgumentParser):
    def error(self, message):
        raise UserError(message)


def parse_run_args(argv: list[str]) -> RunConfig:
    """``pfc run`` ``argv`` parsed by ``pfc run``'s own parser into its configuration; what ``pfc run`` would
    refuse is a UserError (no exit)."""
    sub = _Refused(prog="pfc").add_subparsers(parser_class=_Refused)
    return config_from_args(add_run_parser(sub).parse_args(argv[1:] if argv[:1] == ["run"] else argv))
