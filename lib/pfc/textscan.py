"""Text scanning for model output: reasoning blocks, code fences, balanced brackets.

Pure string functions, no parsing of values and no code execution. Every scan is linear in the input and bounded in
nesting depth. Shared by the parser (``pfc.eval.parsing``) and the prompts that strip a model's reasoning
(``pfc.run.prompts``), so it sits below the stages.

    >>> strip_reasoning("<think>hmm</think> A:[f()]")
    ([' A:[f()]'], None)
"""
from __future__ import annotations

import keyword
import re

_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.I)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.I)
_FENCE = re.compile(r"^[ \t]*```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)\n[ \t]*```[ \t]*$", re.S | re.M)
_FENCE_INLINE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)```", re.S)
_TOOL_CALL_TAG = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)
_OPENERS, _CLOSERS = "([{", ")]}"


def strip_reasoning(text: str) -> tuple[list[str], str | None]:
    """Texts to try once ``<think>…</think>`` preambles are removed; (candidates, error).

    An output that opens with a think tag keeps what follows the first closing tag (an opening tag never closed is an
    error). A closing tag with no opening one (templates that put ``<think>`` in the prompt) gives two candidates: after
    it, and the whole text (in case the tag sits inside a string value).
    """
    if "<" not in text:  # fast path: no tags at all
        return [text], None
    head = text.lstrip()
    m = _THINK_OPEN.match(head)
    if m:
        close = _THINK_CLOSE.search(head, m.end())
        if close is None:
            return [], "format:unterminated_reasoning"
        return [head[close.end():]], None
    close = _THINK_CLOSE.search(text)
    if close:
        return [text[close.end():], text], None
    return [text], None


def fenced_blocks(text: str) -> list[str]:
    """Contents of Markdown code fences, in order.

    Fences are line constructs: a line-anchored fence wins over ```` ``` ```` inside a string value; single-line fences
    are read only when there is no line-anchored one.
    """
    if "```" not in text:
        return []
    return [m.group(2) for m in _FENCE.finditer(text)] or [m.group(2) for m in _FENCE_INLINE.finditer(text)]


def tool_call_tags(text: str) -> list[str]:
    """Contents of Hermes-style ``<tool_call>…</tool_call>`` tags, in order."""
    return [m.group(1) for m in _TOOL_CALL_TAG.finditer(text)]


def find_balanced(text: str, start: int, max_depth: int) -> int:
    """Index just past the bracket closing ``text[start]``, skipping string literals.

    Returns -1 if unbalanced; raises ValueError('too_deep') past ``max_depth``.
    """
    stack: list[str] = []
    i, n = start, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            i = skip_string(text, i)
            if i < 0:
                return -1
            continue
        if c in _OPENERS:
            stack.append(_CLOSERS[_OPENERS.index(c)])
            if len(stack) > max_depth:
                raise ValueError("too_deep")
        elif c in _CLOSERS:
            if not stack or stack.pop() != c:
                return -1
            if not stack:
                return i + 1
        i += 1
    return -1


def skip_string(text: str, i: int) -> int:
    """Index just past the string literal starting at ``text[i]`` (a quote), or -1."""
    q = text[i]
    if text.startswith(q * 3, i):
        end = text.find(q * 3, i + 3)
        while end > 0 and _escaped(text, end):
            end = text.find(q * 3, end + 1)
        return -1 if end < 0 else end + 3
    j = i + 1
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == q:
            return j + 1
        if c == "\n":
            return -1
        j += 1
    return -1


def _escaped(text: str, j: int) -> bool:
    k, count = j - 1, 0
    while k >= 0 and text[k] == "\\":
        count, k = count + 1, k - 1
    return count % 2 == 1


_KW_ARG = re.compile(r"(?<=[(,])(\s*)([A-Za-z_]+)(\s*=)(?!=)")
_ANY_KW_ARG = re.compile(r"\b(?:" + "|".join(k for k in keyword.kwlist if k not in ("True", "False", "None"))
                         + r")\s*=(?!=)")
KW_PREFIX = "__pfc_kw_"


def rename_keyword_args(code: str) -> str:
    """Rewrite ``f(from='x')`` to ``f(__pfc_kw_from='x')`` outside string literals.

    Python keywords (``from``, ``class``, ``import``…) cannot be argument names in Python syntax, but models (and tool
    schemas) use them. :func:`restore_keyword` maps back.
    """
    if not _ANY_KW_ARG.search(code):  # the common case: nothing to rename
        return code
    out, i, n, seg_start = [], 0, len(code), 0
    while i < n:
        if code[i] in "'\"":
            out.append(_rename(code[seg_start:i]))
            j = skip_string(code, i)
            j = n if j < 0 else j
            out.append(code[i:j])
            i = seg_start = j
            continue
        i += 1
    out.append(_rename(code[seg_start:]))
    return "".join(out)


def _rename(segment: str) -> str:
    def sub(m: re.Match) -> str:
        name = m.group(2)
        if keyword.iskeyword(name) and name not in ("True", "False", "None"):
            name = KW_PREFIX + name
        return m.group(1) + name + m.group(3)
    return _KW_ARG.sub(sub, segment)


def restore_keyword(name: str | None) -> str | None:
    if name and name.startswith(KW_PREFIX):
        return name[len(KW_PREFIX):]
    return name
