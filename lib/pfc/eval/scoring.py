"""Score predictions against examples: per-example rows, flat metrics, error rows; write them.

The thin wrapper over the pure core (``pfc.eval.parsing`` -> ``pfc.eval.checker`` -> ``pfc.eval.metrics``,
``pfc.eval.taxonomy``), with I/O at the edges. Every example gets a row; a missing or unparsable prediction is a failure
row, never dropped.

    >>> # report = score(examples, {"id": "output text"}, "ptbench"); report.metrics["overall"]
"""
from __future__ import annotations

import gc
import json
import math
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from pfc.errors import UserError
from pfc.io import atomic
from pfc.io.lock import writer_lock
from pfc import benchmarks, provenance as prov
from pfc.benchmarks.ptbench import official as official
from pfc.eval import ask
from pfc.eval.metrics import compute
from pfc.eval.parsing import ParseResult, parse
from pfc.schema import Example, SchemaError
from pfc.eval.strict import exact_template
from pfc.eval.taxonomy import error_rows

MODES = {"robust": "format: any readable call (prose, fences, <think> allowed); values normalised (pfc.eval.matching)",
         "strict": "format: exactly the required template with the app named (pfc.eval.strict); values and app names "
                   "compared exactly"}


def json_safe(metrics: dict) -> dict:
    """Metrics for strict JSON: NaN (undefined, e.g. no example of a kind) becomes null."""
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in metrics.items()}


@dataclass
class ScoreReport:
    metrics: dict[str, float]
    per_example: pd.DataFrame
    errors: pd.DataFrame
    coverage: dict = field(default_factory=dict)     # pfc.eval.coverage.coverage(): matched/missing/unknown/duplicate
    provenance: dict = field(default_factory=dict)   # inputs (paths as given, sha256), mode, versions, commit
    mode: str = "robust"          # robust | strict | official (which rules produced the metrics)

    def write(self, out_dir) -> Path:
        """``metrics.json``, ``per_example.csv``, ``errors.csv``, and ``score.json`` (provenance + coverage),
        as one set (:func:`pfc.io.atomic.write_set`, ``score.json`` last) under the directory's writer lock: a full disk
        or a kill leaves the previous score whole; a second writer is refused."""
        out = Path(out_dir)
        meta = {**self.provenance, "mode": self.mode,
                "mode_description": MODES.get(self.mode, "the published evaluator's rules"), "coverage": self.coverage}
        files = {"metrics.json": atomic.dumps(json_safe(self.metrics), indent=1, allow_nan=False) + "\n",
                 "per_example.csv": _csv(self.per_example), "errors.csv": _csv(self.errors),
                 "score.json": atomic.dumps(meta, indent=1, allow_nan=False) + "\n"}
        with writer_lock(out, "score directory"):
            atomic.write_set(out, files, stamp="score.json")
        return out


def _csv(df: pd.DataFrame) -> bytes:
    """CSV bytes; text UTF-8 cannot carry (a lone surrogate in a model's output) kept as a ``\\ud800`` escape."""
    return df.to_csv(index=False).encode("utf-8", "backslashreplace")


_ERROR_COLUMNS = ["id", "level", "error_type", "function", "argument", "status", "source",
                  "required", "gold", "predicted", "detail"]


def _group_value(ex: Example, key: str):
    if key == "history_bin":
        n = ex.meta.get("history_length", len(ex.history) if ex.history else None)
        return None if n is None else history_bin(int(n))
    v = ex.meta.get(key)
    if isinstance(v, list):
        v = "+".join(map(str, v))
    return v


from pfc.groups import history_bin  # noqa: E402  Fig. 4 bins
from pfc.benchmarks.shape import check_examples, check_predictions
from pfc.eval import coverage as cov
from pfc.progress import stream as progress_stream


