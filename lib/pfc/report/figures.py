"""Figures in one seaborn style: metric-by-group line plots with CI error bars, bars, pies; PNG + PDF.

Each function takes a tidy DataFrame (``pfc.report.tables``) and a path stem and writes ``stem.png`` and ``stem.pdf``;
titles name the paper figure they correspond to and say the numbers are ours. The layout is computed with
``constrained_layout`` so titles and legends are never clipped. It draws; it computes nothing.

    >>> # metric_lines(group_table(runs, "vagueness"), "figures/fig3", "TRACEBench Fig. 3 counterpart")
"""
from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
import io
from pfc.io import atomic
from pfc.io.atomic import write_bytes

STYLE = {"style": "whitegrid", "context": "notebook", "palette": "colorblind"}
DPI = 130


def setup() -> None:
    """The one style every figure uses."""
    sns.set_theme(**STYLE)
    plt.rcParams.update({"figure.dpi": DPI, "savefig.dpi": DPI, "axes.titlesize": 11, "pdf.fonttype": 42})


def save(fig, stem) -> list[Path]:
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    try:
        for ext in ("png", "pdf"):  # rendered in memory, then replaced whole: a full disk never leaves a cut image
            p = stem.with_suffix(f".{ext}")
            buf = io.BytesIO()
            fig.savefig(buf, format=ext, bbox_inches="tight", metadata={"CreationDate": None} if ext == "pdf" else None)
            write_bytes(p, buf.getvalue())
            out.append(p)
    finally:
        plt.close(fig)
    return out


def metric_lines(long: pd.DataFrame, stem, title: str, metrics: list[str] | None = None,
                 xlabel: str | None = None, ncols: int = 3) -> list[Path]:
    """One panel per metric; x = group in the table's order; one line per run with 95% CI error bars."""
    setup()
    metrics = metrics or list(dict.fromkeys(long["metric"]))
    metrics = [m for m in metrics if m in set(long["metric"])]
    order = list(dict.fromkeys(long["group"]))
    nrows = math.ceil(len(metrics) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.2 * nrows + 0.6), squeeze=False,
                             sharey=True, layout="constrained")
    runs = list(dict.fromkeys(long["run"]))
    colors = dict(zip(runs, sns.color_palette(n_colors=max(len(runs), 1))))
    for ax, metric in zip(axes.flat, metrics):
        part = long[long["metric"] == metric]
        for run in runs:
            d = part[part["run"] == run].set_index("group").reindex(order)
            x = range(len(order))
            y = d["value"].astype(float)
            err = [(y - d["lo"].astype(float)).clip(lower=0), (d["hi"].astype(float) - y).clip(lower=0)]
            ax.errorbar(list(x), y, yerr=err, marker="o", capsize=3, label=run, color=colors[run])
        ax.set_title(metric)
        ax.set_xticks(range(len(order)), [str(o).replace("_", " ") for o in order], rotation=20, ha="right")
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel(xlabel or "")
    for ax in list(axes.flat)[len(metrics):]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(runs), 4), frameon=False)
    fig.suptitle(title)
    return save(fig, stem)


def grouped_bars(df: pd.DataFrame, x: str, y: str, hue: str, stem, title: str, ylabel: str = "",
                 col: str | None = None, col_order: list | None = None) -> list[Path]:
    """Bars of ``y`` by ``x`` and ``hue`` (one panel per ``col`` value, in ``col_order``)."""
    setup()
    cols = [c for c in (col_order or list(dict.fromkeys(df[col]))) if c in set(df[col])] if col else [None]
    order, hue_order = list(dict.fromkeys(df[x])), sorted(dict.fromkeys(df[hue]), key=str)
    fig, axes = plt.subplots(1, len(cols), figsize=(max(5.5, 4.5 * len(cols)), 3.8), squeeze=False,
                             sharey=True, layout="constrained")
    for ax, c in zip(axes.flat, cols):
        d = df if c is None else df[df[col] == c]
        sns.barplot(d, x=x, y=y, hue=hue, ax=ax, order=order, hue_order=hue_order, legend=ax is axes.flat[-1])
        ax.set_title("" if c is None else str(c))
        ax.set_ylabel(ylabel)
        for label in ax.get_xticklabels():
            label.set_rotation(35)
            label.set_horizontalalignment("right")
    if axes.flat[-1].get_legend() is not None:
        sns.move_legend(axes.flat[-1], "upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    fig.suptitle(title)
    return save(fig, stem)


def pies(df: pd.DataFrame, stem, title: str, label: str = "class", value: str = "count") -> list[Path]:
    """One pie per run (PTBench Fig. 4 style)."""
    setup()
    runs = list(dict.fromkeys(df["run"]))
    fig, axes = plt.subplots(1, max(len(runs), 1), figsize=(3.8 * max(len(runs), 1), 3.8), squeeze=False,
                             layout="constrained")
    for ax, run in zip(axes.flat, runs):
        d = df[(df["run"] == run) & (df[value] > 0)]
        if d.empty:
            ax.text(0.5, 0.5, "no errors", ha="center")
            ax.axis("off")
        else:
            ax.pie(d[value], labels=d[label], autopct="%1.0f%%", textprops={"fontsize": 8})
        ax.set_title(run, fontsize=9)
    fig.suptitle(title)
    return save(fig, stem)
