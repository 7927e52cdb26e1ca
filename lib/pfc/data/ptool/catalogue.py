"""Tool generation (PTBench §4.1): the seed catalogue -> platforms and typed APIs per scenario.

A catalogue lists scenarios, each with platforms that have distinct characteristics and APIs shared by every platform of
the scenario (functionally interchangeable tools, which is what tool personalization needs). Each parameter says whether
its value comes from the query or from the user's profile. One file per synthesis version (:data:`CATALOGUES`):

- v1 (``data/ptool/catalogue.json``): 4-5 APIs per scenario, each with request templates; with an LLM configured,
  :func:`expand` asks it for more APIs per scenario (depth-first: scenario -> function group -> API) and keeps only the
  ones that pass :func:`check_function`;
- v2 (``data/ptool/catalogue_v2.json``, PTBench Table 5 scale): 8 scenarios x 3 platforms x 24 APIs, each an *action* on
  an *object* (:class:`Api`), platforms with request hints (paraphrase families for :mod:`pfc.data.ptool.phrasing`);
  value pools written compactly (``combine``, ``ids``, ``ints``, ``dates``, ``times``) and expanded by
  :func:`expand_pool`, in a fixed order.

This module does not make users or queries and draws nothing at random.

    >>> cat = load(); sorted(cat.scenarios)[:2]
    ['entertainment', 'finance']
    >>> sum(len(s.functions) for s in load(version=2).scenarios.values())
    192
"""
from __future__ import annotations

import datetime as _dt
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from pfc import paths
from pfc.schema import SchemaError

CATALOGUES = {1: paths.DATA / "ptool" / "catalogue.json", 2: paths.DATA / "ptool" / "catalogue_v2.json"}
TYPES = {"string": str, "integer": int, "boolean": bool, "number": float}


@dataclass
class Param:
    name: str
    type: str
    source: str                 # "query" or "profile"
    description: str
    enum: list | None = None    # allowed values (profile preferences)
    pool: str | None = None     # value pool for query parameters


@dataclass
class Function:
    name: str
    description: str
    params: list[Param]
    templates: list[str]

    def spec(self) -> dict:
        """The OpenAI-style tool spec the official PTBench records carry."""
        props = {}
        for p in self.params:
            props[p.name] = {"type": p.type, "description": p.description}
            if p.enum is not None:
                props[p.name]["enum"] = p.enum
        return {"type": "function", "function": {
            "name": self.name, "description": self.description,
            "parameters": {"type": "object", "properties": props, "required": [p.name for p in self.params]},
            "response": {"type": "object", "properties": {"success": {"type": "boolean",
                                                                      "description": "Whether the call succeeded."}}}}}


@dataclass
class Api(Function):
    """A v2 API: its action and object name how requests for it are phrased."""
    action: str = ""
    obj: str = ""
    noun: str = ""


@dataclass
class Scenario:
    name: str
    seen: bool
    platforms: list[dict]
    functions: list[Function] = field(default_factory=list)

    @property
    def platform_names(self) -> list[str]:
        return [p["name"] for p in self.platforms]


@dataclass
class Catalogue:
    scenarios: dict[str, Scenario]
    pools: dict[str, list]
    basic_pools: dict[str, list]
    basic_keys: list[str]


def _param(row, where: str, pools: dict) -> Param:
    if not (isinstance(row, list) and 4 <= len(row) <= 5 and all(isinstance(x, str) for x in row[:4])):
        raise SchemaError("expected [name, type, source, description, enum|pool]", field=where)
    name, typ, src, desc = row[:4]
    extra = row[4] if len(row) == 5 else None
    if typ not in TYPES:
        raise SchemaError(f"type {typ!r} is not one of {sorted(TYPES)}", field=where)
    if src not in ("query", "profile"):
        raise SchemaError(f"source {src!r} is not query or profile", field=where)
    if src == "query" and extra not in pools:
        raise SchemaError(f"query parameter needs a value pool from {sorted(pools)}", field=where)
    if src == "profile" and extra is not None and not isinstance(extra, list):
        raise SchemaError("a profile parameter's extra must be an enum list", field=where)
    return Param(name, typ, src, desc, extra if src == "profile" else None, extra if src == "query" else None)


def _params(f: dict, where: str, pools: dict) -> list[Param]:
    params = [_param(r, f"{where}.params[{i}]", pools) for i, r in enumerate(f.get("params", []))]
    if len({p.name for p in params}) != len(params):
        raise SchemaError("duplicate parameter names", field=where + ".params")
    return params


