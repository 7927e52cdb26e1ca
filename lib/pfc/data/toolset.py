"""The TRACEBench-style toolset: standardized JSON-schema tools and each app's own log vocabulary.

``data/toolsets/tracebench.json`` defines parameters once and lists, per scenario and app, its functions (``*`` marks
required parameters) and non-functional attributes. This module expands that into :class:`~pfc.schema.Tool` objects,
gives every app its own raw-log field and action names (what a phone would record; :func:`log_vocabulary`), and computes
the statistics of the paper's Table 3. It does not simulate users or read logs.

    >>> len(load_tools()), len({t.app for t in load_tools()})
    (55, 38)
"""
from __future__ import annotations

import json
import re
from functools import lru_cache

from pfc import paths
from pfc.schema import Tool

SPEC_PATH = paths.DATA / "toolsets" / "tracebench.json"
# a few apps log with synonyms rather than a naming style
_SYNONYMS = [
    {"address": "recv_addr", "items": "dishes", "restaurant": "shop", "payment_method": "pay_type",
     "origin": "start_poi", "destination": "end_poi", "product": "goods_name", "quantity": "num"},
    {"address": "deliveryAddress", "items": "foodList", "restaurant": "merchantName", "payment_method": "payChannel",
     "origin": "pickupPoint", "destination": "dropoffPoint", "product": "skuTitle", "quantity": "count"},
]


@lru_cache(maxsize=1)
def spec() -> dict:
    return json.loads(SPEC_PATH.read_text(encoding="utf-8"))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def load_tools() -> list[Tool]:
    """Every (app, function) as a standardized tool, in spec order."""
    s, tools = spec(), []
    attrs = {app: a["attributes"] for sc in s["scenarios"].values() for app, a in sc.items() if a["attributes"]}
    for scenario, apps in s["scenarios"].items():
        for app, a in apps.items():
            desc = "; ".join(f"{k}: {v}" for k, v in (attrs.get(app) or {}).items())
            for fn, params in a["functions"].items():
                props, required = {}, []
                for p in params:
                    name = p.rstrip("*")
                    props[name] = dict(s["parameters"][name])
                    if p.endswith("*"):
                        required.append(name)
                tools.append(Tool(app, fn, s["functions"][fn], scenario,
                                  {"type": "object", "properties": props, "required": required},
                                  {n: "required" if n in required else "optional" for n in props},
                                  [], desc))
    return tools


@lru_cache(maxsize=None)
def log_vocabulary(app: str) -> dict:
    """How ``app`` names things in its raw logs: {"fields": {param: field}, "actions": {function: action}}.

    Deterministic per app: one of five styles (snake, camelCase, app-prefixed, two synonym sets).
    """
    apps = sorted({a for sc in spec()["scenarios"].values() for a in sc})
    style = apps.index(app) % 5
    code = re.sub(r"[^A-Z]", "", app.upper())[:3] or app[:3].upper()
    fields, actions = {}, {}
    for p in spec()["parameters"]:
        if style == 0:
            fields[p] = p
        elif style == 1:
            fields[p] = _camel(p)
        elif style == 2:
            fields[p] = f"{code.lower()}_{p}"
        else:
            fields[p] = _SYNONYMS[style - 3].get(p, _camel(p) if style == 4 else p)
    for fn in spec()["functions"]:
        actions[fn] = {0: fn, 1: _camel(fn), 2: f"{code}_{fn.upper()}", 3: f"submit_{fn}", 4: _camel("do_" + fn)}[style]
    return {"fields": fields, "actions": actions}


def table3(tools: list[Tool] | None = None) -> list[dict]:
    """Per scenario: #apps, #functions, average #params, average #required (paper Table 3 layout)."""
    tools = tools or load_tools()
    rows = []
    for scenario in spec()["scenarios"]:
        ts = [t for t in tools if t.domain == scenario]
        rows.append({"scenario": scenario, "apps": len({t.app for t in ts}), "functions": len(ts),
                     "avg_params": round(sum(len(t.param_names) for t in ts) / len(ts), 2),
                     "avg_required": round(sum(len(t.required) for t in ts) / len(ts), 2)})
    return rows
