"""Built-in backends that need no model: oracle, random, and two history-aware baselines.

``history-prior`` (none of the papers reports such a calibration point):

1. *function*: TF-IDF similarity between the request and each candidate function's documentation (name, description,
   parameter names), plus how many of the user's past values for that function appear in the request, plus how often the
   user did it at this time of day;
2. *app*: the app the request names, if it names one; else the user's usual app for that function in the most similar
   earlier context (``pfc.data.context``: same weekday/weekend, part of day and category or exercise, relaxed step by
   step), else their most used app for it, else the first candidate;
3. *arguments*: every value the request states (``pfc.run.backends.query_values``), always; for the rest, the user's
   usual value when they usually set that parameter, or, for places, the most recent related value from another app
   within six hours.

``no-history`` is the same with the history hidden; ``always-habit`` the same with every strong habit used even over a
value the request states (a control that overrules the user). ``query-oracle`` knows the gold app and function but only
the values the query states (gold arguments whose provenance is the query): the ceiling of a model that ignores the
user's history. Outputs are rendered as text in the benchmark's own format (PTBench brackets, JSON otherwise) and go
through the same parser as any model's.

    >>> sorted(BUILTINS)
    ['always-habit', 'history-prior', 'no-history', 'oracle', 'query-oracle', 'random']
    >>> ON_LARGE_DATA  # the baselines make reproduce runs on a large release (ToolSpectrum's)
    ('oracle', 'history-prior', 'no-history')
"""
from __future__ import annotations

import json
import random
import re
from collections import Counter
from datetime import datetime, timedelta
import sys

from pfc import benchmarks, render as _render
from pfc.data.context import context_of
from pfc.render import render
from pfc.schema import Call
from pfc.run.backends import Baseline, Response, query_values
from pfc.schema import strings_in as _strings
from pfc.run.backends.query_values import named_app, stated_values
from pfc.data.counterfactual_swap import habit
from pfc.provenance import source_version

PLACES = {"destination", "location", "venue", "cinema", "restaurant", "store", "address", "city", "to_city", "origin"}


def _words(s: str) -> str:
    return re.sub(r"[_.]", " ", s)



def _code_version() -> str:
    """Changes whenever the baselines' code (their helpers, or the renderer of their answers) changes."""
    own = [m for a in benchmarks.loaded() if (m := a.part("baselines")) is not None]  # each usable one's own
    return source_version(sys.modules[__name__], query_values, *own, _render)


class _Builtin(Baseline):
    uses_gold = False  # the oracles answer from the gold; the other baselines never read it
    # run on a large release too (ToolSpectrum's, by make reproduce): the oracle and the two history baselines
    on_large_data = False
    # PTBench-format data (candidate tools per record) go through pfc.benchmarks.ptbench.baselines
    needs_tools = True

    def __init__(self, model: str = "", tools=None, seed: int = 0, **_):
        self.model, self.tools, self.seed = model or self.name, list(tools or []), seed
        self.by_key = {t.key: t for t in self.tools}
        self.version = _code_version()
        self._docs: dict = {}

    def candidates(self, ex):
        keys = ex.tools or list(self.by_key)
        return [self.by_key[k] for k in keys if k in self.by_key] or self.tools

    def answer(self, requests, examples):
        """One answer per example, rendered in the benchmark's own format (the requests are not read)."""
        out = []
        for ex in examples:
            try:
                adapter = benchmarks.get(ex.benchmark)
                own = adapter.part("baselines")  # the benchmark's own baselines (<package>.baselines), if any
                calls = own.predict(self.name, ex, self.seed) if own is not None else None
                out.append(Response(text=render(calls if calls is not None else self.predict(ex),
                                                adapter.running.render_style)))  # in the benchmark's own format
            except Exception as e:  # a baseline failing on one example is a failed request, not a crash
                out.append(Response(error=f"{type(e).__name__}: {e}"))
        return out


class Oracle(_Builtin):
    name = "oracle"
    uses_gold = True
    on_large_data = True
    # the gold calls, in any benchmark's format
    needs_tools = False

    def predict(self, ex):
        return None if ex.gold is None else [Call(g.app, g.function, g.arguments) for g in ex.gold]


