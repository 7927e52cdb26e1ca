"""Render calls the way a model would write them, in each output style (the parser's inverse).

Used by every stage: gold answers in synthesized data (``pfc.data.ptool``), few-shot demonstrations, native tool names
and the built-in baselines' answers (``pfc.run``), and round-trip tests; so it sits below the stages, beside
``pfc.schema``, and owns ``APP_SEP``. It does not parse; ``pfc.eval.parsing.parse(render(calls, style), style)`` gives
the calls back. A style named after a benchmark is its adapter's (``Scoring.styles``), found through the registry.

    >>> render([Call("Shop", "buy", {"n": 2})], "ptbench")
    'Shop:[buy(n=2)]'
"""
from __future__ import annotations

import json
import re

from pfc import benchmarks
from pfc.schema import Call

APP_SEP = "__"                # native tool names: App__function (the parser reads them back)

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def py_literal(v) -> str:
    """A Python-syntax literal for a JSON-like value (strings via repr, so quotes are escaped)."""
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, (int, float, str)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(py_literal(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{py_literal(k)}: {py_literal(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot render {type(v).__name__}")


def render_ptbench(calls: list[Call] | None, platform: str | None = None) -> str:
    """``Platform:[f(a=1), g()]``; a platform that is not an identifier is quoted."""
    calls = calls or []
    apps = {c.app for c in calls}
    platform = platform if platform is not None else (next(iter(apps)) if len(apps) == 1 else None)
    body = "[" + ", ".join(
        f"{c.function}(" + ", ".join(f"{k}={py_literal(v)}" for k, v in c.arguments.items()) + ")"
        for c in calls) + "]"
    if platform is None:
        return body
    head = platform if _IDENT.fullmatch(platform) else repr(platform)
    return f"{head}:{body}"


def render_json(calls: list[Call] | None) -> str:
    """ToolSpectrum style: one ``{"APP","API","params"}`` object, a list of them, or ``null``."""
    if not calls:
        return "null"
    objs = [{"APP": c.app, "API": c.function, "params": c.arguments} for c in calls]
    return json.dumps(objs[0] if len(objs) == 1 else objs, ensure_ascii=False)


def tool_name(app: str | None, function: str) -> str:
    """OpenAI-compatible function name carrying the app: ``App__function`` (spaces -> ``_``)."""
    return f"{app.replace(' ', '_')}{APP_SEP}{function}" if app else function


def render_tool_calls(calls: list[Call] | None) -> dict:
    """An assistant message with native ``tool_calls`` (arguments JSON-encoded, as OpenAI does)."""
    return {"role": "assistant", "content": None if calls else "null",
            "tool_calls": [{"id": f"call_{i}", "type": "function",
                            "function": {"name": tool_name(c.app, c.function),
                                         "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                           for i, c in enumerate(calls or [])]}


def render_tracebench(calls: list[Call] | None) -> str:
    """TRACEBench's answer template: one ``{"name": "<App>__<function>", "arguments": {...}}`` (``null`` if none)."""
    if not calls:
        return "null"
    objs = [{"name": tool_name(c.app, c.function), "arguments": c.arguments} for c in calls]
    return json.dumps(objs[0] if len(objs) == 1 else objs, ensure_ascii=False)


def render(calls: list[Call] | None, style: str):
    """Dispatch by style: ``json`` | ``tool_calls`` | a registered benchmark's own (``ptbench``, ``tracebench``)."""
    if style == "json":
        return render_json(calls)
    if style == "tool_calls":
        return render_tool_calls(calls)
    own = benchmarks.output_style(style)
    if own is None:
        raise ValueError(f"unknown style {style!r}")
    return own.render(calls)
