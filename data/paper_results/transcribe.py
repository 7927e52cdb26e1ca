"""How ``papers.csv`` was made: the papers' tab-separated tables, cell by cell, into tidy rows.

Run once by hand (``python data/paper_results/transcribe.py ../shared/papers``); the CSV it
writes is committed and read at run time; this script is kept only as the record of
*how* each printed cell became a row. Each table's column names, row span and source
section were written by hand after reading the table (``TABLES`` below). A cell keeps
its printed string (``printed``: bold/underline markup and stray PDF line numbers removed,
``emphasis`` keeps bold/underline); ``value`` is that string as a number where it is one.
Tables with check marks keep the mark in ``printed`` and 1/0 in ``value``. Text-only
tables (ToolSpectrum Tables 4-7) keep the text in ``printed`` and leave ``value`` empty.
Numbers that appear only in prose (ToolSpectrum §5.3 error shares, TRACEBench §5.2's
0.2418) are hand-written rows in ``EXTRA``.

It does not interpret values (a PTBench percentage stays 54.84, not 0.5484): ``scale``
says whether a value is a percentage or a fraction.
"""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

COLUMNS = ["paper", "table", "model", "group", "setting", "metric", "value", "printed", "emphasis",
           "scale", "section", "line"]
LINE_NO = re.compile(r"^\d{3} (?=\S)")       # a PDF line number stuck to the cell ("929 <b>0.98</b>")
YES, NO = {"✓", "√", "1"}, {"✗", "X", "×", "Х"}

# (paper, table, file line of the first data row, last data row, section, scale,
#  columns after the row label (None = skip), label columns (model/group), setting)
TB, PT, TS = "TRACEBench", "PTBench", "ToolSpectrum"
PT_MAIN = ["Format", "Tool-P (Platform)", "Param Value: Query", "Param Value: Profile", "T-name", "T-param",
           "T-value", "Overall: Trained", "Overall: Untrained", "Overall: Overall"]
PT_SCEN = ["Format", "Platform", "T-name", "T-param", "T-value", "Overall"]
PT_SPLIT = ["Format", "Preference: Platform", "Param Value: Query", "Param Value: Profile", "T-name",
            "T-param", "T-value", "Overall"]
TS_LEVELS = [f"{s}/{lv}" for s in ("Profile", "Environment", "Profile & Environment")
             for lv in ("APP", "API", "RP", "OP")]
TABLES = [
    (TB, "Table 1", 40, 44, "1 Introduction", "mark", ["Tool Personalization", "Parameter Personalization",
     "Temporal Context Personalization", "Long Interaction History", "Real Data"], "model", "benchmark comparison"),
    (TB, "Table 2", 143, 143, "4.4 Dataset details", "count",
     ["#Scenario", "#APPs(Tools)", "#Functions", "#User", "#Query"], "model", "dataset statistics"),
    (TB, "Table 3", 148, 155, "4.4 Dataset details", "count",
     ["#APPs(Tools)", "#Functions", "avg #param", "avg #required"], "setting", "by scenario"),
    (TB, "Table 4", 178, 188, "5.2 Main results", "fraction",
     ["Format", "APPs(Tools)", "function_names", "function_param_names", "function_param_values", "overall"],
     "type+model", "all queries"),
    (PT, "Table 1", 190, 205, "5.2 Main results", "percent", PT_MAIN, "type+model", "test (trained + untrained users)"),
    (PT, "Table 2", 250, 253, "5.3 Ablation study", "percent", ["Untrained", "Trained", "Overall"], "setting",
     "profile ablation (Ours)"),
    (PT, "Table 3", 304, 308, "5.3 Ablation study", "percent", PT_SCEN, "model", "without personalized information"),
    (PT, "Table 4", 335, 341, "5.5 Further analysis", "percent", PT_SCEN, "model", "new scenarios"),
    (PT, "Table 5", 699, 704, "A.2 Detailed results", "count", ["#Scenario", "#Platform", "#API", "#User", "#Query"],
     "setting", "dataset statistics"),
    (PT, "Table 6", 719, 725, "A.2 Detailed results", "percent", PT_SCEN, "model", "lifestyle scenario"),
    (PT, "Table 7", 730, 736, "A.2 Detailed results", "percent", PT_SCEN, "model", "finance scenario"),
    (PT, "Table 8", 753, 759, "A.3 Additional analysis on related works", "percent", PT_SCEN, "model",
     "knowledge scenario"),
    (PT, "Table 9", 773, 775, "A.3 Additional analysis on related works", "count+mark",
     ["#Tools", "#Users", "#Samples", "Tool P.", "Param P.", "User Traj"], "model", "benchmark comparison"),
    (PT, "Table 10", 792, 795, "A.3 Additional analysis on related works", "fraction",
     ["ACEBench", "ToolSpectrum", "PTBench"], "model", "other benchmarks"),
    (PT, "Table 11", 833, 848, "C Examples (appendix tables)", "fraction", PT_SPLIT, "type+model", "trained users"),
    (PT, "Table 12", 855, 870, "C Examples (appendix tables)", "fraction", PT_SPLIT, "type+model", "untrained users"),
    (TS, "Table 1", 39, 54, "1 Introduction", "mark", ["Profile", "Environment", "Both", "Tool"], "model",
     "benchmark comparison"),
    (TS, "Table 2", 161, 169, "3.3 Data statistic", "count", ["Profile", "Environment", "Both"], "metric-rows",
     "data statistics"),
    (TS, "Table 3", 207, 227, "4.2 Main results", "fraction", TS_LEVELS, "group-rows", "zero-shot"),
    (TS, "Table 4", 407, 416, "A.2 Construction details", "text", ["Option"], "text", "profile seed data"),
    (TS, "Table 5", 421, 427, "A.2 Construction details", "text", ["Option"], "text", "environment seed data"),
    (TS, "Table 6", 432, 440, "A.2 Construction details", "text", ["Option"], "text", "shopping seed data"),
    (TS, "Table 7", 482, 490, "A.2 Construction details", "text", ["APPs", "APIs"], "text", "apps and APIs"),
    (TS, "Table 8", 496, 501, "B.2 The effects of different prompt methods", "fraction", TS_LEVELS, "model+method",
     "prompt methods"),
]
EXTRA = [  # numbers printed in prose, not in a table
    (TS, "§5.3 error shares", "GPT-4o", "", "100 sampled errors", "Insufficient Understanding of Personalized Features and OP",
     "37", "37%", "", "percent", "5.3 Error analysis", 262),
    (TS, "§5.3 error shares", "GPT-4o", "", "100 sampled errors", "Lack of Understanding between Profile and Environment",
     "31", "31%", "", "percent", "5.3 Error analysis", 264),
    (TS, "§5.3 error shares", "GPT-4o", "", "100 sampled errors", "Misunderstanding of User Instructions",
     "22", "22%", "", "percent", "5.3 Error analysis", 266),
    (TS, "§5.3 error shares", "GPT-4o", "", "100 sampled errors", "Hallucination",
     "7", "7%", "", "percent", "B.5 Error analysis", 514),
    (TS, "§5.3 error shares", "GPT-4o", "", "100 sampled errors", "Output Format Errors",
     "3", "3%", "", "percent", "B.5 Error analysis", 516),
    (TB, "§5.2 text", "Llama-3.1-8B-Instruct", "Open-Source", "all queries", "overall",
     "0.2418", "0.2418", "", "fraction", "5.2 Main results", 195),
]


