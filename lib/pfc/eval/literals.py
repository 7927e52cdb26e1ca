"""Safe conversion of Python expression trees (from ``ast.parse``) into plain values.

``ast.parse`` only builds a syntax tree; nothing here compiles or runs code. Two policies:

- :func:`to_value` (robust): literals, bare words as strings, ``true/false/null``, and literal arithmetic folded with
  bounds (``2*3`` -> 6). Anything else is an :class:`Unsafe`.
- :func:`official_value`: the published PTBench evaluator's value rules, quirks included (see
  ``pfc.benchmarks.ptbench.official``), except that where it would run code we refuse.

Bounds (``LIMITS``): nesting depth, integer size, sequence size made by ``*``/``+``. It does not find expressions in
prose; ``pfc.eval.parsing`` does that.

    >>> import ast; to_value(ast.parse("[2*3, 'a', true]", mode="eval").body)
    [6, 'a', True]
"""
from __future__ import annotations

import ast
import math
import operator

LIMITS = {
    "max_depth": 64,          # nested brackets / calls in one value
    "max_int_digits": 40,     # robust: larger integers are refused (IDs stay well below)
    "max_fold_bits": 4096,    # robust: integer bits an arithmetic fold may produce
    "max_fold_len": 100_000,  # robust: sequence length a fold may produce
    "compat_fold_bits": 200_000,
    "compat_fold_len": 1_000_000,
}


class Unsafe(Exception):
    """An expression we refuse to turn into a value; ``.kind`` is a short machine tag."""

    def __init__(self, kind: str, message: str = ""):
        super().__init__(f"{kind}: {message}" if message else kind)
        self.kind, self.detail = kind, message


_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert,
          ast.Not: operator.not_}
_SEQ = (str, bytes, list, tuple)


def _bits(x) -> int:
    return abs(x).bit_length() if isinstance(x, int) else 0


def _guard(op, a, b, max_bits: int, max_len: int) -> None:
    """Refuse operations whose result would be huge before computing them."""
    if op is ast.Pow and isinstance(a, int) and isinstance(b, int) and b > 0:
        if _bits(a) > 1 and _bits(a) * b > max_bits:
            raise Unsafe("value:number_too_large", "power result too large")
    if op is ast.LShift and isinstance(b, int) and (b > max_bits or _bits(a) + max(b, 0) > max_bits):
        raise Unsafe("value:number_too_large", "shift result too large")
    if op is ast.Mult:
        for s, n in ((a, b), (b, a)):
            if isinstance(s, _SEQ) and isinstance(n, int) and len(s) * max(n, 0) > max_len:
                raise Unsafe("value:too_large", "repeated sequence too long")
        if isinstance(a, int) and isinstance(b, int) and _bits(a) + _bits(b) > max_bits:
            raise Unsafe("value:number_too_large", "product too large")
    if op is ast.Add and isinstance(a, _SEQ) and isinstance(b, _SEQ) and len(a) + len(b) > max_len:
        raise Unsafe("value:too_large", "concatenation too long")
    if op is ast.Mod and isinstance(a, (str, bytes)):
        raise Unsafe("value:unsupported_expression", "string %-formatting is not evaluated")


def fold(node: ast.AST, depth: int = 0, *, max_bits: int = LIMITS["max_fold_bits"],
         max_len: int = LIMITS["max_fold_len"]):
    """Evaluate a tree made only of literals and arithmetic operators, with Python semantics.

    Names, calls, attributes, subscripts, comprehensions, lambdas and f-strings are refused.
    """
    if depth > LIMITS["max_depth"]:
        raise Unsafe("value:too_deep")
    kw = {"max_bits": max_bits, "max_len": max_len}
    try:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](fold(node.operand, depth + 1, **kw))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = fold(node.left, depth + 1, **kw), fold(node.right, depth + 1, **kw)
            _guard(type(node.op), a, b, max_bits, max_len)
            out = _BINOPS[type(node.op)](a, b)
            if _bits(out) > max_bits:
                raise Unsafe("value:number_too_large")
            return out
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = [fold(e, depth + 1, **kw) for e in node.elts]
            return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
        if isinstance(node, ast.Dict) and None not in node.keys:
            return {fold(k, depth + 1, **kw): fold(v, depth + 1, **kw)
                    for k, v in zip(node.keys, node.values)}
    except Unsafe:
        raise
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, MemoryError, RecursionError) as e:
        raise Unsafe("value:arithmetic_error", type(e).__name__) from None
    raise Unsafe("value:unsupported_expression", type(node).__name__)