class QueryOracle(_Builtin):
    """The gold app and function with only the values the query states (provenance ``query``)."""
    name = "query-oracle"
    uses_gold = True
    needs_query_spans = True  # PTBench: not implemented (its stated values are not annotated per span)

    def predict(self, ex):
        if ex.gold is None:
            return None
        return [Call(g.app, g.function, {a: v for a, v in g.arguments.items()
                                         if (g.roles.get(a) is None or g.roles[a].source == "query")})
                for g in ex.gold]


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
    on_large_data = True

    def predict(self, ex):
        hist = list(ex.history) if self.use_history else []
        cands = self.candidates(ex)
        q = ex.query.lower()
        app = named_app(ex.query, sorted({t.app for t in cands if t.app}))
        fn = self._function(ex, [t for t in cands if t.app == app] or cands, hist, q)
        tool = self._app(fn, cands, hist, ex, app)
        return [Call(tool.app, tool.function, self._arguments(tool, hist, q, ex))]

    # ---------------------------------------------------------------- steps
    def _function(self, ex, cands, hist, q):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.metrics.pairwise import linear_kernel
        fns = sorted({t.function for t in cands})
        key = tuple(t.key for t in cands)
        if key not in self._docs:  # one vectorizer per candidate set (fit on the tool docs only)
            docs = [" ".join(_words(f"{t.function} {t.description} {' '.join(t.param_names)}") for t in cands
                             if t.function == fn) for fn in fns]
            vec = TfidfVectorizer().fit(docs)
            self._docs[key] = (vec, vec.transform(docs))
        vec, doc_matrix = self._docs[key]
        lexical = linear_kernel(vec.transform([q]), doc_matrix)[0]
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

    def _app(self, fn, cands, hist, ex, named=None):
        offering = [t for t in cands if t.function == fn]
        if named and any(t.app == named for t in offering):
            return next(t for t in offering if t.app == named)
        now = _now(ex)
        past = [h for h in hist if h.function == fn]
        pools = []
        if now:
            stated = stated_values(ex.query, offering[0], hist) if offering else {}
            day, part, value = context_of(now, stated)
            ctx = [(h, context_of(h.time, h.arguments)) for h in past]
            pools = [[h.app for h, c in ctx if c == (day, part, value)],
                     [h.app for h, c in ctx if value and c[2] == value],
                     [h.app for h, c in ctx if c[:2] == (day, part)],
                     [h.app for h, c in ctx if c[1] == part]]
        for pool in (*pools, [h.app for h in past]):
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
        stated = stated_values(ex.query, tool, hist)
        if now:  # habits of the same context first: e.g. delivered to the office on weekday mornings
            here = context_of(now, stated)[:2]
            same = [h for h in past_calls if h.app == tool.app and context_of(h.time, h.arguments)[:2] == here]
            past_calls = same if len(same) >= 2 else past_calls
        for p, spec in props.items():
            if p in stated:  # a value the request states is never replaced by a guess
                args[p] = stated[p]
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


class NoHistory(HistoryPrior):
    name = "no-history"
    use_history = False


class AlwaysHabit(HistoryPrior):
    """history-prior, except that a parameter with a strong habit (the anchors' rule) in the user's calls of
    that app and function takes the habit's value even where the request states another: a model that overrules the user
    (the positive control of ``contradict-stated``; not one of ``BASELINES``)."""
    name = "always-habit"
    on_large_data = False

    def _arguments(self, tool, hist, q, ex):
        args = super()._arguments(tool, hist, q, ex)
        past = [h for h in hist if h.function == tool.function and h.app == tool.app]
        for p in tool.parameters["properties"]:
            value, strong = habit([h.arguments[p] for h in past if p in h.arguments])
            if strong:
                args[p] = value
        return args


def _now(ex):
    t = ex.meta.get("anchor_time")
    return datetime.fromisoformat(t) if t else None


def _hour_close(t: str, now: datetime) -> bool:
    h = datetime.fromisoformat(t)
    return abs((h.hour * 60 + h.minute) - (now.hour * 60 + now.minute)) <= 90


BUILTINS = {c.name: c for c in (Oracle, QueryOracle, RandomBaseline, HistoryPrior, NoHistory, AlwaysHabit)}
# The one list of built-in baselines, in the order runs and report rows list them.
BASELINES = ("oracle", "history-prior", "no-history", "random", "query-oracle")
GOLD_FREE = tuple(b for b in BASELINES if not BUILTINS[b].uses_gold)  # history-prior, no-history, random
ON_LARGE_DATA = tuple(b for b in BASELINES if BUILTINS[b].on_large_data)  # oracle, history-prior, no-history
