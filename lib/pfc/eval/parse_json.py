"""The JSON reader: call objects in JSON (or Python-literal) text -> calls.

Reads ToolSpectrum-style ``{"APP", "API", "params"}`` (``null`` = refusal), PTBench's
``{"platform", "functions"}``, OpenAI/Hermes ``{"name", "arguments"}`` (arguments as an object
or a JSON string), lists of these, ``toolCall``/``tool_calls``/``function`` wrappers and one
stray wrapper key; single-quoted / Python-literal dicts; argument keys copied with a type
(``"senderAddress (str)"``) as the bare name. When several bracketed regions are present, the
last that reads as a call wins. It raises :class:`pfc.eval.parse_base.Unreadable` (or
``literals.Unsafe``); finding fences and ``<tool_call>`` tags, and choosing this reader, is
:func:`pfc.eval.parsing.parse`'s job.

    >>> read_json("Calling it: {'name': 'Shop.buy', 'arguments': {'n': 2}}")
    [Call(app='Shop', function='buy', arguments={'n': 2})]
"""
from __future__ import annotations

import json
import re

from pfc.eval.literals import LIMITS, Unsafe, check_scalar, to_value
from pfc.eval.parse_base import MAX_EXPR_CHARS, Unreadable, python_expr, split_tool_name
from pfc.schema import Call
from pfc.textscan import find_balanced

MAX_REGIONS = 32  # bracketed regions tried per output (each try is one linear scan)

# "senderAddress (str)": a key copied with its type from a toolset listing (ToolSpectrum's
# API descriptions write parameter names this way); a person reads it as the bare name.
_TYPED_KEY = re.compile(r"\s*([^\s()]+)\s+\((?:str|string|int|integer|float|number|bool|boolean|list|array|dict|object)\)\s*")


def normalise_key(key: str) -> str:
    m = _TYPED_KEY.fullmatch(key)
    return m.group(1) if m else key


def _no_constant(name):
    raise Unreadable("value:non_finite", name)


def _bounded_int(s: str) -> int:
    if len(s.lstrip("-")) > LIMITS["max_int_digits"]:
        raise Unreadable("value:number_too_large", f"{len(s)} digits")
    return int(s)


def _regions(text: str) -> list[str]:
    """Top-level ``{…}`` / ``[…]`` regions in order (string-aware, bounded)."""
    out, i, tries = [], 0, 0
    while tries < MAX_REGIONS:
        starts = [j for j in (text.find("{", i), text.find("[", i)) if j >= 0]
        if not starts:
            break
        start, tries = min(starts), tries + 1
        try:
            end = find_balanced(text, start, LIMITS["max_depth"])
        except ValueError:
            raise Unreadable("format:too_deep", f"nesting over {LIMITS['max_depth']}") from None
        if end < 0:
            i = start + 1
            continue
        out.append(text[start:end])
        i = end
    return out


def _load_region(region: str):
    """JSON, else a Python literal (single quotes, True/None, trailing commas)."""
    if len(region) > MAX_EXPR_CHARS:
        raise Unreadable("input:too_large", f"expression of {len(region)} characters")
    try:
        return json.loads(region, parse_constant=_no_constant, parse_int=_bounded_int)
    except (json.JSONDecodeError, RecursionError):
        return to_value(python_expr(region))


def _load(text: str):
    """The first bracketed region of ``text`` as a value (``null``/``None`` alone: None)."""
    regions = _regions(text)
    if not regions:
        word = text.strip().strip("`").strip().rstrip(".").lower()
        if word in ("null", "none"):
            return None
        raise Unreadable("format:unbalanced_brackets" if ("{" in text or "[" in text) else "format:no_call_found")
    return _load_region(regions[0])


def read_json(text: str) -> list[Call]:
    """The LAST region that reads as a call wins: reasoning before an answer may hold braces."""
    regions = _regions(text)
    if not regions:
        return interpret(_load(text))
    first_error = None
    for region in reversed(regions):
        try:
            return interpret(_load_region(region))
        except (Unreadable, Unsafe) as e:
            first_error = first_error or e
    raise first_error


def interpret(obj, depth: int = 0) -> list[Call]:
    """The calls a loaded value describes (``None``: a refusal, no calls); also the native ``tool_calls``."""
    if depth > 4:
        raise Unreadable("format:unrecognized_structure", "too many wrapper levels")
    if obj is None:
        return []
    if isinstance(obj, list):
        return [c for item in obj for c in interpret(item, depth + 1)]
    if not isinstance(obj, dict):
        raise Unreadable("format:unrecognized_structure", type(obj).__name__)
    low = {str(k).lower(): v for k, v in obj.items()}
    if "toolcall" in low:
        return interpret(low["toolcall"], depth + 1)
    if "tool_calls" in low:
        return interpret(low["tool_calls"], depth + 1)
    if "app" in low or "api" in low:
        if low.get("app") is None and low.get("api") is None:
            return []
        args = next((low[k] for k in ("params", "parameters", "arguments") if k in low), {})
        return [_make_call(low.get("app"), low.get("api"), args)]
    if "platform" in low and "functions" in low:
        funcs = low["functions"] if isinstance(low["functions"], list) else [low["functions"]]
        return [_make_call(low["platform"], f.get("name") if isinstance(f, dict) else None,
                           (f.get("parameters", f.get("arguments", {})) if isinstance(f, dict) else None))
                for f in funcs]
    if "function" in low and isinstance(low["function"], dict):
        return interpret(low["function"], depth + 1)
    if "name" in low:
        app, fn = split_tool_name(str(low["name"]))
        return [_make_call(low.get("app", app), fn, low.get("arguments", low.get("parameters", {})))]
    if len(low) == 1:  # one wrapper key around the call ({"answer": {...}}, a template's stray file name)
        (inner,) = low.values()
        if isinstance(inner, (dict, list)):
            return interpret(inner, depth + 1)
    raise Unreadable("format:unrecognized_structure", "no APP/API, platform/functions or name keys")


def _make_call(app, fn, args) -> Call:
    if not isinstance(fn, str) or not fn.strip():
        raise Unreadable("format:not_a_call", "missing function name")
    if app is not None and not isinstance(app, str):
        raise Unreadable("format:bad_app", type(app).__name__)
    if isinstance(args, str):  # OpenAI encodes arguments as a JSON string
        args = _load(args) if args.strip() else {}
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise Unreadable("format:bad_arguments", f"arguments are a {type(args).__name__}")
    try:
        args = {normalise_key(str(k)): check_scalar(v) for k, v in args.items()}
    except Unsafe as u:
        raise Unreadable(u.kind, u.detail) from None
    if app is None:
        app, fn = split_tool_name(fn.strip())
    return Call(app, fn.strip(), args)
