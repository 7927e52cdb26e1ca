"""ToolSpectrum's report section: Table 3 in both F1 modes, Fig. 4 domains, the error taxonomy, Table 8.

Its package's ``section`` (``pfc.benchmarks.adapter.ReportSection``); ``pfc.report.runs`` calls :func:`write` with the
ToolSpectrum runs only. It writes through the ``Writer`` and reads no file.
"""
from __future__ import annotations

import pandas as pd

from pfc.benchmarks.toolspectrum.views import domain_means
from pfc.eval.taxonomy import TOOLSPECTRUM_CLASSES
from pfc.report import figures
from pfc.report import paper_results as P
from pfc.report import tables as T
from pfc.report.writer import PAPER_NOTE, Writer

SUMMARY = T.TS_LEVELS + [f"{lv}_paper" for lv in T.TS_LEVELS]  # the metrics `pfc compare` prints
INDEX = [("toolspectrum_table3", "ToolSpectrum Table 3 — F1, ours (a correct refusal counts as a hit)"),
         ("toolspectrum_table3_paper_mode", "ToolSpectrum Table 3 — F1, paper-compatible mode")]  # on reports/index.html


def write(w: Writer, runs: list[T.Run], n_boot: int, seed: int) -> None:
    g = T.toolspectrum_levels(runs, n_boot, seed)
    order = T.TS_ORDER
    ours = T.layout(g, order)
    w.table("toolspectrum_table3", "ToolSpectrum Table 3 layout: F1 (ours, refusal = hit) beside the paper",
            T.beside_paper(ours, P.toolspectrum_table("Table 3")), g,
            PAPER_NOTE.format(src="ToolSpectrum Table 3, §4.2") + " Our F1 credits a correct refusal (⊥ item).")
    paper_mode = T.layout(g, [f"{k}_paper" for k in order])
    paper_mode.columns = [c.replace("_paper", "") for c in paper_mode.columns]
    w.table("toolspectrum_table3_paper_mode", "ToolSpectrum Table 3 layout: paper-compatible F1 (ours) beside the paper",
            T.beside_paper(paper_mode, P.toolspectrum_table("Table 3")), g,
            PAPER_NOTE.format(src="ToolSpectrum Table 3") + " Paper-compatible mode: no refusal item; RP/OP over "
            "samples with a gold call (pfc.benchmarks.toolspectrum).")
    both = g[g["metric"].str.startswith("both/")]
    if len(both):
        side = both.assign(mode=["paper-compatible" if m.endswith("_paper") else "ours (refusal = hit)"
                                 for m in both["metric"]],
                           level=both["metric"].str.split("/").str[1].str.replace("_paper", ""))
        wide = side.assign(cell=[T.fmt(v, lo, hi) for v, lo, hi in zip(side["value"], side["lo"], side["hi"])]) \
            .pivot_table(index=["run", "mode"], columns="level", values="cell", aggfunc="first")[T.TS_LEVELS]
        w.table("toolspectrum_both_modes", "ToolSpectrum 'both' subset: the two scoring modes side by side (ours)",
                wide, side, "Where the modes differ most: most 'both' samples expect a refusal.")
    dm = domain_means({r.name: r.per_example for r in runs})
    if len(dm):
        w.table("toolspectrum_fig4_domains", "ToolSpectrum Fig. 4 layout: mean F1 per domain (ours)",
                dm.set_index(["model", "subset", "domain"]).round(3), dm)
        w.figure("ToolSpectrum Fig. 4 counterpart: mean F1 by domain (ours)", lambda: figures.grouped_bars(
            dm, "domain", "mean_f1", "model", w.out / "figures" / "toolspectrum_fig4",
            "Counterpart of ToolSpectrum Fig. 4: mean of APP/API/RP/OP F1 per domain (ours)", "mean F1", col="subset",
            col_order=["profile", "environment", "both"]))
    tax = toolspectrum_error_shares(runs)
    if not tax.empty:
        w.table("toolspectrum_errors", "ToolSpectrum error taxonomy (ours) beside the paper's §5.3 shares",
                tax.set_index(["source", "run", "class"]).round(3), tax,
                "Ours: every error of the run, classified by rule (pfc.eval.taxonomy); **paper**: 100 sampled GPT-4o "
                "errors classified by hand (§5.3, App. B.5).", part="taxonomy")
    methods = {r.config.get("strategy") for r in runs}
    if len(methods) > 1:
        t8 = ours.copy()
        w.table("toolspectrum_table8", "ToolSpectrum Table 8 layout: prompt methods (ours) beside the paper",
                T.beside_paper(t8, P.toolspectrum_table("Table 8")), g, PAPER_NOTE.format(src="ToolSpectrum Table 8"))


def toolspectrum_error_shares(runs: list[T.Run]) -> pd.DataFrame:
    """The five-way taxonomy's shares per run, then the paper's §5.3 shares (labelled paper)."""
    rows = []
    for r in runs:
        fam = r.per_example["error_type"].fillna("")
        fam = fam[fam != ""].str.split(":").str[0]
        for f, k in fam.value_counts().items():
            rows.append({"source": "ours", "run": r.name, "class": TOOLSPECTRUM_CLASSES.get(f, f), "count": int(k),
                         "share": k / len(fam)})
    if rows:
        paper = P.table("ToolSpectrum", "§5.3 error shares")
        rows += [{"source": P.LABEL, "run": m, "class": c, "count": None, "share": v / 100}
                 for m, c, v in zip(paper["model"], paper["metric"], paper["value"])]
    out = pd.DataFrame(rows, columns=["source", "run", "class", "count", "share"])
    out["count"] = out["count"].astype("Int64")  # the paper prints shares only
    return out


def paper_row(ours) -> str:
    """README's findings line beside the paper (``pfc.report.findings``): Table 3's APP F1 per subset for the same
    family's printed row, and ``ours(run, key, subset)``: each model's committed value (the paper's F1)."""
    ts, subsets = P.toolspectrum_table("Table 3"), ("profile", "environment", "both")
    return ("ToolSpectrum Table 3, APP F1 (profile / environment / both): Qwen2.5-3B-Instruct "
            + " / ".join(f"{ts.loc['Qwen2.5-3B-Instruct', f'{s}/APP']:.2f}" for s in subsets)
            + "; ours on the same release (the paper's F1, `APP_paper`): "
            + "; ".join(f"{s} {ours('toolspectrum', 'APP_paper', s)}" for s in subsets))
