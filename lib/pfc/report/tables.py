"""Result tables over any set of run directories: Table 4 / Table 1 / Table 3 layouts, by group, with CIs.

A run directory is ``predictions.jsonl`` + ``config.json`` (``benchmark``, ``examples``;
``model``/``backend``/``strategy`` name the run). :func:`load_run` scores it (``pfc.eval.scoring``) and records content
hashes; the table functions take loaded runs and return tidy DataFrames (one row per run × group × metric, with the
value, its bootstrap 95% interval and n). :func:`layout` turns them into the paper's layout and :func:`beside_paper`
stacks the paper's printed numbers under ours, labelled ``paper``. No I/O besides :func:`load_run`.

    >>> # runs = [load_run("data/runs/hp"), load_run("data/runs/nh")]; layout(metric_table(runs), "tracebench")
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from pfc.errors import UserError
from pfc.provenance import sha256_path
from pfc import benchmarks, paths
from pfc.report import paper_results as P
from pfc.report.reference import run as reference
from pfc.report.labels import run_label  # noqa: F401  (re-exported: tables.run_label)
from pfc.eval.bootstrap import N_BOOT, intervals
from pfc.eval.metrics import METRICS, compute
from pfc.io.reuse import reading_once
from pfc.report.reference.run import joins_tables
from pfc.run.identity import answered_sha256, check_answered, plan_record

TB_METRICS = ["format", "app", "function_name", "function_param_names", "function_param_values", "overall"]
VALUE_SOURCES = ["query", "profile", "environment", "long_term_history", "recent_context"]
PT_METRICS = ["format", "platforms", "query_params", "profile_params", "tool_names", "tool_param_names",
              "tool_param_values", "overall"]
TS_LEVELS = ["APP", "API", "RP", "OP"]
GROUP_TITLES = {"vagueness": "query vagueness level", "history_bin": "history length (records)",
                "personalization": "personalization type", "subset": "ToolSpectrum subset",
                "domain": "domain", "trained": "trained user"}


@dataclass
class Run:
    name: str
    benchmark: str
    config: dict
    per_example: pd.DataFrame
    metrics: dict
    errors: pd.DataFrame
    hashes: dict = field(default_factory=dict)
    run_dir: str | None = None
    coverage: dict = field(default_factory=dict)  # pfc.eval.coverage: matched/missing/unknown/duplicate
    plan: dict = field(default_factory=dict)      # the record of the plan that made it (run.json), {} for none


def _examples_path(run_dir: Path, config: dict, examples) -> Path:
    if examples is not None:
        return Path(examples)
    if not isinstance(config.get("examples"), str):
        raise UserError(f"{run_dir / 'config.json'}: field 'examples' missing or not a path; pass the examples "
                        "explicitly")
    return paths.source(config["examples"])  # built data: under PFC_OUTPUT_ROOT when made there, else the checkout


def load_run(run_dir, examples=None, tools=None, name: str | None = None) -> Run:
    """Score one run directory; ``examples``/``tools`` override the paths in its config."""
    from pfc.eval.scoring import score_files
    d = Path(run_dir)
    cfg_path, pred = d / "config.json", d / "predictions.jsonl"
    for f in (cfg_path, pred):
        if not f.exists():
            raise FileNotFoundError(f"{f}: not found (a run directory holds predictions.jsonl and config.json)")
    try:
        config = json.loads(cfg_path.read_text())
    except json.JSONDecodeError as e:
        raise UserError(f"{cfg_path}: invalid JSON: {e.msg} (line {e.lineno})") from None
    except (UnicodeDecodeError, RecursionError):
        raise UserError(f"{cfg_path}: not a run's config.json (unreadable text or nested too deeply)") from None
    if not isinstance(config, dict):
        raise UserError(f"{cfg_path}: not a run's config.json (expected a JSON object, got {type(config).__name__})")
    bench = config.get("benchmark")
    if bench not in benchmarks.NAMES:
        raise UserError(f"{cfg_path}: field 'benchmark' is {bench!r}; expected one of {benchmarks.NAMES}")
    ex_path = _examples_path(d, config, examples)
    plan = plan_record(d)
    asks = str(config.get("prompt_variant") or "").startswith("ask")  # the ask-allowed prompt: replies are actions
    if examples is None and tools is None and reference.joins_tables(plan):  # as its run.json says: a reference
        from pfc.eval.coverage import coverage  # run of the tables, scored on the rows it holds, labelled with its n
        from pfc.eval.scoring import score
        _, exs, outputs, ts, planned, label = reference.present(d)
        rep = score(exs, outputs, bench, ts, actions=asks or None)
        rep.coverage = {**coverage([e.id for e in exs], outputs), "planned": planned}
        name = name or label
    else:
        rep = score_files(bench, ex_path, pred, tools, actions=asks or None)
        if answered_sha256(d):  # what pfc run checks: these are the examples it answered
            check_answered(d, bench, ex_path, tools, *benchmarks.get(bench).scoring.load(ex_path, tools))
    ex_file = ex_path / "examples.jsonl" if ex_path.is_dir() else ex_path
    hashes = {"predictions.jsonl": sha256_path(pred), "config.json": sha256_path(cfg_path)}
    if ex_file.is_file():
        hashes["examples"] = sha256_path(ex_file)
    return Run(name or run_label(config, d.name), bench, config, rep.per_example, rep.metrics, rep.errors,
               hashes, paths.relative(d), rep.coverage, plan)


def load_runs(run_dirs, examples=None, tools=None) -> list[Run]:
    """:func:`load_run` of each directory, named apart (:func:`unique_names`); a benchmark build that several
    runs share is read once (``pfc.io.reuse``)."""
    with reading_once():
        return unique_names([load_run(d, examples=examples, tools=tools) for d in run_dirs])


def unique_names(runs: list[Run]) -> list[Run]:
    """Two runs of one benchmark with the same label get their directory name appended (a table never merges runs)."""
    seen: dict[tuple, int] = {}
    for r in runs:
        seen[(r.benchmark, r.name)] = seen.get((r.benchmark, r.name), 0) + 1
    for r in runs:
        if seen[(r.benchmark, r.name)] > 1 and r.run_dir:
            r.name = f"{r.name} ({Path(r.run_dir).name})"
    return runs


def metric_keys(benchmark: str) -> dict[str, str]:
    """{published key: metric name} with an interval (counts dropped)."""
    return {k: m for k, m in benchmarks.get(benchmark).scoring.metric_keys.items() if METRICS[m].aggregation != "sum"}


def _rows(run: Run, df: pd.DataFrame, keys: dict, n_boot: int, seed: int, **extra) -> list[dict]:
    point = compute(keys, df)
    ci = intervals(df, keys, n_boot, seed) if n_boot else {}
    return [{"run": run.name, "benchmark": run.benchmark, **extra, "metric": k, "value": point[k], "lo": ci.get(k, (None, None))[0],
             "hi": ci.get(k, (None, None))[1], "n": len(df)} for k in keys]


def metric_table(runs: list[Run], n_boot: int = N_BOOT, seed: int = 0) -> pd.DataFrame:
    """One row per run × metric over all examples: value, lo, hi (bootstrap 95%), n."""
    rows = []
    for r in runs:
        rows += _rows(r, r.per_example, metric_keys(r.benchmark), n_boot, seed)
    return pd.DataFrame(rows)


def group_order(key: str, values, stats: dict | None = None) -> list:
    """Group values in the paper's order: vagueness most clear -> most vague, history bins ascending."""
    values = [v for v in dict.fromkeys(values) if v is not None and v == v]
    if key == "vagueness":
        from pfc.data.querygen import LEVELS
        return [lv for lv in LEVELS if lv in values] + sorted(v for v in values if v not in LEVELS)
    if key == "history_bin":
        stated = (stats or {}).get("history_bins") or []
        if isinstance(stated, dict):  # stats.json: {"unit", "bins": [...], ...}
            stated = stated.get("bins") or []
        stated = [b["label"] if isinstance(b, dict) else b for b in stated]
        from pfc.groups import HISTORY_BINS
        for order in (stated, list(HISTORY_BINS)):
            if order and set(values) <= set(order):
                return [b for b in order if b in values]
        return sorted(values, key=lambda s: [int(x) for x in re.findall(r"\d+", str(s))] or [0])
    if key == "subset":
        return [s for s in ("profile", "environment", "both") if s in values] + \
            sorted(v for v in values if v not in ("profile", "environment", "both"))
    return sorted(values, key=str)


