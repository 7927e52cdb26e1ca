"""The papers' numbers in data/paper_results/ equal the papers' print.

Golden values are hand-copied from the papers (section and line given); a second route
re-reads every transcribed cell in the paper's own text when ../shared/papers is present.
"""
import json
import re

import pytest

from pfc.report import paper_results as P
from pfc import paths

PAPERS = paths.ROOT.parent / "shared" / "papers"

# (paper, table, model, setting or None, metric, printed) — copied by hand from the paper's text
HAND = [
    ("TRACEBench", "Table 4", "GPT-4o(FC)", None, "overall", "0.3267"),              # §5.2, Table 4
    ("TRACEBench", "Table 4", "Llama-3.1-8B-Instruct", None, "overall", "0.2479"),   # §5.2, Table 4
    ("TRACEBench", "Table 4", "Mistral-7B-Instruct-v0.3", None, "Format", "0.5699"),
    ("TRACEBench", "Table 4", "Arch-Agent-7B", None, "function_param_values", "0.0744"),
    ("TRACEBench", "§5.2 text", "Llama-3.1-8B-Instruct", None, "overall", "0.2418"),  # §5.2 prose
    ("TRACEBench", "Table 3", "", "Transport", "avg #param", "6.38"),                # §4.4
    ("PTBench", "Table 1", "GPT-4-turbo", None, "Format", "97.78"),                  # §5.2
    ("PTBench", "Table 1", "Ours", None, "Overall: Overall", "26.78"),
    ("PTBench", "Table 1", "Mistral-7B-v0.3", None, "T-param", "35.72"),
    ("PTBench", "Table 5", "", "Total", "#Query", "8,397"),                          # App. A.2
    ("PTBench", "Table 11", "GPT-4-turbo", None, "Format", "0.9831"),               # appendix, trained users
    ("PTBench", "Table 12", "Ours", None, "Overall", "0.2660"),                      # appendix, untrained users
    ("ToolSpectrum", "Table 3", "Deepseek-R1-671B", "Profile & Environment", "OP", "0.50"),  # §4.2
    ("ToolSpectrum", "Table 3", "Qwen2.5-3B-Instruct", "Environment", "OP", "0"),
    ("ToolSpectrum", "Table 8", "GPT-4o", "Environment | CoT", "OP", "0.73"),       # App. B.2
    ("ToolSpectrum", "§5.3 error shares", "GPT-4o", None, "Lack of Understanding between Profile and Environment",
     "31%"),
]


def _cell(paper, table, model, setting, metric):
    t = P.table(paper, table)
    t = t[(t["model"] == model) & (t["metric"] == metric)]
    if setting is not None:
        t = t[t["setting"] == setting]
    assert len(t) == 1, (paper, table, model, setting, metric, len(t))
    return t.iloc[0]


@pytest.mark.parametrize("paper,table,model,setting,metric,printed", HAND)
def test_transcribed_cell_equals_the_hand_copied_print(paper, table, model, setting, metric, printed):
    row = _cell(paper, table, model, setting, metric)
    assert row["printed"] == printed
    # trap: "8,397" and "31%" must still be numbers; "0.50" must keep its printed zero
    assert row["value"] == pytest.approx(float(printed.replace(",", "").rstrip("%")), abs=0)


def test_every_table_the_issue_names_is_transcribed():
    have = set(map(tuple, P.load()[["paper", "table"]].drop_duplicates().values))
    want = {("TRACEBench", f"Table {i}") for i in range(1, 5)} | \
        {("PTBench", f"Table {i}") for i in (1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12)} | \
        {("ToolSpectrum", f"Table {i}") for i in range(1, 9)} | {("ToolSpectrum", "§5.3 error shares")}
    assert want <= have, want - have


def test_self_contradiction_of_tracebench_llama_overall_is_noted():
    n = P.notes()
    row = n[(n["paper"] == "TRACEBench") & (n["model"] == "Llama-3.1-8B-Instruct")]
    assert len(row) == 1 and "0.2418" in row["note"].iloc[0] and "0.2479" in row["note"].iloc[0]


def test_table_sizes_are_rows_times_columns():
    # 11 models x 6 metrics; 16 models x 10 columns; 19 models x 12 levels; 2 models x 3 methods x 12
    sizes = {("TRACEBench", "Table 4"): 66, ("PTBench", "Table 1"): 160, ("ToolSpectrum", "Table 3"): 228,
             ("ToolSpectrum", "Table 8"): 72, ("PTBench", "Table 11"): 128, ("PTBench", "Table 12"): 128}
    for (paper, table), n in sizes.items():
        assert len(P.table(paper, table)) == n, (paper, table)


@pytest.mark.skipif(not PAPERS.exists(), reason=f"papers not found at {PAPERS}")
def test_every_numeric_cell_is_printed_on_its_source_line_of_the_paper():
    # independent route: the paper's own text, line by line, markup removed
    texts = {p: (PAPERS / f"{p}.md").read_text(encoding="utf-8").splitlines()
             for p in ("TRACEBench", "PTBench", "ToolSpectrum")}
    df = P.load()
    checked = 0
    for r in df[df["value"].notna()].itertuples():
        line = re.sub(r"</?[bu]>", "", texts[r.paper][int(r.line) - 1])
        if r.table.startswith("§"):  # prose: the number as printed, e.g. "(31%)" or "accuracies of 0.2418"
            assert re.search(rf"(^|[ (]){re.escape(r.printed)}([ ).,]|$)", line), (r.table, r.metric, line)
        else:  # a table row: one of its tab-separated cells (a PDF line number may precede it)
            cells = [re.sub(r"^\d{3} ", "", c.strip()) for c in line.split("\t")]
            assert r.printed in cells, (r.paper, r.table, r.model, r.metric, r.printed, line)
        checked += 1
    assert checked > 1000


def test_json_files_used_by_older_code_agree_with_the_csv():
    ts = json.loads((paths.PAPER_RESULTS / "toolspectrum.json").read_text())
    wide = P.toolspectrum_table("Table 3")
    for model, cells in ts["table3"].items():
        for key, value in cells.items():
            assert wide.loc[model, key] == pytest.approx(value), (model, key)
    tb = json.loads((paths.PAPER_RESULTS / "tracebench.json").read_text())
    t2 = P.table("TRACEBench", "Table 2").set_index("metric")["value"]
    assert (t2["#APPs(Tools)"], t2["#Functions"], t2["#Query"]) == (tb["table2"]["apps"], tb["table2"]["functions"],
                                                                    tb["table2"]["queries"])


def test_ours_keyed_puts_ptbench_percentages_on_our_scale():
    w = P.ours_keyed("PTBench", "Table 1", scale=0.01)
    assert w.loc["Ours", "overall"] == pytest.approx(0.2678)
    assert w.loc["GPT-4-turbo", "platforms"] == pytest.approx(0.5484)
