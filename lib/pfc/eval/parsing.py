"""Read a model's output into calls, a refusal, or a typed failure. Never raises, never runs code.

One entry point, :func:`parse`, for every style:

- a style a benchmark names after itself (its adapter's ``Scoring.styles``, :func:`styles`), read by the readers it
  names: PTBench's ``ptbench`` is the bracket syntax ``Platform:[f(a=1, b='x'), g()]``; also a quoted platform,
  surrounding braces, a single call without brackets, keyword-named arguments (``from=``) and literal arithmetic
  (``count=2*3`` -> 6).
- ``json``: ToolSpectrum-style ``{"APP", "API", "params"}`` (``null`` = refusal), PTBench's ``{"platform",
  "functions"}``, OpenAI/Hermes ``{"name", "arguments"}`` and ``<tool_call>`` tags; in code fences or with prose around
  them; single-quoted / Python-literal dicts.
- native ``tool_calls``: pass the assistant message dict ``{"content", "tool_calls"}``; function names carry the app as
  ``App__function`` (``App.function`` is read the same way, in every style); argument keys copied with a type
  (``"senderAddress (str)"``) are read as the bare name.
- ``auto``: all of the above, in the order the text suggests.

``<think>…</think>`` preambles are removed first. Input size, nesting depth and number sizes are bounded
(``pfc.eval.literals.LIMITS``, ``MAX_INPUT_CHARS``, ``parse_base.MAX_EXPR_CHARS``). The published PTBench evaluator's
own parsing rules live in ``pfc.benchmarks.ptbench.official``.

This module picks the readers and turns what they raise into a :class:`ParseResult`; the readers themselves are
:mod:`pfc.eval.parse_bracket` (bracket style) and :mod:`pfc.eval.parse_json` (JSON and native ``tool_calls``), on the
shared pieces of :mod:`pfc.eval.parse_base`.

    >>> parse('{"APP": "Keep", "API": "logExercise", "params": {"minutes": 30}}').calls[0].app
    'Keep'
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pfc import benchmarks
from pfc.eval.literals import Unsafe
from pfc.eval.parse_base import Unreadable
from pfc.eval.parse_bracket import read_bracket
from pfc.eval.parse_json import interpret, read_json
from pfc.schema import Call
from pfc.textscan import fenced_blocks, strip_reasoning, tool_call_tags

MAX_INPUT_CHARS = 2_000_000   # whole output (cheap linear scans only)
READERS = {"bracket": read_bracket, "json": read_json}  # ParseResult.style -> reader


def styles() -> tuple[str, ...]:
    """The styles :func:`parse` reads: ``auto``, the registered benchmarks' own (``pfc.benchmarks.output_styles``,
    those with readers), ``json``."""
    return ("auto", *(s.name for s in benchmarks.output_styles() if s.readers), "json")


def _readers(style: str) -> list[str] | None:
    """The readers of ``style`` (None for ``auto``: chosen per output); KeyError for an unknown style."""
    if style in ("auto", "json"):
        return None if style == "auto" else ["json"]
    own = benchmarks.output_style(style)
    if own is None or not own.readers:
        raise KeyError(style)
    return list(own.readers)


@dataclass
class ParseResult:
    ok: bool
    calls: list[Call] = field(default_factory=list)
    error: str | None = None       # "family:subtype" or "family:subtype: detail"
    style: str | None = None
    exact: bool = False            # strict scoring: compared with app names as written, values exactly equal

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


def _fail(code: str, detail: str = "", style: str | None = None) -> ParseResult:
    return ParseResult(False, [], f"{code}: {detail}" if detail else code, style)


def parse(output, style: str = "auto") -> ParseResult:
    """Parse ``output`` (text, or an assistant message dict with ``tool_calls``)."""
    try:
        return _parse(output, style)
    except Unreadable as f:
        return _fail(f.code, f.detail)
    except Exception as e:  # a parser never raises: anything unforeseen is a typed failure
        return _fail("format:internal", type(e).__name__)


def _parse(output, style: str) -> ParseResult:
    try:
        readers = _readers(style)
    except KeyError:
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
            if readers is not None and "json" not in readers:  # a bracket style: no JSON tool-call tags
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

    if readers is not None:
        return _first(cands(), readers)
    first = bases[0]
    if _JSON_OBJECT.match(first):  # a JSON answer (cut off, or not a call) is never re-read as a Python call:
        return _first(cands(), ["json"])  # `"senderAddress (str)": …` would read as the call senderAddress(str)
    readers = ["json", "bracket"] if first[:1] in "{[`<" or "```" in first else ["bracket", "json"]
    return _first(cands(), readers)


_JSON_OBJECT = re.compile(r'(?:```(?:json)?\s*)?\{\s*"[^"\n]{1,200}"\s*:')


def _first(candidates, readers: list[str]) -> ParseResult:
    """The first reader (by its :data:`READERS` name) that succeeds on the first candidate it can read; else
    the best error.

    Errors are kept as (code, detail) tuples, never as exception objects: a stored exception's traceback links back
    through every caller's frame and keeps the whole scoring run alive until a full garbage collection.
    """
    errors: list[tuple[str, str]] = []
    for cand in candidates:
        cand = cand.strip()
        if not cand:
            continue
        for name in readers:
            try:
                return ParseResult(True, READERS[name](cand), None, name)
            except Unreadable as f:
                errors.append((f.code, f.detail))
            except Unsafe as u:
                errors.append((u.kind, u.detail))
    code, detail = next((e for e in errors if e[0] != "format:no_call_found"), None) or \
        (errors[0] if errors else ("format:no_call_found", ""))
    return _fail(code, detail)


def _native(tool_calls) -> ParseResult:
    try:
        if not isinstance(tool_calls, list):
            raise Unreadable("format:unrecognized_structure", "tool_calls is not a list")
        calls = [c for tc in tool_calls for c in interpret(tc)]
        return ParseResult(True, calls, None, "tool_calls")
    except Unreadable as f:
        return _fail(f.code, f.detail, "tool_calls")
    except Unsafe as u:
        return _fail(u.kind, u.detail, "tool_calls")


__all__ = ["parse", "ParseResult", "styles"]
