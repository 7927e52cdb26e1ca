"""Bottom-up feature tree (PTBench §4.2): tool parameters and platform characteristics -> features.

Leaves are the profile-sourced parameters of every API (one leaf per parameter name) and the platforms' characteristics.
Each leaf is first classified (PTBench: "we categorize features during initial clustering"): an *explicit basic feature*
when it names a personal fact (``basic_keys`` in the catalogue: address, city, language, name, email, ...) and has no
enumeration, an *implicit preference* otherwise. Within each class, leaves are clustered bottom-up (scikit-learn
agglomerative clustering over TF-IDF of their names and descriptions, cosine distance) and the merging repeats level by
level until each level has at most ``max_parents`` nodes. Feature names are offline the top TF-IDF terms of a cluster;
with an LLM configured, its one-line summary (``summarize``).

Implicit features carry a *tier* (0 = lowest option): each of its enumerated parameters maps the tier to one of its
values (enumerations are listed low -> high), so a feature such as "price level / seat class / coverage" varies
coherently across APIs. This module does not assign values to users (``pfc.data.ptool.profiles``).

    >>> from pfc.data.ptool.catalogue import load
    >>> t = build_tree(load(), seen=True); t.basic and t.implicit and True
    True
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections import Counter

from pfc.errors import UserError


@dataclass
class Leaf:
    name: str                    # parameter name, or "platform:<scenario>:<characteristic>"
    text: str
    kind: str                    # "basic" | "implicit" | "platform"
    basic_key: str | None = None
    enum: list | None = None
    scenarios: list[str] = field(default_factory=list)


@dataclass
class Feature:
    id: str
    kind: str
    summary: str
    leaves: list[Leaf]
    levels: int = 1              # merge levels above the leaves

    @property
    def tiers(self) -> int:
        return max((len(lf.enum) for lf in self.leaves if lf.enum), default=1)


@dataclass
class Tree:
    basic: list[Feature]
    implicit: list[Feature]
    platform_leaves: list[Leaf]

    def to_json(self) -> dict:
        f = lambda fs: [{"id": x.id, "summary": x.summary, "leaves": [lf.name for lf in x.leaves]} for x in fs]  # noqa: E731
        return {"basic_features": f(self.basic), "implicit_preferences": f(self.implicit),
                "platform_characteristics": [lf.name for lf in self.platform_leaves]}


def _words(s: str) -> str:
    return re.sub(r"([a-z])([A-Z])", r"\1 \2", s).replace("_", " ").lower()


def basic_key(name: str, desc: str, keys: list[str]) -> str | None:
    toks = set(re.findall(r"[a-z]+", _words(name) + " " + desc.lower()))
    return next((k for k in keys if k in toks), None)


def leaves(cat, seen: bool) -> list[Leaf]:
    """One leaf per profile parameter name (first description wins) and per platform characteristic."""
    out: dict[str, Leaf] = {}
    for s in sorted(cat.scenarios):
        sc = cat.scenarios[s]
        if sc.seen != seen:
            continue
        for fn in sc.functions:
            for p in fn.params:
                if p.source != "profile":
                    continue
                if p.name in out:
                    if s not in out[p.name].scenarios:
                        out[p.name].scenarios.append(s)
                    continue
                key = basic_key(p.name, p.description, cat.basic_keys) if p.enum is None else None
                if p.enum is None and key is None:
                    raise UserError(f"profile parameter {p.name!r} ({s}) has no enumeration and names no basic "
                                     f"feature {cat.basic_keys}: give it an enum in the catalogue")
                out[p.name] = Leaf(p.name, f"{_words(p.name)} {p.description}", "basic" if key else "implicit",
                                   key, p.enum, [s])
        for pl in sc.platforms:
            for k, v in pl["profile"].items():
                name = f"platform:{s}:{k}"
                out.setdefault(name, Leaf(name, f"{k} {v}", "platform", scenarios=[s]))
    return list(out.values())


def _cluster(items: list[Leaf], max_parents: int) -> list[list[Leaf]]:
    """Agglomerative clustering, level by level, until at most ``max_parents`` groups remain."""
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.feature_extraction.text import TfidfVectorizer
    if len(items) <= 1:
        return [items] if items else []
    X = TfidfVectorizer(stop_words="english").fit_transform([lf.text for lf in items]).toarray()
    groups = [[i] for i in range(len(items))]
    while len(groups) > max_parents:
        target = max(max_parents, (len(groups) + 1) // 2)      # halve each level
        centroids = [X[g].mean(axis=0) for g in groups]
        labels = AgglomerativeClustering(n_clusters=target, metric="cosine", linkage="average").fit_predict(centroids)
        merged: dict[int, list[int]] = {}
        for g, lab in zip(groups, labels):
            merged.setdefault(int(lab), []).extend(g)
        groups = [sorted(v) for _, v in sorted(merged.items(), key=lambda kv: min(kv[1]))]
    return [[items[i] for i in g] for g in groups]


def _summary(group: list[Leaf]) -> str:
    c = Counter(w for lf in group for w in re.findall(r"[a-z]{3,}", _words(lf.name.split(":")[-1])))
    return " / ".join(w for w, _ in c.most_common(3)) or group[0].name


def build_tree(cat, seen: bool = True, max_basic: int = 6, max_implicit: int = 10) -> Tree:
    """The feature tree of the seen (or unseen) scenarios."""
    all_leaves = leaves(cat, seen)
    basic = [lf for lf in all_leaves if lf.kind == "basic"]
    implicit = [lf for lf in all_leaves if lf.kind == "implicit"]
    bf = [Feature(f"basic_{i}", "basic", _summary(g), g) for i, g in enumerate(_cluster(basic, max_basic))]
    imf = [Feature(f"pref_{i}", "implicit", _summary(g), g) for i, g in enumerate(_cluster(implicit, max_implicit))]
    return Tree(bf, imf, [lf for lf in all_leaves if lf.kind == "platform"])


SUMMARY_PROMPT = ("These user-profile attributes were grouped together: {items}. Name the user feature they "
                  "describe in at most five words. Answer with the name only.")


def summarize(tree: Tree, chat) -> None:
    """LLM feature summaries (replaces the offline TF-IDF names; an empty answer keeps them)."""
    for f in tree.basic + tree.implicit:
        text = chat([{"role": "user", "content": SUMMARY_PROMPT.format(items="; ".join(lf.text for lf in f.leaves))}])
        text = " ".join(text.strip().split())[:60]
        if text:
            f.summary = text
