"""How much of a PTBench test split a lookup of the training split can answer: overlap audits.

- :class:`Index`: TF-IDF (word unigrams, fit on the training requests) over the training requests; :meth:`Index.nearest`
  gives each request its most similar training request and the cosine. The ``nearest-train`` baseline
  (``pfc.benchmarks.ptbench.baselines``) and the audits below use this one definition.
- :func:`audit`: for one test split against the training split, the verbatim and near-duplicate rates (TF-IDF cosine >
  0.9; word 3-gram Jaccard >= 0.8 from ``pfc.data.audits``), the share of the test answers' (function, parameter, value)
  triples seen in training answers, vocabulary sizes (APIs called, values per parameter), the lexical diversity of the
  requests (:func:`diversity`) and how often the nearest training request's answer equals the gold (platform, function
  names, whole answer): what template recall gets, before any scorer.

Records are official-shape dicts (``query``, ``answer`` = ``[platform, [{fn: {param: [values]}}]]``). It reads data
only; it does not run or score models (``pfc.eval``).

    >>> Index(["book a flight to Rome", "order two pizzas"]).nearest(["a flight to Rome please"])[0][0]
    0
"""
from __future__ import annotations

import json
import random
import re
import statistics
from pfc.data.audits import near_duplicates

COSINE = 0.9
DIVERSITY_N = 474  # requests per diversity sample: the official trained-user test set's size


class Index:
    """TF-IDF over the training requests; :meth:`nearest` -> (indices, cosines)."""

    def __init__(self, train_queries: list[str]):
        from sklearn.feature_extraction.text import TfidfVectorizer
        self.vec = TfidfVectorizer(lowercase=True, token_pattern=r"(?u)\b\w+\b")
        self.X = self.vec.fit_transform(train_queries or [""])
        self.n = len(train_queries)

    def similarities(self, queries: list[str]):
        return (self.vec.transform(queries) @ self.X.T).tocsr()

    def nearest(self, queries: list[str], allowed: list[list[int] | None] | None = None,
                chunk: int = 512) -> tuple[list[int], list[float]]:
        """Most similar training request per query (ties: the lowest index); ``allowed[i]``, when not
        None, restricts query ``i`` to those training indices (falling back to all when none scores)."""
        idx, sims = [], []
        for start in range(0, len(queries), chunk):
            S = self.similarities(queries[start:start + chunk]).toarray()
            for j, row in enumerate(S):
                cand = (allowed or [None] * len(queries))[start + j]
                pool = cand if cand else range(self.n)
                best = max(pool, key=lambda i: (row[i], -i))
                idx.append(int(best))
                sims.append(float(row[best]))
        return idx, sims


def _trigrams(q: str) -> list[tuple]:
    w = re.findall(r"\w+", q.casefold())
    return [tuple(w[i:i + 3]) for i in range(len(w) - 2)]


def diversity(queries: list[str], n: int = DIVERSITY_N, seed: int = 0) -> dict:
    """Distinct word 3-grams over a seeded sample of ``n`` requests (all when fewer): per request and as
    a share of all 3-grams (distinct-3), so sets of different sizes compare on the same footing."""
    qs = sorted(queries)
    if len(qs) > n:
        qs = random.Random(f"diversity:{seed}").sample(qs, n)
    grams = [g for q in qs for g in _trigrams(q)]
    distinct = len(set(grams))
    return {"requests": len(qs), "distinct_3grams": distinct,
            "distinct_3grams_per_request": round(distinct / len(qs), 3) if qs else None,
            "distinct_3": round(distinct / len(grams), 4) if grams else None,
            "words_per_request": round(statistics.mean(len(re.findall(r"\w+", q)) for q in qs), 2) if qs else None}


def _triples(rec) -> set:
    out = set()
    for f in rec["answer"][1]:
        for fn, args in f.items():
            for p, vals in args.items():
                out.add((fn, p, json.dumps(vals[0], sort_keys=True, ensure_ascii=False)))
    return out


def _fnames(rec) -> list[str]:
    return sorted(fn for f in rec["answer"][1] for fn in f)


def vocabulary(recs: list[dict]) -> dict:
    """APIs called in the answers (scenario-qualified, per platform too) and distinct values per parameter."""
    values: dict = {}
    for r in recs:
        for fn, p, v in _triples(r):
            values.setdefault((fn, p), set()).add(v)
    return {"apis_called": len({(r.get("scenario"), fn) for r in recs for fn in _fnames(r)}),
            "platform_apis_called": len({(r.get("scenario"), r["answer"][0], fn) for r in recs for fn in _fnames(r)}),
            "parameters": len(values),
            "median_values_per_parameter": statistics.median(len(v) for v in values.values()) if values else None}


def audit(train: list[dict], test: list[dict], index: Index | None = None) -> dict:
    """The overlap audits of one test split (see the module docstring)."""
    if not test:
        return {"test_queries": 0}
    index = index or Index([r["query"] for r in train])
    nn, sims = index.nearest([r["query"] for r in test])
    exact = {re.sub(r"\s+", " ", r["query"]).strip().casefold() for r in train}
    verbatim = sum(re.sub(r"\s+", " ", r["query"]).strip().casefold() in exact for r in test)
    jac = near_duplicates([r["query"] for r in train], [r["query"] for r in test])
    seen = set().union(*(_triples(r) for r in train)) if train else set()
    test_triples = [t for r in test for t in _triples(r)]
    n = len(test)
    plat = sum(train[i]["answer"][0] == r["answer"][0] for i, r in zip(nn, test))
    names = sum(_fnames(train[i]) == _fnames(r) for i, r in zip(nn, test))
    whole = sum(train[i]["answer"] == r["answer"] for i, r in zip(nn, test))
    return {"test_queries": n, "verbatim_in_train": verbatim, "share_verbatim": round(verbatim / n, 4),
            "tfidf_cosine_threshold": COSINE, "near_duplicates_tfidf": sum(s > COSINE for s in sims),
            "share_near_tfidf": round(sum(s > COSINE for s in sims) / n, 4),
            "max_tfidf_cosine_median": round(statistics.median(sims), 4),
            "jaccard_3gram_threshold": jac["threshold"], "near_duplicates_jaccard": jac["near_duplicates"],
            "share_near_jaccard": jac["share_near"],
            "answer_triples": len(test_triples),
            "share_triples_in_train": round(sum(t in seen for t in test_triples) / len(test_triples), 4)
            if test_triples else None,
            "nearest_train_agreement": {"platform": round(plat / n, 4), "function_names": round(names / n, 4),
                                        "whole_answer": round(whole / n, 4)},
            "vocabulary": vocabulary(test), "diversity": diversity([r["query"] for r in test])}


def audits(splits: dict[str, list[dict]]) -> dict:
    """``{split: audit}`` for every test split of a build, plus the training split's vocabulary and diversity."""
    train = splits.get("train") or []
    index = Index([r["query"] for r in train])
    out = {s: audit(train, recs, index) for s, recs in sorted(splits.items()) if s != "train"}
    out["train"] = {"queries": len(train), "vocabulary": vocabulary(train), "diversity": diversity([r["query"] for r in train])}
    return out