TS_ORDER = [f"{s}/{lv}" for s in ("profile", "environment", "both") for lv in TS_LEVELS]


def toolspectrum_levels(runs: list[Run], n_boot: int = N_BOOT, seed: int = 0) -> pd.DataFrame:
    """ToolSpectrum Table 3/8 cells, built here only: one row per run × ``subset/level`` metric (ours, and
    the paper-compatible mode as ``subset/level_paper``) with value, lo, hi (``n_boot=0``: no interval)."""
    g = group_table(runs, "subset", TS_LEVELS + [f"{lv}_paper" for lv in TS_LEVELS], n_boot, seed)
    return g.assign(metric=g["group"] + "/" + g["metric"]).drop(columns="group")


def figure_runs(runs: list[Run]) -> tuple[list[Run], list[Run]]:
    """(runs to draw, runs left out): a run of a model that also has a reference run of the tables on the same
    benchmark (as its ``run.json`` records, ``Run.plan``) is left out of figures, which draw the reference run instead
    (``make reproduce``'s 9-example sample of the same model would add a line whose intervals span 0 to 1). Tables keep
    every run.

    >>> r = lambda name, plan: Run(name, "tracebench", {"model": "m"}, None, {}, None, plan=plan)
    >>> [x.name for x in figure_runs([r("sample", {}), r("ref", {"plan": "reference", "tables": True})])[0]]
    ['ref']
    """

    def is_ref(r: Run) -> bool:
        return joins_tables(r.plan)
    covered = {(r.benchmark, r.config.get("model")) for r in runs if is_ref(r)}
    drawn, left_out = [], []
    for r in runs:  # a partition by position: runs are dataclasses holding DataFrames, never compared with ==
        (drawn if is_ref(r) or (r.benchmark, r.config.get("model")) not in covered else left_out).append(r)
    return drawn, left_out


