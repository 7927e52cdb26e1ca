"""PTBench's report section: Table 1, Tables 11/12 (trained / untrained users) and Fig. 4 error classes.

Its package's ``section`` (``pfc.benchmarks.adapter.ReportSection``); ``pfc.report.runs`` calls :func:`write` with the
PTBench runs only. It writes through the ``Writer`` and reads no file.
"""
from __future__ import annotations

from pfc.report import error_tables as E
from pfc.report import figures
from pfc.report import paper_results as P
from pfc.report import tables as T
from pfc.report.writer import PAPER_NOTE, Writer

SUMMARY = T.PT_METRICS  # the metrics `pfc compare` prints
INDEX = [("ptbench_table1", "PTBench Table 1"), ("ptbench_table11", "PTBench Table 11 (trained users)"),
         ("ptbench_table12", "PTBench Table 12 (untrained users)")]  # its headline tables on reports/index.html


def write(w: Writer, runs: list[T.Run], n_boot: int, seed: int) -> None:
    long = T.metric_table(runs, n_boot, seed)
    w.table("ptbench_table1", "PTBench Table 1 layout (ours) beside the paper",
            T.beside_paper(T.layout(long, T.PT_METRICS), P.ours_keyed("PTBench", "Table 1", 0.01)), long,
            PAPER_NOTE.format(src="PTBench Table 1, §5.2; printed in percent"))
    g = T.group_table(runs, "trained", T.PT_METRICS, n_boot, seed)
    for value, table, who in (("True", "Table 11", "trained"), ("False", "Table 12", "untrained")):
        part = g[g["group"] == value].drop(columns="group") if len(g) else g
        if len(part):
            w.table(f"ptbench_{table.replace(' ', '').lower()}", f"PTBench {table} layout: {who} users (ours) "
                    "beside the paper", T.beside_paper(T.layout(part, T.PT_METRICS), P.ours_keyed("PTBench", table)),
                    part, PAPER_NOTE.format(src=f"PTBench {table}"))
    shares = E.ptbench_error_shares(runs)
    if shares["count"].sum() > 0:
        w.table("ptbench_fig4_errors", "PTBench Fig. 4 layout: error classes (ours)",
                shares.set_index(["run", "class"]).round(3), shares, part="taxonomy")
        w.figure("PTBench Fig. 4 counterpart: error classes (ours)", lambda: figures.pies(
            shares, w.out / "figures" / "ptbench_fig4", "Counterpart of PTBench Fig. 4: error classes (ours)"),
            part="taxonomy")


def paper_row(ours) -> str:
    """README's findings line beside the paper (``pfc.report.findings``): Table 1's overall on trained and untrained
    users for the same family's printed row, and ``ours(run, key)``: each model's committed value."""
    pt = P.table("PTBench", "Table 1").set_index(["model", "metric"])["value"] / 100
    q = "Qwen2.5-7B-Inst"
    return (f"PTBench Table 1, overall on trained / untrained users: {q} {pt[q, 'Overall: Trained']:.4f} / "
            f"{pt[q, 'Overall: Untrained']:.4f}; ours (our synthesis) trained {ours('ptbench-trained', 'overall')}; "
            f"untrained {ours('ptbench-untrained', 'overall')}")
