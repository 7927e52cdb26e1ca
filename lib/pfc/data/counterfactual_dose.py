"""``dose:K`` and ``contradict-stated[:K]``: variants that set how much history evidence a request gets.

An :class:`EvidencePool` indexes the call histories of one example set (TRACEBench: each user's longest history) and the
population's favourites: for each function, the app with the most records over all users, and for each (function,
argument) the most recorded value (ties: the first in sorted order).

- **dose:K** — the *target* of an example is its gold app (unless the request names it), else its first
  ``long_term_history`` argument by name, whichever first differs from the population's favourite (an example whose
  every choice is the population's is skipped: nothing to switch from). A record *supports* it when it calls the gold
  function with the gold app (or with that argument at the gold value). The variant keeps exactly K supporting records,
  those most like the request first (same weekday/part of day/context value, then same weekday and part of day, then the
  most recent); with fewer than K, copies of them a week earlier (same context) make up the number. The history keeps
  its length: each removed supporting record is replaced by a *neutral* one (a call of another function: the same user's
  older records first, then other users' records before the request, drawn with the seed), each added copy displaces the
  oldest neutral record. The gold is unchanged.
- **contradict-stated:K** (K = 8 by default) — the first value the request states (provenance ``query``) whose argument
  has another value in the population (not written in the request) gains a habit: K copies of the user's latest call of
  that function (else another user's) with that other value, each a whole number of weeks before the request (same
  weekday and time of day), appended to the history. The habit must be strong by the anchors' rule
  (``pfc.data.counterfactual_swap.habit``), else the example is skipped. The gold stays the stated value.

- **a window of W records** (``dose@W``, ``contradict-stated@W``; :data:`EVIDENCE_WINDOW` in the reference plan): the
  variant's history becomes what a prompt can show whole. dose: its K supporting records and the W − K most recent
  records of other functions (no counter-evidence: no other app or value of the gold function); contradict-stated: the
  original's last W − K records and the K habit records. A model shown only the last 10 of a long history (``--history
  last_k``) sees, on TRACEBench's default build, 0.16 supporting records on average at every K ≥ 1 and the habit in 5 of
  200 variants: without a window the dose never reaches it. A windowed variant is run with ``--history full``; its
  contradict-stated original with ``last_k`` and k = W − K (the same history without the habit).

``meta.counterfactual`` records ``k``, ``window`` (when set), the target (``call``, ``argument``: None for the app) and
``user_choice``/``population_favourite`` (dose) or ``stated``/``habit`` (contradict-stated). Both need a call history
(TRACEBench): a set without one is refused by ``pfc.data.counterfactual``. It does not score (``pfc.eval.dose`` does).
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import datetime, timedelta

from pfc.data.context import context_of
from pfc.data.counterfactual_swap import habit
from pfc.data.variant import set_history, variant
from pfc.schema import HistoryEntry, strings_in

DOSES = (0, 1, 2, 4, 8, 16)
HABIT_RECORDS = 8
MAX_K = 256


def _key(v) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def _top(counter: Counter):
    return min(counter, key=lambda k: (-counter[k], k)) if counter else None


def _when(h) -> datetime:
    return datetime.fromisoformat(h.time)


def _moved(h: HistoryEntry, weeks: int, arguments: dict | None = None) -> HistoryEntry:
    """A copy of ``h`` ``weeks`` earlier (same weekday and time of day), ``arguments`` changed."""
    t = (_when(h) - timedelta(weeks=weeks)).isoformat(timespec="seconds")
    return HistoryEntry(t, h.app, h.function, {**h.arguments, **(arguments or {})})


def _latest(records: list, n: int) -> list:
    """The ``n`` most recent of ``records`` (by time; ties: their order), oldest first."""
    return sorted(records, key=_when)[len(records) - n:] if n else []


class EvidencePool:
    """Each user's call history and the population's favourite app and values; ``window``: each variant's
    history cut to that many records (module docstring), else kept at its length."""

    def __init__(self, examples, window: int | None = None):
        self.window = window
        longest: dict = {}
        for ex in examples:
            if ex.user_id is not None and ex.history:
                best = longest.get(ex.user_id)
                if best is None or (len(ex.history), ex.id) > (len(best.history), best.id):
                    longest[ex.user_id] = ex
        self.history = {u: list(e.history) for u, e in sorted(longest.items())}
        self.apps: dict = defaultdict(Counter)
        self.values: dict = defaultdict(Counter)
        for hist in self.history.values():
            for h in hist:
                self.apps[h.function][h.app] += 1
                for a, v in h.arguments.items():
                    self.values[(h.function, a)][_key(v)] += 1

    # ------------------------------------------------------------ dose
    def target(self, ex):
        """(call, argument | None, user's choice, population's favourite) or None."""
        if not ex.gold or not ex.history:
            return None
        for i, g in enumerate(ex.gold):
            if not (ex.meta.get("app_stated") or (g.app and g.app.lower() in ex.query.lower())):
                fav = _top(self.apps[g.function])
                if fav is not None and fav != g.app:
                    return i, None, g.app, fav
            for a in sorted(g.arguments):
                if g.role(a).source == "long_term_history":
                    fav = _top(self.values[(g.function, a)])
                    if fav is not None and fav != _key(g.arguments[a]):
                        return i, a, g.arguments[a], json.loads(fav)
        return None

    def dose(self, ex, k: int, rng, seed: int):
        t = self.target(ex)
        if t is None:
            return None, "no history-sourced choice (app or value) that differs from the population's favourite"
        call, arg, user, fav = t
        g = ex.gold[call]

        def supports(h):
            if h.function != g.function:
                return False
            return h.app == g.app if arg is None else arg in h.arguments and _key(h.arguments[arg]) == _key(user)

        hist = list(ex.history)
        sup = [h for h in hist if supports(h)]
        if not sup:
            return None, "no history record supports the user's choice"
        now = datetime.fromisoformat(ex.meta["anchor_time"]) if ex.meta.get("anchor_time") else _when(hist[-1])
        ctx = context_of(now, g.arguments)

        def strength(h):
            c = context_of(h.time, h.arguments)
            return c == ctx, c[:2] == ctx[:2], h.time

        ranked = sorted(sup, key=strength, reverse=True)
        drop = {id(h) for h in ranked[k:]}
        kept = [h for h in hist if id(h) not in drop]
        if k <= len(sup):
            fill = self._neutral(ex, g.function, now, hist, len(drop), rng)
            if fill is None:
                return None, f"too few neutral records to replace {len(drop)} supporting ones"
            kept += fill
        else:
            extra = [_moved(ranked[j % len(sup)], 1 + j // len(sup)) for j in range(k - len(sup))]
            neutral = [h for h in kept if h.function != g.function]
            if len(neutral) < len(extra):
                return None, f"too few neutral records to make room for {len(extra)} supporting ones"
            oldest = {id(h) for h in sorted(neutral, key=lambda h: h.time)[:len(extra)]}
            kept = [h for h in kept if id(h) not in oldest] + extra
        if self.window is not None:  # the K supporting records and the latest other-function records
            others = [h for h in kept if h.function != g.function]
            if len(others) < self.window - k:
                return None, f"too few records of other functions to fill a window of {self.window}"
            kept = [h for h in kept if supports(h)] + _latest(others, self.window - k)
        v = variant(ex, "dose", k, seed, k=k, supporting_before=len(sup), call=call, argument=arg,
                    user_choice=user, population_favourite=fav, **self._window())
        set_history(v, sorted(kept, key=lambda h: h.time))
        return v, None

    def _window(self) -> dict:
        return {} if self.window is None else {"window": self.window}

    def _neutral(self, ex, function: str, now: datetime, hist: list, n: int, rng):
        """``n`` calls of other functions before ``now``: the user's records not in ``hist`` (newest first),
        then other users' (seeded draw); None when there are too few."""
        if n == 0:
            return []
        seen = {(h.time, h.function, _key(h.arguments)) for h in hist}
        fresh = lambda h: (h.function != function and _when(h) < now
                           and (h.time, h.function, _key(h.arguments)) not in seen)
        own = sorted((h for h in self.history.get(ex.user_id, []) if fresh(h)), key=lambda h: h.time, reverse=True)
        out = own[:n]
        if len(out) < n:
            others = [h for u, hs in self.history.items() if u != ex.user_id for h in hs if fresh(h)]
            if len(others) < n - len(out):
                return None
            out += rng.sample(others, n - len(out))
        return out

    # ------------------------------------------------------------ contradict-stated
    def contradict(self, ex, k: int, rng, seed: int):
        if not ex.gold:
            return None, "refusal gold"
        now = datetime.fromisoformat(ex.meta["anchor_time"]) if ex.meta.get("anchor_time") else None
        if now is None:
            return None, "no request time (meta.anchor_time)"
        q = ex.query.lower()
        for i, g in enumerate(ex.gold):
            for a in sorted(g.arguments):
                if g.role(a).source != "query":
                    continue
                taken = {_key(x) for x in g.acceptable(a)}
                others = Counter({v: c for v, c in self.values[(g.function, a)].items() if v not in taken
                                  and not any(s.lower() in q for s in strings_in(json.loads(v)))})
                other = _top(others)
                template = self._template(ex, g, a)
                if other is None or template is None:
                    continue
                value = json.loads(other)
                base = HistoryEntry(now.isoformat(timespec="seconds"), g.app, g.function, template.arguments)
                added = [_moved(base, w, {a: value}) for w in range(1, k + 1)]  # the request's weekday and hour
                own = list(ex.history)
                if self.window is not None:  # the original's latest W - K records
                    own = own[max(0, len(own) - (self.window - k)):]
                hist = sorted(own + added, key=lambda h: h.time)
                vals = [h.arguments[a] for h in hist if h.function == g.function and a in h.arguments]
                if k == 0 or habit(vals) != (value, True):
                    return None, f"{k} records make no strong habit against the history's own values"
                v = variant(ex, "contradict-stated", k, seed, k=k, call=i, argument=a,
                            stated=g.arguments[a], habit=value, **self._window())
                set_history(v, hist)
                return v, None
        return None, "no stated value with another value in the population"

    def _template(self, ex, g, a):
        """The user's latest call of ``g``'s function carrying ``a`` (same app first), else another user's."""
        for hist in (ex.history, *[h for u, h in self.history.items() if u != ex.user_id]):
            calls = [h for h in hist if h.function == g.function and a in h.arguments]
            same = [h for h in calls if h.app == g.app]
            if same or calls:
                return max(same or calls, key=lambda h: h.time)
        return None
