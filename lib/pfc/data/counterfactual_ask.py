"""``ask[@W]`` and ``cannot``: variants whose right answer is not a call (issue 64, "ask or infer").

An :class:`ActionPool` indexes the call histories of one example set (each user's longest history, as
``pfc.data.counterfactual_dose.EvidencePool``) and, for ``cannot``, the tool file's scenarios.

- **ask** — the *slot* of an example is a required gold argument whose provenance is the history (``long_term_history``
  or ``recent_context``) and whose value the request does not state; among several, a seeded one
  (``random.Random("<seed>:ask:<id>")``) that some record supports. A record *supports* a value when one of its argument
  strings equals it (case-folded) or, for a value of 4 characters or more, contains it; a number or truth value is
  supported by a call of the same function with that argument at that value; every acceptable value of the slot counts.
  The variant removes **every** supporting record of the whole history, each replaced *in place* (its time kept) by a
  neutral record: a call of another function that supports no acceptable value, the user's own records before the
  request that the history lacks first, then other users' (seeded draw). The history keeps its length and its times, so
  a prompt showing the last W records shows the same positions as the original's. ``@W``: only requests with a
  supporting record among the original's last W records are admitted (the original is a call item under ``--history
  last_k --k W``; the ask runs of ``pfc.plans.ask`` use the evidence window, W = 20). The gold call stays (the follow-up
  turn scores against it); ``meta.action`` becomes ``ask`` and ``meta.ask_slots`` names the slot (``[{"call": i,
  "argument": name}]``).
- **cannot** — the candidate tools lose the gold function (every app) and every tool of its scenario (``Tool.domain``:
  TRACEBench's Food, Transport, …), so no offered tool can serve the request; the gold becomes ``null`` and
  ``meta.action`` ``cannot``. An example keeping no candidate tool is skipped.

``meta.counterfactual`` records the slot, the value, the population's favourite value of the slot (the most frequent
value of that function's argument over every user's history, ``pfc.data.counterfactual_dose``; what a guess tends to
give), how many records were replaced (ask) or the removed tool keys (cannot). Which benchmarks admit these kinds is
their adapter's ``building.action_kinds``; this module scores nothing (issue 64's metrics) and writes nothing
(``pfc.data.counterfactual.write``).
"""
from __future__ import annotations

import json
from datetime import datetime

from pfc.data.counterfactual_dose import EvidencePool, _top
from pfc.data.variant import set_history, variant
from pfc.errors import UserError
from pfc.schema import HistoryEntry, strings_in

HISTORY_SOURCES = ("long_term_history", "recent_context")
CONTAINS_MIN = 4  # shorter values ("M", "2") support a record only by equality


def _key(h) -> tuple:
    return h.time, h.app, h.function, json.dumps(h.arguments, sort_keys=True, ensure_ascii=False)


def _strings(arguments: dict) -> list[str]:
    return [s.casefold() for v in arguments.values() for s in strings_in(v)]


def supports(h: HistoryEntry, function: str, argument: str, values: list) -> bool:
    """Whether history record ``h`` supports any of ``values`` for ``function``'s ``argument`` (module doc).

    >>> h = HistoryEntry("t", "Didi", "call_taxi", {"to": "Chengdu East Station", "seats": 4})
    >>> supports(h, "book_hotel", "city", ["chengdu"]), supports(h, "book_hotel", "seats", [4])
    (True, False)
    """
    texts = None
    for value in values:
        if isinstance(value, (str, list)):
            texts = _strings(h.arguments) if texts is None else texts
            for s in (x.casefold() for x in strings_in(value)):
                if s and any(t == s or (len(s) >= CONTAINS_MIN and s in t) for t in texts):
                    return True
        elif h.function == function and argument in h.arguments:
            got = h.arguments[argument]
            if got == value and type(got) is type(value):
                return True
    return False


