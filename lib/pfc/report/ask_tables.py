"""Ask or infer in ``pfc report`` (issue 64): the action metrics of each run with action columns, and pooled.

A run has action columns when its set holds ask/cannot items or it used the ask-allowed prompt
(``pfc.eval.scoring.score``'s ``actions``). :func:`action_table` gives each such run's metrics (``pfc.eval.ask.table``:
user-clustered intervals) and, for an answerer (same backend, model and settings, any prompt variant) with several such
runs — the originals, their ask and cannot variants, the follow-up turn — the same metrics over their rows pooled, where
macro-F1, discrimination and two-turn success are defined. :func:`ask_section` writes it through the report ``Writer``.
It scores nothing itself.
"""
from __future__ import annotations

import pandas as pd

from pfc.eval import ask
from pfc.report import tables as T

ANSWERER = ("backend", "model", "backend_options", "strategy", "sampling", "native_tools")
COLUMNS = ["run", "metric", "value", "lo", "hi", "items", "higher_is_better"]


def action_runs(runs) -> list:
    return [r for r in runs if "pred_action" in r.per_example.columns]


def answered(r) -> pd.DataFrame:
    """A run's rows with a reply (a run of a sample, or one in progress, is never counted wrong on the rest)."""
    return r.per_example[r.per_example["answered"] == 1]


def pooled(runs) -> dict[str, pd.DataFrame]:
    """``{label: pooled rows}`` per answerer with two or more action runs (label: the runs' names joined)."""
    groups: dict = {}
    for r in action_runs(runs):
        key = repr([r.config.get(k) for k in ANSWERER])
        groups.setdefault(key, []).append(r)
    return {" + ".join(r.name for r in rs): pd.concat([answered(r) for r in rs]).drop_duplicates("id")
            for rs in groups.values() if len(rs) > 1}


def action_table(runs, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """The long table (one row per run or pool × metric) of the module doc."""
    rows = [x for r in action_runs(runs) for x in ask.table(answered(r), n_boot, seed, run=r.name)]
    rows += [x for label, df in pooled(runs).items() for x in ask.table(df, n_boot, seed, run=f"pooled: {label}")]
    return pd.DataFrame(rows, columns=COLUMNS)


def ask_section(w, runs, n_boot: int, seed: int) -> None:
    """The report's "ask or infer" table, when any run has action columns."""
    long = action_table(runs, n_boot, seed)
    if long.empty:
        return
    w.table(f"{runs[0].benchmark}_ask_or_infer", "Ask or infer: action metrics (ours; issue 64)",
            T.layout(long, list(ask.ACTION_METRICS)), long,
            "Over the rows each run answered: per run, and pooled over one answerer's runs (originals, ask and cannot variants, follow-up turn); "
            "user-clustered bootstrap 95% intervals; – where a run has no item of the kind (e.g. over-ask on an "
            "ask set). Definitions: `pfc.eval.metrics`.")
