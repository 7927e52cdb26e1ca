"""TRACEBench's report section: Table 4 beside the paper, Figs. 3 and 4 counterparts, the error taxonomy, ask or infer.

Its package's ``section`` (``pfc.benchmarks.adapter.ReportSection``); ``pfc.report.runs`` calls :func:`write` with the
TRACEBench runs only. It writes through the ``Writer`` and reads no file.
"""
from __future__ import annotations

from pfc.report import error_tables as E
from pfc.report import figures
from pfc.report import paper_results as P
from pfc.report import tables as T
from pfc.report.ask_tables import ask_section
from pfc.report.writer import PAPER_NOTE, Writer

SUMMARY = T.TB_METRICS  # the metrics `pfc compare` prints
INDEX = [("tracebench_table4", "TRACEBench Table 4")]  # its headline tables on reports/index.html: (name, title)


def write(w: Writer, runs: list[T.Run], n_boot: int, seed: int) -> None:
    long = T.metric_table(runs, n_boot, seed)
    ours = T.layout(long, T.TB_METRICS + [f"value_acc_{s}" for s in T.VALUE_SOURCES])
    w.table("tracebench_table4", "TRACEBench Table 4 layout: runs × metrics (ours) beside the paper",
            T.beside_paper(ours, P.ours_keyed("TRACEBench", "Table 4")), long,
            PAPER_NOTE.format(src="TRACEBench Table 4, §5.2") +
            " Value accuracy by source (query, profile, environment, history, recent) is ours; no paper reports it.")
    drawn, left_out = T.figure_runs(runs)
    drawn_names = {r.name for r in drawn}
    left = ("" if not left_out else " The figure leaves out " + ", ".join(
        f"`{r.name}` (n={len(r.per_example)})" for r in left_out) + ": a reference run of the same model is drawn.")
    for key, fig, paper_fig in (("vagueness", "fig3_vagueness", "TRACEBench Fig. 3 (§5.3)"),
                                ("history_bin", "fig4_history", "TRACEBench Fig. 4 (§5.4)")):
        g = T.group_table(runs, key, T.TB_METRICS, n_boot, seed)
        if g.empty:
            continue
        w.table(f"tracebench_by_{key}", f"TRACEBench metrics by {T.GROUP_TITLES[key]} (ours; counterpart of "
                f"{paper_fig})", T.layout(g, T.TB_METRICS), g,
                "Groups in the paper's order; n = examples per group." + left)
        g_drawn = g[g["run"].isin(drawn_names)]
        w.figure(f"{paper_fig} counterpart: metrics by {T.GROUP_TITLES[key]} (ours)",
                 lambda: figures.metric_lines(g_drawn, w.out / "figures" / fig,
                                      f"Counterpart of {paper_fig}: each metric by {T.GROUP_TITLES[key]} "
                                      f"(ours, 95% bootstrap CI)", T.TB_METRICS, T.GROUP_TITLES[key]),
                 note=left.strip())
    g = T.group_table(runs, "personalization", T.TB_METRICS, n_boot, seed, explode=True)
    if not g.empty:
        w.table("tracebench_by_personalization", "TRACEBench metrics by personalization type (ours)",
                T.layout(g, T.TB_METRICS), g, "An example with two types counts under each.")
    tax = E.errors_by_personalization(runs)
    if not tax.empty:
        wide = tax.pivot_table(index=["run", "personalization"], columns="family", values="share", sort=False)
        w.table("tracebench_errors_by_personalization", "Error taxonomy by personalization type (ours; shares)",
                wide.round(3).fillna(0), tax, "First error of each example (format → refusal → app → function → "
                "param → value); `correct` = no error.", part="taxonomy")
        wrong = tax[tax["family"] != "correct"]
        if not wrong.empty:  # runs with no error (the oracle) have no bars to draw
            w.figure("Error taxonomy by personalization type (ours)", lambda: figures.grouped_bars(
                wrong, "family", "share", "personalization", w.out / "figures" / "taxonomy",
                "Error families by personalization type (ours; no paper counterpart)", "share of the type's examples",
                col="run"), part="taxonomy")
    ask_section(w, runs, n_boot, seed)  # issue 64: only when a run has action columns
    prov = E.value_errors_by_source(runs)
    if not prov.empty:
        w.table("tracebench_value_provenance", "Value provenance: gold values by source (ours)",
                prov.set_index(["run", "source"]).round(4), prov,
                "Where each unstated value should have come from, and how often it was right, wrong or missing.",
                part="taxonomy")


def paper_row(ours) -> str:
    """README's findings line beside the paper (``pfc.report.findings``): Table 4's overall for the same family's
    printed row and the best, and ``ours(run, key)``: each model's committed value."""
    tb = P.table("TRACEBench", "Table 4").query("metric == 'overall'").set_index("model")["value"]
    return (f"TRACEBench Table 4, overall: Qwen2.5-7B-Instruct {tb['Qwen2.5-7B-Instruct']:.4f}, the best printed "
            f"{tb.idxmax()} {tb.max():.4f}; ours (`tracebench-last_k`, synthetic users) {ours('tracebench-last_k', 'overall')}")
