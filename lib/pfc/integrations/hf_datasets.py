"""``pfc export``: a benchmark we build as Hugging Face Parquet splits plus a dataset card, and back.

Each split is ``data/<split>-00000-of-00001.parquet`` with one row per :class:`pfc.schema.Example`:
``id``, ``benchmark``, ``user_id``, ``query``, ``is_refusal``, ``n_history`` as plain columns
and the nested fields (``gold``, ``profile``, ``environment``, ``history``, ``tools``, ``meta``)
as JSON strings, so any value (nested objects, mixed types) survives exactly:
:func:`to_examples` turns the rows back into the schema losslessly. ``tools.json`` is copied
as is. ``README.md`` is the dataset card (generator, seed, statistics, license, how to score
with ``pfc``). Only benchmarks this repository generates are exported: the ToolSpectrum
release is third-party data and is refused. This module reads and writes files; it does not
build benchmarks (``pfc.data``) or score (``pfc.eval``). ``pfc export --inspect RUN...`` writes runs as
inspect_ai logs instead (:mod:`pfc.integrations.inspect_logs`), ``--format eee RUN...`` as Every Eval Ever records
(:mod:`pfc.integrations.eee`).

    >>> row = to_row(Example.from_dict({"id": "a", "benchmark": "ptbench", "query": "hi", "gold": None}))
    >>> to_examples([row])[0].to_dict() == Example.from_dict({"id": "a", "benchmark": "ptbench", "query": "hi", "gold": None}).to_dict()
    True
"""
from __future__ import annotations

import json
import re
from pathlib import Path
import argparse
import sys

from pfc import benchmarks, paths, provenance
from pfc.errors import MissingDependency, UserError
from pfc.schema import Example, load_examples
from pfc.io import atomic
from pfc.data.origin import origin
from pfc.io.dirset import replace_dir
from pfc.io.safepath import not_input

JSON_FIELDS = ("gold", "profile", "environment", "history", "tools", "meta")


def _exports() -> dict:
    """``{name: pfc.benchmarks.adapter.Export}`` of the benchmarks pfc generates (each ``Building.export``)."""
    found = (benchmarks.usable(n) for n in benchmarks.names())  # a broken outside one: refused when named
    return {a.name: a.building.export for a in found if a is not None and a.building.export is not None}


LICENSE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+_-]{0,63}")  # a Hub license id: one YAML scalar, no newline


def to_row(ex: Example) -> dict:
    d = ex.to_dict()
    row = {"id": ex.id, "benchmark": ex.benchmark, "user_id": ex.user_id, "query": ex.query,
           "is_refusal": ex.is_refusal, "n_history": len(ex.history)}
    row.update({k: json.dumps(d[k], ensure_ascii=False) for k in JSON_FIELDS})
    return row


def to_examples(rows) -> list[Example]:
    """Rows (dicts, a ``datasets.Dataset`` or a list of them) back to examples, validated by the schema."""
    out = []
    for i, r in enumerate(rows):
        d = {"id": r["id"], "benchmark": r["benchmark"], "user_id": r["user_id"], "query": r["query"]}
        try:
            d.update({k: json.loads(r[k]) for k in JSON_FIELDS})
        except (TypeError, json.JSONDecodeError) as e:
            raise UserError(f"row {i}: a JSON column does not decode: {e}") from None
        out.append(Example.from_dict(d))
    return out


def splits_of(benchmark: str, examples) -> dict[str, Path]:
    """``{split: examples.jsonl}``: a PTBench build directory gives its four splits; anything else one ``test`` split."""
    p = Path(examples)
    exports = _exports()
    splits = exports[benchmark].splits if benchmark in exports else ()
    if p.is_dir() and splits and (p / "unified").is_dir():
        return {s: p / "unified" / s / "examples.jsonl" for s in splits
                if (p / "unified" / s / "examples.jsonl").exists()}
    f = p / "examples.jsonl" if p.is_dir() else p
    if not f.exists():
        raise UserError(f"{paths.relative(f)}: no such file (--examples: a benchmark directory or examples.jsonl)")
    return {"test": f}


