"""Which benchmark a file looks like, from its first bytes — to refuse a file of another benchmark.

Recognised shapes: unified JSONL (its ``benchmark`` field), the official PTBench ``data.json``
(``query_params``/``profile_params``) and its directory of splits, the ToolSpectrum release (``instruction`` +
``toolCall``) and its directory, a benchmark directory holding ``examples.jsonl``, and prediction files
(``{"id"|"index"|"predict", ...}``). It reads at most 64 KiB and never raises on content; it does not validate
(``pfc.schema``).

    >>> guess_text('{"id": "a", "benchmark": "ptbench", "query": "q", "gold": null}')
    'ptbench'
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from pfc import benchmarks
from pfc.errors import UserError

_HEAD = 1 << 16
_BENCH = re.compile(r'"benchmark"\s*:\s*"(tracebench|ptbench|toolspectrum)"')
PREDICTIONS = "predictions"


def _keys_guess(keys: set) -> str | None:
    if "benchmark" in keys and "gold" in keys:
        return None  # decided by the value of "benchmark"
    if {"instruction", "toolCall"} <= keys:
        return "toolspectrum"
    if {"query_params", "profile_params"} & keys or {"answer", "user_profile"} <= keys:
        return "ptbench"
    if "output" in keys and ("id" in keys or "index" in keys) or "predict" in keys:
        return PREDICTIONS
    return None


def guess_text(head: str) -> str | None:
    """The benchmark (or ``"predictions"``) that the start of a file looks like, or None."""
    text = head.lstrip("\ufeff \t\r\n")
    if not text:
        return None
    if text[0] == "{":
        line = text.split("\n", 1)[0]
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict):
            b = obj.get("benchmark")
            return b if b in benchmarks.names() else _keys_guess(set(obj))
    m = _BENCH.search(text)
    if m:
        return m.group(1)
    keys = set(re.findall(r'"(\w+)"\s*:', text))
    return _keys_guess(keys)


def looks_like(path) -> str | None:
    """What ``path`` (file or directory) looks like; None when it cannot tell."""
    p = Path(path)
    if p.is_dir():
        if any((p / s / "data.json").exists() for s in ("test_trained_user", "test_untrained_user")):
            return "ptbench"
        if (p / "data" / "dataset_persona.json").exists():
            return "toolspectrum"
        p = p / "examples.jsonl"
    if not p.is_file():
        return None
    try:
        with p.open("rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return None
    return guess_text(head.decode("utf-8", errors="ignore"))


def check_examples(benchmark: str, path, flag: str = "--examples") -> None:
    """Refuse examples that look like another benchmark's (or like predictions)."""
    got = looks_like(path)
    if got == PREDICTIONS:
        raise UserError(f"looks like a predictions file, not {benchmark} examples (check {flag})", file=str(path))
    if got is not None and got != benchmark:
        raise UserError(f"looks like a {got} file, not {benchmark} (check --benchmark and {flag})", file=str(path))


def check_predictions(path, flag: str = "--predictions") -> None:
    """Refuse an examples file given as predictions."""
    p = Path(path)
    if p.is_dir():
        return
    got = looks_like(p)
    if got not in (None, PREDICTIONS):
        raise UserError(f"looks like a {got} examples file, not predictions (check {flag})", file=str(path))
