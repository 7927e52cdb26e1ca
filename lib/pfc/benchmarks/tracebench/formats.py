"""TRACEBench's prompt axes (issue 65): registered prompt variants, each a setting of one axis, composable.

A prompt variant (``pfc run --prompt-variant``) names one level per axis, the default levels left out: ``all`` is every
axis at its default (today's prompt, byte for byte), ``history=json,order=newest`` two axes moved. The axes, in
:data:`AXES` (the first level of each is the default):

- ``history``: how each history record is written: ``calls`` (``<time> App__function(k="v")``, today's), ``json`` (one
  JSON object a line: time, app, function, arguments), ``table`` (a Markdown table) or ``sentences`` (``At <time> the
  user called <function> in <App> with k = "v".``);
- ``order``: ``oldest`` first (today's) or ``newest`` first;
- ``answer``: ``json``, a JSON call: through the chat template's native tools (``<tool_call>``, the default of ``pfc
  run``) or, with ``--prompt-format``, the JSON object the prompt asks for; ``python``: one Python call line
  ``App.function(k="v")`` (tools in the prompt, so it needs ``--prompt-format``). The robust parser reads that line as a
  call (``pfc.eval.parse_bracket``: an AST of literals, never evaluated; anything else is a typed failure).

Another axis is one :func:`register` call (its levels, default first); every combination is then a variant
(:data:`VARIANTS` is recomputed) and its name lists the axes in registration order. Every rendering shows exactly the
record's values: the time, app, function and each argument's value, strings through ``json``'s string encoder (quoted,
escaped), nothing else taken from the record and nothing derived (no weekday). This module renders and names; the prompt
itself is ``pfc.benchmarks.tracebench.prompts``.

    >>> settings("history=json,order=newest")["answer"], name({"history": "calls", "order": "newest"})
    ('json', 'order=newest')
"""
from __future__ import annotations

import itertools
import json
from json.encoder import encode_basestring

from pfc.errors import UserError

DEFAULT_NAME = "all"  # every axis at its default: the name runs had before variants existed
AXES: dict[str, tuple[str, ...]] = {"history": ("calls", "json", "table", "sentences"),
                                    "order": ("oldest", "newest"), "answer": ("json", "python")}
# the words after "The user's interaction history, <order>" for each rendering (today's: none)
HISTORY_NOTE = {"calls": "", "json": " (one JSON object per record)", "table": " (a Markdown table)",
                "sentences": ""}


def register(axis: str, levels: tuple[str, ...]) -> None:
    """Add an axis (``levels[0]`` its default) and recompute :data:`VARIANTS`."""
    global VARIANTS
    if axis in AXES or not levels or len(set(levels)) != len(levels):
        raise ValueError(f"axis {axis!r}: already registered, or levels empty or repeated")
    AXES[axis] = tuple(levels)
    VARIANTS = _all_names()


def defaults() -> dict[str, str]:
    return {axis: levels[0] for axis, levels in AXES.items()}


def name(chosen: dict[str, str]) -> str:
    """The variant's canonical name: the non-default axes as ``axis=level`` in :data:`AXES` order."""
    full = {**defaults(), **chosen}
    moved = [f"{axis}={full[axis]}" for axis, levels in AXES.items() if full[axis] != levels[0]]
    return ",".join(moved) or DEFAULT_NAME


def settings(variant: str) -> dict[str, str]:
    """Every axis's level under ``variant`` (a :class:`pfc.errors.UserError` naming what is unknown)."""
    out = defaults()
    if variant == DEFAULT_NAME:
        return out
    for part in variant.split(","):
        axis, _, level = part.partition("=")
        if axis not in AXES or level not in AXES[axis]:
            raise UserError(f"prompt variant {variant!r}: {part!r} is not one of "
                            + "; ".join(f"{a}={'|'.join(lv)}" for a, lv in AXES.items()))
        out[axis] = level
    if name(out) != variant:
        raise UserError(f"prompt variant {variant!r}: write it as {name(out)!r} (default levels left out, "
                        "axes in the order " + ", ".join(AXES) + ")")
    return out


def _all_names() -> tuple[str, ...]:
    return tuple(name(dict(zip(AXES, combo))) for combo in itertools.product(*AXES.values()))


VARIANTS = _all_names()


def check(variant: str, native: bool) -> None:
    """Refuse a variant that cannot work with the run's tool format (``--prompt-format`` or not)."""
    if settings(variant)["answer"] == "python" and native:
        raise UserError(f"prompt variant {variant!r} asks for a Python call line with the tools in the prompt: "
                        "add --prompt-format")


