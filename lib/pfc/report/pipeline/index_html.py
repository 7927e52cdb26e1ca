"""``reports/index.html``: the reproduction's results on one static page, readable offline.

Shows on the page the headline tables from ``reports/evaluate/*.csv`` (those each benchmark's report section lists in
its ``INDEX``: TRACEBench Table 4, PTBench Tables 1/11/12, ToolSpectrum Table 3 in both F1 modes): our rows and the
papers' printed rows told apart by class, colour and a label, our 95% bootstrap intervals under each value, every column
sortable by a click (a few lines of inline JavaScript; no CDN, no server). Then every figure with its caption and its
paper counterpart, and per run a collapsible ``<details>`` block with its configuration, identity and links. Every link
is relative to ``reports/``. It reads the files the pipeline wrote; it computes no number.
"""
from __future__ import annotations

import csv
import html
import json
import os
import re
from pathlib import Path

from pfc import paths
from pfc.io import atomic



def headline() -> list[tuple[str, str]]:
    """``(table name, title)`` of every benchmark's headline tables (its report section's ``INDEX``), in registry
    order."""
    from pfc import benchmarks
    return [t for a in benchmarks.adapters() if (s := a.section()) is not None for t in s.INDEX]


FIGURE_DIRS = ("figures", "taxonomy", "evaluate")
# Figures the notebooks draw outside a report section: (directory under the output root, file, caption, counterpart)
NOTEBOOK_FIGURES = [
    ("figures/tracebench", "preprocess_drops.png", "Preprocessing (01): records dropped, by reason (ours)",
     "none: ours only"),
    ("figures/tracebench", "functions.png", "Preprocessing (01): most frequent standardized functions (ours)",
     "none: ours only"),
    ("figures/tracebench", "distributions.png", "TRACEBench build (02): queries by vagueness level, history length "
     "and personalization type (ours)", "TRACEBench Table 2 (§4, dataset statistics)"),
    ("reports/evidence_dose/figures", "dose_response.png", "Evidence dose (09): switch rate and accuracy against "
     "the number of history records supporting the user's choice, baselines and committed real models, 95% "
     "intervals over users (ours)", "none: ours only"),
    ("reports/toolspectrum", "table3_ours.png", "ToolSpectrum release views: F1 per subset and level (ours)",
     "ToolSpectrum Table 3 (§4.2)"),
    ("reports/toolspectrum", "fig4_domains.png", "ToolSpectrum release views: mean F1 over APP/API/RP/OP by domain "
     "(ours)", "ToolSpectrum Fig. 4"),
    ("reports/toolspectrum", "taxonomy.png", "ToolSpectrum release views: error classes (ours)",
     "ToolSpectrum §5.3 error shares"),
]
CELL = re.compile(r"^\s*(-?[\d.]+)\s*\[\s*(-?[\d.]+),\s*(-?[\d.]+)\]\s*$")
COUNTERPART = re.compile(r"((?:TRACEBench|PTBench|ToolSpectrum) Fig\. \d+(?: \(§[\d.]+\))?)")

STYLE = """body{font-family:system-ui,sans-serif;max-width:96em;margin:auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px}
th{background:#eee;cursor:pointer;user-select:none}th.asc::after{content:" ▲"}th.desc::after{content:" ▼"}
td.num{text-align:right;white-space:nowrap}td:nth-child(2){white-space:nowrap}.wrap{overflow-x:auto}tr.ours td{background:#eef6ee;font-weight:600}
tr.paper td{color:#555;font-style:italic}.ci{display:block;font-size:11px;font-weight:400;color:#466}
.badge{border-radius:3px;padding:0 4px;font-size:11px}.badge.ours{background:#2a7;color:#fff}
.badge.paper{background:#999;color:#fff}figure{margin:1em 0 2em}figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-size:14px}details{margin:.3em 0;border:1px solid #ddd;padding:.3em .6em}pre{font-size:12px;overflow:auto}"""

