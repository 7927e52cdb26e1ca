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
import os
from pathlib import Path, PurePosixPath
import re
import sys

from pfc.errors import UserError, nonneg_int
from pfc.io import atomic
from pfc.io.lock import LOCK_NAME, writer_lock

from pfc import benchmarks, paths
from pfc.report.writer import PARTS, Writer
from pfc.eval.coverage import summary as cov_summary
from pfc.io.atomic import write_failed
from pfc.io.dirset import check_target, replace_dir
from pfc.io.reuse import reading_once
from pfc.sweep.index import INDEX, run_dirs

# pandas, the scorer and the plotting stack load when a report is made, not when `pfc` builds its parser:
# pfc.report.tables (T) is imported inside the functions that use it.


def sections() -> dict:
    """``{benchmark: (section function, summary metrics)}`` in registry order, from each benchmark package's
    ``section`` module (``pfc.benchmarks.adapter.ReportSection``): a section gets that benchmark's runs only."""
    return {a.name: (s.write, s.SUMMARY) for a in benchmarks.loaded() if (s := a.section()) is not None}


def write_report(runs: list[T.Run], out, n_boot: int | None = None, seed: int = 0, title: str = "Run report",
                 parts=PARTS) -> Path:
    """Every table and figure for ``runs`` under ``out`` (only ``parts`` of them); returns ``out/report.md``.
    Under the directory's writer lock (a second report into ``out`` is refused). The set is built beside ``out`` and
    swapped in whole, ``report.md`` (its manifest) last (``pfc.io.dirset``): a stop or a full disk leaves the previous
    report or the new one, never a mix; a folder holding anything the earlier report did not write (a user's notes) is
    refused, never emptied. The lock file is carried into the new set (a hard link: the same lock), so the folder stays
    held until the report is done."""
    from pfc.eval.bootstrap import N_BOOT
    from pfc.report import tables as T
    n_boot = N_BOOT if n_boot is None else n_boot
    runs = T.unique_names(list(runs))
    made = _reported(Path(out))  # what an earlier report there wrote: anything else in it is kept
    out = check_target(out, "report.md", "report", ours=_earlier_report, made=made)  # before the lock file is made
    with writer_lock(out, "report directory"):
        with replace_dir(out, "report.md", "report", ours=_earlier_report, made=made) as tmp:
            try:
                os.link(out / LOCK_NAME, tmp / LOCK_NAME)
            except OSError:
                pass  # no hard links here: the new set starts without the lock file
            try:
                _write_report(runs, tmp, n_boot, seed, title, parts)
            except (UserError, OSError) as e:  # a file of the hidden build folder: named where it was going
                raise _named_in(e, tmp, out) from None
        return out / "report.md"


def _named_in(e, tmp: Path, out: Path):
    """``e`` (a UserError or an OSError) about a file under ``tmp`` (the build folder) as a UserError about
    the same file under ``out``; else ``e``."""
    kept = "the previous report, if any, is unchanged"
    try:
        rel = Path(e.file if isinstance(e, UserError) else e.filename).relative_to(tmp)
    except (TypeError, ValueError):
        return e
    if isinstance(e, OSError):
        return write_failed(out / rel, e, kept)
    msg = e.msg.replace("the previous file, if any, is unchanged", kept)
    return UserError(msg, file=str(out / rel), line=e.line, field=e.field)


def _reported(folder: Path):
    """What an earlier report in ``folder`` wrote, as ``pfc.io.dirset``'s ``made``: ``report.md``, ``runs.json``,
    the lock file and every file ``report.md`` links (with their folders); anything, for a report cut before its
    ``report.md`` (what it wrote is not known: it is replaced as before)."""
    try:
        text = (folder / "report.md").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    made = {LOCK_NAME, "runs.json", "report.md"}
    for link in re.findall(r"\]\(([^()\s]+)\)", text):
        p = PurePosixPath(link)
        made |= {p.as_posix(), *(q.as_posix() for q in p.parents if q.as_posix() != ".")}
    return made


def _earlier_report(folder: Path) -> bool:
    """A folder pfc's report writer made: only its lock file, or a report (finished or cut by an earlier
    version) whose ``runs.json`` lists runs with their hashes."""
    names = {p.name for p in folder.iterdir()}
    if names <= {LOCK_NAME}:
        return True
    f = folder / "runs.json"
    if not f.is_file() or f.is_symlink():
        return False
    try:
        runs = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(runs, list) and all(isinstance(r, dict) and "run" in r and "sha256" in r for r in runs)


