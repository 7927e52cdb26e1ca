"""Prompt-format sensitivity of runs that differ only in how the prompt is written (issue 65).

Input: per-example tables (``pfc.eval.scoring``'s rows, with ``id`` and ``user_id``), one per *cell* of a prompt grid,
all on the same examples. Every interval resamples users (``pfc.eval.bootstrap``'s cluster bootstrap); every difference
is paired, the same users drawn for both sides (``pfc.eval.paired.paired_metric``, with its exact McNemar test): no
statistic is new here.

- :func:`cell_accuracy`: each cell's accuracy (overall, app, values) with its user-clustered interval;
- :func:`main_effects`: each cell − the default cell, paired;
- :func:`spread`: the SD and max-Δ of a metric across cells as BFCL v4 defines them for its format sensitivity
  (``bfcl_eval/eval_checker/eval_runner.py`` of ShishirPatil/gorilla, the ``format_sensitivity`` runner: ``accuracy_std
  = statistics.stdev(config_accuracies)`` — the sample SD, n − 1 — and ``accuracy_max_delta = max(config_accuracies) -
  min(config_accuracies)``; BFCL prints both × 100, in points), with a percentile interval from resampling users (the
  same users for every cell of one resample); BFCL gives none;
- :func:`stability`: model B − model A in every cell: does it keep the default cell's sign, does its interval exclude 0,
  and how far it moves from the default cell's gap (the model × cell interaction, (B_cell − B_default) − (A_cell −
  A_default): ``paired_metric`` on the two models' per-request cell − default differences);
- :func:`baseline_beats`: baseline − each model in every cell (a baseline reads no prompt: one table for all cells);
- :func:`identical`: whether tables hold the same per-example results (a baseline's cells must).

It reads no run and scores nothing (``pfc.report.format_grid`` does); values are fractions (0–1).

    >>> import pandas as pd
    >>> t = lambda v: pd.DataFrame({"id": ["a", "b"], "user_id": ["u", "v"], "overall": v})
    >>> spread({"x": t([1, 1]), "y": t([0, 1]), "z": t([0, 0])}, n_boot=50)["max_delta"]
    1.0
"""
from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd

from pfc.errors import UserError
from pfc.eval.bootstrap import ALPHA, N_BOOT, cluster_indices, cluster_stat, cluster_sums, clustered_intervals
from pfc.eval.metrics import METRICS, aggregate
from pfc.eval.paired import paired_metric

KEYS = {"overall": "overall", "app": "app", "values": "function_param_values"}  # what a cell reports