def group_table(runs: list[Run], key: str, metrics: list[str] | None = None, n_boot: int = N_BOOT,
                seed: int = 0, explode: bool = False) -> pd.DataFrame:
    """One row per run × group value × metric. ``explode``: a '+'-joined value counts in each part."""
    rows = []
    for r in runs:
        if key not in r.per_example.columns:
            continue
        keys = metric_keys(r.benchmark)
        keys = {k: v for k, v in keys.items() if metrics is None or k in metrics}
        df = r.per_example
        if explode:
            df = df.assign(**{key: df[key].fillna("").astype(str).replace("", "none").str.split("+")}).explode(key)
        for value, part in df.dropna(subset=[key]).groupby(key, sort=False):
            rows += _rows(r, part, keys, n_boot, seed, group=value)
    out = pd.DataFrame(rows)
    if len(out):
        order = group_order(key, out["group"])
        out["group"] = pd.Categorical(out["group"], categories=order, ordered=True)
        out = out.sort_values(["run", "group"], kind="stable").reset_index(drop=True)
        out["group"] = out["group"].astype(str)
    out.attrs["group"] = key
    return out


def fmt(value, lo=None, hi=None, digits: int = 3) -> str:
    if value is None or value != value:
        return "–"
    s = f"{value:.{digits}f}"
    return s if lo is None or lo != lo else f"{s} [{lo:.{digits}f}, {hi:.{digits}f}]"


def layout(long: pd.DataFrame, metrics: list[str] | None = None, with_ci: bool = True) -> pd.DataFrame:
    """Rows runs (× group), columns metrics, cells "value [lo, hi]" (strings) or values."""
    df = long if metrics is None else long[long["metric"].isin(metrics)]
    index = ["run", "group"] if "group" in df.columns else ["run"]
    df = df.assign(cell=[fmt(v, lo, hi) if with_ci else v for v, lo, hi in zip(df["value"], df["lo"], df["hi"])])
    wide = df.pivot_table(index=index, columns="metric", values="cell", aggfunc="first", sort=False)
    cols = [m for m in (metrics or list(dict.fromkeys(df["metric"]))) if m in wide.columns]
    wide = wide[cols]
    wide = wide.loc[:, [c for c in wide.columns if not str(c).startswith("value_acc_") or
                        (wide[c].astype(str) != "–").any()]]  # a source no example has
    wide.columns.name = None
    return wide


def beside_paper(ours: pd.DataFrame, paper: pd.DataFrame | None, digits: int = 4) -> pd.DataFrame:
    """Our rows, then the paper's rows, with a first index level ``source`` = ours | paper (never mixed)."""
    ours = ours.copy()
    names = ["source", *(ours.index.names if ours.index.names != [None] else ["run"])]
    ours.index = pd.MultiIndex.from_tuples([("ours", *((i,) if not isinstance(i, tuple) else i)) for i in ours.index],
                                           names=names)
    if paper is None or paper.empty:
        return ours
    p = paper[[c for c in ours.columns if c in paper.columns]].map(
        lambda v: "–" if v != v else f"{v:.{digits}f}")
    pad = (("",) * (ours.index.nlevels - 2))
    p.index = pd.MultiIndex.from_tuples([(P.LABEL, m, *pad) for m in paper.index], names=names)
    return pd.concat([ours, p]).fillna("–")


def run_manifest(runs: list[Run]) -> list[dict]:
    """Each run's identity: name, directory, benchmark, config and content hashes."""
    return [{"run": r.name, "run_dir": r.run_dir, "benchmark": r.benchmark, "n_examples": len(r.per_example),
             "config": r.config, "sha256": r.hashes} for r in runs]
