"""Tool catalogue of the PTool v2 synthesis (PTBench Table 5 scale): 8 scenarios x 3 platforms x 24 APIs.

``data/ptool/catalogue_v2.json`` lists, per scenario, platforms (characteristics and request
hints, the latter paraphrase families for :mod:`pfc.data.ptool.phrasing`) and 24 APIs, each an
*action* (search, book, cancel, ...) on an *object* (flights, meetings, ...) with typed
parameters: query parameters draw their values from a value pool, profile parameters are
implicit preferences (an enumeration, low -> high) or basic facts (``user_address``, ...).
Value pools are written compactly (``combine``, ``ids``, ``ints``, ``dates``, ``times``) and
expanded here into plain lists, in a fixed order (no randomness in this module).

It returns the v1 :class:`~pfc.data.ptool.catalogue.Catalogue` shape, so the feature tree and
the profile assignment work unchanged; it does not phrase requests or make users.

    >>> cat = load(); sum(len(s.functions) for s in cat.scenarios.values())
    192
"""
from __future__ import annotations

import datetime as _dt
import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from pfc import paths
from pfc.data.ptool.catalogue import Catalogue, Function, Param, Scenario, TYPES
from pfc.schema import SchemaError

CATALOGUE = paths.DATA / "ptool" / "catalogue_v2.json"


@dataclass
class Api(Function):
    """A v2 API: its action and object name how requests for it are phrased."""
    action: str = ""
    obj: str = ""
    noun: str = ""


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


def _api(f: dict, where: str, pools: dict) -> Api:
    params = []
    for i, row in enumerate(f.get("params", [])):
        w = f"{where}.params[{i}]"
        if not (isinstance(row, list) and 4 <= len(row) <= 5):
            raise SchemaError("expected [name, type, source, description, enum|pool]", field=w)
        name, typ, src, desc = row[:4]
        extra = row[4] if len(row) == 5 else None
        if typ not in TYPES or src not in ("query", "profile"):
            raise SchemaError(f"bad type {typ!r} or source {src!r}", field=w)
        if src == "query" and extra not in pools:
            raise SchemaError(f"query parameter needs a value pool from {sorted(pools)}", field=w)
        params.append(Param(name, typ, src, desc, extra if src == "profile" else None, extra if src == "query" else None))
    if len({p.name for p in params}) != len(params):
        raise SchemaError("duplicate parameter names", field=where + ".params")
    return Api(f["name"], f["description"], params, [], f["action"], f["object"], f["noun"])


def load(path: Path | None = None) -> Catalogue:
    """The v2 catalogue, pools expanded; a malformed file is refused naming file and field."""
    path = Path(path or CATALOGUE)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        pools = {k: expand_pool(v, f"pools.{k}") for k, v in raw["pools"].items()}
        scen = {}
        for s, body in raw["scenarios"].items():
            fns = [_api(f, f"scenarios.{s}.functions[{i}]", pools) for i, f in enumerate(body["functions"])]
            scen[s] = Scenario(s, bool(body["seen"]), body["platforms"], fns)
    except json.JSONDecodeError as e:
        raise SchemaError(f"invalid JSON: {e.msg} (line {e.lineno})", file=paths.relative(path)) from None
    except SchemaError as e:
        raise SchemaError(e.msg, file=paths.relative(path), field=e.field) from None
    except (KeyError, TypeError, ValueError) as e:
        raise SchemaError(f"malformed catalogue ({type(e).__name__}: {e})", file=paths.relative(path)) from None
    return Catalogue(scen, pools, raw["basic_pools"], raw["basic_keys"])
