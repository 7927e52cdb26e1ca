"""How much history does personalization need, and does it overrule the request? Columns and the dose curve.

Per-variant columns for the variants of ``pfc.data.counterfactual_dose`` (the metrics that aggregate them are defined
once in ``pfc.eval.metrics``):

- **dose** (``~dose-K``): ``dose_k``; ``user_hit`` (the answer gives the user's choice — the gold app, or the gold value
  of the target argument — at the target call), ``pop_hit`` (it gives the population's favourite instead);
  ``switch_hit`` / ``switch_base``: with the same request's K = 0 variant in the set (``switch_base`` 1), ``switch_hit``
  is 1 when the answer gives the user's choice at K and did not at K = 0 — the answer *moved* from what the model says
  with no supporting record to the user's choice. A model that ignores the history never moves: 0 whatever it guesses.
  ``overall`` is the scorer's (``pfc.eval.scoring``) on the variant: accuracy at K.
- **contradict-stated** (``~contradict-stated-K``): ``stated_base`` (the answer on the original gives the stated value),
  ``stated_kept`` (and the answer on the variant still does), ``habit_hit`` (the answer on the variant gives the habit's
  value).

:func:`curve` is the dose-response table (per K: each metric with a user-clustered bootstrap 95%
interval) and :func:`threshold` the smallest K whose switch-rate interval lies above 0.5. Values are
compared with the scorer's rules (``pfc.eval.personalization.matches``). It runs no model and
reads no files.
"""
from __future__ import annotations

import math

import pandas as pd

from pfc.eval.bootstrap import N_BOOT, clustered_intervals
from pfc.eval.metrics import METRICS, aggregate
from pfc.eval.parsing import parse
from pfc.eval.personalization import answer_calls, matches, pred_value

DOSE_COLUMNS = ("dose_k", "user_hit", "pop_hit", "switch_hit", "switch_base", "overall")
OVERRIDE_COLUMNS = ("stated_kept", "stated_base", "habit_hit")
DOSE_METRICS = ("overall", "user_choice", "population_choice", "switch_rate")
OVERRIDE_METRICS = ("stated_wins", "overrides")


def kind_of(v) -> str:
    """``dose`` / ``contradict-stated`` / another variant kind's name (``swap-user``)."""
    kind = str((v.meta.get("counterfactual") or {}).get("kind", ""))
    for name in ("dose", "contradict-stated"):
        if kind.startswith(name + "-"):
            return name
    return kind


def _gives(example, output, style: str, call: int, argument, target) -> bool:
    return matches(*pred_value(example, answer_calls(parse(output, style)), call, argument), target, argument)


def dose_rows(variants: list, outputs: dict, style: str = "auto", overall: dict | None = None) -> pd.DataFrame:
    """One row per dose variant: id, original_id, user_id and :data:`DOSE_COLUMNS`; ``outputs`` {id: raw
    output} (missing: unparsable), ``overall`` {id: 0/1} from the scorer (absent: column left out)."""
    rows = []
    for v in variants:
        if kind_of(v) != "dose":
            continue
        info = v.meta["counterfactual"]
        out = outputs.get(v.id)
        rows.append({"id": v.id, "original_id": info["original_id"], "user_id": v.user_id, "dose_k": info["k"],
                     "user_hit": int(_gives(v, out, style, info["call"], info["argument"], info["user_choice"])),
                     "pop_hit": int(_gives(v, out, style, info["call"], info["argument"],
                                           info["population_favourite"])),
                     "overall": (overall or {}).get(v.id, math.nan)})
    df = pd.DataFrame(rows, columns=["id", "original_id", "user_id", *DOSE_COLUMNS])
    at_zero = dict(zip(df.loc[df["dose_k"] == 0, "original_id"], df.loc[df["dose_k"] == 0, "user_hit"]))
    df["switch_base"] = [int(o in at_zero) for o in df["original_id"]]
    df["switch_hit"] = [int(b and u and not at_zero[o]) for o, u, b in zip(df["original_id"], df["user_hit"],
                                                                           df["switch_base"])]
    return df if overall is not None else df.drop(columns="overall")


def override_rows(originals: list, variants: list, outputs_orig: dict, outputs_var: dict,
                  style: str = "auto") -> pd.DataFrame:
    """One row per contradict-stated variant: id, original_id, user_id and :data:`OVERRIDE_COLUMNS`."""
    by_id = {e.id: e for e in originals}
    rows = []
    for v in variants:
        if kind_of(v) != "contradict-stated":
            continue
        info = v.meta["counterfactual"]
        orig = by_id.get(info["original_id"])
        if orig is None:
            continue
        call, a = info["call"], info["argument"]
        base = _gives(orig, outputs_orig.get(orig.id), style, call, a, info["stated"])
        kept = _gives(v, outputs_var.get(v.id), style, call, a, info["stated"])
        rows.append({"id": v.id, "original_id": orig.id, "user_id": v.user_id, "stated_base": int(base),
                     "stated_kept": int(base and kept),
                     "habit_hit": int(_gives(v, outputs_var.get(v.id), style, call, a, info["habit"]))})
    return pd.DataFrame(rows, columns=["id", "original_id", "user_id", *OVERRIDE_COLUMNS])


def metric_rows(df: pd.DataFrame, names, n_boot: int = N_BOOT, seed: int = 0, **extra) -> list[dict]:
    """One row per metric of ``names`` present in ``df``: value, user-clustered 95% interval, items, direction."""
    names = [m for m in names if all(c in df.columns for c in METRICS[m].columns)]
    ci = clustered_intervals(df, {m: m for m in names}, "user_id", n_boot, seed) if n_boot and len(df) else {}
    out = []
    for m in names:
        metric = METRICS[m]
        lo, hi = ci.get(m, (math.nan, math.nan))
        items = int(df[metric.columns[-1]].sum()) if metric.aggregation == "ratio" else len(df)
        out.append({**extra, "metric": m, "value": aggregate(metric, df) if len(df) else math.nan, "lo": lo,
                    "hi": hi, "items": items, "higher_is_better": metric.higher_is_better})
    return out


def curve(df: pd.DataFrame, n_boot: int = N_BOOT, seed: int = 0) -> pd.DataFrame:
    """The dose-response table: per K (ascending), each of :data:`DOSE_METRICS` with its interval, and the
    variants and users it was computed on (``users``: the clusters its interval resamples)."""
    rows = []
    for k, part in df.groupby("dose_k", sort=True):
        rows += metric_rows(part.reset_index(drop=True), DOSE_METRICS, n_boot, seed, k=int(k), variants=len(part),
                            users=int(part["user_id"].nunique()))
    return pd.DataFrame(rows, columns=["k", "variants", "users", "metric", "value", "lo", "hi", "items",
                                       "higher_is_better"])


def threshold(table: pd.DataFrame, level: float = 0.5):
    """The smallest K whose switch rate's lower bound exceeds ``level`` (None: no K does, or no intervals)."""
    sw = table[(table["metric"] == "switch_rate") & (table["lo"] > level)]
    return int(sw["k"].min()) if len(sw) else None


def withheld(answered: int, planned: int) -> str | None:
    """Why a dose run claims no threshold, or None when it may: a run that answered part of its set (in progress,
    covering users one after another) is a few users' requests, and their intervals say nothing of the set's, however
    narrow they come out."""
    if answered >= planned:
        return None
    return f"{answered} of the set's {planned} dose variants answered: a threshold once the run is complete"
