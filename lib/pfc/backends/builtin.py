"""Built-in backends that need no model: oracle, random, and two history-aware baselines.

``history-prior`` (none of the papers reports such a calibration point):

1. *function*: TF-IDF similarity between the request and each candidate function's
   documentation (name, description, parameter names), plus how many of the user's past
   values for that function appear in the request, plus how often the user did it at this
   time of day;
2. *app*: the user's usual app for that function in this context (weekday or weekend),
   else their most used app for it, else the first candidate;
3. *arguments*: values the request states (past values or enumeration values found in
   it); for the rest, the user's usual value when they usually set that parameter, or, for
   places, the most recent related value from another app within six hours.

``no-history`` is the same with the history hidden. Outputs are rendered as text in the
benchmark's own format (PTBench brackets, JSON otherwise) and go through the same parser
as any model's.

    >>> sorted(BUILTINS)
    ['history-prior', 'no-history', 'oracle', 'random']
"""
from __future__ import annotations

import json
import random
import re
from collections import Counter
from datetime import datetime, timedelta

from ..render import render
from ..schema import Call
from . import Backend, Response
from ..matching import strings_in as _strings

PLACES = {"destination", "location", "venue", "cinema", "restaurant", "store", "address", "city", "to_city", "origin"}


def _words(s: str) -> str:
    return re.sub(r"[_.]", " ", s)



class _Builtin(Backend):
    def __init__(self, model: str = "", tools=None, seed: int = 0, **_):
        self.model, self.tools, self.seed = model or self.name, list(tools or []), seed
        self.by_key = {t.key: t for t in self.tools}

    def candidates(self, ex):
        keys = ex.tools or list(self.by_key)
        return [self.by_key[k] for k in keys if k in self.by_key] or self.tools

    def generate(self, requests):
        out = []
        for r in requests:
            try:
                style = "ptbench" if r.example.benchmark == "ptbench" else "json"  # each benchmark's own format
                calls = None
                if r.example.benchmark == "ptbench":  # PTBench-format data: pfc.backends.ptbench_baselines
                    from .ptbench_baselines import predict as ptbench_predict
                    calls = ptbench_predict(self.name, r.example, self.seed)
                out.append(Response(text=render(calls if calls is not None else self.predict(r.example), style)))
            except Exception as e:  # a baseline failing on one example is a failed request, not a crash
                out.append(Response(error=f"{type(e).__name__}: {e}"))
        return out


class Oracle(_Builtin):
    name = "oracle"

    def predict(self, ex):
        return None if ex.gold is None else [Call(g.app, g.function, g.arguments) for g in ex.gold]


class RandomBaseline(_Builtin):
    name = "random"

    def predict(self, ex):
        rng = random.Random(f"{self.seed}:{ex.id}")
        tool = rng.choice(self.candidates(ex))
        args = {}
        for p in tool.required:
            spec = tool.parameters["properties"][p]
            args[p] = rng.choice(spec["enum"]) if "enum" in spec else "unknown"
        return [Call(tool.app, tool.function, args)]


class HistoryPrior(_Builtin):
    name = "history-prior"
    use_history = True

    def predict(self, ex):
        hist = list(ex.history) if self.use_history else []
        cands = self.candidates(ex)
        q = ex.query.lower()
        fn = self._function(ex, cands, hist, q)
        tool = self._app(fn, cands, hist, ex)
        return [Call(tool.app, tool.function, self._arguments(tool, hist, q, ex))]

    # ---------------------------------------------------------------- steps
    def _function(self, ex, cands, hist, q):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.metrics.pairwise import linear_kernel
        fns = sorted({t.function for t in cands})
        docs = [" ".join(_words(f"{t.function} {t.description} {' '.join(t.param_names)}") for t in cands
                         if t.function == fn) for fn in fns]
        vec = TfidfVectorizer().fit(docs + [q])
        lexical = linear_kernel(vec.transform([q]), vec.transform(docs))[0]
        values = Counter()
        for h in hist:
            for v in h.arguments.values():
                for s in _strings(v):
                    if len(s) >= 4 and s.lower() in q:
                        values[h.function] += 1
        now = _now(ex)
        when = Counter(h.function for h in hist if now and _hour_close(h.time, now))
        total = max(sum(when.values()), 1)
        score = {fn: 2 * lexical[i] + min(values[fn], 5) / 5 + when[fn] / total for i, fn in enumerate(fns)}
        return max(fns, key=lambda f: (score[f], f))

    def _app(self, fn, cands, hist, ex):
        offering = [t for t in cands if t.function == fn]
        now = _now(ex)
        weekend = now.weekday() >= 5 if now else None
        past = [h.app for h in hist if h.function == fn]
        same_ctx = [h.app for h in hist if h.function == fn and now and
                    (datetime.fromisoformat(h.time).weekday() >= 5) == weekend]
        for pool in (same_ctx, past):
            for app, _ in Counter(pool).most_common():
                match = [t for t in offering if t.app == app]
                if match:
                    return match[0]
        return sorted(offering, key=lambda t: t.app or "")[0]

    def _arguments(self, tool, hist, q, ex):
        props = tool.parameters["properties"]
        args = {}
        past_calls = [h for h in hist if h.function == tool.function]
        now = _now(ex)
        recent = [h for h in hist if now and h.function != tool.function
                  and datetime.fromisoformat(h.time) >= now - timedelta(hours=6)]
        for p, spec in props.items():
            stated = self._stated(p, spec, hist, q)
            if stated is not None:
                args[p] = stated
                continue
            if not past_calls:
                continue
            usual = Counter(json.dumps(h.arguments[p], sort_keys=True) for h in past_calls if p in h.arguments)
            if sum(usual.values()) < len(past_calls) / 2:
                continue  # the user does not usually set this parameter
            value, n = usual.most_common(1)[0]
            if p in PLACES and n < sum(usual.values()) / 2:
                fresh = [v for h in reversed(recent) for k, v in h.arguments.items() if k in PLACES and isinstance(v, str)]
                if fresh:
                    args[p] = fresh[0]
                    continue
            args[p] = json.loads(value)
        return args

    @staticmethod
    def _stated(p, spec, hist, q):
        options = {json.dumps(v, sort_keys=True) for h in hist for k, v in h.arguments.items() if k == p}
        options |= {json.dumps(v) for v in spec.get("enum", [])}
        found = []
        for o in options:
            v = json.loads(o)
            strs = list(_strings(v)) or ([str(v)] if isinstance(v, int) and not isinstance(v, bool) else [])
            if strs and all(len(s) >= 2 and re.search(r"(?<!\w)" + re.escape(s.lower()) + r"(?!\w)", q) for s in strs):
                found.append((sum(len(s) for s in strs), o, v))
        return max(found)[2] if found else None


class NoHistory(HistoryPrior):
    name = "no-history"
    use_history = False


def _now(ex):
    t = ex.meta.get("anchor_time")
    return datetime.fromisoformat(t) if t else None


def _hour_close(t: str, now: datetime) -> bool:
    h = datetime.fromisoformat(t)
    return abs((h.hour * 60 + h.minute) - (now.hour * 60 + now.minute)) <= 90


BUILTINS = {c.name: c for c in (Oracle, RandomBaseline, HistoryPrior, NoHistory)}
