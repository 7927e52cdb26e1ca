"""Leakage audits of a built benchmark, written into its ``stats.json`` under ``audits``.

Four questions a reader should be able to answer before trusting a personalization score:

- ``user_disjointness``: do the test users appear in training? (PTBench's untrained users must not; its trained users do
  by design.) TRACEBench has no training split.
- ``gold_in_history``: per value provenance, the share of gold values that appear verbatim in the last k records of the
  prompt's history (k = 5, 20 and all). A ``long_term_history`` value copied in the last 5 records is recency, not
  personalization.
- ``near_duplicates``: test requests whose word 3-gram Jaccard similarity with some training request is at least 0.8
  (and exact duplicates), by an inverted n-gram index.
- ``most_frequent_app``: the share of tool-choice queries that the user's most frequent app (or platform) for the
  function in the visible history already solves: what guessing scores.

It reads examples only and changes nothing; it does not score models.
"""
from __future__ import annotations

import json
import re
from collections import Counter, defaultdict

from pfc.data.context import most_frequent

KS = (5, 20)
NGRAM, THRESHOLD = 3, 0.8


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", str(s)).strip().casefold()


def user_disjointness(train, test) -> dict:
    """Users of ``train`` and ``test`` example lists and how many they share."""
    a = {e.user_id for e in train if e.user_id is not None}
    b = {e.user_id for e in test if e.user_id is not None}
    return {"train_users": len(a), "test_users": len(b), "shared_users": len(a & b),
            "disjoint": not (a & b), "shared_examples": sum(e.user_id in a for e in test)}


def _record_texts(ex) -> list[str]:
    """The history as text records, oldest first: TRACEBench calls, or PTBench's behaviour lines."""
    if ex.history:
        return [_norm(f"{h.app} {h.function} {json.dumps(h.arguments, ensure_ascii=False)}") for h in ex.history]
    hist = ex.profile.get("user_history") if isinstance(ex.profile, dict) else None
    items = [h for v in hist.values() for h in v] if isinstance(hist, dict) else (hist or [])
    return [_norm(json.dumps(h, ensure_ascii=False) if not isinstance(h, str) else h) for h in items]


def _verbatim(value, text: str) -> bool:
    v = _norm(" and ".join(map(str, value)) if isinstance(value, list) else value)
    return len(v) >= 2 and re.search(r"(?<![\w])" + re.escape(v) + r"(?![\w])", text) is not None


def gold_in_history(examples, ks=KS) -> dict:
    """{source: {values, in_last_5, in_last_20, in_all}}: shares of gold values found verbatim."""
    counts: dict = defaultdict(Counter)
    for ex in examples:
        recs = _record_texts(ex)
        windows = {f"in_last_{k}": " \n ".join(recs[-k:]) for k in ks} | {"in_all": " \n ".join(recs)}
        for g in ex.gold or []:
            for a, v in g.arguments.items():
                if v is None or isinstance(v, bool):
                    continue
                src = g.role(a).source
                counts[src]["values"] += 1
                for name, text in windows.items():
                    counts[src][name] += _verbatim(v, text)
    return {s: {"values": c["values"], **{k: round(c[k] / c["values"], 4) for k in
                                          [*(f"in_last_{k}" for k in ks), "in_all"]}}
            for s, c in sorted(counts.items()) if c["values"]}


def _grams(q: str, n: int = NGRAM) -> set:
    w = re.findall(r"\w+", q.casefold())
    return {tuple(w[i:i + n]) for i in range(max(len(w) - n + 1, 1))} if w else set()


def near_duplicates(train_queries: list[str], test_queries: list[str], threshold: float = THRESHOLD) -> dict:
    """Test requests with a training request of word-3-gram Jaccard >= ``threshold``; exact duplicates too."""
    index: dict = defaultdict(list)
    grams = [_grams(q) for q in train_queries]
    for i, g in enumerate(grams):
        for t in g:
            index[t].append(i)
    exact_set = {_norm(q) for q in train_queries}
    near = exact = 0
    for q in test_queries:
        g = _grams(q)
        shared = Counter(i for t in g for i in index.get(t, ()))
        best = max((n / len(g | grams[i]) for i, n in shared.items()), default=0.0)
        near += best >= threshold
        exact += _norm(q) in exact_set
    n = len(test_queries)
    return {"ngram": NGRAM, "threshold": threshold, "test_queries": n, "near_duplicates": near, "exact_duplicates": exact,
            "share_near": round(near / n, 4) if n else None}


def _ptbench_history_platforms(ex) -> list[str]:
    hist = ex.profile.get("user_history") if isinstance(ex.profile, dict) else None
    items = [h for v in hist.values() for h in v] if isinstance(hist, dict) else []
    return [h.get("platform") for h in items if isinstance(h, dict) and h.get("platform")]


def most_frequent_app(examples) -> dict:
    """Tool-choice queries (app not named in the request) the most-frequent-app rule solves."""
    solved = n = 0
    for ex in examples:
        if not ex.gold:
            continue
        g = ex.gold[0]
        if not g.app or g.app.casefold() in ex.query.casefold() or ex.meta.get("app_stated"):
            continue
        if isinstance(ex.meta.get("personalization"), list) and "tool" not in ex.meta["personalization"]:
            continue  # TRACEBench labels its tool-personalization queries (more than one app offers the function)
        apps = [h.app for h in ex.history if h.function == g.function] if ex.history else \
            _ptbench_history_platforms(ex)
        n += 1
        solved += most_frequent(apps) == g.app
    return {"queries": n, "solved_by_most_frequent_app": solved, "share": round(solved / n, 4) if n else None}


def audit(test, train=None) -> dict:
    """The four audits of one test split (``train``: the training split, when the benchmark has one)."""
    out = {"gold_in_history": gold_in_history(test), "most_frequent_app": most_frequent_app(test)}
    if train is None:
        out["user_disjointness"] = out["near_duplicates"] = {"train_split": None,
                                                             "note": "no training split in this build"}
    else:
        out["user_disjointness"] = user_disjointness(train, test)
        out["near_duplicates"] = near_duplicates([e.query for e in train], [e.query for e in test])
    return out