def check_function(f: dict, where: str, pools: dict) -> Function:
    """A catalogue (or LLM-proposed) API, validated; SchemaError names the field."""
    if not isinstance(f, dict) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(f.get("name", ""))):
        raise SchemaError("expected an object with an identifier 'name'", field=where)
    params = _params(f, where, pools)
    templates = f.get("templates") or []
    qnames = {p.name for p in params if p.source == "query"}
    for t in templates:
        used = set(re.findall(r"\{(\w+)\}", t))
        if used != qnames:
            raise SchemaError(f"template {t!r} must use exactly the query parameters {sorted(qnames)}",
                              field=where + ".templates")
    if not templates:
        raise SchemaError("needs at least one query template", field=where + ".templates")
    return Function(f["name"], str(f.get("description", "")), params, list(templates))


def _api(f: dict, where: str, pools: dict) -> Api:
    """A v2 catalogue API (no templates: :mod:`pfc.data.ptool.phrasing` words its requests)."""
    params = _params(f, where, pools)
    return Api(f["name"], f["description"], params, [], f["action"], f["object"], f["noun"])


def expand_pool(spec, where: str) -> list:
    """A compact pool spec -> its values, in a fixed order."""
    if isinstance(spec, list):
        return list(spec)
    if not isinstance(spec, dict) or len(spec) != 1:
        raise SchemaError("expected a list or one of combine/ids/ints/dates/times", field=where)
    kind, arg = next(iter(spec.items()))
    if kind == "combine":
        return [" ".join(p) for p in itertools.product(*arg)]
    if kind == "ids":
        prefix, lo, hi = arg
        return [f"{prefix}-{i}" for i in range(lo, hi + 1)]
    if kind == "ints":
        lo, hi, *step = arg
        return list(range(lo, hi + 1, step[0] if step else 1))
    if kind == "dates":
        d0 = _dt.date(int(arg), 1, 1)
        return [(d0 + _dt.timedelta(days=i)).isoformat() for i in range((_dt.date(int(arg) + 1, 1, 1) - d0).days)]
    if kind == "times":
        first, last, step = arg
        return [f"{h:02d}:{m:02d}" for h in range(first, last + 1) for m in range(0, 60, step)]
    raise SchemaError(f"unknown pool kind {kind!r}", field=where)


def load(path: Path | None = None, version: int = 1) -> Catalogue:
    """Synthesis ``version``'s catalogue (its file of :data:`CATALOGUES` unless ``path``), pools expanded; a
    malformed file is refused naming file and field."""
    path = Path(path or CATALOGUES[version])
    make = check_function if version == 1 else _api
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        pools = {k: expand_pool(v, f"pools.{k}") for k, v in raw["pools"].items()}
        scen = {}
        for s, body in raw["scenarios"].items():
            fns = [make(f, f"scenarios.{s}.functions[{i}]", pools) for i, f in enumerate(body["functions"])]
            scen[s] = Scenario(s, bool(body["seen"]), body["platforms"], fns)
    except json.JSONDecodeError as e:
        raise SchemaError(f"invalid JSON: {e.msg} (line {e.lineno})", file=paths.relative(path)) from None
    except SchemaError as e:
        raise SchemaError(e.msg, file=paths.relative(path), field=e.field) from None
    except (KeyError, TypeError, ValueError) as e:
        raise SchemaError(f"malformed catalogue ({type(e).__name__}: {e})", file=paths.relative(path)) from None
    return Catalogue(scen, pools, raw["basic_pools"], raw["basic_keys"])


EXPAND_PROMPT = ("You design APIs for the '{scenario}' scenario, offered by the platforms {platforms}. "
                 "Existing APIs: {existing}. Propose {n} NEW APIs as a JSON list of objects "
                 '{{"name": identifier, "description": text, "params": [[name, type, source, description, extra]], '
                 '"templates": [user request with {{param}} for every query parameter]}}. type is string|integer|boolean; '
                 "source is query (extra: one of the value pools {pools}) or profile (extra: a list of allowed values, "
                 "or omit it for personal facts such as an address). Answer with the JSON list only.")


def expand(cat: Catalogue, chat, n: int = 2) -> dict[str, int]:
    """LLM depth-first expansion: new APIs per scenario, kept only if valid. Returns how many were added."""
    added = {}
    for s, sc in cat.scenarios.items():
        msg = EXPAND_PROMPT.format(scenario=s, platforms=sc.platform_names, n=n,
                                   existing=[f.name for f in sc.functions], pools=sorted(cat.pools))
        text = chat([{"role": "user", "content": msg}])
        added[s] = 0
        try:
            proposals = json.loads(text[text.index("["): text.rindex("]") + 1])
        except ValueError:
            continue
        for i, f in enumerate(proposals if isinstance(proposals, list) else []):
            try:
                fn = check_function(f, f"llm.{s}[{i}]", cat.pools)
            except (SchemaError, TypeError, AttributeError):
                continue
            if fn.name not in {g.name for g in sc.functions}:
                sc.functions.append(fn)
                added[s] += 1
    return added