def clean(cell: str) -> tuple[str, str]:
    cell = cell.strip()
    emph = "bold" if "<b>" in cell else "underline" if "<u>" in cell else ""
    cell = re.sub(r"</?[bu]>", "", cell).strip()
    cell = LINE_NO.sub("", cell).strip()
    return cell, emph


def number(s: str, scale: str):
    if scale in ("mark", "count+mark") and (s in YES or s in NO):
        return 1 if s in YES else 0
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return "" if scale == "text" else None


def table_rows(lines, spec):
    paper, table, first, last, section, scale, cols, label, setting = spec
    out, group = [], ""
    for n in range(first, last + 1):
        raw = lines[n - 1]
        cells = raw.split("\t")
        if label == "group-rows" and len([c for c in cells if c.strip()]) == 1:
            group = clean(cells[0])[0]
            continue
        if label == "text":
            name, rest = clean(cells[0])[0], [clean(c)[0] for c in cells[1:] if c.strip()]
            out.append((paper, table, "", "", setting, name or "(continued)", "", " | ".join(rest), "", scale,
                        section, n))
            continue
        if label == "type+model" and cells[0].strip() and not cells[1].strip():
            name, vals = clean(cells[0])[0], cells[2:]  # PTBench Table 12's last row: "951 Ours", empty cell
        elif label in ("type+model", "model+method"):
            if cells[0].strip():
                group = clean(cells[0])[0]
            name, vals = clean(cells[1])[0], cells[2:]
            if label == "model+method":
                group, name, vals = "", (name if not cells[0].strip() else clean(cells[0])[0]), cells[1:]
        else:
            name, vals = clean(cells[0])[0], cells[1:]
        if label == "model+method":  # Table 8: model printed on the middle row of its three
            model_of = {496: "GPT-3.5-turbo", 497: "GPT-3.5-turbo", 498: "GPT-3.5-turbo",
                        499: "GPT-4o", 500: "GPT-4o", 501: "GPT-4o"}
            method = clean(cells[1])[0]
            name, vals, row_setting = model_of[n], cells[2:], f"{setting}: {method}"
        else:
            row_setting = setting
        vals = [clean(v) for v in vals]
        vals = [v for v in vals if v[0]]
        if len(vals) != len(cols):
            raise SystemExit(f"{paper} {table} line {n}: {len(vals)} cells for {len(cols)} columns: {raw!r}")
        for col, (printed, emph) in zip(cols, vals):
            model, metric, sett = name, col, row_setting
            if label == "metric-rows":
                model, metric, sett = "", name, col
            elif label == "setting":
                model, sett = ("Ours" if paper == PT and table == "Table 2" else ""), name
            elif label == "group-rows" or "/" in col:
                sett, metric = (col.split("/") if "/" in col else (setting, col))
                if label == "model+method":  # ToolSpectrum Table 8: "<subset> | <prompt method>"
                    sett = f"{sett} | {method}"
            out.append((paper, table, model, group if label in ("type+model", "group-rows") else "",
                        sett, metric, number(printed, scale), printed, emph, scale, section, n))
    return out


def main(papers_dir: str, out: str) -> None:
    rows = []
    for spec in TABLES:
        lines = Path(papers_dir, f"{spec[0]}.md").read_text(encoding="utf-8").splitlines()
        rows += table_rows(lines, spec)
    rows += EXTRA
    with open(out, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow(["" if v is None else (f"{v:g}" if isinstance(v, float) else v) for v in r])
    print(f"{len(rows)} rows -> {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else str(Path(__file__).with_name("papers.csv")))
