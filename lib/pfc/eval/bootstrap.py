"""Bootstrap 95% confidence intervals over examples for every accuracy, ratio and F1 metric.

Resamples the rows of a per-example table (one row per example, failures included) with replacement, recomputes each
metric from the resampled rows with the metric's own aggregation (``pfc.eval.metrics``: mean, ratio of sums, micro F1
from summed counts) and reports the percentile interval. The same resample indices serve every metric of a run (paired),
drawn from ``numpy.random.default_rng(seed)``: the same seed gives the same bytes in any process. Counts (``sum``
metrics) get no interval.

:func:`clustered_intervals` resamples *users* (clusters) instead of examples: examples of one
user are not independent (same history, same habits), and an interval over examples is too
narrow when a few users dominate. Each resample draws users with replacement and keeps all
their rows; a metric is recomputed from the per-user column sums (``cluster_sums``,
``cluster_stat``; also used by ``pfc.eval.paired``). Rows of a single user give no interval (NaN): every
resample is that user again, and a zero-width interval would read as certainty. It does not compare runs
(that is ``pfc.eval.paired``).

    >>> import pandas as pd
    >>> ci(pd.DataFrame({"overall": [1, 0, 1, 1]}), "overall", n_boot=200)[0]
    0.75
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pfc.eval.metrics import METRICS, aggregate

N_BOOT = 1000
ALPHA = 0.05
_CHUNK = 20_000_000  # resample cells per chunk (bounded memory for 100k-example runs)


def _indices(n: int, n_boot: int, seed: int):
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK // max(n, 1))
    for start in range(0, n_boot, rows):
        yield rng.integers(0, n, size=(min(rows, n_boot - start), n))


def _stat(agg: str, cols: list[np.ndarray], idx: np.ndarray) -> np.ndarray:
    s = [c[idx].sum(axis=1) for c in cols]
    with np.errstate(invalid="ignore", divide="ignore"):
        if agg == "mean":
            return s[0] / idx.shape[1]
        if agg == "ratio":
            return np.where(s[1] > 0, s[0] / np.where(s[1] > 0, s[1], 1), np.nan)
        if agg == "f1":
            tp, fp, fn = s
            den = 2 * tp + fp + fn
            return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 1.0)
        if agg == "macro_f1":  # per class (TP, FP, FN); the mean over the classes with any item
            den = 2 * np.array(s[0::3]) + np.array(s[1::3]) + np.array(s[2::3])
            f1 = np.where(den > 0, 2 * np.array(s[0::3]) / np.where(den > 0, den, 1), 0.0)
            n = (den > 0).sum(axis=0)
            return np.where(n > 0, f1.sum(axis=0) / np.where(n > 0, n, 1), np.nan)
    raise ValueError(f"no interval for aggregation {agg!r}")


def intervals(per_example: pd.DataFrame, metric_names: dict[str, str], n_boot: int = N_BOOT, seed: int = 0,
              alpha: float = ALPHA) -> dict[str, tuple[float, float]]:
    """``{published key: (low, high)}`` for ``{published key: metric name}`` (counts and absent columns skipped)."""
    n = len(per_example)
    usable = {k: METRICS[m] for k, m in metric_names.items()
              if METRICS[m].aggregation != "sum" and all(c in per_example.columns for c in METRICS[m].columns)}
    if n == 0 or not usable:
        return {k: (math.nan, math.nan) for k in usable}
    arrays = {c: per_example[c].to_numpy(dtype=float) for m in usable.values() for c in m.columns}
    stats: dict[str, list] = {k: [] for k in usable}
    for idx in _indices(n, n_boot, seed):
        for key, m in usable.items():
            stats[key].append(_stat(m.aggregation, [arrays[c] for c in m.columns], idx))
    out = {}
    for key, parts in stats.items():
        v = np.concatenate(parts)
        v = v[~np.isnan(v)]
        out[key] = (float(np.quantile(v, alpha / 2)), float(np.quantile(v, 1 - alpha / 2))) if len(v) else \
            (math.nan, math.nan)
    return out


def estimates(per_example: pd.DataFrame, metric_names: dict[str, str], n_boot: int = N_BOOT,
              seed: int = 0) -> dict[str, tuple[float, float, float]]:
    """``{published key: (value, low, high)}``: each metric on all rows and its interval (nan where none)."""
    bounds = intervals(per_example, metric_names, n_boot, seed)
    nan = (math.nan, math.nan)
    return {key: (aggregate(METRICS[m], per_example), *bounds.get(key, nan)) for key, m in metric_names.items()}


def ci(per_example: pd.DataFrame, metric: str, n_boot: int = N_BOOT, seed: int = 0,
       alpha: float = ALPHA) -> tuple[float, tuple[float, float]]:
    """(point estimate, (low, high)) of one metric by name."""
    return aggregate(METRICS[metric], per_example), intervals(per_example, {metric: metric}, n_boot, seed, alpha)[metric]


def cluster_keys(per_example: pd.DataFrame, cluster: str = "user_id") -> pd.Series:
    """Each row's cluster as a string: its ``cluster`` value, or, for a row without one (a ToolSpectrum
    example: its persona is its own), a key of its own."""
    keys = per_example[cluster].astype(object).where(per_example[cluster].notna(),
                                                     "row:" + per_example.index.astype(str))
    return keys.astype(str)


def cluster_sums(per_example: pd.DataFrame, columns, cluster: str = "user_id"):
    """(per-cluster column sums {column: array}, rows per cluster) in sorted cluster order; a row
    without a cluster id is its own cluster (``cluster_keys``)."""
    keys = cluster_keys(per_example, cluster)
    grouped = per_example.assign(_c=keys.to_numpy(), _n=1).groupby("_c", sort=True)
    sums = grouped[list(dict.fromkeys([*columns, "_n"]))].sum()
    return {c: sums[c].to_numpy(dtype=float) for c in columns}, sums["_n"].to_numpy(dtype=float)


def cluster_stat(agg: str, sums: list[np.ndarray], counts: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """A metric over each resample of clusters ``idx`` (n_boot x clusters) from per-cluster sums."""
    if agg == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            n = counts[idx].sum(axis=1)
            return np.where(n > 0, sums[0][idx].sum(axis=1) / np.where(n > 0, n, 1), np.nan)
    return _stat(agg, sums, idx)


def cluster_indices(n_clusters: int, n_boot: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n_clusters, size=(n_boot, n_clusters))


def clustered_intervals(per_example: pd.DataFrame, metric_names: dict[str, str], cluster: str = "user_id",
                        n_boot: int = N_BOOT, seed: int = 0, alpha: float = ALPHA) -> dict[str, tuple[float, float]]:
    """``{published key: (low, high)}``: percentile intervals from resampling clusters (users) with replacement."""
    usable = {k: METRICS[m] for k, m in metric_names.items()
              if METRICS[m].aggregation != "sum" and all(c in per_example.columns for c in METRICS[m].columns)}
    if per_example.empty or not usable:
        return {k: (math.nan, math.nan) for k in usable}
    cols = list(dict.fromkeys(c for m in usable.values() for c in m.columns))
    sums, counts = cluster_sums(per_example, cols, cluster)
    if len(counts) < 2:  # one user: resampling users has nothing to vary
        return {k: (math.nan, math.nan) for k in usable}
    idx = cluster_indices(len(counts), n_boot, seed)
    out = {}
    for key, m in usable.items():
        v = cluster_stat(m.aggregation, [sums[c] for c in m.columns], counts, idx)
        v = v[~np.isnan(v)]
        out[key] = (float(np.quantile(v, alpha / 2)), float(np.quantile(v, 1 - alpha / 2))) if len(v) else \
            (math.nan, math.nan)
    return out
