"""Strict scoring's format rule: an output counts only if it is exactly the required template.

TRACEBench §5.1 / App. C.1: "we first check format accuracy to determine if the output
accords with the required template … Each output must include app name, function name,
and function calling parameters", and parameter values must be an "exact match". The
default (robust) scorer reads what a person would read (prose, fences, ``<think>``,
case and number normalisation); strict mode does not. Per benchmark, the template is:

- ``tracebench``: the whole output is one JSON object ``{"name": "<App>__<function>",
  "arguments": {...}}`` (the prompt's answer format) — or an assistant message whose
  native ``tool_calls`` are named ``<App>__<function>`` with JSON-object arguments;
- ``ptbench``: the whole output is ``Platform:[f(a=1), g()]`` with the platform named;
- ``toolspectrum``: the whole output is one JSON object ``{"APP", "API", "params"}``, with or
  without the ``"explanation"`` string the release's prompt asks for, or a refusal: ``null`` or
  that object with APP, API and params all null (the release's requirement 4).

Surrounding whitespace is allowed; anything else around the template is not. Values are
then compared exactly (``pfc.eval.matching.values_identical``) and app names as written.

    >>> exact_template('{"name": "Keep__log_exercise", "arguments": {"exercise": "yoga"}}', "tracebench")
    >>> exact_template('Sure! {"name": "Keep__log_exercise", "arguments": {}}', "tracebench")
    'format:not_exact_template: not one JSON object'
"""
from __future__ import annotations

import json
import re

from pfc.eval.parsing import parse
from pfc.render import APP_SEP
from pfc import benchmarks

_PTBENCH = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*|'[^'\n]+'|\"[^\"\n]+\"):\[.*\]", re.S)
_FAIL = "format:not_exact_template"
_SPECTRUM_KEYS = {"APP", "API", "params", "explanation"}


def _app_fn(name) -> bool:
    if not isinstance(name, str) or APP_SEP not in name:
        return False
    app, fn = name.split(APP_SEP, 1)
    return bool(app.strip()) and bool(fn.strip())


def _json_object(text: str):
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return _FAIL


def exact_template(output, benchmark: str) -> str | None:
    """None when ``output`` is exactly the benchmark's template; else ``"format:not_exact_template: why"``
    (the template is the adapter's ``strict_template``: one of the functions below)."""
    return benchmarks.get(benchmark).scoring.strict_template(output)


def _text(output) -> str | None:
    """The output's text, or None when it is a message with native tool calls (checked apart)."""
    return output.strip() if isinstance(output, str) else None


def _not_native(output) -> str:
    return (f"{_FAIL}: a message with tool calls and no text is TRACEBench's native form only"
            if isinstance(output, dict) else f"{_FAIL}: not text")


def tracebench_template(output) -> str | None:
    """One ``{"name": "<App>__<function>", "arguments": {...}}`` object, or native tool calls so named."""
    if isinstance(output, dict):
        if not output.get("tool_calls") or (output.get("content") or "").strip():
            return _not_native(output)
        for tc in output["tool_calls"]:
            fn = (tc or {}).get("function") or {}
            args = fn.get("arguments")
            args = _json_object(args) if isinstance(args, str) else args
            if not _app_fn(fn.get("name")) or not isinstance(args, dict):
                return f"{_FAIL}: native tool call without <App>__<function> or JSON-object arguments"
        return None
    text = _text(output)
    if text is None:
        return _not_native(output)
    obj = _json_object(text)
    if not isinstance(obj, dict):
        return f"{_FAIL}: not one JSON object"
    if set(obj) != {"name", "arguments"} or not _app_fn(obj["name"]) or not isinstance(obj["arguments"], dict):
        return f"{_FAIL}: not {{\"name\": \"<App>__<function>\", \"arguments\": {{...}}}}"
    return None


def ptbench_template(output) -> str | None:
    """``Platform:[f(a=1), g()]`` with the platform named."""
    text = _text(output)
    if text is None:
        return _not_native(output)
    if not _PTBENCH.fullmatch(text):
        return f"{_FAIL}: not Platform:[calls]"
    result = parse(text, "ptbench")
    if not result.ok or not result.calls or any(not c.app for c in result.calls):
        return f"{_FAIL}: not Platform:[calls]"
    return None


def toolspectrum_template(output) -> str | None:
    """One ``{"APP", "API", "params"}`` object, optionally with the ``"explanation"`` string that the
    release's template asks for; a refusal is ``null`` or that object with APP, API and params all null
    (requirement 4 of the release's prompt; our own template asks for the same)."""
    text = _text(output)
    if text is None:
        return _not_native(output)
    obj = _json_object(text)
    if obj is None:
        return None
    why = f"{_FAIL}: not one {{\"APP\", \"API\", \"params\"[, \"explanation\"]}} object"
    if not isinstance(obj, dict) or not {"APP", "API", "params"} <= set(obj) <= _SPECTRUM_KEYS \
            or not isinstance(obj.get("explanation", ""), str):
        return why
    if obj["APP"] is None and obj["API"] is None and obj["params"] is None:
        return None
    ok = all(isinstance(obj[k], str) and obj[k].strip() for k in ("APP", "API")) and isinstance(obj["params"], dict)
    return None if ok else why