def aligned(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The tables in one id order; tables on different examples are a :class:`UserError` naming the cell."""
    names = list(tables)
    if not names:
        raise UserError("no cells to compare")
    ids = sorted(tables[names[0]]["id"])
    for n in names[1:]:
        if sorted(tables[n]["id"]) != ids:
            raise UserError(f"cell {n!r} holds other examples than cell {names[0]!r}: a paired comparison needs the "
                            "same examples in every cell")
    return {n: t.set_index("id").loc[ids].reset_index() for n, t in tables.items()}


def cell_accuracy(tables: dict[str, pd.DataFrame], keys: dict = KEYS, n_boot: int = N_BOOT, seed: int = 0) -> list[dict]:
    """``{"cell", "key", "value", "lo", "hi", "n"}`` per cell and key."""
    rows = []
    for cell, t in tables.items():
        ci = clustered_intervals(t, keys, "user_id", n_boot, seed)
        rows += [{"cell": cell, "key": k, "value": aggregate(METRICS[m], t), "lo": ci[k][0], "hi": ci[k][1],
                  "n": len(t)} for k, m in keys.items() if all(c in t for c in METRICS[m].columns)]
    return rows


def main_effects(tables: dict[str, pd.DataFrame], default: str = "default", keys: dict = KEYS,
                 n_boot: int = N_BOOT, seed: int = 0) -> list[dict]:
    """Each cell − ``default``, paired (``paired_metric``'s fields, with ``cell`` and ``key``)."""
    tables = aligned(tables)
    if default not in tables:
        raise UserError(f"no {default!r} cell: main effects are differences from it")
    return [{"cell": cell, "key": k, **paired_metric(t, tables[default], m, "user_id", n_boot, seed)}
            for cell, t in tables.items() if cell != default for k, m in keys.items()]


def _sd_delta(acc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sample SD (ddof 1) and max − min over the last axis (the cells)."""
    return acc.std(axis=-1, ddof=1), acc.max(axis=-1) - acc.min(axis=-1)


def spread(tables: dict[str, pd.DataFrame], metric: str = "overall", n_boot: int = N_BOOT, seed: int = 0,
           alpha: float = ALPHA) -> dict:
    """BFCL's SD and max-Δ of ``metric`` across the cells (see the module), each with a user-resampled interval."""
    tables = aligned(tables)
    m = METRICS[metric]
    acc = [aggregate(m, t) for t in tables.values()]
    out = {"metric": metric, "cells": len(acc), "sd": statistics.stdev(acc) if len(acc) > 1 else 0.0,
           "max_delta": max(acc) - min(acc), "sd_lo": math.nan, "sd_hi": math.nan,
           "max_delta_lo": math.nan, "max_delta_hi": math.nan}
    first = next(iter(tables.values()))
    n_users = first["user_id"].nunique()
    if len(acc) < 2 or n_users < 2:
        return out
    idx = cluster_indices(n_users, n_boot, seed)
    draws = []
    for t in tables.values():
        sums, counts = cluster_sums(t, m.columns, "user_id")
        draws.append(cluster_stat(m.aggregation, [sums[c] for c in m.columns], counts, idx))
    sd, delta = _sd_delta(np.stack(draws, axis=-1))
    for name, v in (("sd", sd), ("max_delta", delta)):
        v = v[~np.isnan(v)]
        out[f"{name}_lo"], out[f"{name}_hi"] = float(np.quantile(v, alpha / 2)), float(np.quantile(v, 1 - alpha / 2))
    return out


def _excludes_zero(lo: float, hi: float) -> bool:
    return bool(lo > 0 or hi < 0)


def _verdict(rows: list[dict], default: str) -> dict:
    ref = next((r["diff"] for r in rows if r["cell"] == default), None)
    sign = 0 if ref is None else int(np.sign(ref))
    for r in rows:
        r["same_sign"] = sign != 0 and int(np.sign(r["diff"])) == sign
        r["excludes_zero"] = _excludes_zero(r["paired_lo"], r["paired_hi"])
    return {"cells": len(rows), "same_sign": sum(r["same_sign"] for r in rows),
            "excludes_zero": sum(r["excludes_zero"] for r in rows),
            "same_sign_and_excludes_zero": sum(r["same_sign"] and r["excludes_zero"] for r in rows)}


def _gap_change(a: dict, b: dict, cell: str, default: str, metric: str, n_boot: int, seed: int) -> dict:
    """(B_cell − B_default) − (A_cell − A_default), users resampled together (a mean metric's per-request differences)."""
    col = METRICS[metric].columns[0]
    ac, ad, bc, bd = aligned({"ac": a[cell], "ad": a[default], "bc": b[cell], "bd": b[default]}).values()
    d = paired_metric(bc.assign(**{col: bc[col] - bd[col]}), ac.assign(**{col: ac[col] - ad[col]}), metric,
                      "user_id", n_boot, seed)
    return {"gap_change": d["diff"], "gap_change_lo": d["paired_lo"], "gap_change_hi": d["paired_hi"]}


def stability(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame], metric: str = "overall",
              default: str = "default", n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """B − A per cell both have (paired): ``{"rows": [...], "summary": counts}``; ``same_sign``: the default
    cell's sign kept, ``excludes_zero``: the paired interval excludes 0; for a mean metric, each other cell's
    ``gap_change`` (its gap − the default's, with its interval) and ``summary["gap_changes"]``: the cells where that
    interval excludes 0."""
    rows = []
    for cell in (c for c in b if c in a):
        ta, tb = aligned({"a": a[cell], "b": b[cell]}).values()
        rows.append({"cell": cell, **paired_metric(tb, ta, metric, "user_id", n_boot, seed)})
        if cell != default and default in a and default in b and METRICS[metric].aggregation == "mean":
            rows[-1].update(_gap_change(a, b, cell, default, metric, n_boot, seed))
    gap_changes = sum(_excludes_zero(r["gap_change_lo"], r["gap_change_hi"]) for r in rows if "gap_change" in r)
    return {"rows": rows, "summary": {**_verdict(rows, default), "gap_changes": gap_changes}}


def baseline_beats(baseline: pd.DataFrame, models: dict[str, dict[str, pd.DataFrame]], metric: str = "overall",
                   n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """Baseline − each model in each of the model's cells (paired); ``every_cell``: the baseline is ahead, its
    interval above 0, in every cell of every model."""
    rows = []
    for model, cells in models.items():
        for cell, t in cells.items():
            tb, tm = aligned({"baseline": baseline, "model": t}).values()
            d = paired_metric(tb, tm, metric, "user_id", n_boot, seed)
            rows.append({"model": model, "cell": cell, **d, "beats": bool(d["diff"] > 0 and d["paired_lo"] > 0)})
    return {"rows": rows, "every_cell": bool(rows) and all(r["beats"] for r in rows)}


def identical(tables: dict[str, pd.DataFrame], keys: dict = KEYS) -> bool:
    """True when every table holds the same per-example values of ``keys``' columns (same ids)."""
    tables = aligned(tables)
    cols = ["id", *dict.fromkeys(c for m in keys.values() for c in METRICS[m].columns)]
    frames = [t[cols].reset_index(drop=True) for t in tables.values()]
    return all(f.equals(frames[0]) for f in frames[1:])