def _value(v) -> str:
    return encode_basestring(v) if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def _py(v) -> str:
    """A value as a Python literal (strings double-quoted as JSON writes them)."""
    if isinstance(v, str):
        return encode_basestring(v)
    if isinstance(v, list):
        return "[" + ", ".join(map(_py, v)) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_py(str(k))}: {_py(x)}" for k, x in v.items()) + "}"
    return repr(v)


def python_call(app: str, function: str, arguments: dict) -> str:
    """``App.function(k="v", n=2)``: the answer the ``answer=python`` variant asks for (its few-shot turns)."""
    return f"{app}.{function}(" + ", ".join(f"{k}={_py(v)}" for k, v in arguments.items()) + ")"


def json_line(h) -> str:
    return json.dumps({"time": h.time, "app": h.app, "function": h.function, "arguments": h.arguments},
                      ensure_ascii=False)


def _cell(text: str) -> str:
    """A table cell: ``|`` escaped (values are JSON-encoded, so no line breaks; a name's would become spaces)."""
    return text.replace("|", "\\|").replace("\n", " ")


def table(records) -> list[str]:
    """A Markdown table: time | app | function | arguments (``k = v`` joined by ``; ``, ``|`` escaped)."""
    rows = ["| time | app | function | arguments |", "|---|---|---|---|"]
    for h in records:
        args = "; ".join(f"{k} = {_value(v)}" for k, v in h.arguments.items())
        rows.append(f"| {_cell(h.time)} | {_cell(h.app)} | {_cell(h.function)} | {_cell(args)} |")
    return rows


def sentence(h) -> str:
    args = " and ".join(f"{k} = {_value(v)}" for k, v in h.arguments.items())
    return f"At {h.time} the user called {h.function} in {h.app} with {args or 'no arguments'}."


def lines(records, chosen: dict[str, str], calls) -> list[str]:
    """The history's lines under ``chosen`` settings; ``calls``: the default record line (the prompt
    module's ``pfc.run.history.record_text``)."""
    records = list(records)
    if chosen["order"] == "newest":
        records.reverse()
    how = chosen["history"]
    if how == "table":
        return table(records) if records else []
    return [{"calls": calls, "json": json_line, "sentences": sentence}[how](h) for h in records]


def order_words(chosen: dict[str, str]) -> str:
    return ("newest first" if chosen["order"] == "newest" else "oldest first") + HISTORY_NOTE[chosen["history"]]


# The grid of issue 65: one factor at a time around the default, over these axes (a later axis, such as an
# ``ask`` axis, joins the variants but not this grid). The answer axis of the grid has three levels: the
# default's native tools, the JSON object in the prompt (``--prompt-format``) and the Python call line.
GRID_AXES = ("history", "order", "answer")
ANSWER_LEVELS = ("native", "prompt-json", "python")


def cell_settings(variant: str, native: bool) -> dict[str, str]:
    """A run's level on each grid axis (the answer axis read from the variant and the tool format)."""
    chosen = settings(variant)
    answer = "python" if chosen["answer"] == "python" else ("native" if native else "prompt-json")
    return {"history": chosen["history"], "order": chosen["order"], "answer": answer}


def cell_name(variant: str, native: bool) -> str:
    """``default`` or ``<axis>-<level>`` for each axis off its default, joined by ``+``."""
    got = cell_settings(variant, native)
    base = {"history": AXES["history"][0], "order": AXES["order"][0], "answer": ANSWER_LEVELS[0]}
    return "+".join(f"{a}-{got[a]}" for a in GRID_AXES if got[a] != base[a]) or "default"


def grid_cells() -> list[tuple[str, str, bool]]:
    """``(cell, variant, native)`` of the one-factor-at-a-time grid: the default, then each other level of each
    axis alone (1 + 3 + 1 + 2 = 7 cells).

    >>> [c for c, _, _ in grid_cells()][:2], len(grid_cells())
    (['default', 'history-json'], 7)
    """
    cells = [(DEFAULT_NAME, True)]
    cells += [(name({axis: level}), True) for axis in ("history", "order") for level in AXES[axis][1:]]
    cells += [(DEFAULT_NAME, False), (name({"answer": "python"}), False)]
    return [(cell_name(v, nat), v, nat) for v, nat in cells]


def factorial_size() -> int:
    """Cells of the full factorial over the grid's axes: 4 x 2 x 3 = 24."""
    return len(AXES["history"]) * len(AXES["order"]) * len(ANSWER_LEVELS)