class ActionPool:
    """Each user's call history (for neutral records) and, with ``tools``, each tool's scenario."""

    def __init__(self, examples, kind: str, window: int | None = None, tools=None):
        self.window = window
        self.evidence = EvidencePool(examples)  # each user's longest history; the population's favourite values
        self.history = self.evidence.history
        self.domains = {t.key: t.domain for t in tools or ()}
        if kind == "ask" and not any(g.role(a).source in HISTORY_SOURCES and g.role(a).required
                                     for ex in examples for g in ex.gold or () for a in g.arguments):
            raise UserError("--kind ask needs gold arguments sourced from the history (provenance long_term_history "
                            "or recent_context, required); none of these examples has one", field="--kind")
        if kind == "cannot" and not self.domains:
            raise UserError("--kind cannot needs the tool file (each tool's scenario)", field="--tools")

    # ------------------------------------------------------------ ask
    def slots(self, ex) -> list[tuple[int, str]]:
        """The (call, argument) pairs an ask variant may remove: required, history-sourced, not stated."""
        q = ex.query.casefold()
        out = []
        for i, g in enumerate(ex.gold or ()):
            for a in sorted(g.arguments):
                r = g.role(a)
                said = any(s.casefold() in q for v in g.acceptable(a) for s in strings_in(v) if s)
                if r.required and r.source in HISTORY_SOURCES and not said:
                    out.append((i, a))
        return out

    def ask(self, ex, rng, seed: int):
        if not ex.gold:
            return None, "refusal gold"
        slots = self.slots(ex)
        if not slots:
            return None, "no required history-sourced argument unstated in the request"
        rng.shuffle(slots)
        hist = list(ex.history)
        shown = hist[len(hist) - self.window:] if self.window is not None else hist
        for i, a in slots:
            g = ex.gold[i]
            values = g.acceptable(a)
            sup = lambda h: supports(h, g.function, a, values)  # noqa: E731
            if not any(sup(h) for h in shown):
                continue
            drop = [j for j, h in enumerate(hist) if sup(h)]
            fill = self._neutral(ex, hist, sup, len(drop), rng)
            if fill is None:
                return None, f"too few neutral records to replace {len(drop)} supporting ones"
            new = list(hist)
            for j, n in zip(drop, fill):
                new[j] = HistoryEntry(hist[j].time, n.app, n.function, dict(n.arguments))
            info = {"window": self.window} if self.window is not None else {}
            fav = _top(self.evidence.values[(g.function, a)])
            v = variant(ex, "ask", None, seed, call=i, argument=a, value=g.arguments[a], replaced=len(drop),
                        population_favourite=None if fav is None else json.loads(fav), **info)
            set_history(v, new)
            v.meta["action"] = "ask"
            v.meta["ask_slots"] = [{"call": i, "argument": a}]
            return v, None
        return None, ("no record in the last W records supports a history-sourced value" if self.window is not None
                      else "no record supports a history-sourced value")

    def _neutral(self, ex, hist: list, sup, n: int, rng):
        """``n`` records of other calls that support nothing: the user's own before the request that ``hist``
        lacks (newest first), then other users' (seeded draw); None when there are too few."""
        now = ex.meta.get("anchor_time") or (hist[-1].time if hist else None)
        seen = {_key(h) for h in hist}
        fn = {g.function for g in ex.gold or ()}

        def ok(h):
            return (h.function not in fn and not sup(h) and _key(h) not in seen
                    and (now is None or h.time is None or datetime.fromisoformat(h.time) < datetime.fromisoformat(now)))
        own = sorted((h for h in self.history.get(ex.user_id, []) if ok(h)), key=lambda h: h.time or "", reverse=True)
        out = own[:n]
        if len(out) < n:
            others = [h for u, hs in self.history.items() if u != ex.user_id for h in hs if ok(h)]
            if len(others) < n - len(out):
                return None
            out += rng.sample(others, n - len(out))
        return out

    # ------------------------------------------------------------ cannot
    def cannot(self, ex, seed: int):
        if not ex.gold:
            return None, "refusal gold"
        if ex.tools is None:
            return None, "no candidate tool list (every tool is offered)"
        gone_fn = {g.function for g in ex.gold}
        gone_dom = {self.domains.get(f"{g.app}.{g.function}" if g.app else g.function) for g in ex.gold} - {None}
        removed = [k for k in ex.tools if k.rpartition(".")[2] in gone_fn or self.domains.get(k) in gone_dom]
        kept = [k for k in ex.tools if k not in removed]
        if not kept:
            return None, "no candidate tool outside the request's scenario"
        v = variant(ex, "cannot", None, seed, removed_tools=removed, scenarios=sorted(gone_dom),
                    original_gold=[g.to_dict() for g in ex.gold])
        v.tools, v.gold = kept, None
        v.meta["action"] = "cannot"
        return v, None