def score(examples: list[Example], outputs: dict, benchmark: str, tools=None,
          style: str | None = None, compat: str | None = None, strict: bool = False,
          actions: bool | None = None) -> ScoreReport:
    """Score ``outputs`` ({example id: raw output}) on ``examples``.

    ``actions`` (default: whether any example is an ``ask`` or ``cannot`` item; the ask-allowed prompt's runs pass
    True): each reply is also read as an action and ask/cannot items are scored on it (``pfc.eval.ask``), with the
    action metrics among the headline ones.

    ``strict``: format counts only output that is exactly the benchmark's template with the app named
    (``pfc.eval.strict``), and values and app names must be exactly equal; the metric keys are the same,
    ``ScoreReport.mode`` says which rules produced them.
    """
    if compat == "official":
        if not benchmarks.get(benchmark).scoring.official_compat:
            having = [n for n in benchmarks.NAMES if benchmarks.get(n).scoring.official_compat]
            raise UserError(f"--compat official exists for {', '.join(having)} only")
        if strict:
            raise UserError("--strict and --compat official are different rule sets; choose one")
        return _score_official(examples, outputs)
    if compat not in (None, "robust"):
        raise UserError(f"unknown compat mode {compat!r}")
    from tqdm import tqdm
    adapter = benchmarks.get(benchmark)
    ctx = adapter.scoring.context(examples, tools or [])
    rows, errs = [], []
    bar = tqdm(examples, desc=f"scoring {benchmark}", unit="ex", mininterval=0.5, file=progress_stream(),
               disable=True if len(examples) < 5000 else None)  # None: shown on a terminal only
    actions = any(e.action != "call" for e in examples) if actions is None else actions
    by_key = {t.key: t for t in tools or []}
    for ex in bar:
        row, cmp, etype = example_row(ex, outputs, benchmark, adapter, ctx, style, strict)
        if actions:  # an ask or cannot item is scored on its action, never against the gold its follow-up keeps
            row, etype = ask.score_row(ex, outputs.get(ex.id), row, etype, by_key)
            cmp = cmp if ex.action == "call" else replace(cmp, args=[], parse_error=None)
        rows.append(row)
        errs += error_rows(ex.id, cmp, etype)
    df = pd.DataFrame(rows)
    metrics = headline(adapter, df)
    if actions:
        metrics.update(compute({m: m for m in ask.ACTION_METRICS}, ask.pairs(df)))
    for key in adapter.scoring.group_by:
        for value, part in df.groupby(key, dropna=True):
            metrics.update(compute(adapter.scoring.metric_keys, part, prefix=f"{key}={value}/"))
    return ScoreReport(metrics, df, pd.DataFrame(errs, columns=_ERROR_COLUMNS),
                       mode="strict" if strict else "robust")


def example_row(ex: Example, outputs: dict, benchmark: str, adapter, ctx, style: str | None = None,
                strict: bool = False):
    """One example's row of ``per_example`` (id, its groups, error type, validity, the adapter's columns),
    its comparison and error type: what :func:`score` tabulates (``outputs`` may lack the example)."""
    out = outputs.get(ex.id)
    reason = exact_template(out, benchmark) if strict and ex.id in outputs else None
    if ex.id not in outputs:
        result = ParseResult(False, [], "input:missing_prediction")
    elif reason:
        result = ParseResult(False, [], reason)
    else:
        result = parse(out, style or adapter.scoring.style)
    result.exact = strict  # compare() holds it to strict rules (pfc.eval.checker)
    row, cmp, etype = adapter.scoring.row(ex, result, ctx)
    row = {"id": ex.id, **{k: _group_value(ex, k) for k in adapter.scoring.group_by},
           "error_type": etype or "", "valid": int(etype is None and cmp.overall), **row}
    return row, cmp, etype


def headline(adapter, per_example: pd.DataFrame) -> dict:
    """The benchmark's headline metrics over per-example rows (:func:`example_row`)."""
    return compute(adapter.scoring.metric_keys, per_example)


def check(example: Example, output, benchmark: str, tools=None, style: str | None = None):
    """BFCL-style checker for one example: ``(valid, error_type "family:subtype" | None, details)``.

    ``details`` holds the example's per-example columns, the parse error and the per-argument results. A checker never
    raises on model output.
    """
    adapter = benchmarks.get(benchmark)
    result = parse(output, style or adapter.scoring.style)
    row, cmp, etype = adapter.scoring.row(example, result, adapter.scoring.context([example], tools or []))
    details = {**row, "parse_error": result.error,
               "arguments": [{"function": a.function, "argument": a.argument, "status": a.status,
                              "source": a.role.source if a.role else None} for a in cmp.args]}
    return etype is None and cmp.overall, etype, details


