"""``pfc report`` / ``pfc compare``: tables, figures and a summary for any set of run directories.

:func:`write_report` writes, for the benchmarks present among the runs, the paper layouts
(TRACEBench Table 4, Fig. 3 by vagueness, Fig. 4 by history length, errors by
personalization type and value provenance; PTBench Table 1/11/12 and Fig. 4 pies;
ToolSpectrum Table 3 in both scoring modes, Fig. 4 domains, Table 8 when several prompt
methods are present) as Markdown, CSV and JSON with bootstrap 95% intervals, the paper's
printed numbers beside ours (rows labelled ``paper``), each run's config and content
hashes, and ``report.md`` linking everything. Notebooks call the same functions.

    python -m pfc report data/runs/hp data/runs/nh --out reports/runs
    python -m pfc compare data/runs/hp data/runs/nh
    python -m pfc report data/sweeps/example --out reports/sweep    # every run of a sweep (sweep.json)
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from pfc.errors import UserError, nonneg_int
from pfc.io import atomic
from pfc.io.lock import writer_lock
from pfc.report import figures

from pfc import paths
from pfc.report import paper_results as P
from pfc.report import tables as T
from pfc.eval.bootstrap import N_BOOT


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


# Each benchmark's report section and the metrics `pfc compare` prints for it, registered by benchmark
# name in report order: a section gets that benchmark's runs only (never none). Adding a benchmark:
# write its section and register it with @section.
SECTIONS: dict = {}
SUMMARY_METRICS: dict[str, list[str]] = {}


def section(benchmark: str, summary_metrics: list[str]):
    def register(fn):
        SECTIONS[benchmark], SUMMARY_METRICS[benchmark] = fn, summary_metrics
        return fn
    return register


@section("tracebench", T.TB_METRICS)
def tracebench_section(w: Writer, runs: list[T.Run], n_boot: int, seed: int) -> None:
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
    tax = T.errors_by_personalization(runs)
    if not tax.empty:
        wide = tax.pivot_table(index=["run", "personalization"], columns="family", values="share", sort=False)
        w.table("tracebench_errors_by_personalization", "Error taxonomy by personalization type (ours; shares)",
                wide.round(3).fillna(0), tax, "First error of each example (format → refusal → app → function → "
                "param → value); `correct` = no error.", part="taxonomy")
        w.figure("Error taxonomy by personalization type (ours)", lambda: figures.grouped_bars(
            tax[tax["family"] != "correct"], "family", "share", "personalization", w.out / "figures" / "taxonomy",
            "Error families by personalization type (ours; no paper counterpart)", "share of the type's examples",
            col="run"), part="taxonomy")
    prov = T.value_errors_by_source(runs)
    if not prov.empty:
        w.table("tracebench_value_provenance", "Value provenance: gold values by source (ours)",
                prov.set_index(["run", "source"]).round(4), prov,
                "Where each unstated value should have come from, and how often it was right, wrong or missing.",
                part="taxonomy")


@section("ptbench", T.PT_METRICS)
def ptbench_section(w: Writer, runs: list[T.Run], n_boot: int, seed: int) -> None:
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
    shares = T.ptbench_error_shares(runs)
    if shares["count"].sum() > 0:
        w.table("ptbench_fig4_errors", "PTBench Fig. 4 layout: error classes (ours)",
                shares.set_index(["run", "class"]).round(3), shares, part="taxonomy")
        w.figure("PTBench Fig. 4 counterpart: error classes (ours)", lambda: figures.pies(
            shares, w.out / "figures" / "ptbench_fig4", "Counterpart of PTBench Fig. 4: error classes (ours)"),
            part="taxonomy")


@section("toolspectrum", T.TS_LEVELS + [f"{lv}_paper" for lv in T.TS_LEVELS])
def toolspectrum_section(w: Writer, runs: list[T.Run], n_boot: int, seed: int) -> None:
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
    from pfc.report.toolspectrum_report import domain_means
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
    from pfc.eval.taxonomy import TOOLSPECTRUM_CLASSES
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


def write_report(runs: list[T.Run], out, n_boot: int = N_BOOT, seed: int = 0, title: str = "Run report",
                 parts=PARTS) -> Path:
    """Every table and figure for ``runs`` under ``out`` (only ``parts`` of them); returns ``out/report.md``.
    Under the directory's writer lock (a second report into ``out`` is refused); each file is replaced
    atomically and ``report.md`` is removed first and written last."""
    runs = T.unique_names(list(runs))
    with writer_lock(out, "report directory"):
        (Path(out) / "report.md").unlink(missing_ok=True)  # written last: present = every file is this report's
        return _write_report(runs, out, n_boot, seed, title, parts)


def _write_report(runs, out, n_boot, seed, title, parts) -> Path:
    w = Writer(Path(out), parts)
    manifest = T.run_manifest(runs)
    w.manifest = manifest
    atomic.write_json(w.out / "runs.json", manifest)
    for name, write_section in SECTIONS.items():
        mine = [r for r in runs if r.benchmark == name]
        if mine:
            write_section(w, mine, n_boot, seed)
    runs_md = ["## Runs", "", "| run | benchmark | directory | n | backend | model | strategy | predictions sha256 |",
               "|---|---|---|---:|---|---|---|---|"]
    from pfc.report.mdcell import cell  # names, models and paths from configs: inert in Markdown and its HTML
    runs_md += [f"| {cell(m['run'])} | {cell(m['benchmark'])} | {cell(m['run_dir'])} | {cell(m['n_examples'])} | "
                f"{cell(m['config'].get('backend', ''))} | {cell(m['config'].get('model', ''))} | "
                f"{cell(m['config'].get('strategy', ''))} | `{m['sha256']['predictions.jsonl'][:16]}` |"
                for m in manifest]
    head = [f"# {title}", "", f"Bootstrap: {n_boot} resamples over examples, seed {seed}. Full configs and "
            "hashes: [runs.json](runs.json).", ""]
    partial = coverage_lines(runs)
    if partial:
        head += ["**Partial runs** (n counts every example):", ""] + [f"- {cell(x)}" for x in partial] + [""]
    md = w.out / "report.md"
    atomic.write_text(md, "\n".join(head + runs_md + [""] + w.sections) + "\n")
    return md


def summary(runs: list[T.Run], n_boot: int = 200, seed: int = 0) -> str:
    """A readable table for standard output: each run's headline metrics with 95% intervals."""
    runs = T.unique_names(list(runs))
    long = T.metric_table(runs, n_boot, seed)
    parts = []
    for bench in dict.fromkeys(r.benchmark for r in runs):
        part = long[long["benchmark"] == bench]
        wide = T.layout(part, SUMMARY_METRICS[bench])
        wide.insert(0, "n", [len(next(r for r in runs if r.name == n and r.benchmark == bench).per_example)
                               for n in wide.index])
        parts.append(f"{bench} (ours; value [95% CI])\n" + wide.to_string())
    return "\n\n".join(parts)


