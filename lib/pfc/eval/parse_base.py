"""What the output readers share: the typed failure they raise, the bound on one expression, the
Python-syntax reading of one expression, and how a tool name carries its app.

Used by :mod:`pfc.eval.parse_bracket` and :mod:`pfc.eval.parse_json`; :func:`pfc.eval.parsing.parse` turns an
:class:`Unreadable` into a typed failure. Nothing here finds calls in text or builds a call.

    >>> split_tool_name("Shop__buy"), split_tool_name("Shop.buy"), split_tool_name("buy")
    (('Shop', 'buy'), ('Shop', 'buy'), (None, 'buy'))
"""
from __future__ import annotations

import ast
import re

from pfc.render import APP_SEP  # native tool names: App__function
from pfc.textscan import rename_keyword_args

MAX_EXPR_CHARS = 100_000      # one region handed to the JSON or Python-syntax reader


class Unreadable(Exception):
    """A reader could not read its text: ``code`` is ``family:subtype``, ``detail`` says more (may be empty)."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(code)
        self.code, self.detail = code, detail


_DOTTED = re.compile(r"([A-Za-z0-9_][\w&-]{0,100})\.([A-Za-z_]\w{0,200})")


def split_tool_name(name: str) -> tuple[str | None, str]:
    """The app a tool name carries: ``'Shop__buy'`` and ``'Shop.buy'`` -> ('Shop', 'buy'); ``'buy'`` -> (None, 'buy').

    Our native tool names are ``App__function`` (OpenAI names allow no dots), but a model that read history or docs may
    write ``App.function``: a person reads both as the same call."""
    if APP_SEP in name:
        app, fn = name.split(APP_SEP, 1)
        return app, fn
    m = _DOTTED.fullmatch(name.strip())
    if m:
        return m.group(1), m.group(2)
    return None, name


_PARSE_ERRORS = (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError)


def python_expr(code: str) -> ast.AST:
    """Python-syntax tree of one expression; keyword-named arguments (``from=``) are renamed
    only when the plain parse fails (they are rare, and renaming costs a scan)."""
    if len(code) > MAX_EXPR_CHARS:
        raise Unreadable("input:too_large", f"expression of {len(code)} characters")
    code = code.strip()
    try:
        return ast.parse(code, mode="eval").body
    except _PARSE_ERRORS as e:
        err = type(e).__name__
    renamed = rename_keyword_args(code)
    if renamed != code:
        try:
            return ast.parse(renamed, mode="eval").body
        except _PARSE_ERRORS as e:
            err = type(e).__name__
    raise Unreadable("format:syntax_error", err)
