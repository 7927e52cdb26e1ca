"""The report writer: each table as Markdown, CSV and JSON, each figure as PNG and PDF, remembered for report.md.

:class:`Writer` writes under one directory (every file through ``pfc.io.atomic``) and collects the
sections ``report.md`` lists; it computes nothing (``pfc.report.tables``) and draws nothing itself
(``pfc.report.figures``). ``PAPER_NOTE`` is the note under every table that puts a paper's printed
numbers beside ours.

    >>> PARTS
    ('tables', 'taxonomy', 'figures')
"""
from __future__ import annotations

import json
from pathlib import Path

from pfc.errors import UserError
from pfc.io import atomic


def _md(df: pd.DataFrame) -> str:
    d = df.reset_index()
    d.columns = [" / ".join(map(str, c)).strip(" /") if isinstance(c, tuple) else str(c) for c in d.columns]
    from pfc.report.mdcell import cell  # run names come from configs: inert in Markdown and its HTML
    head = "| " + " | ".join(map(cell, d.columns)) + " |\n|" + "---|" * len(d.columns) + "\n"
    return head + "".join("| " + " | ".join(cell(v) for v in row) + " |\n" for row in d.itertuples(index=False))


PARTS = ("tables", "taxonomy", "figures")


class Writer:
    """Writes tables and figures under one directory and remembers what it wrote (for report.md)."""

    def __init__(self, out: Path, parts=PARTS):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.sections: list[str] = []
        self.parts = set(parts)
        unknown = self.parts - set(PARTS)
        if unknown:
            raise UserError(f"unknown report parts {sorted(unknown)}; expected some of {PARTS}")
        self.written: list[Path] = []
        self.manifest: list[dict] = []  # each run's config and content hashes, embedded in every table's JSON

    def rel(self, p: Path) -> str:
        return Path(p).relative_to(self.out).as_posix()

    def table(self, name: str, title: str, df: pd.DataFrame, long: pd.DataFrame | None = None, note: str = "",
              part: str = "tables"):
        if part not in self.parts:
            return
        self.written += [self.out / f"{name}.{ext}" for ext in ("md", "csv", "json")]
        atomic.write_bytes(self.out / f"{name}.csv", df.to_csv().encode("utf-8", "backslashreplace"))
        atomic.write_text(self.out / f"{name}.md", f"# {title}\n\n{note}\n\n{_md(df)}")
        names = set((long if long is not None else df.reset_index()).get("run", []))
        payload = {"title": title, "note": note, "runs": [m for m in self.manifest if m["run"] in names],
                   "rows": json.loads((long if long is not None else df.reset_index()).to_json(orient="records"))}
        atomic.write_json(self.out / f"{name}.json", payload)
        self.sections += [f"## {title}", "", note, "", _md(df),
                          f"Files: [{name}.md]({name}.md), [{name}.csv]({name}.csv), [{name}.json]({name}.json)", ""]

    def figure(self, title: str, draw, part: str = "figures", note: str = ""):
        """``draw``: a callable returning the written files (called only when ``part`` is wanted)."""
        if part not in self.parts:
            return
        files = draw()
        self.written += list(files)
        png = next(p for p in files if p.suffix == ".png")
        pdf = next(p for p in files if p.suffix == ".pdf")
        self.sections += [f"## {title}", "", *([note, ""] if note else []), f"![{title}]({self.rel(png)})", "",
                          f"Files: [{png.name}]({self.rel(png)}), [{pdf.name}]({self.rel(pdf)})", ""]


PAPER_NOTE = ("Rows labelled **paper** are the paper's printed numbers (`data/paper_results/papers.csv`, "
              "{src}), on our 0–1 scale; every other row is computed here, with a bootstrap 95% interval over "
              "examples in brackets. The paper's models are not ours: compare layouts, not rows.")
