"""Read a model's output into calls, a refusal, or a typed failure. Never raises, never runs code.

One entry point, :func:`parse`, for every style:

- ``ptbench``: PTBench's bracket syntax ``Platform:[f(a=1, b='x'), g()]``; also a quoted
  platform, surrounding braces, a single call without brackets, keyword-named arguments
  (``from=``) and literal arithmetic (``count=2*3`` -> 6).
- ``json``: ToolSpectrum-style ``{"APP", "API", "params"}`` (``null`` = refusal), PTBench's
  ``{"platform", "functions"}``, OpenAI/Hermes ``{"name", "arguments"}`` and ``<tool_call>``
  tags; in code fences or with prose around them; single-quoted / Python-literal dicts.
- native ``tool_calls``: pass the assistant message dict ``{"content", "tool_calls"}``;
  function names carry the app as ``App__function`` (``App.function`` is read the same way,
  in every style); argument keys copied with a type (``"senderAddress (str)"``) are read
  as the bare name.
- ``auto``: all of the above, in the order the text suggests.

``<think>…</think>`` preambles are removed first. Input size, nesting depth and number
sizes are bounded (``pfc.eval.literals.LIMITS``, ``MAX_INPUT_CHARS``, ``MAX_EXPR_CHARS``).
The published PTBench evaluator's own parsing rules live in ``pfc.benchmarks.ptbench_official``.

    >>> parse('{"APP": "Keep", "API": "logExercise", "params": {"minutes": 30}}').calls[0].app
    'Keep'
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

from pfc.eval.literals import LIMITS, Unsafe, call_name, to_value, check_scalar
from pfc.render import APP_SEP  # native tool names: App__function
from pfc.schema import Call
from pfc.textscan import (fenced_blocks, find_balanced, rename_keyword_args,
                          restore_keyword, strip_reasoning, tool_call_tags)

MAX_INPUT_CHARS = 2_000_000   # whole output (cheap linear scans only)
MAX_EXPR_CHARS = 100_000      # one region handed to the JSON or Python-syntax reader
STYLES = ("auto", "ptbench", "json")


@dataclass
class ParseResult:
    ok: bool
    calls: list[Call] = field(default_factory=list)
    error: str | None = None       # "family:subtype" or "family:subtype: detail"
    style: str | None = None

    @property
    def refusal(self) -> bool:
        """Parsed, and the model chose to call nothing (``null``, ``None``, ``[]``)."""
        return self.ok and not self.calls

    @property
    def error_type(self) -> str | None:
        return None if self.error is None else ":".join(self.error.split(":")[:2])

    def to_json(self) -> dict:
        return {"ok": self.ok, "calls": [c.to_dict() for c in self.calls],
                "refusal": self.refusal, "error": self.error}


class _Fail(Exception):
    def __init__(self, code: str, detail: str = ""):
        super().__init__(code)
        self.code, self.detail = code, detail


def _fail(code: str, detail: str = "", style: str | None = None) -> ParseResult:
    return ParseResult(False, [], f"{code}: {detail}" if detail else code, style)


_DOTTED = re.compile(r"([A-Za-z0-9_][\w&-]{0,100})\.([A-Za-z_]\w{0,200})")


def split_tool_name(name: str) -> tuple[str | None, str]:
    """The app a tool name carries: ``'Shop__buy'`` and ``'Shop.buy'`` -> ('Shop', 'buy'); ``'buy'`` -> (None, 'buy').

    Our native tool names are ``App__function`` (OpenAI names allow no dots), but a model that read
    history or docs may write ``App.function``: a person reads both as the same call."""
    if APP_SEP in name:
        app, fn = name.split(APP_SEP, 1)
        return app, fn
    m = _DOTTED.fullmatch(name.strip())
    if m:
        return m.group(1), m.group(2)
    return None, name


# "senderAddress (str)": a key copied with its type from a toolset listing (ToolSpectrum's
# API descriptions write parameter names this way); a person reads it as the bare name.
_TYPED_KEY = re.compile(r"\s*([^\s()]+)\s+\((?:str|string|int|integer|float|number|bool|boolean|list|array|dict|object)\)\s*")


def normalise_key(key: str) -> str:
    m = _TYPED_KEY.fullmatch(key)
    return m.group(1) if m else key


def parse(output, style: str = "auto") -> ParseResult:
    """Parse ``output`` (text, or an assistant message dict with ``tool_calls``)."""
    try:
        return _parse(output, style)
    except _Fail as f:
        return _fail(f.code, f.detail)
    except Exception as e:  # a parser never raises: anything unforeseen is a typed failure
        return _fail("format:internal", type(e).__name__)


def _parse(output, style: str) -> ParseResult:
    if style not in STYLES:
        return _fail("input:bad_style", style)
    if isinstance(output, dict):
        if output.get("tool_calls"):
            return _native(output["tool_calls"])
        output = output.get("content") or ""
    if not isinstance(output, str):
        return _fail("input:not_text", type(output).__name__)
    if len(output) > MAX_INPUT_CHARS:
        return _fail("input:too_large", f"{len(output)} characters")
    if "\x00" in output:
        return _fail("input:control_characters", "NUL byte")
    bases, err = strip_reasoning(output)
    if err:
        return _fail(err)
    bases = [b.strip() for b in bases if b.strip()]
    if not bases:
        return _fail("format:empty")
    def cands():  # lazily: most outputs parse as they are, so fences and tags are rarely scanned
        for text in bases:
            if style == "ptbench":
                yield text
                yield from fenced_blocks(text)
            else:
                tags = tool_call_tags(text) if "<tool_call>" in text else []
                if tags:  # several tags are several calls
                    yield "[" + ",".join(t.strip() for t in tags) + "]"
                    yield from tags
                if "```" in text:
                    yield from fenced_blocks(text)
                yield text

    if style == "ptbench":
        return _first(cands(), [_bracket])
    if style == "json":
        return _first(cands(), [_json])
    first = bases[0]
    if _JSON_OBJECT.match(first):  # a JSON answer (cut off, or not a call) is never re-read as a Python call:
        return _first(cands(), [_json])  # `"senderAddress (str)": …` would read as the call senderAddress(str)
    readers = [_json, _bracket] if first[:1] in "{[`<" or "```" in first else [_bracket, _json]
    return _first(cands(), readers)


_JSON_OBJECT = re.compile(r'(?:```(?:json)?\s*)?\{\s*"[^"\n]{1,200}"\s*:')


def _first(candidates, readers) -> ParseResult:
    """The first reader that succeeds on the first candidate it can read; else the best error.

    Errors are kept as (code, detail) tuples, never as exception objects: a stored
    exception's traceback links back through every caller's frame and keeps the whole
    scoring run alive until a full garbage collection.
    """
    errors: list[tuple[str, str]] = []
    for cand in candidates:
        cand = cand.strip()
        if not cand:
            continue
        for reader in readers:
            try:
                return ParseResult(True, reader(cand), None, reader.__name__.strip("_"))
            except _Fail as f:
                errors.append((f.code, f.detail))
            except Unsafe as u:
                errors.append((u.kind, u.detail))
    code, detail = next((e for e in errors if e[0] != "format:no_call_found"), None) or \
        (errors[0] if errors else ("format:no_call_found", ""))
    return _fail(code, detail)


# ------------------------------------------------------------------ bracket style
_PLATFORM = re.compile(r"""\{?\s*(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|([^\[\]{}()'":\n]{1,200}?))\s*:\s*(?=[\[A-Za-z_])""")
_PLATFORM_INLINE = re.compile(r"""(?:"([^"\n]{1,200})"|'([^'\n]{1,200})'|([A-Za-z0-9_][\w.&-]{0,100}))\s*:\s*(?=\[)""")


def _bracket(text: str) -> list[Call]:
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
            raise _Fail("format:no_call_found")
        body_start = min(starts)
    tree = _fast_tail(text, body_start)
    if tree is None:
        tree = _py(_region(text, body_start))
    nodes = tree.elts if isinstance(tree, (ast.List, ast.Tuple)) else [tree]
    calls = []
    for node in nodes:
        if not isinstance(node, ast.Call):
            raise _Fail("format:not_a_call", type(node).__name__)
        name = call_name(node.func)
        if not name:
            raise _Fail("format:not_a_call", "call target has no name")
        app = platform
        if app is None:
            app, name = split_tool_name(name)
        args = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise _Fail("format:unsupported_argument", "**kwargs")
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
        tree = _py(tail)
    except _Fail:
        return None
    return tree if isinstance(tree, (ast.List, ast.Tuple, ast.Call)) else None


def _region(text: str, start: int) -> str:
    """The bracketed list or single call starting at ``start``."""
    i = start
    if text[i] != "[":
        m = _CALL_START.match(text, i)
        if not m:
            raise _Fail("format:no_call_found")
        i = m.end() - 1
    try:
        end = find_balanced(text, i, LIMITS["max_depth"])
    except ValueError:
        raise _Fail("format:too_deep", f"nesting over {LIMITS['max_depth']}") from None
    if end < 0:
        raise _Fail("format:unbalanced_brackets")
    return text[start:end]


_PARSE_ERRORS = (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError)


def _py(code: str) -> ast.AST:
    """Python-syntax tree of one expression; keyword-named arguments (``from=``) are renamed
    only when the plain parse fails (they are rare, and renaming costs a scan)."""
    if len(code) > MAX_EXPR_CHARS:
        raise _Fail("input:too_large", f"expression of {len(code)} characters")
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
    raise _Fail("format:syntax_error", err)


# ------------------------------------------------------------------ JSON style
def _no_constant(name):
    raise _Fail("value:non_finite", name)


def _bounded_int(s: str) -> int:
    if len(s.lstrip("-")) > LIMITS["max_int_digits"]:
        raise _Fail("value:number_too_large", f"{len(s)} digits")
    return int(s)


MAX_REGIONS = 32  # bracketed regions tried per output (each try is one linear scan)


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
            raise _Fail("format:too_deep", f"nesting over {LIMITS['max_depth']}") from None
        if end < 0:
            i = start + 1
            continue
        out.append(text[start:end])
        i = end
    return out


def _load_region(region: str):
    """JSON, else a Python literal (single quotes, True/None, trailing commas)."""
    if len(region) > MAX_EXPR_CHARS:
        raise _Fail("input:too_large", f"expression of {len(region)} characters")
    try:
        return json.loads(region, parse_constant=_no_constant, parse_int=_bounded_int)
    except (json.JSONDecodeError, RecursionError):
        return to_value(_py(region))


def _load(text: str):
    """The first bracketed region of ``text`` as a value (``null``/``None`` alone: None)."""
    regions = _regions(text)
    if not regions:
        word = text.strip().strip("`").strip().rstrip(".").lower()
        if word in ("null", "none"):
            return None
        raise _Fail("format:unbalanced_brackets" if ("{" in text or "[" in text) else "format:no_call_found")
    return _load_region(regions[0])


def _json(text: str) -> list[Call]:
    """The LAST region that reads as a call wins: reasoning before an answer may hold braces."""
    regions = _regions(text)
    if not regions:
        return _interpret(_load(text))
    first_error = None
    for region in reversed(regions):
        try:
            return _interpret(_load_region(region))
        except (_Fail, Unsafe) as e:
            first_error = first_error or e
    raise first_error


def _interpret(obj, depth: int = 0) -> list[Call]:
    if depth > 4:
        raise _Fail("format:unrecognized_structure", "too many wrapper levels")
    if obj is None:
        return []
    if isinstance(obj, list):
        return [c for item in obj for c in _interpret(item, depth + 1)]
    if not isinstance(obj, dict):
        raise _Fail("format:unrecognized_structure", type(obj).__name__)
    low = {str(k).lower(): v for k, v in obj.items()}
    if "toolcall" in low:
        return _interpret(low["toolcall"], depth + 1)
    if "tool_calls" in low:
        return _interpret(low["tool_calls"], depth + 1)
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
        return _interpret(low["function"], depth + 1)
    if "name" in low:
        app, fn = split_tool_name(str(low["name"]))
        return [_make_call(low.get("app", app), fn, low.get("arguments", low.get("parameters", {})))]
    if len(low) == 1:  # one wrapper key around the call ({"answer": {...}}, a template's stray file name)
        (inner,) = low.values()
        if isinstance(inner, (dict, list)):
            return _interpret(inner, depth + 1)
    raise _Fail("format:unrecognized_structure", "no APP/API, platform/functions or name keys")


def _make_call(app, fn, args) -> Call:
    if not isinstance(fn, str) or not fn.strip():
        raise _Fail("format:not_a_call", "missing function name")
    if app is not None and not isinstance(app, str):
        raise _Fail("format:bad_app", type(app).__name__)
    if isinstance(args, str):  # OpenAI encodes arguments as a JSON string
        args = _load(args) if args.strip() else {}
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise _Fail("format:bad_arguments", f"arguments are a {type(args).__name__}")
    try:
        args = {normalise_key(str(k)): check_scalar(v) for k, v in args.items()}
    except Unsafe as u:
        raise _Fail(u.kind, u.detail) from None
    if app is None:
        app, fn = split_tool_name(fn.strip())
    return Call(app, fn.strip(), args)


def _native(tool_calls) -> ParseResult:
    try:
        if not isinstance(tool_calls, list):
            raise _Fail("format:unrecognized_structure", "tool_calls is not a list")
        calls = [c for tc in tool_calls for c in _interpret(tc)]
        return ParseResult(True, calls, None, "tool_calls")
    except _Fail as f:
        return _fail(f.code, f.detail, "tool_calls")
    except Unsafe as u:
        return _fail(u.kind, u.detail, "tool_calls")


__all__ = ["parse", "ParseResult", "split_tool_name", "STYLES"]
