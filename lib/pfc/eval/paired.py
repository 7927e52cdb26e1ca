"""Paired statistics for two runs on the same examples: difference with a user-clustered interval, exact McNemar.

Two runs answer the same requests of the same users, so their per-example results are paired: the difference of a metric
is resampled with the *same* users drawn for both runs (a cluster bootstrap, ``pfc.eval.bootstrap.cluster_sums``), which
removes the between-user variation both runs share; the unpaired interval (each run's users drawn independently) is
given beside it for comparison. For a 0/1 metric (``mean`` of a 0/1 column) the exact McNemar test uses the discordant
pairs only: with b examples right in A only and c right in B only, p = min(1, 2 · P[X ≤ min(b, c)]) for X ~ Binomial(b +
c, 1/2) (p = 1 when b + c = 0). Computed with integers (``math.comb``), no approximation. :func:`holm` adjusts a family
of such p-values for being read together (Holm 1979, step-down: it controls the family-wise error rate).

It does not load runs (``pfc.report.paired``) and treats the two tables as aligned by row.

    >>> mcnemar_exact(0, 5)
    0.0625
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from pfc.eval.bootstrap import ALPHA, N_BOOT, cluster_indices, cluster_keys, cluster_stat, cluster_sums
from pfc.eval.metrics import METRICS, aggregate


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts b (A right, B wrong) and c (A wrong, B right)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2 ** n)))


def holm(ps: list[float]) -> list[float]:
    """Holm's adjusted p-values, in the order given: with the m p-values sorted ascending, p₍ᵢ₎ becomes the largest
    min(1, (m − j + 1) · p₍ⱼ₎) over j ≤ i (so the order is kept). A claim at level α holds where the adjusted p < α.

    >>> [round(p, 6) for p in holm([0.01, 0.04, 0.03, 0.5])]
    [0.04, 0.09, 0.09, 0.5]
    """
    m, out, run = len(ps), [0.0] * len(ps), 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: ps[i])):
        run = max(run, min(1.0, (m - rank) * ps[i]))
        out[i] = run
    return out


def is_binary(df: pd.DataFrame, column: str) -> bool:
    return bool(df[column].isin([0, 1]).all())


def _quantiles(v: np.ndarray, alpha: float) -> tuple[float, float]:
    v = v[~np.isnan(v)]
    return (float(np.quantile(v, alpha / 2)), float(np.quantile(v, 1 - alpha / 2))) if len(v) else (math.nan, math.nan)


def paired_metric(a: pd.DataFrame, b: pd.DataFrame, metric: str, cluster: str = "user_id", n_boot: int = N_BOOT,
                  seed: int = 0, alpha: float = ALPHA) -> dict:
    """A − B for one metric: point, paired and unpaired cluster-bootstrap intervals, McNemar (0/1 metrics).

    ``a`` and ``b`` hold the same examples in the same order (same ``cluster`` per row).
    """
    m = METRICS[metric]
    va, vb = aggregate(m, a), aggregate(m, b)
    out = {"metric": metric, "a": va, "b": vb, "diff": va - vb, "n": len(a),
           "clusters": int(cluster_keys(a, cluster).nunique())}  # the units the intervals resample
    if m.aggregation == "sum":
        return out
    sa, counts = cluster_sums(a, m.columns, cluster)
    sb, _ = cluster_sums(b, m.columns, cluster)
    idx = cluster_indices(len(counts), n_boot, seed)
    da = cluster_stat(m.aggregation, [sa[c] for c in m.columns], counts, idx)
    db = cluster_stat(m.aggregation, [sb[c] for c in m.columns], counts, idx)
    out["paired_lo"], out["paired_hi"] = _quantiles(da - db, alpha)
    idx_b = cluster_indices(len(counts), n_boot, seed + 1)  # independent draws: the unpaired interval
    db_ind = cluster_stat(m.aggregation, [sb[c] for c in m.columns], counts, idx_b)
    out["unpaired_lo"], out["unpaired_hi"] = _quantiles(da - db_ind, alpha)
    col = m.columns[0]
    if m.aggregation == "mean" and is_binary(a, col) and is_binary(b, col):
        x, y = a[col].to_numpy(), b[col].to_numpy()
        out["a_only"], out["b_only"] = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
        out["mcnemar_p"] = mcnemar_exact(out["a_only"], out["b_only"])
    return out


def paired_table(a: pd.DataFrame, b: pd.DataFrame, metrics: dict[str, str], cluster: str = "user_id",
                 n_boot: int = N_BOOT, seed: int = 0, alpha: float = ALPHA) -> pd.DataFrame:
    """One row per ``{published key: metric name}`` whose columns both tables have (counts left out)."""
    rows = []
    for key, name in metrics.items():
        m = METRICS[name]
        if m.aggregation == "sum" or not all(c in a.columns and c in b.columns for c in m.columns):
            continue
        rows.append({"key": key, **paired_metric(a, b, name, cluster, n_boot, seed, alpha)})
    return pd.DataFrame(rows)


COUNTS = ("a_only", "b_only", "n", "clusters")
RECORD_KEYS = ("key", "a", "b", "diff", "paired_lo", "paired_hi", "unpaired_lo", "unpaired_hi", "a_only", "b_only",
               "mcnemar_p", "n", "clusters")


def cell(key: str, v):
    """One cell of :func:`records`: missing (None or NaN) as None, a McNemar p to 6 significant digits (1e-9 must
    not round to 0), counts as integers (a count column with an F1 row's gap is float in pandas), other floats to 6
    decimals.

    >>> cell("mcnemar_p", 1.23456789e-9), cell("clusters", 10.0), cell("diff", 0.1234567), cell("paired_lo", float("nan"))
    (1.23457e-09, 10, 0.123457, None)
    """
    if v is None or v != v:
        return None
    if key == "mcnemar_p":
        return float(f"{v:.6g}")
    if key in COUNTS:
        return int(v)
    return round(float(v), 6) if isinstance(v, float) else v


def records(table: pd.DataFrame) -> list[dict]:
    """A :func:`paired_table` as JSON-ready rows (the columns of ``RECORD_KEYS``, cells by :func:`cell`)."""
    return [{k: cell(k, v) for k, v in rec.items() if k in RECORD_KEYS} for rec in table.to_dict("records")]
