"""What a request states, read by the built-in baselines: values, and the app it names.

A baseline that is honest about a query must use every value the query states before it guesses from history. Two
readers, in order, per parameter of the chosen tool:

1. the phrasing of TRACEBench's query templates (``pfc.data.querygen.FRAG``): ``pay with {v}``, ``for {v} people``,
   ``"{v}"``…, inverted into patterns; a match must fit the parameter's type (integers are digits, enumerations take
   their listed values, dates and times only go to date and time parameters); the shortest fitting match wins. A value
   written bare (``items``, ``song``, ``movie``…) is the comma-separated part of the request that no other parameter's
   phrasing claims, once the opening phrase is removed;
2. any value the user used before for that parameter, or any enumeration value, named in the request as whole words (the
   longest wins) — this also reads free-form (LLM) requests.

It reads text only; it never sees the gold call.

    >>> from pfc.schema import Tool
    >>> t = Tool("Didi", "call_taxi", "", "", {"properties": {"car_type": {"type": "string"}}}, {}, [], "")
    >>> stated_values("Call a taxi, car type: Premier.", t, [])
    {'car_type': 'Premier'}
"""
from __future__ import annotations

import json
import re
from functools import lru_cache

from pfc.schema import strings_in
from pfc.data.querygen import BOOL, EXPLICIT, FRAG, VAGUE

_VALUE = r"((?:[^,()]|\([^)]*\))+?)"
_END = r"(?=,|\.(?:\s|$)|$|\s+please\b)"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}$")


@lru_cache(maxsize=None)
def _patterns(param: str) -> tuple:
    out = []
    for tpl in FRAG.get(param, ["{n} {v}", "{n}: {v}"]):
        prefix, _, suffix = tpl.replace("{n}", param.replace("_", " ")).partition("{v}")
        if not prefix.strip() and not suffix.strip():
            continue  # a bare value: only reader 2 can find it
        out.append((prefix.lower(), re.compile(r"(?:^|(?<=[\s,]))" + re.escape(prefix) + _VALUE
                                               + re.escape(suffix) + _END, re.I)))
    return tuple(out)


def _typed(param: str, spec: dict, raw: str):
    """The raw text as a value of the parameter's type, or None when it does not fit."""
    raw = raw.strip().strip('"').strip()
    if not raw:
        return None
    t = spec.get("type")
    if t == "integer":
        return int(raw) if raw.isdigit() and len(raw) < 10 else None
    if t == "array":
        return [x.strip() for x in raw.split(" and ") if x.strip()]
    if "enum" in spec:
        low = {str(e).lower(): e for e in spec["enum"]}
        return low.get(raw.lower())
    datelike = "date" in param or param in ("check_in", "start_time")
    if _TIME.match(raw) and "time" not in param:
        return None
    if _DATE.match(raw) and not datelike:
        return None
    return raw


def _from_templates(query: str, param: str, spec: dict):
    """(value, the matched text) or (None, None)."""
    if spec.get("type") == "boolean":
        yes, no = BOOL.get(param, (f"{param.replace('_', ' ')}: yes", f"{param.replace('_', ' ')}: no"))
        q = query.lower()
        return (True, yes) if yes.lower() in q else (False, no) if no.lower() in q else (None, None)
    found, low = [], query.lower()
    for prefix, pat in _patterns(param):
        start = low.find(prefix)
        while start >= 0:  # every start, so a short match is not hidden by a long one
            m, at = pat.match(query, start), start
            start = low.find(prefix, start + 1)
            if m:
                v = _typed(param, spec, m.group(1))
                if v is not None:
                    found.append((len(m.group(1)), at, v, m.group(0)))
    if not found:
        return None, None
    best = min(found, key=lambda f: (f[0], f[1]))
    return best[2], best[3]


@lru_cache(maxsize=1)
def _heads() -> tuple:
    heads = [h for hs in EXPLICIT.values() for h in hs] + [h for hs in VAGUE.values() for h in hs]
    return tuple(sorted({h.lower() for h in heads}, key=len, reverse=True))


def _segments(query: str, apps) -> list[str]:
    """The comma-separated parts of a request (not splitting inside parentheses), opening phrase removed."""
    text = re.sub(r"(,\s*thanks\.|\s+please\.|\.)\s*$", "", query.strip())
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")" and depth > 0
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    first = parts[0]
    low = re.sub(r"^(please|could you)\s+", "", first.lower())
    cut = len(first) - len(low)
    for h in _heads():
        if low.startswith(h):
            rest = first[cut + len(h):]
            for app in sorted(apps, key=len, reverse=True):
                for name in (app, app.replace("_", " ")):
                    if rest.lower().startswith(f" on {name.lower()}"):
                        rest = rest[len(name) + 4:]
                        break
            parts[0] = re.sub(r"^\s*(:|—|-)?\s*", "", rest)
            break
    return [p for p in parts if p]


def _from_options(query: str, param: str, spec: dict, history):
    q = query.lower()
    options = {json.dumps(v, sort_keys=True) for h in history for k, v in h.arguments.items() if k == param}
    options |= {json.dumps(v) for v in spec.get("enum", [])}
    found = []
    for o in sorted(options):
        v = json.loads(o)
        strs = list(strings_in(v)) or ([str(v)] if isinstance(v, int) and not isinstance(v, bool) else [])
        if strs and all(len(s) >= 2 and re.search(r"(?<!\w)" + re.escape(s.lower()) + r"(?!\w)", q) for s in strs):
            found.append((sum(len(s) for s in strs), o, v))
    return max(found)[2] if found else None


def stated_values(query: str, tool, history, apps=()) -> dict:
    """{parameter: value} for every parameter of ``tool`` the request states (``apps``: app names it may name)."""
    out, claimed, bare = {}, set(), []
    props = tool.parameters.get("properties", {})
    for p, spec in props.items():
        v, text = _from_templates(query, p, spec)
        if v is None and not _patterns(p) and spec.get("type") != "boolean":
            bare.append(p)
            continue
        if v is None and spec.get("type") != "boolean":
            v = _from_options(query, p, spec, history)
        if v is not None:
            out[p] = v
            claimed.add((text or "").strip().lower())
    if bare:
        apps = sorted({*apps, *([tool.app] if tool.app else [])})
        left = [s for s in _segments(query, apps) if s.lower() not in claimed]
        for p in bare:
            v = _from_options(query, p, props[p], history)
            if v is None and left:
                v = _typed(p, props[p], left.pop(0))
            if v is not None:
                out[p] = v
    return out


def named_app(query: str, apps) -> str | None:
    """The candidate app the request names (as written, or with spaces for underscores), if exactly one."""
    q = query.lower()
    hits = sorted({a for a in apps if a and (a.lower() in q or a.replace("_", " ").lower() in q)})
    return hits[0] if len(hits) == 1 else None