def _score_official(examples: list[Example], outputs: dict) -> ScoreReport:
    """The published PTBench evaluator's numbers (see ``pfc.benchmarks.ptbench.official``)."""
    rows, by_split = [], {}
    for ex in examples:
        answer = ex.meta.get("official_answer")
        if answer is None:
            raise UserError(f"example {ex.id}: --compat official needs the official data.json")
        params = {"query_params": ex.meta["query_params"], "profile_params": ex.meta["profile_params"]}
        r = official.score_sample(answer, outputs.get(ex.id), params)
        rows.append({"id": ex.id, "trained": ex.meta.get("trained"), **r,
                     "n_query": len(params["query_params"]), "n_profile": len(params["profile_params"])})
        by_split.setdefault(ex.meta.get("trained"), []).append(rows[-1])

    def agg(rs):
        return official.aggregate(rs, sum(r["n_query"] for r in rs), sum(r["n_profile"] for r in rs))

    metrics = agg(rows)
    if set(by_split) == {True, False}:
        un, tr = agg(by_split[False]), agg(by_split[True])
        metrics = official.combine(un, tr, len(by_split[False]), len(by_split[True]))
        metrics.update({f"trained=True/{k}": v for k, v in tr.items()})
        metrics.update({f"trained=False/{k}": v for k, v in un.items()})
    df = pd.DataFrame(rows)
    errs = [{"id": r["id"], "level": "example", "error_type": "format:official" if not r["format"] else
             next((k for k in official.ERROR_KEYS if r[k]), ""), "detail": r["detail"]}
            for r in rows if not r["format"] or any(r[k] for k in official.ERROR_KEYS)]
    return ScoreReport(metrics, df, pd.DataFrame(errs, columns=_ERROR_COLUMNS), mode="official")


@contextmanager
def paused_gc():
    """Pause the cyclic garbage collector (refcounting still frees memory).

    Scoring allocates many small acyclic objects; with 100k examples alive, repeated full collections cost ~30% of the
    time (measured: benchmarks/bench_scoring.py).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def score_files(benchmark: str, examples_path, predictions_path, tools_path=None,
                style: str | None = None, compat: str | None = None, strict: bool = False,
                actions: bool | None = None) -> ScoreReport:
    """Score files; refuses examples of another benchmark, and predictions that match no example id.

    ``strict``: any missing, unknown or duplicate prediction id is an error (``pfc.eval.coverage``). The report carries
    ``coverage`` and ``provenance`` (written as ``score.json``).
    """
    with paused_gc():
        return _score_files(benchmark, examples_path, predictions_path, tools_path, style, compat, strict, actions)


def _score_files(benchmark, examples_path, predictions_path, tools_path, style, compat, strict,
                 actions=None) -> ScoreReport:
    adapter = benchmarks.get(benchmark)
    check_examples(benchmark, examples_path)
    check_predictions(predictions_path)
    if compat == "official" and adapter.scoring.official_compat:  # compat reads the raw answers only
        examples, tools = adapter.scoring.load(examples_path, tools_path, gold=False)
    else:
        examples, tools = adapter.scoring.load(examples_path, tools_path)
    if not examples:
        raise SchemaError("no examples", file=str(examples_path))
    kinds = sorted({e.benchmark for e in examples})
    if kinds != [benchmark]:
        raise SchemaError(f"holds {'/'.join(kinds)} examples, not {benchmark} (check --benchmark)",
                          file=str(examples_path), field="benchmark")
    outputs = adapter.scoring.load_predictions(predictions_path, examples)
    coverage = cov.coverage([e.id for e in examples], outputs)
    cov.check(coverage, predictions_path, strict)
    report = score(examples, outputs, benchmark, tools, style, compat, strict, actions)
    report.coverage = coverage
    report.provenance = {
        "benchmark": benchmark,
        "options": {"compat": compat or "robust", "strict": strict, "style": style or adapter.scoring.style},
        "inputs": {"examples": prov.file_record(examples_path), "predictions": prov.file_record(predictions_path),
                   "tools": prov.file_record(tools_path)},
        "pfc_version": prov.versions(("pfc",)).get("pfc"), "git_commit": prov.git_commit(),
        "versions": prov.versions(("pandas", "numpy"))}
    return report
