"""Notebook 11's views of a prompt-format grid (``pfc.report.format_grid.compute``'s JSON): frames and figures.

:func:`usable` splits the real-model runs given into those complete enough to enter (every planned request
answered) and those left out with why, so the notebook says plainly what is missing; :func:`accuracy_frame`,
:func:`effects_frame`, :func:`spread_frame` and :func:`stability_frame` are the tables; :func:`heatmap` (cells ×
models) and :func:`forest` (each cell's paired effect against the default, with its interval) the figures. It
computes no statistic (``pfc.eval.format_sensitivity``) and runs nothing.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from pfc import paths


def parse_runs(text: str) -> list[Path]:
    """A notebook parameter: run directories, comma-separated (empty: none)."""
    return [paths.source(p.strip()) for p in text.split(",") if p.strip()]


def usable(runs) -> tuple[list[Path], list[str]]:
    """(runs whose every planned request has a row, one line per run left out and why)."""
    ok, out = [], []
    for d in map(Path, runs):
        try:
            config = json.loads((d / "config.json").read_text(encoding="utf-8"))
            rows = sum(1 for line in (d / "predictions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip())
        except (OSError, ValueError):
            out.append(f"{paths.relative(d)}: not committed yet (no config.json or predictions.jsonl)")
            continue
        planned = len(config.get("ids") or []) or config.get("n_examples") or 0
        if rows < planned:
            out.append(f"{paths.relative(d)}: {rows} of {planned} requests answered so far: left out")
        else:
            ok.append(d)
    return ok, out


def accuracy_frame(grid: dict, key: str = "overall") -> pd.DataFrame:
    """Cells × models: ``key``'s accuracy (robust rules)."""
    rows = {(a["cell"], model): a["value"] for model, m in grid["models"].items() for a in m["accuracy"]
            if a["key"] == key}
    frame = pd.Series(rows).unstack() if rows else pd.DataFrame()
    return frame.reindex(index=grid["cells"]).rename_axis(index="cell", columns="model")


def effects_frame(grid: dict, key: str = "overall") -> pd.DataFrame:
    """Each model's main effects: cell − default with its paired interval and McNemar p."""
    rows = [{"model": model, "cell": e["cell"], "diff": e["diff"], "lo": e.get("paired_lo"), "hi": e.get("paired_hi"),
             "mcnemar_p": e.get("mcnemar_p")}
            for model, m in grid["models"].items() for e in m.get("main_effects", []) if e["key"] == key]
    return pd.DataFrame(rows, columns=["model", "cell", "diff", "lo", "hi", "mcnemar_p"])


def spread_frame(grid: dict) -> pd.DataFrame:
    """Each model's SD and max-Δ across cells (BFCL's definitions) with intervals, per reported key."""
    rows = [{"model": model, "key": k, **{f: s[f] for f in ("cells", "sd", "sd_lo", "sd_hi", "max_delta",
                                                           "max_delta_lo", "max_delta_hi")}}
            for model, m in grid["models"].items() for k, s in m.get("spread", {}).items()]
    return pd.DataFrame(rows)


def stability_frame(grid: dict) -> pd.DataFrame:
    """Per cell: B − A with its interval, whether it keeps the default's sign and excludes 0, its change from the
    default's gap with that interval; and whether the baseline beats each model there."""
    st, bb = grid.get("stability"), grid.get("baseline_beats")
    rows: dict = {}
    if st:
        for r in st["rows"]:
            rows.setdefault(r["cell"], {}).update({f"{st['b']} − {st['a']}": r["diff"], "lo": r.get("paired_lo"),
                                                   "hi": r.get("paired_hi"), "same sign": r["same_sign"],
                                                   "excludes 0": r["excludes_zero"],
                                                   "− default's gap": r.get("gap_change"),
                                                   "gap lo": r.get("gap_change_lo"), "gap hi": r.get("gap_change_hi")})
    if bb:
        for r in bb["rows"]:
            rows.setdefault(r["cell"], {})[f"{bb['baseline']} beats {r['model']}"] = r["beats"]
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis(index="cell")


def heatmap(grid: dict, key: str = "overall"):
    """Cells × models, each square its accuracy; a cell a model has not finished reads "not run"."""
    import matplotlib.pyplot as plt
    frame = accuracy_frame(grid, key)
    fig, ax = plt.subplots(figsize=(1.6 + 1.6 * max(1, frame.shape[1]), 0.5 + 0.45 * max(1, frame.shape[0])))
    im = ax.imshow(frame.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(frame.shape[1]), frame.columns, rotation=20, ha="right")
    ax.set_yticks(range(frame.shape[0]), frame.index)
    values = frame.to_numpy(dtype=float)
    for (i, j), v in ((ij, values[ij]) for ij in np.ndindex(values.shape)):
        shown, colour = ("not run", "grey") if pd.isna(v) else (f"{v:.2f}", "white" if v < 0.5 else "black")
        ax.text(j, i, shown, ha="center", va="center", color=colour, fontsize=8)
    fig.colorbar(im, ax=ax, label=f"{key} accuracy")
    ax.set_title(f"{key} accuracy per prompt cell")
    return fig


def forest(grid: dict, key: str = "overall"):
    """Each cell − default per model, a point and its paired 95% interval; the dotted line is no effect."""
    import matplotlib.pyplot as plt
    frame = effects_frame(grid, key)
    fig, ax = plt.subplots(figsize=(6.5, 0.6 + 0.32 * max(1, len(frame))))
    labels = [f"{r.model} · {r.cell}" for r in frame.itertuples()]
    y = list(range(len(frame)))[::-1]
    ax.errorbar(frame["diff"], y, xerr=[(frame["diff"] - frame["lo"]).fillna(0), (frame["hi"] - frame["diff"]).fillna(0)],
                fmt="o", capsize=3)
    ax.axvline(0, ls=":", color="grey")
    ax.set_yticks(y, labels)
    ax.set_xlabel(f"{key}: cell − default (paired, users resampled)")
    return fig