SORT_JS = """document.querySelectorAll("table.sortable th").forEach(function(th, i){
 th.addEventListener("click", function(){
  var tb = th.closest("table").tBodies[0], asc = !th.classList.contains("asc");
  th.parentNode.querySelectorAll("th").forEach(function(h){h.classList.remove("asc","desc")});
  th.classList.add(asc ? "asc" : "desc");
  var key = function(tr){var c = tr.cells[i], v = c.getAttribute("data-sort");
   return v === null ? c.textContent : (v === "" ? -Infinity : parseFloat(v))};
  Array.from(tb.rows).sort(function(a, b){var x = key(a), y = key(b);
   return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1)}).forEach(function(r){tb.appendChild(r)});
 });
});
// index.html#sort=<table id>:<column>:<asc|desc> opens the page with that table sorted (a link to a view)
var m = /sort=([\\w-]+):(\\d+):(asc|desc)/.exec(location.hash);
if (m) { var th = document.querySelectorAll("#" + m[1] + " th")[+m[2]];
 if (th) { th.click(); if (m[3] === "desc") th.click(); } }"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _cell(v: str) -> str:
    m = CELL.match(v)
    if m:
        return (f'<td class="num" data-sort="{m[1]}">{_e(m[1])}<span class="ci">[{_e(m[2])}, {_e(m[3])}]</span></td>')
    try:
        return f'<td class="num" data-sort="{float(v)}">{_e(v)}</td>'
    except ValueError:
        return f'<td class="num" data-sort="">{_e(v)}</td>' if v in ("–", "", "nan") else f"<td>{_e(v)}</td>"


def table_html(csv_path: Path, table_id: str) -> str:
    """One result CSV (first column ``source``: ours | paper) as a sortable table."""
    with open(csv_path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    head, body = rows[0], rows[1:]
    out = [f'<div class="wrap"><table class="sortable" id="{_e(table_id)}"><thead><tr>' + "".join(f"<th>{_e(h)}</th>" for h in head)
           + "</tr></thead><tbody>"]
    for r in body:
        src = "paper" if r and r[0] == "paper" else "ours"
        out.append(f'<tr class="{src}"><td><span class="badge {src}">{src}</span></td>'
                   + "".join(f"<td>{_e(v)}</td>" if j == 0 else _cell(v) for j, v in enumerate(r[1:])) + "</tr>")
    return "\n".join(out + ["</tbody></table></div>"])


def _link(p: Path) -> str:
    return Path(os.path.relpath(p, paths.REPORTS)).as_posix()


def figures() -> list[tuple[Path, str, str]]:
    """(png, caption, paper counterpart) for every figure a report section wrote, in report order."""
    out, seen = [], set()
    for sub in FIGURE_DIRS:
        md = paths.REPORTS / sub / "report.md"
        if not md.exists():
            continue
        for cap, rel in re.findall(r"!\[(.*?)\]\((\S+?\.png)\)", md.read_text(encoding="utf-8")):
            png = (md.parent / rel).resolve()
            if png.name in seen or not png.exists():
                continue
            seen.add(png.name)
            m = COUNTERPART.search(cap)
            out.append((md.parent / rel, cap, m[1] if m else "none: ours only"))
    for sub, name, cap, paper in NOTEBOOK_FIGURES:
        png = paths.OUTPUT_ROOT / sub / name
        if png.exists():
            out.append((png, cap, paper))
    return out


def runs_html() -> str:
    parts = []
    for cfg in sorted(paths.RUNS.glob("*/config.json")):
        c = json.loads(cfg.read_text())
        d = cfg.parent
        links = " · ".join(f'<a href="{_e(_link(d / f))}">{f}</a>' for f in ("config.json", "predictions.jsonl",
                                                                          "run.json", "usage.json")
                           if (d / f).exists())
        ident = c.get("model_identity") or {}
        parts.append(f'<details class="run" id="run-{_e(d.name)}"><summary><b>{_e(d.name)}</b> — {_e(c.get("benchmark"))}'
                     f', {_e(c.get("backend"))} / {_e(c.get("model"))}, n = {_e(c.get("n_examples"))}</summary>'
                     f"<p>{links}</p><p>identity: <code>{_e(json.dumps(ident, sort_keys=True))}</code></p>"
                     f"<pre>{_e(json.dumps(c, indent=1, sort_keys=True))}</pre></details>")
    return "\n".join(parts)


def write(records: list[dict], seconds: float) -> Path:
    """Write ``reports/index.html`` from what the pipeline left under ``reports/`` and ``data/runs``."""
    ev = paths.REPORTS / "evaluate"
    body = ["<h1>Reproduction report</h1>",
            "<p>Generated by <code>make reproduce</code>. Rows marked <span class='badge ours'>ours</span> are "
            "computed by this repository (95% bootstrap interval over examples under each value); rows marked "
            "<span class='badge paper'>paper</span> are the papers' printed numbers "
            "(<code>data/paper_results/papers.csv</code>). The papers' models are not ours: compare layouts, "
            "not rows. Click a column heading to sort.</p>",
            f"<p>Last run: {sum(r['status'] == 'ran' for r in records)} steps ran, "
            f"{sum(r['status'] != 'ran' for r in records)} skipped, {seconds:.0f} s. Markdown copy: "
            "<a href='index.md'>index.md</a>.</p>", "<h2>Headline tables</h2>"]
    for name, title in headline():
        f = ev / f"{name}.csv"
        if f.exists():
            body += [f"<h3>{_e(title)}</h3>", table_html(f, name),
                     f"<p>Files: <a href='{_link(f)}'>csv</a> · <a href='{_link(f.with_suffix('.md'))}'>md</a> · "
                     f"<a href='{_link(f.with_suffix('.json'))}'>json</a></p>"]
    body.append("<h2>Figures</h2>")
    for png, cap, paper in figures():
        pdf = png.with_suffix(".pdf")
        body.append(f"<figure><img src='{_e(_link(png))}' alt='{_e(cap)}'><figcaption>{_e(cap)}. "
                    f"<b>Paper counterpart:</b> {_e(paper)}."
                    + (f" <a href='{_e(_link(pdf))}'>pdf</a>" if pdf.exists() else "") + "</figcaption></figure>")
    body.append("<h2>Runs</h2>" + runs_html())
    body.append("<h2>Pipeline steps</h2><table><thead><tr><th>#</th><th>step</th><th>status</th><th>s</th>"
                "<th>executed notebook</th></tr></thead><tbody>")
    for i, r in enumerate(records, 1):
        nb = (f"<a href='{_e(r['copy'])}'>ipynb</a> · <a href='{_e(r['copy'][:-6])}.html'>html</a>"
              if r["copy"] else "–")
        body.append(f"<tr><td>{i}</td><td>{_e(r['step'])}</td><td>{_e(r['status'])}</td>"
                    f"<td class='num'>{r['seconds']}</td><td>{nb}</td></tr>")
    body.append("</tbody></table>")
    page = ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>pfc reproduction report</title>"
            f"<style>{STYLE}</style></head><body>\n" + "\n".join(body) + f"\n<script>{SORT_JS}</script></body></html>\n")
    out = paths.REPORTS / "index.html"
    atomic.write_text(out, page)
    return out
