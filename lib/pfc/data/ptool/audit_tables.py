"""Tables of the PTBench synthesis audits for notebook ``ptbench``: Table 5 against the paper with the
ratio, the overlap audits (``stats.json`` -> ``overlap``, :mod:`pfc.data.ptool.overlap`) of several syntheses side by
side, and request diversity beside the official release's samples.

Functions take stats dicts (and record lists) and return pandas DataFrames; they build nothing and run no model
(``nearest-train`` runs are the notebook's, through ``pfc.run.runner``).

    >>> t = table5_ratio({"table5": {"Train": {"scenarios": 5, "platforms": 15, "apis": 360, "users": 74,
    ...                                         "queries": 7096}}})
    >>> bool(t.loc["Train", "within 5%"])
    True
"""
from __future__ import annotations

from pfc.data.ptool.overlap import diversity
from pfc.data.ptool.report import COLS, paper

TOLERANCE = 0.05
SPLITS = {"test_trained_user": "Trained", "test_untrained_user": "Untrained", "unseen": "Unseen"}


def table5_ratio(stats: dict, tolerance: float = TOLERANCE):
    """One row per Table 5 row: ours, the paper's, ours/paper per column and whether all are within ``tolerance``.
    The paper's Total row says 21 platforms where its Test row says 24 (5 x 3 + 3 x 3): compared as printed."""
    import pandas as pd
    theirs = paper()["table5"]["rows"]
    rows = {}
    for name, ours in stats["table5"].items():
        p = theirs.get(name, {})
        row = {}
        for c in COLS:
            row[c], row[f"{c} (paper)"] = ours[c], p.get(c)
            row[f"{c} ratio"] = round(ours[c] / p[c], 3) if p.get(c) else None
        row["within 5%"] = all(r is not None and abs(r - 1) <= tolerance for r in (row[f"{c} ratio"] for c in COLS))
        rows[name] = row
    return pd.DataFrame(rows).T.rename_axis("split")


def overlap_table(stats_by_synthesis: dict[str, dict]):
    """Overlap audits per (synthesis, test split): verbatim and near-duplicate shares, answer triples seen in
    training, vocabulary, diversity and what the nearest training request's answer gets right."""
    import pandas as pd
    rows = []
    for synth, st in stats_by_synthesis.items():
        for split, label in SPLITS.items():
            a = st["overlap"][split]
            nt = a["nearest_train_agreement"]
            rows.append({"synthesis": synth, "split": label, "n": a["test_queries"],
                         "verbatim in train": a["share_verbatim"], "TF-IDF cos > 0.9": a["share_near_tfidf"],
                         "3-gram Jaccard >= 0.8": a["share_near_jaccard"],
                         "answer triples seen in train": a["share_triples_in_train"],
                         "APIs called": a["vocabulary"]["platform_apis_called"],
                         "median values / parameter": a["vocabulary"]["median_values_per_parameter"],
                         "distinct 3-grams / request": a["diversity"]["distinct_3grams_per_request"],
                         "nearest-train: platform": nt["platform"], "nearest-train: function names": nt["function_names"],
                         "nearest-train: whole answer": nt["whole_answer"]})
    return pd.DataFrame(rows).set_index(["synthesis", "split"])


def diversity_table(queries_by_source: dict[str, list[str]]):
    """Distinct word 3-grams (seeded samples of equal size, :func:`pfc.data.ptool.overlap.diversity`) per source."""
    import pandas as pd
    return pd.DataFrame({k: diversity(v) for k, v in queries_by_source.items()}).T.rename_axis("requests")
