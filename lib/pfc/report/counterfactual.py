"""Personalization metrics of runs on originals and their counterfactual variants: the table notebook 08 shows.

A *pair* is a run on the original examples and a run of the same model on the variants (``pfc perturb``).
:func:`personalization` gives the per-variant columns (``pfc.eval.personalization``) for a pair of run directories,
:func:`metric_rows` the three metrics (``context_following``, ``request_faithfulness``, ``sensitivity``; defined in
``pfc.eval.metrics``) with user-clustered bootstrap 95% intervals, and :func:`summary` one row per model with its
accuracy on the originals beside (for the context-following vs accuracy figure). It scores nothing itself and runs no
model.

``same_answer=True`` (the gold ``oracle`` of the original example): the answers on the variants are the answers on the
originals, as for any model that ignores the context.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from pfc import benchmarks
from pfc.eval.bootstrap import N_BOOT, clustered_intervals
from pfc.eval.metrics import METRICS, aggregate
from pfc.eval.personalization import rows
from pfc.benchmarks.common import load_predictions
from pfc.errors import UserError

PERSONALIZATION = ("context_following", "request_faithfulness", "sensitivity")


def personalization(benchmark: str, originals, variants, outputs_orig: dict, outputs_var: dict | None,
                    same_answer: bool = False) -> pd.DataFrame:
    """Per-variant columns; ``same_answer``: each variant is answered as its original was."""
    if same_answer:
        outputs_var = {v.id: outputs_orig.get(v.meta["counterfactual"]["original_id"]) for v in variants}
    return rows(originals, variants, outputs_orig, outputs_var or {}, benchmarks.get(benchmark).scoring.style)


def load_outputs(run_dir, examples) -> dict:
    """{example id: raw output} of a run directory's ``predictions.jsonl``."""
    return dict(load_predictions(Path(run_dir) / "predictions.jsonl", examples))


def metric_rows(df: pd.DataFrame, name: str, n_boot: int = N_BOOT, seed: int = 0, **extra) -> list[dict]:
    """One row per personalization metric: value, user-clustered 95% interval, items behind it."""
    keys = {m: m for m in PERSONALIZATION}
    ci = clustered_intervals(df, keys, "user_id", n_boot, seed) if n_boot and len(df) else {}
    out = []
    for m in PERSONALIZATION:
        metric = METRICS[m]
        lo, hi = ci.get(m, (None, None))
        items = int(df[metric.columns[-1]].sum()) if metric.aggregation == "ratio" else len(df)
        out.append({"run": name, **extra, "metric": m, "value": aggregate(metric, df), "lo": lo, "hi": hi,
                    "items": items, "higher_is_better": metric.higher_is_better})
    return out


def summary(long: pd.DataFrame, accuracy: dict[str, float]) -> pd.DataFrame:
    """Wide table: one row per run, the three metrics and the run's ``overall`` accuracy on the originals."""
    wide = long.pivot_table(index="run", columns="metric", values="value", aggfunc="first")
    wide = wide.reindex(columns=list(PERSONALIZATION))
    wide.insert(0, "accuracy (originals)", [accuracy.get(r) for r in wide.index])
    if "variants" in long:
        wide.insert(0, "variants", long.groupby("run")["variants"].first().reindex(wide.index).astype(int))
    return wide


def figure(wide: pd.DataFrame, ax=None):
    """Context following (y) against accuracy on the originals (x), one labelled point per run."""
    import matplotlib.pyplot as plt
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 4))
    for run, r in wide.iterrows():
        ax.scatter(r["accuracy (originals)"], r["context_following"], s=40)
        ax.annotate(str(run), (r["accuracy (originals)"], r["context_following"]), textcoords="offset points",
                    xytext=(4, 4), fontsize=8, parse_math=False)  # a run name is text: '$' is no mathtext
    ax.set_xlabel("overall accuracy on the original examples")
    ax.set_ylabel("context following under swap-user")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("Reads the user, or guesses well?")
    return ax


def evaluate_pairs(benchmark: str, originals_path, variants_path, pairs: dict, n_boot: int = N_BOOT,
                   seed: int = 0, answered_only: bool = False) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Long and wide tables for ``{run name: (run on originals, run on variants | None)}``.

    ``None`` as the variants' run means the model ignores the context by construction (the gold ``oracle`` of the
    original): its answers on the originals stand for both. ``answered_only``: score only the variants whose original
    and variant both have an answer, and accuracy on those originals (a reference run on a sample, or one still in
    progress; otherwise a missing answer counts as an unparsable one). Returns (long table, wide table with accuracy and
    the variants scored, {run name: per-variant DataFrame}).
    """
    from pfc.eval.scoring import score
    check_folders(originals_path, variants_path, pairs)
    adapter = benchmarks.get(benchmark)
    all_originals, _ = adapter.scoring.load(originals_path, None)
    all_variants, _ = adapter.scoring.load(variants_path, None)
    long, per, accuracy = [], {}, {}
    for name, (orig_dir, var_dir) in pairs.items():
        originals, variants = all_originals, all_variants
        out_o = load_outputs(orig_dir, originals)
        out_v = load_outputs(var_dir, variants) if var_dir else None
        if answered_only:
            variants = [v for v in variants if v.meta["counterfactual"]["original_id"] in out_o
                        and (out_v is None or v.id in out_v)]
            kept = {v.meta["counterfactual"]["original_id"] for v in variants}
            originals = [e for e in originals if e.id in kept]
        df = personalization(benchmark, originals, variants, out_o, out_v, same_answer=var_dir is None)
        per[name] = df
        accuracy[name] = score(originals, {e.id: out_o[e.id] for e in originals if e.id in out_o},
                               benchmark).metrics.get("overall")  # None where the benchmark has none (ToolSpectrum)
        long += metric_rows(df, name, n_boot, seed, variants=len(df))
    long = pd.DataFrame(long)
    return long, summary(long, accuracy), per


def check_folders(originals, variants, pairs: dict) -> None:
    """Each folder named (the examples, the variants, every pair's runs) exists, else a UserError naming it."""
    named = [("originals", originals), ("variants", variants)]
    named += [(f"run_pairs {name!r}", d) for name, dirs in pairs.items() for d in dirs if d]
    for what, d in named:
        if not Path(d).exists():
            raise UserError(f"{what}: {d}: no such folder")


HISTORY_PAIR = ("history-prior", "no-history")  # the two baselines notebook 08 compares example by example


def history_pair(pairs: dict) -> tuple[str, str] | None:
    """The names of the runs notebook 08 pairs (:data:`HISTORY_PAIR`) when ``pairs`` has both, else None."""
    return HISTORY_PAIR if all(n in pairs for n in HISTORY_PAIR) else None


def parse_pairs(text: str) -> dict:
    """``"name=ORIG:VARIANTS,…"`` -> {name: (ORIG, VARIANTS | None)}; VARIANTS ``-`` or empty -> None.

    A name may hold ``=`` (run labels do: ``last_k k=10``), never ``,``; the directories hold neither.

    >>> parse_pairs("m [last_k k=10]=runs/a:runs/b,n=runs/c:")
    {'m [last_k k=10]': ('runs/a', 'runs/b'), 'n': ('runs/c', None)}
    """
    pairs = {}
    for part in filter(None, (p.strip() for p in str(text).split(","))):
        name, eq, dirs = part.rpartition("=")
        orig, _, var = dirs.partition(":")
        if not eq or not name or not orig:
            raise UserError(f"expected name=ORIG_RUN:VARIANTS_RUN, got {part!r}", field="run_pairs")
        pairs[name] = (orig, None if var in ("", "-") else var)
    return pairs
