"""``swap-user``: give a request another user's context, with the gold that context implies where it is known.

A :class:`DonorPool` indexes the users of one example set. For an example of user *u* it draws a donor *v* (seeded,
among the other users that have a context to give) and builds the variant:

- **TRACEBench**: the history becomes *v*'s records before the same request time (the union of *v*'s example histories).
  Counterfactual gold, by the rules that labelled the original gold (``pfc.data.anchors``): the app, unless the request
  names it, is *v*'s most used app for the function in the request's context (``pfc.data.context``), with at least
  ``APP_EVIDENCE_MIN`` such calls; each ``long_term_history`` argument is *v*'s habit (the mode with a share of at least
  ``HABIT_SHARE`` over at least ``HABIT_MIN`` calls), in the same weekday/part-of-day context first, else overall.
  ``recent_context`` arguments have no known counterfactual (*v* did not make the trip that implied them).
- **PTBench**: the profile becomes *v*'s profile for the same scenario. Counterfactual gold: each ``profile`` argument
  is *v*'s value for that parameter in *v*'s own gold calls (a profile's preference is fixed per parameter:
  ``pfc.data.ptool.profiles``); the platform, unless the request names it, is the platform *v*'s gold uses most in that
  scenario.
- **ToolSpectrum** (public release, no generator): the profile and environment become another sample's; no
  counterfactual gold (sensitivity only).

Which rule applies is read from the example, not from a benchmark name: a call history (TRACEBench), a profile with a
user id (PTBench), no user id (a released sample: ToolSpectrum).

Stated (``query``) arguments always keep their gold. ``meta.counterfactual.items`` lists, per gold call, the app and
every argument: ``source`` (original provenance), ``original``, ``counterfactual`` and ``known``; a known counterfactual
value replaces the variant's gold. Unknown ones keep the original gold and are left out of context-following.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import datetime

from pfc.data.anchors import APP_EVIDENCE_MIN, HABIT_MIN, HABIT_SHARE
from pfc.data.context import context_of, most_frequent
from pfc.data.variant import set_history as _set_history, variant as _variant


def _key(v) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def habit(values: list):
    """(value, True) when ``values`` have a strong habit (the anchors' rule), else (None, False)."""
    c = Counter(_key(v) for v in values)
    total = sum(c.values())
    if total < HABIT_MIN:
        return None, False
    mode = min(c, key=lambda k: (-c[k], k))
    return (json.loads(mode), True) if c[mode] / total >= HABIT_SHARE else (None, False)


def _mode(values: list):
    c = Counter(_key(v) for v in values)
    return (json.loads(min(c, key=lambda k: (-c[k], k))), True) if c else (None, False)


def _scenario(ex) -> str | None:
    hist = ex.profile.get("user_history") if isinstance(ex.profile, dict) else None
    if isinstance(hist, dict) and len(hist) == 1:
        return next(iter(hist))
    return ex.meta.get("scenario") or ex.meta.get("domain")


def _names_app(query: str, app: str | None) -> bool:
    return bool(app) and app.lower() in query.lower()


class DonorPool:
    """The users of one example set and what each one's context implies."""

    def __init__(self, examples):
        self.by_user: dict[str, list] = defaultdict(list)
        for ex in examples:
            if ex.user_id is not None:
                self.by_user[ex.user_id].append(ex)
        self.users = sorted(self.by_user)
        self.history = {}   # TRACEBench: user -> all known records, time order
        for u, exs in self.by_user.items():
            longest = max(exs, key=lambda e: (len(e.history), e.id))
            self.history[u] = list(longest.history)
        self.samples = [ex for ex in examples if ex.profile is not None or ex.environment is not None]

    # ------------------------------------------------------------ donor choice
    def _donors(self, ex, rng):
        others = [u for u in self.users if u != ex.user_id]
        rng.shuffle(others)
        return others

    def swap(self, ex, rng, seed: int):
        if ex.user_id is None:  # no user behind the sample (the ToolSpectrum release): no generator to ask
            return self._swap_sample(ex, rng, seed)
        if not ex.history and not isinstance(ex.profile, dict):
            return None, "no user context (history or profile) to swap"
        for donor in self._donors(ex, rng):
            if ex.history:  # a call history is the user's context (TRACEBench)
                t = ex.meta.get("anchor_time")
                hist = [h for h in self.history[donor] if t is None or h.time is None
                        or datetime.fromisoformat(h.time) < datetime.fromisoformat(t)]
                if not hist:
                    continue
                v = _variant(ex, "swap-user", None, seed, donor_user=donor)
                _set_history(v, hist)
                items = self._tracebench_gold(ex, hist)
            else:  # a profile is the user's context (PTBench)
                scen = _scenario(ex)
                same = [d for d in self.by_user[donor] if _scenario(d) == scen]
                if not same:
                    continue
                v = _variant(ex, "swap-user", None, seed, donor_user=donor)
                v.profile = min(same, key=lambda d: d.id).profile
                items = self._ptbench_gold(ex, same)
            _apply(v, items)
            return v, None
        return None, "no other user with a context for this request"

    def _swap_sample(self, ex, rng, seed: int):
        others = [d for d in self.samples if d.id != ex.id and (d.profile, d.environment) != (ex.profile, ex.environment)]
        if not others:
            return None, "no other sample with a different profile or environment"
        donor = rng.choice(others)
        v = _variant(ex, "swap-user", None, seed, donor_sample=donor.id, items=[])
        v.profile, v.environment = copy_json(donor.profile), copy_json(donor.environment)
        return v, None

    # ------------------------------------------------------------ counterfactual gold
    def _tracebench_gold(self, ex, hist) -> list[dict]:
        items = []
        t = ex.meta.get("anchor_time")
        for i, g in enumerate(ex.gold or []):
            past = [h for h in hist if h.function == g.function]
            if t:
                ctx = context_of(t, g.arguments)
                same_ctx = [h for h in past if context_of(h.time, h.arguments) == ctx]
                day_part = [h for h in past if context_of(h.time, h.arguments)[:2] == ctx[:2]]
            else:
                same_ctx = day_part = []
            if not (ex.meta.get("app_stated") or _names_app(ex.query, g.app)):
                app = most_frequent([h.app for h in same_ctx])
                known = app is not None and sum(h.app == app for h in same_ctx) >= APP_EVIDENCE_MIN
                items.append(_item(i, None, "app_context", g.app, app if known else None, known))
            for a, val in g.arguments.items():
                src = g.role(a).source
                if src == "long_term_history":
                    cf, known = habit([h.arguments[a] for h in day_part if a in h.arguments])
                    if not known:
                        cf, known = habit([h.arguments[a] for h in past if a in h.arguments])
                    items.append(_item(i, a, src, val, cf, known))
                else:
                    items.append(_item(i, a, src, val, val if src == "query" else None, src == "query"))
        return items

    def _ptbench_gold(self, ex, same) -> list[dict]:
        items = []
        for i, g in enumerate(ex.gold or []):
            if not _names_app(ex.query, g.app):
                apps = [d.gold[0].app for d in same if d.gold and not _names_app(d.query, d.gold[0].app)]
                cf, known = _mode(apps)
                items.append(_item(i, None, "profile", g.app, cf, known))
            for a, val in g.arguments.items():
                src = g.role(a).source
                if src == "profile":
                    vals = [dg.arguments[a] for d in same for dg in d.gold or []
                            if a in dg.arguments and dg.role(a).source == "profile"]
                    cf, known = _mode(vals)
                    items.append(_item(i, a, src, val, cf, known))
                else:
                    items.append(_item(i, a, src, val, val if src == "query" else None, src == "query"))
        return items


def _item(call: int, argument, source: str, original, cf, known: bool) -> dict:
    return {"call": call, "argument": argument, "source": source, "original": original,
            "counterfactual": cf if known else None, "known": known}


def _apply(v, items: list[dict]) -> None:
    """Known counterfactual values replace the variant's gold; alternatives of a changed value are dropped."""
    v.meta["counterfactual"]["items"] = items
    for it in items:
        if not it["known"] or it["counterfactual"] == it["original"]:
            continue
        g = v.gold[it["call"]]
        if it["argument"] is None:
            g.app = it["counterfactual"]
        else:
            g.arguments[it["argument"]] = it["counterfactual"]
            g.alternatives.pop(it["argument"], None)


def copy_json(x):
    return None if x is None else json.loads(json.dumps(x))