def export(benchmark: str, examples, out, license: str = "cc-by-4.0") -> dict:
    """Write the Parquet splits, ``tools.json`` (when the benchmark has one) and ``README.md`` into ``out``."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    exportable = tuple(_exports())
    third_party = benchmarks.get(benchmark).building.third_party if benchmark in benchmarks.NAMES else ""
    if third_party:
        raise UserError(f"{third_party} is third-party data and is never exported "
                        f"(export {' or '.join(exportable)})")
    if benchmark not in exportable:
        raise UserError(f"--benchmark: expected one of {exportable}, got {benchmark!r}")
    if not LICENSE.fullmatch(str(license)):
        raise UserError(f"expected a license identifier (letters, digits, '.', '+', '_', '-'), got {license!r}",
                        field="--license")
    out = not_input(out, {"--examples": examples})
    loaded = {}
    for split, f in splits_of(benchmark, examples).items():
        exs = load_examples(f)
        wrong = next((e for e in exs if e.benchmark != benchmark), None)
        if wrong is not None:
            raise UserError(f"{paths.relative(f)}: record {wrong.id!r}: field 'benchmark' is {wrong.benchmark!r}, "
                            f"expected {benchmark!r}")
        loaded[split] = exs
    src = Path(examples) if Path(examples).is_dir() else Path(examples).parent
    where = origin([e for exs in loaded.values() for e in exs], examples)
    if where["third_party"]:
        raise UserError(f"holds examples of {where['third_party']}, third-party data that is never exported "
                        "(export what pfc builds)", file=paths.relative(Path(examples)))
    stats = json.loads((src / "stats.json").read_text()) if (src / "stats.json").exists() else {}
    counts = {split: {"examples": len(exs), "refusals": sum(e.is_refusal for e in exs),
                      "users": len({e.user_id for e in exs})} for split, exs in loaded.items()}
    # built beside `out` and swapped in whole, the card last: no split of an earlier export survives, a stop
    # leaves the old export, and a link in the old folder is never written through
    with replace_dir(out, "README.md", "dataset export", ours=_is_export, made=_exported) as tmp:
        (tmp / "data").mkdir()
        for split, exs in loaded.items():
            with atomic.staged(tmp / "data" / f"{split}-00000-of-00001.parquet") as part:
                pq.write_table(pa.Table.from_pylist([to_row(e) for e in exs], schema=SCHEMA(pa)), part)
        if (src / "tools.json").exists():
            atomic.write_bytes(tmp / "tools.json", (src / "tools.json").read_bytes())
        atomic.write_text(tmp / "README.md", card(benchmark, counts, stats, license, where))
    return counts


def _exported(rel: str) -> bool:
    """A path in an export's folder that ``pfc export`` writes: the card, the tools, ``data/`` and its parquet."""
    return rel in ("README.md", "tools.json", "data") or (rel.startswith("data/") and rel.count("/") == 1
                                                          and rel.endswith(".parquet"))


def _is_export(folder: Path) -> bool:
    """A folder an earlier ``pfc export`` wrote (its card says so)."""
    if (folder / "README.md").is_symlink():
        return False
    try:
        return "as built by pfc" in (folder / "README.md").read_text(encoding="utf-8", errors="replace")[:4000]
    except OSError:
        return False


def SCHEMA(pa):
    """The Parquet schema of a split (``pa``: the ``pyarrow`` module, imported where it is written)."""
    cols = [("id", pa.string()), ("benchmark", pa.string()), ("user_id", pa.string()), ("query", pa.string()),
            ("is_refusal", pa.bool_()), ("n_history", pa.int64())]
    return pa.schema(cols + [(k, pa.string()) for k in JSON_FIELDS])


def card(benchmark: str, counts: dict, stats: dict, license: str, where: dict | None = None) -> str:
    """The dataset card: YAML header for the Hub (license, splits), then generator, seed, statistics, scoring."""
    info = _exports()[benchmark]
    title, cmd = info.title, build_command(info.command, stats)
    seed = stats.get("seed", "unknown")
    yaml = ["---", f"license: {license}", f"pretty_name: {title} (pfc build)", "configs:", "- config_name: default",
            "  data_files:"] + [f"  - split: {s}\n    path: data/{s}-*.parquet" for s in counts] + ["---", ""]
    rows = ["| split | examples | refusals (gold = no call) | users |", "|---|---:|---:|---:|"]
    rows += [f"| {s} | {c['examples']} | {c['refusals']} | {c['users']} |" for s, c in counts.items()]
    where = where or {}
    source = stats.get("source", info.source) if where.get("source", "unknown") == "unknown" else where["source"]
    derived = "; ".join(where.get("derived", []))
    source += f", then {derived}" if derived else ""
    body = [f"# {title}, as built by pfc", "",
            f"Generated by the `pfc` repository (commit `{provenance.git_commit() or 'unknown'}`), "
            f"not by the paper's authors: `{cmd}`. Source data: {source}; seed {seed}. "
            "The same seed gives the same bytes.", "", "## Statistics", "", *rows, "",
            "## Columns", "",
            "`id`, `benchmark`, `user_id`, `query`, `is_refusal`, `n_history`; the nested fields `gold`, `profile`, "
            "`environment`, `history`, `tools` and `meta` are JSON strings (exact values of any type). "
            + ("`tools.json` lists the candidate tools. " if info.tool_file else "") + "", "",
            "## Load and score", "", "```python", "import datasets",
            'ds = datasets.load_dataset("parquet", data_dir="DIR")',
            "from pfc.integrations.hf_datasets import to_examples",
            f'examples = to_examples(ds["{next(iter(counts))}"])   # back to pfc.schema.Example, losslessly',
            "```", "", "Write your model's answers as `predictions.jsonl` (`{\"id\": ..., \"output\": ...}` per line) "
            "and score them with the one scorer:", "", "```",
            f"pfc score --benchmark {benchmark} --examples examples.jsonl --predictions predictions.jsonl --out scores/",
            "```", "", "(`examples.jsonl`: `pfc.schema.write_examples(examples, \"examples.jsonl\")`.)", "",
            "## License", "", f"`{license}` for this synthesized data (no third-party content; "
            "the ToolSpectrum release is never exported).", ""]
    return "\n".join(yaml + body)


