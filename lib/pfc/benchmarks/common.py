"""Shared adapter pieces: prediction files and the generic per-example row.

Prediction files are JSONL. Accepted line shapes: ``{"id", "output"}`` (our run directories), ``{"index", "output"}``
(position in the examples file) and the official PTBench ``{"predict"}`` (matched by line order). ``output`` may be text
or an assistant message dict with ``tool_calls``. Examples without a prediction are scored as failures.

    >>> generic_row  # doctest: +ELLIPSIS
    <function generic_row at ...>
"""
from __future__ import annotations

from pathlib import Path

from pfc.eval.checker import compare
from pfc.eval.coverage import Predictions
from pfc.eval.metrics import row_from_comparison
from pfc.jsonl import iter_jsonl
from pfc.rows import PredictionRow, raw_output
from pfc.schema import SOURCES, Example, SchemaError, load_examples, load_tools
from pfc.eval.taxonomy import error_rows, error_type, ptbench_flags


def load_unified(examples_path, tools_path=None):
    """A unified-schema benchmark directory or ``examples.jsonl`` (+ optional ``tools.json``).

    Without ``tools_path``, ``tools.json`` is taken from the directory, or from beside the file.
    """
    p = Path(examples_path)
    if p.is_dir():
        p = p / "examples.jsonl"
        if not p.exists():
            raise SchemaError("no examples.jsonl in this directory", file=str(examples_path))
    if tools_path is None and (p.parent / "tools.json").exists():
        tools_path = p.parent / "tools.json"
    return load_examples(p), (load_tools(tools_path) if tools_path else [])


def load_predictions(path, examples: list[Example]) -> Predictions:
    """{example id: raw output} from a predictions JSONL file (see the module docstring).

    The result also records every id seen (``pfc.eval.coverage.Predictions``): duplicates are counted, the last line of
    an id wins.
    """
    path = Path(path)
    out, ids = Predictions(), [e.id for e in examples]
    for pos, (n, obj) in enumerate(iter_jsonl(path)):
        if not isinstance(obj, dict):
            raise SchemaError("expected a JSON object", file=str(path), line=n)
        if "id" in obj and "output" in obj:  # a row written by pfc run (or in its form): read through its type
            row = PredictionRow.from_json(obj, str(path), n)
            out.add(row.id, row.output)
            continue
        if "id" in obj:
            if not isinstance(obj["id"], (str, int)) or isinstance(obj["id"], bool):
                raise SchemaError("expected a string id", file=str(path), line=n, field="id")
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
        out.add(key, raw_output(obj[field], str(path), n, field))
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
