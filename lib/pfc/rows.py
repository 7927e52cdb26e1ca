"""One line of a run's ``predictions.jsonl`` as a type, written by the runner and read back by the scorer.

:class:`PredictionRow` holds the id, the raw output (text, ``None``, or an assistant message with native
tool calls), whether it came from the response cache, what generating it cost (``generation``) and, for the
hierarchical strategy, step 1 (``domain_step``). :meth:`PredictionRow.from_json` is the one reader: a row of
the wrong shape is a :class:`pfc.jsonl.SchemaError` naming file, line and field. :func:`raw_output` checks
one output value (also the published PTBench evaluator's ``predict`` field). It reads and writes no file:
``pfc.run.writer`` appends rows, ``pfc.benchmarks.common.load_predictions`` reads them.

    >>> PredictionRow("e1", "[]", cached=True).to_json()
    {'id': 'e1', 'output': '[]', 'cached': True}
    >>> PredictionRow.from_json({"id": 7, "output": [{"function": {"name": "f"}}]}).output["tool_calls"]
    [{'function': {'name': 'f'}}]
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from pfc.jsonl import SchemaError


def raw_output(v, file=None, line=None, field: str = "output"):
    """One output value: text or null as is, a list of tool calls as an assistant message, an assistant
    message as is; anything else refused naming the field."""
    if isinstance(v, list):
        if not all(isinstance(c, dict) and "function" in c for c in v):
            raise SchemaError("expected a list of tool calls ({\"function\": {name, arguments}})",
                              file=file, line=line, field=field)
        return {"role": "assistant", "content": None, "tool_calls": v}
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, dict) and ("tool_calls" in v or "content" in v):
        return v
    raise SchemaError(f"expected a string, an assistant message or a tool-call list, got {type(v).__name__} "
                      f"{json.dumps(v)[:40]}", file=file, line=line, field=field)


@dataclass
class PredictionRow:
    id: str
    output: object                      # raw text, or {"role": "assistant", "content", "tool_calls"}
    cached: bool = False
    generation: dict | None = None      # tokens and prefill/decode seconds when it was generated
    domain_step: dict | None = None     # hierarchical step 1: answer, error, domain, matched_by, fallback

    def to_json(self) -> dict:
        row = {"id": self.id, "output": self.output, "cached": self.cached}
        if self.generation:
            row["generation"] = self.generation
        if self.domain_step is not None:
            row["domain_step"] = self.domain_step
        return row

    @classmethod
    def from_json(cls, d, file=None, line=None) -> "PredictionRow":
        """A row as written by a run (or by hand: only ``id`` and ``output`` are required), checked field by field."""
        if not isinstance(d, dict):
            raise SchemaError("expected a JSON object", file=file, line=line)
        if not isinstance(d.get("id"), (str, int)) or isinstance(d.get("id"), bool):
            raise SchemaError("expected a string id", file=file, line=line, field="id")
        if "output" not in d:
            raise SchemaError("missing", file=file, line=line, field="output")
        if not isinstance(d.get("cached", False), bool):
            raise SchemaError("expected true or false", file=file, line=line, field="cached")
        for k in ("generation", "domain_step"):
            if d.get(k) is not None and not isinstance(d[k], dict):
                raise SchemaError("expected a JSON object", file=file, line=line, field=k)
        return cls(str(d["id"]), raw_output(d["output"], file, line), d.get("cached", False), d.get("generation"),
                   d.get("domain_step"))