def _write_report(runs, out, n_boot, seed, title, parts) -> Path:
    from pfc.report import tables as T
    w = Writer(Path(out), parts)
    manifest = T.run_manifest(runs)
    w.manifest = manifest
    atomic.write_json(w.out / "runs.json", manifest)
    for name, (write_section, _) in sections().items():
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


def _summary_metrics(benchmark: str) -> list[str]:
    """The metrics `pfc compare` prints: the report section's ``SUMMARY``, else the adapter's headline."""
    found = sections().get(benchmark)
    if found is not None:
        return found[1]
    adapter = benchmarks.get(benchmark)
    return list(adapter.reporting.headline or adapter.scoring.metric_keys)


def summary(runs: list[T.Run], n_boot: int = 200, seed: int = 0) -> str:
    """A readable table for standard output: each run's headline metrics with 95% intervals."""
    from pfc.report import tables as T
    runs = T.unique_names(list(runs))
    long = T.metric_table(runs, n_boot, seed)
    parts = []
    for bench in dict.fromkeys(r.benchmark for r in runs):
        part = long[long["benchmark"] == bench]
        wide = T.layout(part, _summary_metrics(bench))
        wide.insert(0, "n", [len(next(r for r in runs if r.name == n and r.benchmark == bench).per_example)
                               for n in wide.index])
        parts.append(f"{bench} (ours; value [95% CI])\n" + wide.to_string())
    return "\n\n".join(parts)


# ------------------------------------------------------------------ command line
def _load_all(args) -> list[T.Run]:
    """Each argument is a run directory, or a sweep directory (its ``sweep.json``): then every run it wrote,
    named by the sweep's label (model and the settings that differ from the defaults)."""
    from pfc.report import tables as T
    dirs = []
    for d in args.run_dirs:
        found = run_dirs(d) if (Path(d) / INDEX).is_file() else [(d, None)]
        if not found:
            raise UserError("a sweep directory none of whose runs wrote predictions yet: nothing to report",
                            file=str(d))
        dirs += found
    with reading_once():  # runs of one build share its examples, read once
        return [T.load_run(d, examples=args.examples, tools=args.tools, name=label) for d, label in dirs]


def coverage_lines(runs: list[T.Run]) -> list[str]:
    """One line per run whose predictions do not cover its examples (a partial run: missing rows are scored as
    failures, so n counts every example)."""
    return [f"{r.name} ({r.run_dir}): {cov_summary(r.coverage)}; missing examples are scored as failures"
            for r in runs if r.coverage and (r.coverage.get("missing") or r.coverage.get("unknown"))]


def _report_cmd(args) -> int:
    runs = _load_all(args)
    md = write_report(runs, args.out, n_boot=args.n_boot, seed=args.seed)
    print(summary(runs, n_boot=args.n_boot, seed=args.seed))
    for line in coverage_lines(runs):
        print(f"pfc report: {line}", file=sys.stderr)
    print(f"wrote {paths.relative(md)} and its tables/figures", file=sys.stderr)
    return 0


def _compare_cmd(args) -> int:
    if args.paired:
        from pfc.report.paired import paired_cmd
        return paired_cmd(args)
    runs = _load_all(args)
    print(summary(runs, n_boot=args.n_boot, seed=args.seed))
    for r in runs:  # every comparison says what each run covers, partial or not
        print(f"coverage: {r.name}: {cov_summary(r.coverage) if r.coverage else f'{len(r.per_example)} examples'}")
    for line in coverage_lines(runs):
        print(f"pfc compare: {line}", file=sys.stderr)
    if args.by:
        for r in runs:
            if args.by not in r.per_example.columns:
                raise UserError(f"{r.name} has no group {args.by!r}")
        from pfc.report import tables as T
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
        p.add_argument("--n-boot", type=nonneg_int, default=1000 if name == "report" else 200,  # 1000: eval.bootstrap.N_BOOT
                       help="bootstrap resamples (0: no intervals)")
        p.add_argument("--seed", type=int, default=0)
        p.set_defaults(func=fn)
