"""One example schema for TRACEBench, PTBench and ToolSpectrum, stored as JSONL + a tool file.

A benchmark directory holds ``examples.jsonl`` (one :class:`Example` per line) and
``tools.json`` (a list of :class:`Tool`). Reading validates every field and fails with a
:class:`SchemaError` naming the file, the line (record) and the field. This module does
not score, parse model output or know any benchmark's official format (see
``pfc.benchmarks``).

    >>> ex = Example.from_dict({"id": "a", "benchmark": "ptbench", "query": "hi", "gold": None})
    >>> ex.is_refusal
    True
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from pfc import actions
from pfc import benchmarks  # the one registry of benchmark names
from pfc.errors import read_json
from pfc.io import atomic
from pfc.jsonl import SchemaError, iter_jsonl
from pfc.io.reuse import once

# Where a gold argument's value comes from (its provenance role).
SOURCES = ("query", "profile", "environment", "long_term_history", "recent_context", "unknown")


def _need(cond: bool, fld: str, msg: str) -> None:
    if not cond:
        raise SchemaError(msg, field=fld)


def _opt_str(d: dict, key: str, fld: str) -> str | None:
    v = d.get(key)
    _need(v is None or isinstance(v, str), fld, f"expected a string or null, got {type(v).__name__}")
    return v


def strings_in(value):
    """Every string inside a value (itself, or the items of a list, recursively)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for x in value:
            yield from strings_in(x)


@dataclass(slots=True)
class Role:
    """Provenance of one gold argument: where its value comes from, and whether it is required."""
    source: str = "unknown"
    required: bool = True

    @classmethod
    def from_dict(cls, d: Any, fld: str) -> "Role":
        if isinstance(d, str):  # shorthand: just the source
            d = {"source": d}
        _need(isinstance(d, dict), fld, "expected an object {source, required} or a source string")
        src = d.get("source", "unknown")
        _need(src in SOURCES, fld + ".source", f"expected one of {SOURCES}, got {src!r}")
        req = d.get("required", True)
        _need(isinstance(req, bool), fld + ".required", "expected true or false")
        return cls(src, req)


@dataclass
class Call:
    """One function call: app (platform) may be None where a benchmark has no apps."""
    app: str | None
    function: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"app": self.app, "function": self.function, "arguments": self.arguments}


@dataclass
class GoldCall(Call):
    """A gold call with acceptable alternative values and a provenance role per argument."""
    alternatives: dict[str, list] = field(default_factory=dict)
    roles: dict[str, Role] = field(default_factory=dict)

    def acceptable(self, name: str) -> list:
        """Every acceptable value for argument ``name`` (the gold value first)."""
        return [self.arguments[name], *self.alternatives.get(name, [])]

    def role(self, name: str) -> Role:
        return self.roles.get(name, Role())

    @classmethod
    def from_dict(cls, d: Any, fld: str) -> "GoldCall":
        _need(isinstance(d, dict), fld, "expected an object {app, function, arguments}")
        fn = d.get("function")
        _need(isinstance(fn, str) and fn != "", fld + ".function", "expected a non-empty string")
        args = d.get("arguments", {})
        _need(isinstance(args, dict), fld + ".arguments", "expected an object")
        alts = d.get("alternatives", {}) or {}
        _need(isinstance(alts, dict), fld + ".alternatives", "expected an object name -> list")
        for k, v in alts.items():
            _need(isinstance(v, list), f"{fld}.alternatives.{k}", "expected a list of values")
            _need(k in args, f"{fld}.alternatives.{k}", "names an argument the gold call lacks")
        roles = {}
        for k, v in (d.get("roles", {}) or {}).items():
            _need(k in args, f"{fld}.roles.{k}", "names an argument the gold call lacks")
            roles[k] = Role.from_dict(v, f"{fld}.roles.{k}")
        return cls(_opt_str(d, "app", fld + ".app"), fn, args, alts, roles)

    def to_dict(self) -> dict:
        out = super().to_dict()
        if self.alternatives:
            out["alternatives"] = self.alternatives
        if self.roles:
            out["roles"] = {k: asdict(r) for k, r in self.roles.items()}
        return out


@dataclass
class HistoryEntry:
    """One past call of the user, in time order."""
    time: str | None
    app: str | None
    function: str
    arguments: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Any, fld: str) -> "HistoryEntry":
        _need(isinstance(d, dict), fld, "expected an object {time, app, function, arguments}")
        fn = d.get("function")
        _need(isinstance(fn, str), fld + ".function", "expected a string")
        args = d.get("arguments", {})
        _need(isinstance(args, dict), fld + ".arguments", "expected an object")
        return cls(_opt_str(d, "time", fld + ".time"), _opt_str(d, "app", fld + ".app"), fn, args)


