"""Anchor-behaviour selection (TRACEBench §4.3): coarse filtering and a balanced pick of anchors.

For every call with at least ``MIN_HISTORY`` records before it, each argument value is traced to where it could come
from, using only the user's *earlier* records:

- ``long_term_history``: the value is the user's usual one for this function (the mode, with a share of at least
  ``HABIT_SHARE`` over at least ``HABIT_MIN`` earlier calls), overall or in the same context (``pfc.data.context``:
  weekday/weekend and part of day);
- ``recent_context``: otherwise, the value (or a value it contains) appeared in a record of a *different* function
  within ``RECENT_HOURS`` (a taxi's destination, a flight's city);
- ``None``: neither; a query must state it.

The app is traced too (Definition 3.1): the *context app* is the app the user chose most often for this function in
earlier calls of the same context (``pfc.data.context.context_of``); a call whose app is not its context app (noise) is
not an anchor. ``most_frequent_app`` is the user's most used app for the function over all earlier calls; when it
differs from the call's app, the choice depends on the context (``app_is_most_frequent`` False), and ``app_evidence``
counts the earlier same-context calls with that app.

Coarse policies: P1 an argument both anomalous against the user's habit and tied to recent context; P2 an argument tied
to recent context; P3 an argument anomalous against the habit; P4 habitual arguments only; P5 an app that is not the
user's most frequent one for the function but their usual one in this context. :func:`select` then picks anchors to a
target number of queries, balancing tools, history-length bins and context-dependent app choices (see its docstring).
Personalization labels are derived per query, from that query's own provenance, by ``pfc.data.build``. The optional LLM
screening and the manual review sheet that follow are ``pfc.data.anchors_review``.

    >>> POLICIES[0]
    'P1_anomalous_and_recent'
"""
from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from datetime import datetime, timedelta

from pfc.data.context import context_of, most_frequent
from pfc.groups import HISTORY_BINS, history_bin
from pfc.schema import strings_in as _strings

RECENT_HOURS = 6
HABIT_MIN, HABIT_SHARE = 3, 0.5
MIN_HISTORY = 100       # TRACEBench Table 1: a long history is at least 100 records
APP_EVIDENCE_MIN = 2    # earlier same-context calls with the anchor's app
POLICIES = ("P1_anomalous_and_recent", "P2_tied_to_recent_other_tool", "P3_anomalous_vs_history", "P4_habitual",
            "P5_context_dependent_app")


def _key(v) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def _strong(c: Counter, value_key: str) -> tuple[bool, bool]:
    """(the value is a strong habit's mode, a strong habit exists) for a Counter of value keys."""
    total = sum(c.values())
    if total < HABIT_MIN:
        return False, False
    mode = min(c, key=lambda k: (-c[k], k))
    strong = c[mode] / total >= HABIT_SHARE
    return strong and mode == value_key, strong


def _trace_arguments(args: dict, fn: str, ctx: tuple, habits: dict, window: list) -> tuple[dict, list]:
    """(where each argument value comes from, the arguments anomalous against a strong habit) of one call.

    ``habits``: (function, argument[, context]) -> Counter of earlier value keys; ``window``: the recent records of
    other functions as (time, function, string values)."""
    sources, anomalous = {}, []
    for a, v in args.items():
        k = _key(v)
        is_mode, strong = _strong(habits[(fn, a)], k)
        is_ctx_mode, _ = _strong(habits[(fn, a, ctx[:2])], k)
        vals = list(_strings(v))
        tied = bool(vals) and any(s == w or (len(w) >= 6 and w in s) for s in vals
                                  for _, _, ws in window for w in ws)
        if is_mode or is_ctx_mode:
            sources[a] = "long_term_history"
        elif tied:
            sources[a] = "recent_context"
        else:
            sources[a] = None
        if strong and not is_mode:
            anomalous.append(a)
    return sources, anomalous


def _reasons(sources: dict, anomalous: list, context_app_not_top: bool) -> list[str]:
    """The coarse policies (``POLICIES``, P1-P5) one call meets; ``context_app_not_top``: P5's condition."""
    recent_args = [a for a, s in sources.items() if s == "recent_context"]
    reasons = []
    if set(anomalous) & set(recent_args):
        reasons.append(POLICIES[0])
    if recent_args:
        reasons.append(POLICIES[1])
    if anomalous:
        reasons.append(POLICIES[2])
    if not reasons and any(s == "long_term_history" for s in sources.values()):
        reasons.append(POLICIES[3])
    if context_app_not_top:
        reasons.append(POLICIES[4])
    return reasons