_WORDS = {"true": True, "false": False, "null": None, "none": None}


def check_scalar(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        if len(str(abs(v))) > LIMITS["max_int_digits"]:
            raise Unsafe("value:number_too_large")
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise Unsafe("value:non_finite")
        return v
    if isinstance(v, (list, tuple, set)):
        return [check_scalar(x) for x in v]
    if isinstance(v, dict):
        return {check_scalar(k): check_scalar(x) for k, x in v.items()}
    raise Unsafe("value:unsupported_literal", type(v).__name__)


def to_value(node: ast.AST, depth: int = 0):
    """Robust value rules: JSON-like values, bare words as strings, bounded literal arithmetic."""
    if depth > LIMITS["max_depth"]:
        raise Unsafe("value:too_deep")
    if isinstance(node, ast.Constant):
        return check_scalar(node.value)
    if isinstance(node, (ast.UnaryOp, ast.BinOp)):
        return check_scalar(fold(node, depth))
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [to_value(e, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict):
        if None in node.keys:
            raise Unsafe("value:unsupported_expression", "** in a dict")
        out = {}
        for k, v in zip(node.keys, node.values):
            key = to_value(k, depth + 1)
            if isinstance(key, (list, dict)):
                raise Unsafe("value:unsupported_expression", "unhashable dict key")
            out[key] = to_value(v, depth + 1)
        return out
    if isinstance(node, ast.Name):
        low = node.id.lower()
        return _WORDS[low] if low in _WORDS else node.id
    if isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        return ast.unparse(node)  # kept as the text the model wrote; never called
    raise Unsafe("value:unsupported_expression", type(node).__name__)


def official_value(node: ast.AST, depth: int = 0):
    """The published PTBench evaluator's value rules (``resolve_ast_by_type``), run safely.

    Quirks kept: any unary operator negates a constant operand (``+5`` -> -5); a call without keyword arguments becomes
    its source text; a call with keywords becomes ``{name: args}``; bare names become strings; subscripts become text;
    tuples stay tuples. Where the original evaluates arithmetic with ``eval``, we fold literals (bounded) and refuse
    anything else.
    """
    if depth > 2 * LIMITS["max_depth"]:
        raise Unsafe("value:too_deep")
    d = depth + 1
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.operand, ast.Constant):
            raise Unsafe("value:unsupported_expression", "unary operator on a non-constant")
        try:
            return -node.operand.value
        except TypeError:
            raise Unsafe("value:arithmetic_error", "bad operand for unary minus") from None
    if isinstance(node, ast.List):
        return [official_value(v, d) for v in node.elts]
    if isinstance(node, ast.Dict):
        if None in node.keys:
            raise Unsafe("value:unsupported_expression", "** in a dict")
        try:
            return {official_value(k, d): official_value(v, d) for k, v in zip(node.keys, node.values)}
        except TypeError:
            raise Unsafe("value:unsupported_expression", "unhashable dict key") from None
    if isinstance(node, ast.BinOp):
        return fold(node, d, max_bits=LIMITS["compat_fold_bits"], max_len=LIMITS["compat_fold_len"])
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return ast.unparse(node) if not node.keywords else official_call(node, d)
    if isinstance(node, ast.Tuple):
        return tuple(official_value(v, d) for v in node.elts)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise Unsafe("value:unsupported_expression", type(node).__name__)


def call_name(func: ast.AST) -> str:
    """Dotted name of a call target (``a.b.c``); non-name bases contribute nothing."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def official_call(node: ast.Call, depth: int = 0) -> dict:
    """``{name: {keyword: value}}``; positional arguments are dropped, as in the original."""
    return {call_name(node.func): {kw.arg: official_value(kw.value, depth + 1) for kw in node.keywords}}