# ------------------------------------------------------------------ command line
def _load_all(args) -> list[T.Run]:
    """Each argument is a run directory, or a sweep directory (its ``sweep.json``): then every run it wrote,
    named by the sweep's label (model and the settings that differ from the defaults)."""
    from pfc.run.sweep import INDEX, run_dirs
    dirs = []
    for d in args.run_dirs:
        found = run_dirs(d) if (Path(d) / INDEX).is_file() else [(d, None)]
        if not found:
            raise UserError("a sweep directory none of whose runs wrote predictions yet: nothing to report",
                            file=str(d))
        dirs += found
    from pfc.io.reuse import reading_once
    with reading_once():  # runs of one build share its examples, read once
        return [T.load_run(d, examples=args.examples, tools=args.tools, name=label) for d, label in dirs]


def coverage_lines(runs: list[T.Run]) -> list[str]:
    """One line per run whose predictions do not cover its examples (a partial run: missing rows are scored as
    failures, so n counts every example)."""
    from pfc.eval.coverage import summary as cov_summary
    return [f"{r.name} ({r.run_dir}): {cov_summary(r.coverage)}; missing examples are scored as failures"
            for r in runs if r.coverage and (r.coverage.get("missing") or r.coverage.get("unknown"))]


def _report_cmd(args) -> int:
    import sys
    try:
        runs = _load_all(args)
        md = write_report(runs, args.out, n_boot=args.n_boot, seed=args.seed)
    except (UserError, OSError) as e:
        print(f"pfc report: {e}", file=sys.stderr)
        return 2
    print(summary(runs, n_boot=args.n_boot, seed=args.seed))
    for line in coverage_lines(runs):
        print(f"pfc report: {line}", file=sys.stderr)
    print(f"wrote {paths.relative(md)} and its tables/figures", file=sys.stderr)
    return 0


def _compare_cmd(args) -> int:
    import sys
    if args.paired:
        from pfc.report.paired import paired_cmd
        try:
            return paired_cmd(args)
        except (UserError, OSError) as e:
            print(f"pfc compare: {e}", file=sys.stderr)
            return 2
    try:
        runs = _load_all(args)
    except (UserError, OSError) as e:
        print(f"pfc compare: {e}", file=sys.stderr)
        return 2
    print(summary(runs, n_boot=args.n_boot, seed=args.seed))
    from pfc.eval.coverage import summary as cov_summary
    for r in runs:  # every comparison says what each run covers, partial or not
        print(f"coverage: {r.name}: {cov_summary(r.coverage) if r.coverage else f'{len(r.per_example)} examples'}")
    for line in coverage_lines(runs):
        print(f"pfc compare: {line}", file=sys.stderr)
    if args.by:
        for r in runs:
            if args.by not in r.per_example.columns:
                print(f"pfc compare: {r.name} has no group {args.by!r}", file=sys.stderr)
                return 2
        g = T.group_table(runs, args.by, None, args.n_boot, args.seed, explode=args.by == "personalization")
        print(f"\nby {args.by} (ours; value [95% CI])\n" + T.layout(g).to_string())
    return 0


def add_commands(sub) -> None:
    """Register ``report`` and ``compare`` on the ``python -m pfc`` sub-command parser."""
    for name, fn, help_ in (("report", _report_cmd, "tables, figures and report.md for run directories"),
                            ("compare", _compare_cmd, "a side-by-side summary of run directories on stdout")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("run_dirs", nargs="+", help="run directories (predictions.jsonl + config.json) or sweep "
                       "directories (sweep.json: all their runs)")
        if name == "report":
            p.add_argument("--out", required=True, help="output directory")
        else:
            p.add_argument("--by", help="also by a group: vagueness, history_bin, personalization, subset, trained")
            p.add_argument("--paired", action="store_true", help="two runs on the same examples: A - B per metric with "
                           "a user-clustered paired interval and an exact McNemar p (pfc.report.paired)")
        p.add_argument("--examples", help="examples (default: each run's config 'examples')")
        p.add_argument("--tools", help="tool file (ToolSpectrum)")
        p.add_argument("--n-boot", type=nonneg_int, default=N_BOOT if name == "report" else 200,
                       help="bootstrap resamples (0: no intervals)")
        p.add_argument("--seed", type=int, default=0)
        p.set_defaults(func=fn)
