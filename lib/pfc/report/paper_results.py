"""The three papers' printed numbers (``data/paper_results/papers.csv``) and how they map onto our metrics.

Reads the tidy transcription (one row per paper, table, model, setting, metric; ``printed`` is the cell exactly as
printed, ``value`` its number on the printed ``scale``) and the notes on where a paper contradicts itself
(``notes.csv``). It computes nothing: every value it returns is the paper's, and the tables it builds label their rows
``paper``.

``OURS`` maps a paper's column onto the metric key our scorer publishes for the same quantity; a paper column without an
entry has no counterpart here.

    >>> float(table("TRACEBench", "Table 4").query("model == 'GPT-4o(FC)' and metric == 'overall'")["value"].iloc[0])
    0.3267
"""
from __future__ import annotations

from functools import lru_cache

import pandas as pd

from pfc import paths

CSV = "papers.csv"
NOTES = "notes.csv"
LABEL = "paper"

# (paper, table) -> {paper column: our metric key}; values on the paper's scale (PTBench Table 1: percent)
OURS = {
    ("TRACEBench", "Table 4"): {"Format": "format", "APPs(Tools)": "app", "function_names": "function_name",
                                "function_param_names": "function_param_names",
                                "function_param_values": "function_param_values", "overall": "overall"},
    ("PTBench", "Table 1"): {"Format": "format", "Tool-P (Platform)": "platforms", "Param Value: Query": "query_params",
                             "Param Value: Profile": "profile_params", "T-name": "tool_names",
                             "T-param": "tool_param_names", "T-value": "tool_param_values",
                             "Overall: Trained": "trained=True/overall", "Overall: Untrained": "trained=False/overall",
                             "Overall: Overall": "overall"},
    **{("PTBench", t): {"Format": "format", "Preference: Platform": "platforms", "Param Value: Query": "query_params",
                        "Param Value: Profile": "profile_params", "T-name": "tool_names", "T-param": "tool_param_names",
                        "T-value": "tool_param_values", "Overall": "overall"} for t in ("Table 11", "Table 12")},
}
TS_SUBSETS = {"Profile": "profile", "Environment": "environment", "Profile & Environment": "both"}


@lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    df = pd.read_csv(paths.PAPER_RESULTS / CSV, dtype={"printed": str, "model": str, "group": str, "setting": str},
                     keep_default_na=False, na_values={"value": [""]})
    df["value"] = pd.to_numeric(df["value"], errors="coerce")
    return df


def load() -> pd.DataFrame:
    """Every transcribed cell (a copy: callers may change it)."""
    return _load().copy()


def notes() -> pd.DataFrame:
    """Where a paper contradicts itself, or where a table needs a word of reading."""
    return pd.read_csv(paths.PAPER_RESULTS / NOTES, keep_default_na=False)


def table(paper: str, name: str) -> pd.DataFrame:
    df = load()
    out = df[(df["paper"] == paper) & (df["table"] == name)]
    if out.empty:
        known = sorted(set(df.loc[df["paper"] == paper, "table"]))
        raise KeyError(f"no {paper} {name} in data/paper_results/{CSV}; it has {known}")
    return out.reset_index(drop=True)


def wide(paper: str, name: str, scale: float = 1.0) -> pd.DataFrame:
    """The table as printed: rows model (× setting when there are several), columns the paper's metrics."""
    t = table(paper, name)
    index = ["model", "setting"] if t["setting"].nunique() > 1 and t["model"].ne("").any() else \
        (["setting"] if t["model"].eq("").all() else ["model"])
    order = list(dict.fromkeys(t["metric"]))
    w = t.pivot_table(index=index, columns="metric", values="value", sort=False)[order] * scale
    w.columns.name = None
    return w


def ours_keyed(paper: str, name: str, scale: float = 1.0) -> pd.DataFrame:
    """Rows models, columns our metric keys (only columns we have), values rescaled by ``scale``.

    ``scale=0.01`` puts PTBench's percentages on our 0-1 scale.
    """
    mapping = OURS[(paper, name)]
    t = table(paper, name)
    t = t[t["metric"].isin(mapping)]
    w = t.pivot_table(index="model", columns="metric", values="value", sort=False) * scale
    w = w[[c for c in mapping if c in w.columns]].rename(columns=mapping)
    w.columns.name = None
    w.index.name = f"model ({LABEL})"
    return w


def toolspectrum_table(name: str = "Table 3") -> pd.DataFrame:
    """ToolSpectrum Table 3/8 as {row: {"profile/APP": F1, ...}} in our subset names (rows: model[, method])."""
    t = table("ToolSpectrum", name)
    subset = t["setting"].str.split(" | ", regex=False).str[0].map(TS_SUBSETS)
    t = t.assign(key=subset + "/" + t["metric"])
    if name == "Table 8":
        t = t.assign(model=t["model"] + " / " + t["setting"].str.split(" | ", regex=False).str[1])
    w = t.pivot_table(index="model", columns="key", values="value", sort=False)
    w = w[[f"{s}/{lv}" for s in TS_SUBSETS.values() for lv in ("APP", "API", "RP", "OP")]]
    w.columns.name = None
    w.index.name = f"model ({LABEL})"
    return w