def build_command(template: str, stats: dict) -> str:
    """``Export.command`` with the build's ``{seed}`` and ``{users}`` from its ``stats.json``; a flag whose value is
    not recorded there (a variant set's folder has none) is left out, so the command still runs (with the builder's
    default)."""
    known = {"seed": stats.get("seed"), "users": stats.get("table2", {}).get("users")}
    for key, value in known.items():
        if not isinstance(value, int) or isinstance(value, bool):
            template = re.sub(r" --[\w-]+ \{" + key + r"\}", "", template)
    return template.format(**{k: v for k, v in known.items() if "{" + k + "}" in template})


def _export_cmd(args) -> int:
    runs = (args.inspect or []) + args.runs
    if args.format == "eee" and not args.inspect:
        from pfc.integrations import eee  # the scorer (pandas) loads only here
        if not runs:
            raise UserError("expected one or more run directories (pfc export --format eee RUN...)")
        eee.export(runs, args.out)
        return 0
    if args.format == "inspect" or args.inspect:
        try:
            from pfc.integrations import inspect_logs  # inspect_ai loads only here
        except ModuleNotFoundError as e:
            raise MissingDependency(f"--inspect needs inspect_ai ({e.name} is missing): "
                                    "pip install -e .[inspect]") from None
        if not runs:
            raise UserError("expected one or more run directories (pfc export --inspect RUN...)")
        inspect_logs.export(runs, args.out)
        return 0
    if runs:
        raise UserError("run directories are exported as inspect_ai logs or Every Eval Ever records: "
                        "pfc export --format inspect|eee RUN...")
    for flag, value in (("--benchmark", args.benchmark), ("--examples", args.examples), ("--out", args.out)):
        if not value:
            raise UserError("required by the Parquet export (or export runs: --inspect RUN...)", field=flag)
    counts = export(args.benchmark, args.examples, args.out, args.license)
    print(json.dumps(counts))
    print(f"pfc export: wrote {paths.relative(Path(args.out))}/README.md and data/<split>-00000-of-00001.parquet "
          f"({', '.join(counts)}); load with datasets.load_dataset(\"parquet\", data_dir=...)", file=sys.stderr)
    return 0


def add_command(sub) -> None:
    """``pfc export``: registered by ``pfc.cli``; ``--inspect RUN...`` (or ``--format inspect RUN...``) writes
    inspect_ai logs of runs instead (:mod:`pfc.integrations.inspect_logs`), ``--format eee RUN...`` Every Eval Ever
    records (:mod:`pfc.integrations.eee`)."""
    p = sub.add_parser("export", help="a benchmark we build as Hugging Face Parquet splits + dataset card; "
                                      "runs as inspect_ai logs (--inspect) or Every Eval Ever records (--format eee)",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog="example:\n  pfc export --benchmark tracebench --examples data/benchmarks/tracebench "
                              "--out hf/tracebench")
    p.add_argument("runs", nargs="*", help="run directories, with --format inspect or eee")
    p.add_argument("--format", choices=("hf", "inspect", "eee"), default="hf",
                   help="hf: Parquet splits + card (default); inspect: one inspect_ai .eval log per run directory; "
                        "eee: one Every Eval Ever aggregate .json + instance-level _samples.jsonl per run directory")
    p.add_argument("--inspect", nargs="+", metavar="RUN", help="run directories to write as inspect_ai .eval logs, "
                   "e.g. pfc export --inspect data/runs/hp data/runs/nh (same as --format inspect RUN...)")
    p.add_argument("--benchmark", help="tracebench or ptbench (the ToolSpectrum release is refused)")
    p.add_argument("--examples", help="a benchmark directory (PTBench: its build directory, four "
                                      "splits) or an examples.jsonl (one 'test' split)")
    p.add_argument("--out", help="output directory (inspect logs: default reports/inspect_logs; eee: reports/eee)")
    p.add_argument("--license", default="cc-by-4.0", help="license named in the dataset card (default cc-by-4.0)")
    p.set_defaults(func=_export_cmd)