def candidates(user_rows: list[dict], apps_offering: dict | None = None, min_history: int = MIN_HISTORY) -> list[dict]:
    """Candidate anchors of one user (rows sorted by time: time, app, function, arguments).

    ``apps_offering``: {function: number of apps offering it} (default: the TRACEBench toolset).
    """
    if apps_offering is None:
        from pfc.data.toolset import load_tools
        apps_offering = Counter(t.function for t in load_tools())
    habits: dict = defaultdict(Counter)        # (function, arg[, context]) -> Counter of value keys
    apps: dict = defaultdict(list)             # function -> apps in time order
    ctx_apps: dict = defaultdict(list)         # (function, context) -> apps in time order
    recent: list[tuple[datetime, str, list]] = []  # (time, function, string values)
    out = []
    for i, rec in enumerate(user_rows):
        t = datetime.fromisoformat(rec["time"])
        fn, args = rec["function"], rec["arguments"]
        ctx = context_of(t, args)
        window = [r for r in recent if r[0] >= t - timedelta(hours=RECENT_HOURS) and r[1] != fn]
        if i >= min_history:
            sources, anomalous = _trace_arguments(args, fn, ctx, habits, window)
            multi = apps_offering.get(fn, 1) >= 2
            same_ctx = ctx_apps[(fn, ctx)]
            evidence = sum(1 for x in same_ctx if x == rec["app"])
            top = most_frequent(apps[fn])
            app_ok = not multi or (most_frequent(same_ctx) == rec["app"] and evidence >= APP_EVIDENCE_MIN)
            reasons = _reasons(sources, anomalous, multi and app_ok and top != rec["app"])
            if reasons and app_ok:
                types = [k for k, ok in (("tool", multi),
                                         ("parameter", "long_term_history" in sources.values()),
                                         ("temporal", "recent_context" in sources.values())) if ok]
                out.append({"user_id": rec["user_id"], "seq": rec["seq"], "time": rec["time"], "app": rec["app"],
                            "function": fn, "scenario": rec.get("scenario"), "arguments": args,
                            "sources": sources, "types": types, "reasons": reasons, "llm_verdict": None,
                            "context": list(ctx), "multi_app": multi, "most_frequent_app": top,
                            "app_is_most_frequent": top == rec["app"], "app_evidence": evidence,
                            "history_length": i})
        for a, v in args.items():
            habits[(fn, a)][_key(v)] += 1
            habits[(fn, a, ctx[:2])][_key(v)] += 1
        apps[fn].append(rec["app"])
        ctx_apps[(fn, ctx)].append(rec["app"])
        recent.append((t, fn, [s for v in args.values() for s in _strings(v)]))
        recent = [r for r in recent if r[0] >= t - timedelta(hours=RECENT_HOURS)]
    return out


def select(histories, queries: int | None = None, seed: int = 0, levels_of=None,
           min_history: int = MIN_HISTORY, minority_share: float = 0.5) -> list[dict]:
    """Coarse filtering over all users, then a seeded, balanced pick of anchors.

    Picks anchors until their queries reach ``queries`` (default: 181.5 per user, the paper's 1,815 for 10 users).
    ``levels_of(anchor)`` gives the number of vagueness levels an anchor yields (``pfc.data.querygen.level_count``).
    Each step takes, from buckets of (tool, history bin, app-is-most-frequent), the one that most evens out: queries per
    tool (so every function and app is covered and every scenario gets its share), queries per history bin, and — among
    multi-app functions — the share of anchors whose app is *not* the user's most frequent one for the function (target
    ``minority_share``). Within a bucket, anchors that allow all four levels come first.
    """
    if levels_of is None:
        from pfc.data.querygen import level_count
        levels_of = level_count
    users = sorted(histories["user_id"].unique())
    if queries is None:
        queries = round(181.5 * len(users))
    chosen = _pick(_buckets(histories, users, seed, levels_of, min_history), queries, minority_share)
    chosen.sort(key=lambda c: (c["user_id"], c["seq"]))
    for k, a in enumerate(chosen):
        a["anchor_id"] = f"a{k:05d}"
    return chosen


def _buckets(histories, users: list, seed: int, levels_of, min_history: int) -> dict[tuple, list]:
    """Every user's candidates, each with its ``levels``, in buckets of (app, function, history bin,
    app-is-not-the-most-frequent); within a bucket a seeded order, anchors with more levels first."""
    buckets: dict[tuple, list] = defaultdict(list)
    for user in users:
        part = histories[histories["user_id"] == user]
        rng = random.Random(f"{seed}:{user}")
        cands = candidates(part.sort_values("seq").to_dict("records"), min_history=min_history)
        rng.shuffle(cands)
        for c in cands:
            c["levels"] = levels_of(c, seed)
            buckets[(c["app"], c["function"], history_bin(c["history_length"]),
                     c["multi_app"] and not c["app_is_most_frequent"])].append(c)
    for k in buckets:
        buckets[k].sort(key=lambda c: -c["levels"])  # stable: the seeded order within equal level counts
    return buckets


def _pick(buckets: dict[tuple, list], queries: int, minority_share: float) -> list[dict]:
    """Anchors taken one by one (see :func:`select`) from the head of the bucket that most evens out the
    queries so far, until they reach ``queries`` or the buckets run dry. Empties ``buckets`` as it goes."""
    per_tool, per_bin = Counter(), Counter()
    multi_q = minority_q = total = vague_q = 0
    chosen = []
    keys = sorted(buckets)
    n_bins = len(HISTORY_BINS)
    while total < queries:
        live = [k for k in keys if buckets[k]]
        if not live:
            break
        mean_tool = max(total / 55, 1.0)
        want_minority = minority_q < minority_share * max(multi_q, 1)
        want_four = vague_q < 0.2 * max(total, 1)  # keep every level at >= 15% of queries

        def cost(k):
            app, fn, hbin, minority = k
            c = buckets[k][0]
            tool_term = per_tool[(app, fn)] / mean_tool
            bin_term = 2.0 * (per_bin[hbin] / max(total, 1) - 1 / n_bins)
            min_term = 0.0 if not c["multi_app"] else (0.0 if minority == want_minority else 1.0)
            four_term = 0.5 if want_four and c["levels"] < 4 else 0.0
            return (round(tool_term + bin_term + min_term + four_term, 9), k)

        best = min(live, key=cost)
        c = buckets[best].pop(0)
        n = c["levels"]
        chosen.append(c)
        per_tool[(c["app"], c["function"])] += n
        per_bin[best[2]] += n
        total += n
        vague_q += n == 4
        if c["multi_app"]:
            multi_q += n
            minority_q += n if best[3] else 0
    return chosen
