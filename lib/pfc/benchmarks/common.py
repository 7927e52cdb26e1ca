"""Shared adapter pieces: prediction files and the generic per-example row.

Prediction files are JSONL. Accepted line shapes: ``{"id", "output"}`` (our run
directories), ``{"index", "output"}`` (position in the examples file) and the official
PTBench ``{"predict"}`` (matched by line order). ``output`` may be text or an assistant
message dict with ``tool_calls``. Examples without a prediction are scored as failures.

    >>> generic_row  # doctest: +ELLIPSIS
    <function generic_row at ...>
"""
from __future__ import annotations

from pathlib import Path

from ..checker import compare
from ..metrics import row_from_comparison
from ..schema import SOURCES, Example, SchemaError, iter_jsonl, load_examples, load_tools
from ..taxonomy import error_rows, error_type, ptbench_flags


def load_unified(examples_path, tools_path=None):
    """A unified-schema benchmark directory or ``examples.jsonl`` (+ optional ``tools.json``)."""
    p = Path(examples_path)
    if p.is_dir():
        tools_path = tools_path or (p / "tools.json" if (p / "tools.json").exists() else None)
        p = p / "examples.jsonl"
    return load_examples(p), (load_tools(tools_path) if tools_path else [])


def load_predictions(path, examples: list[Example]) -> dict:
    """{example id: raw output} from a predictions JSONL file (see the module docstring)."""
    path = Path(path)
    out, ids = {}, [e.id for e in examples]
    for pos, (n, obj) in enumerate(iter_jsonl(path)):
        if not isinstance(obj, dict):
            raise SchemaError("expected a JSON object", file=str(path), line=n)
        if "id" in obj:
            key = str(obj["id"])
        elif "index" in obj:
            idx = obj["index"]
            if not isinstance(idx, int) or isinstance(idx, bool) or not 0 <= idx < len(ids):
                raise SchemaError(f"index {idx!r} is not a position in the examples (0..{len(ids) - 1})",
                                  file=str(path), line=n, field="index")
            key = ids[idx]
        elif "predict" in obj:
            if pos >= len(ids):
                continue  # the published evaluator ignores extra lines too
            key = ids[pos]
        else:
            raise SchemaError("needs 'id', 'index' or 'predict'", file=str(path), line=n)
        field = "predict" if "predict" in obj and "output" not in obj else "output"
        if field not in obj:
            raise SchemaError("missing", file=str(path), line=n, field="output")
        out[key] = obj[field]
    return out


def generic_row(example: Example, result, ctx=None, pair_leftovers: bool = False,
                sources: tuple[str, ...] = SOURCES):
    """Shared columns + PTBench error flags; returns (row, comparison, error_type)."""
    cmp = compare(example, result, pair_leftovers=pair_leftovers)
    row = row_from_comparison(cmp, sources)
    flags = ptbench_flags(cmp)
    row.update(flags)
    return row, cmp, error_type(cmp, flags)


__all__ = ["load_unified", "load_predictions", "generic_row", "error_rows"]
