"""The bracket reader: PTBench's syntax ``Platform:[f(a=1, b='x'), g()]`` -> calls.

Also reads a quoted platform, surrounding braces, a platform named inline after prose, a single
call without brackets, ``App.function`` names when no platform is given, keyword-named arguments
(``from=``) and literal arithmetic (``count=2*3`` -> 6, through :mod:`pfc.eval.literals`). It raises
:class:`pfc.eval.parse_base.Unreadable` (or ``literals.Unsafe``) on what it cannot read; choosing a
reader and turning failures into results is :func:`pfc.eval.parsing.parse`'s job.

    >>> read_bracket("Shop:[buy(n=2*3)]")
    [Call(app='Shop', function='buy', arguments={'n': 6})]
"""
from __future__ import annotations

import ast
import re

from pfc.eval.literals import LIMITS, call_name, to_value
from pfc.eval.parse_base import MAX_EXPR_CHARS, Unreadable, python_expr, split_tool_name
from pfc.schema import Call
from pfc.textscan import find_balanced, restore_keyword

_PLATFORM = re.compile(r"""\{?\s*(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|([^\[\]{}()'":\n]{1,200}?))\s*:\s*(?=[\[A-Za-z_])""")
_PLATFORM_INLINE = re.compile(r"""(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|([A-Za-z0-9_][\w.&-]{0,100}))\s*:\s*(?=\[)""")


def read_bracket(text: str) -> list[Call]:
    """The calls of one bracket-style answer (an empty list reads as a refusal)."""
    m = _PLATFORM.match(text)
    if m is None or (m.group(3) and re.search(r"\s", m.group(3).strip())):
        m = _PLATFORM_INLINE.search(text) or m  # prose before an inline "Platform:[" is not a name
    platform, body_start = None, 0
    if m:
        platform = (m.group(1) or m.group(2) or m.group(3) or "").strip() or None
        body_start = m.end()
    else:
        starts = [i for i in (text.find("["), _call_start(text)) if i >= 0]
        if not starts:
            raise Unreadable("format:no_call_found")
        body_start = min(starts)
    tree = _fast_tail(text, body_start)
    if tree is None:
        tree = python_expr(_region(text, body_start))
    nodes = tree.elts if isinstance(tree, (ast.List, ast.Tuple)) else [tree]
    calls = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            raise Unreadable("format:not_a_call", type(node).__name__)
        name = call_name(node.func)
        if not name:
            raise Unreadable("format:not_a_call", "call target has no name")
        app = platform
        if app is None:
            app, name = split_tool_name(name)
        args = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise Unreadable("format:unsupported_argument", "**kwargs")
            args[restore_keyword(kw.arg)] = to_value(kw.value)
        calls.append(Call(app, name, args))
    return calls


_CALL_START = re.compile(r"[A-Za-z_][\w.]*\s*\(")


def _call_start(text: str) -> int:
    m = _CALL_START.search(text)
    return m.start() if m else -1


def _fast_tail(text: str, start: int):
    """Most outputs end with the call list: read the tail directly, skipping the bracket scan."""
    tail = text[start:].rstrip().rstrip("}").rstrip() if text.lstrip().startswith("{") else text[start:].rstrip()
    if not tail or tail[0] not in "[" + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_" \
            or len(tail) > MAX_EXPR_CHARS:
        return None
    try:  # ast.parse enforces its own nesting limit; the value converters bound depth
        tree = python_expr(tail)
    except Unreadable:
        return None
    return tree if isinstance(tree, (ast.List, ast.Tuple, ast.Call)) else None


def _region(text: str, start: int) -> str:
    """The bracketed list or single call starting at ``start``."""
    i = start
    if text[i] != "[":
        m = _CALL_START.match(text, i)
        if not m:
            raise Unreadable("format:no_call_found")
        i = m.end() - 1
    try:
        end = find_balanced(text, i, LIMITS["max_depth"])
    except ValueError:
        raise Unreadable("format:too_deep", f"nesting over {LIMITS['max_depth']}") from None
    if end < 0:
        raise Unreadable("format:unbalanced_brackets")
    return text[start:end]
