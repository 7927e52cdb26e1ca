"""The leakage audits of a build's ``stats.json`` (``pfc.data.audits``) as small tables for the notebooks.

:func:`frames` turns one split's audits into three DataFrames: gold values found verbatim in
the history by provenance, the other audits as one value column, one row per check. For PTBench
``stats["audits"]`` holds one such dict per test split; :func:`by_split` stacks them. No I/O.
"""
from __future__ import annotations

import pandas as pd


def frames(audits: dict) -> dict[str, pd.DataFrame]:
    """``{"gold_in_history": …, "checks": …}`` for one split's audits."""
    gih = pd.DataFrame(audits["gold_in_history"]).T.rename_axis("value provenance")
    ud, nd, mf = audits["user_disjointness"], audits["near_duplicates"], audits["most_frequent_app"]
    checks = {
        "test users also in training": ud.get("shared_users", "no training split"),
        "train/test users disjoint": ud.get("disjoint", "no training split"),
        f"test requests with a training near-duplicate (word {nd.get('ngram', 3)}-gram Jaccard >= "
        f"{nd.get('threshold', 0.8)})": nd.get("share_near", "no training split"),
        "test requests identical to a training request": nd.get("exact_duplicates", "no training split"),
        "tool-choice queries the most frequent app solves (share)": mf["share"],
    }
    return {"gold_in_history": gih, "checks": pd.DataFrame({"value": checks}, dtype=object)}


def by_split(audits_per_split: dict) -> pd.DataFrame:
    """The checks of several splits side by side (PTBench: trained, untrained, unseen)."""
    return pd.concat({s: frames(a)["checks"]["value"] for s, a in audits_per_split.items()}, axis=1)
