"""Notebook 10's (ask or infer) readers: each answerer's rows pooled, the confusion matrix, the risk–coverage curve
and the paired table, over the baselines' and the real models' runs on the ask-or-infer sets.

The sets are ``pfc.plans.ask``'s — the reference plan's requests that admit ``ask@20``, their ask variants and the
cannot variants of 100 of them —, the very sets the real models' runs answer. ``make reproduce``'s step
(``pfc.report.pipeline.ask``) builds them from the pipeline's TRACEBench and runs the three baselines of
``pfc.run.backends.ask_baselines`` (named by their declared ``ask_policy``) on each; it never runs a model.
``pfc.plans.demo.ask`` does the same on a tiny build (the notebook's defaults, tests). A run is scored on the rows it
answered, with the action columns (``pfc.eval.scoring.score(actions=True)``); every metric is ``pfc.eval.ask``'s.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from pfc import benchmarks, paths
from pfc.actions import ACTIONS
from pfc.eval import ask
from pfc.eval.action import KINDS, classify
from pfc.eval.scoring import score
from pfc.plans.ask import SETS  # noqa: F401  (re-exported: a pooled answerer's runs, in order)
from pfc.report.counterfactual import load_outputs
from pfc.report.figures import plt, save, setup
from pfc.report.reference.ask import paired  # noqa: F401  (re-exported: notebook 10's paired table)
from pfc.run.backends.ask_baselines import AlwaysCall


def parse_runs(text: str) -> dict[str, list[Path]]:
    """``NAME=ORIGINALS:ASK:CANNOT[:FOLLOWUP],…`` -> ``{name: [run dirs]}`` (paths read as the notebooks read them).

    >>> {k: [p.name for p in v] for k, v in parse_runs("m=a:b:c").items()}
    {'m': ['a', 'b', 'c']}
    """
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, dirs = part.partition("=")
        out[name.strip()] = [paths.source(d) for d in dirs.split(":") if d]
    return out


def rows(run_dir) -> pd.DataFrame:
    """A run's answered rows with the action columns (an empty frame for a run with no answer)."""

    d = Path(run_dir)
    cfg = json.loads((d / "config.json").read_text(encoding="utf-8"))
    exs, tools = benchmarks.get(cfg["benchmark"]).scoring.load(paths.source(cfg["examples"]), None)
    outs = load_outputs(d, exs)
    mine = [e for e in exs if e.id in outs]
    return score(mine, outs, cfg["benchmark"], tools, actions=True).per_example if mine else pd.DataFrame()


def pooled(run_dirs) -> pd.DataFrame:
    """One answerer's runs' rows together (:func:`rows`), the pair columns added (``pfc.eval.ask.pairs``)."""
    return ask.pairs(pd.concat([rows(d) for d in run_dirs], ignore_index=True).drop_duplicates("id"))


def confusion(df: pd.DataFrame) -> pd.DataFrame:
    """First-turn items: gold action (rows) × the reply's action (columns), counts."""
    first = df[df["first_turn"] == 1]
    return pd.crosstab(first["gold_action"], first["pred_action"]).reindex(index=list(ACTIONS), columns=list(KINDS),
                                                                          fill_value=0)


def evidence(always_call_runs) -> dict:
    """``{id: evidence of the weakest slot}`` of each item an ``always-call`` run answered with a call (its
    own call's evidence, ``ask_baselines``; an item it did not answer so is left out: evidence 0)."""

    out = {}
    for d in always_call_runs:
        cfg = json.loads((Path(d) / "config.json").read_text(encoding="utf-8"))
        exs, tools = benchmarks.get(cfg["benchmark"]).scoring.load(paths.source(cfg["examples"]), None)
        be, outs = AlwaysCall(tools=tools), load_outputs(d, exs)
        for e in exs:
            act = classify(outs[e.id]) if e.id in outs else None
            if act is not None and act.kind == "call":
                out[e.id] = be.evidence(e, act.calls[0])[0]
    return out


def curve(always_call: pd.DataFrame, ev: dict, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """The threshold baseline's risk–coverage curve at every τ where it changes (each evidence value, and ∞)."""
    first = always_call[always_call["first_turn"] == 1]
    taus = sorted({ev.get(i, 0) for i in first["id"]} | {0.0, math.inf})
    return ask.risk_coverage(first, ev, taus, n_boot, seed).pivot_table(
        index="tau", columns="metric", values=["value", "lo", "hi"], sort=True)


def points(answerers: dict, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Each answerer's (coverage, risk) with intervals: ``{name: pooled rows}``."""
    rows_ = [r for name, df in answerers.items() for r in ask.table(df, n_boot, seed, ask.CURVE_METRICS, run=name)]
    return pd.DataFrame(rows_).pivot_table(index="run", columns="metric", values=["value", "lo", "hi"], sort=False)


def figure(cur: pd.DataFrame, pts: pd.DataFrame, stem: Path) -> list[Path]:
    """Risk against coverage: the threshold curve (band: risk's interval) and each answerer's point; written
    as ``stem``.png and .pdf (``pfc.report.figures.save``)."""
    setup()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    c = cur.dropna(subset=[("value", "call_risk")])
    ax.plot(c[("value", "call_coverage")], c[("value", "call_risk")], "-o", ms=3, label="ask-threshold (τ swept)")
    ax.fill_between(c[("value", "call_coverage")], c[("lo", "call_risk")], c[("hi", "call_risk")], alpha=0.2)
    for name, p in pts.iterrows():
        x, y = p[("value", "call_coverage")], p.get(("value", "call_risk"), math.nan)
        ax.errorbar([x], [0 if y != y else y], yerr=None if y != y else [[y - p[("lo", "call_risk")]],
                                                                         [p[("hi", "call_risk")] - y]],
                    fmt="s", capsize=3, label=name)
    ax.set(xlabel="coverage (share answered with a call)", ylabel="risk (wrong calls among them)",
           xlim=(-0.02, 1.02), ylim=(0, 1.02), title="Risk–coverage (95% CI over users)")
    ax.legend(fontsize=7)
    return save(fig, stem)
