"""Notebook 09's tables and figure: dose-response curves and the override table of several runs.

A *dose run* is one model's run on ``dose`` variants (``pfc perturb --kind dose``): the dose metrics read it alone,
since the switch rate compares each K with the same request's K = 0 variant of the same run. An *override pair* is a run
on the originals and a run on their ``contradict-stated`` variants: stated-wins needs the answer on the original.
:func:`dose_curve` and :func:`overrides` turn one run (pair) into rows with user-clustered 95% intervals
(``pfc.eval.dose``), :func:`evaluate` does every run into one long table, :func:`figure` draws switch rate and accuracy
against K with each curve's threshold, and :func:`demo` makes a tiny build, its variants and the three baselines' runs.
It scores with ``pfc.eval.scoring`` and runs no model (the demo's baselines aside).

``answered_only`` (a real model's reference run on a sample, or one in progress): only the variants the run answered
(and, for overrides, whose original the originals run answered) are scored; otherwise a missing answer counts as an
unparsable one.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import json

from pfc import benchmarks
from pfc.eval import dose
from pfc.eval.bootstrap import N_BOOT
from pfc.plans.evidence import EVIDENCE_BASELINES
from pfc.report.counterfactual import load_outputs
from pfc.errors import UserError
from pfc.schema import load_examples

BASELINES = EVIDENCE_BASELINES
COLUMNS = ["run", "part", "k", "variants", "users", "metric", "value", "lo", "hi", "items", "higher_is_better"]


def parse_runs(text: str) -> dict:
    """``"name=RUN,…"`` -> {name: RUN}; a name may hold ``=``, never ``,``.

    >>> parse_runs("history-prior=data/runs/a, m [last_k k=10]=runs/b")
    {'history-prior': 'data/runs/a', 'm [last_k k=10]': 'runs/b'}
    """
    runs = {}
    for part in filter(None, (p.strip() for p in str(text).split(","))):
        name, eq, run = part.rpartition("=")
        if not eq or not name or not run:
            raise UserError(f"expected name=RUN, got {part!r}", field="dose_runs")
        runs[name] = run
    return runs


def _load(path) -> list:
    """The examples of a benchmark directory (its ``examples.jsonl``) or file; each names its benchmark."""
    p = Path(path)
    return load_examples(p / "examples.jsonl" if p.is_dir() else p)


def dose_curve(variants: list, run_dir, n_boot: int = N_BOOT, seed: int = 0,
               answered_only: bool = False) -> pd.DataFrame:
    """The dose-response table (``pfc.eval.dose.curve``) of one run on dose variants."""
    from pfc.eval.scoring import score
    benchmark = variants[0].benchmark
    outputs = load_outputs(run_dir, variants)
    if answered_only:
        variants = [v for v in variants if v.id in outputs]
    per = score(variants, outputs, benchmark).per_example if variants else pd.DataFrame(columns=["id", "overall"])
    df = dose.dose_rows(variants, outputs, benchmarks.get(benchmark).scoring.style, dict(zip(per["id"], per["overall"])))
    return dose.curve(df, n_boot, seed)


def overrides(originals: list, variants: list, orig_run, var_run, n_boot: int = N_BOOT, seed: int = 0,
              answered_only: bool = False) -> list[dict]:
    """``stated_wins`` and ``overrides`` rows of one override pair (with ``variants`` and ``users``: how many were
    scored)."""
    benchmark = variants[0].benchmark
    out_o, out_v = load_outputs(orig_run, originals), load_outputs(var_run, variants)
    if answered_only:
        variants = [v for v in variants if v.id in out_v and v.meta["counterfactual"]["original_id"] in out_o]
    df = dose.override_rows(originals, variants, out_o, out_v, benchmarks.get(benchmark).scoring.style)
    return dose.metric_rows(df, dose.OVERRIDE_METRICS, n_boot, seed, variants=len(df),
                            users=int(df["user_id"].nunique()))


def evaluate(originals_path, dose_path, stated_path, dose_runs: dict, override_runs: dict, n_boot: int = N_BOOT,
             seed: int = 0, answered_only: bool = False) -> tuple[pd.DataFrame, dict]:
    """(long table with :data:`COLUMNS`, {run: threshold K or None}) for ``{name: dose run}`` and
    ``{name: (originals run, contradict-stated run)}``. With ``answered_only``, a dose run that answered only part of
    the set gets its curve and intervals but no threshold (None)."""
    rows, thresholds = [], {}
    if dose_runs:
        variants = _load(dose_path)
        for name, run in dose_runs.items():
            table = dose_curve(variants, run, n_boot, seed, answered_only)
            answered = int(table.loc[table["metric"] == "overall", "variants"].sum())
            partial = answered_only and dose.withheld(answered, len(variants))
            thresholds[name] = None if partial else dose.threshold(table)
            rows += table.assign(run=name, part="dose").to_dict(orient="records")
    if override_runs:
        originals, variants = _load(originals_path), _load(stated_path)
        for name, (o, v) in override_runs.items():
            rows += [{**r, "run": name, "part": "override", "k": _habit_k(variants)}
                     for r in overrides(originals, variants, o, v, n_boot, seed, answered_only)]
    return pd.DataFrame(rows, columns=COLUMNS), thresholds


def _habit_k(variants) -> int | None:
    """The habit's K of a contradict-stated set (its first variant's)."""
    return next((v.meta["counterfactual"].get("k") for v in variants if dose.kind_of(v) == "contradict-stated"), None)


def one_request(variants: list) -> tuple[str, pd.DataFrame]:
    """(request, table): the first request of a dose set at each of its K (rows): history length, records
    supporting the user's choice (the gold function with the user's app, or value of the target argument), the target
    and both choices."""
    same = lambda a, b: json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    ds = [v for v in variants if dose.kind_of(v) == "dose"]
    first = ds[0].meta["counterfactual"]["original_id"]
    rows = []
    for v in (v for v in ds if v.meta["counterfactual"]["original_id"] == first):
        info = v.meta["counterfactual"]
        fn, arg, user = v.gold[info["call"]].function, info["argument"], info["user_choice"]
        rows.append({"K": info["k"], "history records": len(v.history),
                     "supporting": sum(h.function == fn and (h.app == user if arg is None else
                                                             arg in h.arguments and same(h.arguments[arg], user))
                                       for h in v.history),
                     "target": arg or "(app)", "user_choice": user, "population_favourite": info["population_favourite"]})
    return ds[0].query, pd.DataFrame(rows).sort_values("K").set_index("K")


def interval(r) -> str:
    """``value [lo, hi]`` (3 places), or the value alone without an interval."""
    if r["value"] is None or (isinstance(r["value"], float) and math.isnan(r["value"])):
        return "–"
    ci = "" if pd.isna(r["lo"]) else f" [{r['lo']:.3f}, {r['hi']:.3f}]"
    return f"{r['value']:.3f}{ci}"


def dose_frame(long: pd.DataFrame, metric: str = "switch_rate") -> pd.DataFrame:
    """One row per run, one column per K: ``metric`` with its interval."""
    d = long[(long["part"] == "dose") & (long["metric"] == metric)]
    return d.assign(cell=d.apply(interval, axis=1)).pivot(index="run", columns="k", values="cell")


def override_frame(long: pd.DataFrame) -> pd.DataFrame:
    """One row per run: stated-wins and overrides with intervals, and the variants and users scored."""
    d = long[long["part"] == "override"]
    wide = d.assign(cell=d.apply(interval, axis=1)).pivot(index="run", columns="metric", values="cell")
    wide = wide.reindex(columns=list(dose.OVERRIDE_METRICS))
    wide.insert(0, "variants", d.groupby("run")["variants"].first().reindex(wide.index).astype(int))
    if "users" in d:
        wide.insert(1, "users", d.groupby("run")["users"].first().reindex(wide.index).astype(int))
    return wide


def figure(long: pd.DataFrame, thresholds: dict, level: float = 0.5, planned: int | None = None):
    """Switch rate (left) and accuracy (right) against K, one line per run with its 95% intervals as error bars.

    K sits on a categorical axis (0, 1, 2, 4, 8, 16 equally spaced: a log-like scale that keeps 0); each curve's label
    names its threshold K (``none``: no K's lower bound passes ``level``), marked with a ring on the switch-rate curve.
    With ``planned`` (the dose set's size), a run that answered fewer variants (a reference run in progress, which
    covers users one after another) says how many, from how many users, and claims no threshold: "96 of 600 variants, 2
    users: a threshold once complete"."""
    import matplotlib.pyplot as plt
    d = long[long["part"] == "dose"]
    ks = sorted(d["k"].dropna().astype(int).unique())
    pos = {k: i for i, k in enumerate(ks)}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharex=True)
    for ax, metric, title in ((axes[0], "switch_rate", "switch rate (moved to the user's choice)"),
                              (axes[1], "overall", "accuracy")):
        groups = list(d[d["metric"] == metric].groupby("run", sort=False))
        for i, (run, part) in enumerate(groups):
            part = part.sort_values("k")
            dodge = (i - (len(groups) - 1) / 2) * 0.06  # a small shift keeps the runs' bars apart
            x = [pos[int(k)] + dodge for k in part["k"]]
            lo = (part["value"] - part["lo"]).clip(lower=0).fillna(0)
            hi = (part["hi"] - part["value"]).clip(lower=0).fillna(0)
            t = thresholds.get(run)
            n = int(part["variants"].sum()) if "variants" in part else None  # one row per K: the variants scored
            partial = bool(planned and n is not None and dose.withheld(n, planned))
            # a request's variants are answered together, so the most users at one K is the run's users
            users = f", {int(part['users'].max())} users" if partial and "users" in part else ""
            said = f"{n} of {planned} variants{users}: a threshold once complete" if partial else \
                f"threshold K = {'none' if t is None else t}"
            line = ax.errorbar(x, part["value"], yerr=[lo, hi], marker="o", capsize=3, label=f"{run} ({said})")
            if metric == "switch_rate" and t is not None:
                at = part[part["k"] == t]
                ax.scatter([pos[t] + dodge], at["value"], s=160, facecolors="none",
                           edgecolors=line[0].get_color(), linewidths=2)
        ax.set_title(title)
        ax.set_ylim(-0.05, 1.05)
        ax.set_xticks(range(len(ks)), [str(k) for k in ks])
        ax.set_xlabel("K: records supporting the user's choice")
    axes[0].axhline(level, color="grey", linestyle=":", linewidth=1)
    fig.tight_layout()
    # below both panels: inside one it hid points of the curves it names (the real models' runs made it long)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    return fig
