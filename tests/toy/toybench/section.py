"""The toy benchmark's section of ``pfc report`` (``pfc.benchmarks.adapter.ReportSection``): one table of its
headline metrics per run, and the same by level."""
from __future__ import annotations

from pfc.report import tables as T

SUMMARY = ["format", "app", "function_name", "overall"]  # the metrics `pfc compare` prints
INDEX = [("toybench_headline", "Toy benchmark: headline metrics")]  # its headline table on reports/index.html


def write(w, runs, n_boot: int, seed: int) -> None:
    long = T.metric_table(runs, n_boot, seed)
    w.table("toybench_headline", "Toy benchmark: runs × headline metrics (ours)", T.layout(long, SUMMARY), long)
    g = T.group_table(runs, "level", SUMMARY, n_boot, seed)
    if not g.empty:
        w.table("toybench_by_level", "Toy benchmark: metrics by level (ours)", T.layout(g, SUMMARY), g)