@dataclass
class Tool:
    """A candidate tool: app/platform + function, with JSON-schema parameters."""
    app: str | None
    function: str
    description: str = ""
    domain: str | None = None
    parameters: dict = field(default_factory=lambda: {"type": "object", "properties": {}, "required": []})
    roles: dict[str, str] = field(default_factory=dict)  # param -> required|personalized|environmental|...
    policies: list[str] = field(default_factory=list)
    app_description: str = ""

    @property
    def key(self) -> str:
        return f"{self.app}.{self.function}" if self.app else self.function

    @property
    def param_names(self) -> list[str]:
        return list(self.parameters.get("properties", {}))

    @property
    def required(self) -> list[str]:
        return list(self.parameters.get("required", []))

    @classmethod
    def from_dict(cls, d: Any, fld: str) -> "Tool":
        _need(isinstance(d, dict), fld, "expected an object")
        fn = d.get("function")
        _need(isinstance(fn, str) and fn != "", fld + ".function", "expected a non-empty string")
        params = d.get("parameters", {"type": "object", "properties": {}, "required": []})
        _need(isinstance(params, dict) and isinstance(params.get("properties", {}), dict),
              fld + ".parameters", "expected a JSON schema object with 'properties'")
        req = params.get("required", [])
        _need(isinstance(req, list) and all(r in params.get("properties", {}) for r in req),
              fld + ".parameters.required", "expected a list of names from 'properties'")
        return cls(_opt_str(d, "app", fld + ".app"), fn, d.get("description", "") or "",
                   _opt_str(d, "domain", fld + ".domain"), params, dict(d.get("roles", {}) or {}),
                   list(d.get("policies", []) or []), d.get("app_description", "") or "")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Example:
    """One benchmark example. ``gold is None`` means the right answer is a refusal (no call)."""
    id: str
    benchmark: str
    query: str
    gold: list[GoldCall] | None
    user_id: str | None = None
    profile: Any = None
    environment: Any = None
    history: list[HistoryEntry] = field(default_factory=list)
    tools: list[str] | None = None  # tool keys; None = every tool of the benchmark's tool file
    meta: dict = field(default_factory=dict)

    @property
    def is_refusal(self) -> bool:
        return self.gold is None

    @property
    def action(self) -> str:
        """The gold action, ``call`` | ``ask`` | ``cannot`` (``pfc.actions``; ``meta.action``, default ``call``)."""
        return actions.action_of(self.meta)

    @classmethod
    def from_dict(cls, d: Any) -> "Example":
        _need(isinstance(d, dict), "<record>", "expected a JSON object")
        _need(isinstance(d.get("id"), (str, int)) and not isinstance(d.get("id"), bool), "id",
              "expected a string id")
        bench = d.get("benchmark")
        _need(bench in benchmarks.names(), "benchmark", f"expected one of {benchmarks.names()}, got {bench!r}")
        _need(isinstance(d.get("query"), str), "query", "expected a string")
        _need("gold" in d, "gold", "missing (use null for a refusal)")
        gold = d["gold"]
        _need(gold is None or isinstance(gold, list), "gold", "expected a list of calls or null")
        hist = d.get("history", []) or []
        _need(isinstance(hist, list), "history", "expected a list")
        tools = d.get("tools")
        _need(tools is None or (isinstance(tools, list) and all(isinstance(t, str) for t in tools)),
              "tools", "expected a list of tool keys or null")
        meta = d.get("meta", {}) or {}
        _need(isinstance(meta, dict), "meta", "expected an object")
        _need(meta.get("trained") in (None, True, False), "meta.trained", "expected true, false or null")
        calls = None if gold is None else [GoldCall.from_dict(g, f"gold[{i}]") for i, g in enumerate(gold)]
        if "action" in meta or "ask_slots" in meta:  # issue 64's items (pfc.actions); absent: a call
            actions.check(meta, calls)
        return cls(
            id=str(d["id"]), benchmark=bench, query=d["query"], gold=calls,
            user_id=_opt_str(d, "user_id", "user_id"), profile=d.get("profile"),
            environment=d.get("environment"),
            history=[HistoryEntry.from_dict(h, f"history[{i}]") for i, h in enumerate(hist)],
            tools=tools, meta=meta)

    def to_dict(self) -> dict:
        return {"id": self.id, "benchmark": self.benchmark, "user_id": self.user_id,
                "query": self.query, "profile": self.profile, "environment": self.environment,
                "history": [{"time": h.time, "app": h.app, "function": h.function, "arguments": h.arguments}
                            for h in self.history], "tools": self.tools,  # asdict deep-copies: 20x slower
                "gold": None if self.gold is None else [g.to_dict() for g in self.gold],
                "meta": self.meta}


# ---------------------------------------------------------------- I/O at the edges
def load_examples(path: str | Path) -> list[Example]:
    """Read ``examples.jsonl``; the first bad record raises SchemaError(file, line, field).

    Inside ``pfc.io.reuse.reading_once`` an unchanged file is read once: a new list of the same (shared, read-only)
    examples."""
    return list(once("examples", [path], lambda: _read_examples(path)))


def _read_examples(path: str | Path) -> list[Example]:
    out, seen = [], set()
    for n, obj in iter_jsonl(path):
        try:
            ex = Example.from_dict(obj)
        except SchemaError as e:
            raise SchemaError(e.msg, file=str(path), line=n, field=e.field) from None
        if ex.id in seen:
            raise SchemaError(f"duplicate id {ex.id!r}", file=str(path), line=n, field="id")
        seen.add(ex.id)
        out.append(ex)
    return out


def write_examples(examples: Iterable[Example], path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic.open_text(path) as fh:
        for ex in examples:
            fh.write(json.dumps(ex.to_dict(), ensure_ascii=False, sort_keys=True) + "\n")


def load_tools(path: str | Path) -> list[Tool]:
    """Read a ``tools.json`` list; a bad tool raises SchemaError naming file, index and field."""
    path = Path(path)
    raw = read_json(path)
    if not isinstance(raw, list):
        raise SchemaError("expected a JSON list of tools", file=str(path))
    tools = []
    for i, d in enumerate(raw):
        try:
            tools.append(Tool.from_dict(d, f"[{i}]"))
        except SchemaError as e:
            raise SchemaError(e.msg, file=str(path), field=e.field) from None
    return tools


def write_tools(tools: Iterable[Tool], path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, json.dumps([t.to_dict() for t in tools], ensure_ascii=False, indent=1))
