"""Strict scoring's format rule: an output counts only if it is exactly the required template.

TRACEBench §5.1 / App. C.1: "we first check format accuracy to determine if the output accords with the required
template … Each output must include app name, function name, and function calling parameters", and parameter values must
be an "exact match". The default (robust) scorer reads what a person would read (prose, fences, ``<think>``, case and
number normalisation); strict mode does not. Each benchmark's template is its adapter's ``Scoring.strict_template``, in
its package on the checks below (the templates: docs/scoring.md, ``--strict``).

Surrounding whitespace is allowed; anything else around the template is not. Values are then compared exactly
(``pfc.eval.matching.values_identical``) and app names as written.

    >>> exact_template('{"name": "Keep__log_exercise", "arguments": {"exercise": "yoga"}}', "tracebench")
    >>> exact_template('Sure! {"name": "Keep__log_exercise", "arguments": {}}', "tracebench")
    'format:not_exact_template: not one JSON object'
"""
from __future__ import annotations

import json

from pfc.render import APP_SEP
from pfc import benchmarks

FAIL = "format:not_exact_template"


def app_fn(name) -> bool:
    """``name`` is ``<App>__<function>``, both parts non-empty."""
    if not isinstance(name, str) or APP_SEP not in name:
        return False
    app, fn = name.split(APP_SEP, 1)
    return bool(app.strip()) and bool(fn.strip())


def json_object(text: str):
    """``text`` as one JSON value, else :data:`FAIL`."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return FAIL


def exact_template(output, benchmark: str) -> str | None:
    """None when ``output`` is exactly the benchmark's template; else ``"format:not_exact_template: why"``
    (the template is the adapter's ``strict_template``)."""
    return benchmarks.get(benchmark).scoring.strict_template(output)


def text_of(output) -> str | None:
    """The output's text, or None when it is a message with native tool calls (checked apart)."""
    return output.strip() if isinstance(output, str) else None


def not_native(output) -> str:
    """Why a message with native tool calls (or any non-text) is not a text template."""
    return (f"{FAIL}: a message with tool calls and no text is TRACEBench's native form only"
            if isinstance(output, dict) else f"{FAIL}: not text")
