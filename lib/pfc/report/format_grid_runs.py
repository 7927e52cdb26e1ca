"""The runs of a prompt-format grid: read, checked to differ in prompt settings only, scored both ways.

:func:`check` reads each run's identity (``run.json``, ``pfc.run.identity``) and refuses, in one line naming the run and
the field, a run that differs from the first in anything but the prompt settings (:data:`PROMPT_FIELDS`) and the model
(:data:`MODEL_FIELDS`: a grid holds one or more models, each a full set of cells; a baseline is a model too), and two
runs of one model in one cell. :func:`load` scores each run on the examples it was planned on (its ``ids``; a run with a
row missing is refused: it is not finished) with the robust and the strict rules (``pfc.eval.scoring``; the ``official``
rules exist for benchmarks with a published evaluator only, ``Scoring.official_compat``), and reads what its prompts
cost (:func:`cost`: its rows' ``generation``, else its ``usage.json``). The statistics are
``pfc.eval.format_sensitivity``'s; the command is ``pfc.report.format_grid``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from pfc import benchmarks, paths
from pfc.errors import UserError, read_text
from pfc.eval.scoring import score
from pfc.io.reuse import reading_once
from pfc.report.tables import _examples_path
from pfc.run.identity import RUN_JSON, _flat


PROMPT_FIELDS = ("prompt_variant", "native_tools", "prompt_template.sha256", "prompt_template.source")
MODEL_FIELDS = ("backend", "backend_version", "model", "model_identity")


@dataclass
class GridRun:
    run_dir: Path
    identity: dict                 # flat (``a.b`` keys)
    model: str
    cell: str
    robust: pd.DataFrame | None = None
    strict: pd.DataFrame | None = None
    cost: dict = field(default_factory=dict)


def identity(run_dir: Path) -> dict:
    """The run's identity, flat; a directory without one is a :class:`UserError` naming ``run.json``."""
    f = Path(run_dir) / RUN_JSON
    try:
        ident = json.loads(f.read_text(encoding="utf-8"))["identity"]
    except (OSError, ValueError, KeyError, TypeError):
        raise UserError("not a run's run.json (no identity): a format grid compares run directories",
                        file=paths.relative(f), field="identity") from None
    return _flat(ident)


def model_name(ident: dict) -> str:
    return str(ident.get("model") or ident.get("backend"))


def cell_name(ident: dict) -> str:
    """The run's grid cell, from its benchmark's prompt axes (its prompt module's ``formats``)."""
    prompts = benchmarks.get(ident["benchmark"]).prompts()
    formats = getattr(prompts, "formats", None)
    if formats is None or not hasattr(formats, "cell_name"):
        raise UserError(f"{ident['benchmark']} has no prompt axes (its prompt module has no formats.cell_name)",
                        field="benchmark")
    return formats.cell_name(ident.get("prompt_variant", "all"), bool(ident.get("native_tools", True)))


def check(run_dirs) -> list[GridRun]:
    """The runs, each with its model and cell; refused as the module says."""
    runs = [GridRun(Path(d), ident, model_name(ident), "") for d in run_dirs for ident in [identity(Path(d))]]
    if not runs:
        raise UserError("no runs given")
    first = runs[0]
    free = set(PROMPT_FIELDS) | set(MODEL_FIELDS)
    for r in runs[1:]:
        for key in sorted(set(r.identity) | set(first.identity)):
            a, b = first.identity.get(key), r.identity.get(key)
            if key not in free and not any(key.startswith(f + ".") for f in free) and a != b:
                raise UserError(f"field {key!r} differs from {paths.relative(first.run_dir)} ({_short(a)} -> "
                                f"{_short(b)}); a format grid compares runs differing in prompt settings only",
                                file=paths.relative(r.run_dir))
    seen: dict = {}
    for r in runs:
        r.cell = cell_name(r.identity)
        if (r.model, r.cell) in seen:
            raise UserError(f"{r.model} has two runs of cell {r.cell!r} (also {paths.relative(seen[r.model, r.cell])})",
                            file=paths.relative(r.run_dir))
        seen[r.model, r.cell] = r.run_dir
    return runs


def _short(v) -> str:
    s = json.dumps(v, default=str)
    return s[:40] + "…" if len(s) > 40 else s


def _planned(run_dir: Path) -> tuple[dict, list, list]:
    """The run's config and the examples it was planned on (its ``ids``; all of the build without them)."""
    config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    adapter = benchmarks.get(config["benchmark"])
    exs, tools = adapter.scoring.load(_examples_path(run_dir, config, None), None)
    if config.get("ids"):
        wanted = set(config["ids"])
        exs = [e for e in exs if e.id in wanted]
    return config, exs, tools


def cost(run_dir: Path) -> dict:
    """Mean prompt tokens and seconds per example: over the rows that recorded their ``generation``; else from
    ``usage.json`` (its last invocation: prompt tokens per backend call, the median per-request latency, which
    ``openvino`` writes as its batch's seconds over its rows); None where neither says."""
    rows = [json.loads(line) for line in (run_dir / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    gen = [r["generation"] for r in rows if isinstance(r.get("generation"), dict)]
    if gen:
        return {"rows": len(rows), "measured": len(gen), "source": "rows",
                "prompt_tokens": sum(g.get("prompt_tokens", 0) for g in gen) / len(gen),
                "s_per_example": sum(g.get("prefill_s", 0) + g.get("decode_s", 0) for g in gen) / len(gen)}
    try:
        usage = json.loads((run_dir / "usage.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        usage = {}
    calls = usage.get("backend_calls") or 0
    latency = usage.get("latency_s") or {}
    return {"rows": len(rows), "measured": calls, "source": "usage.json" if calls else None,
            "prompt_tokens": usage.get("prompt_tokens", 0) / calls if calls and usage.get("prompt_tokens") else None,
            "s_per_example": latency.get("p50") if calls else None}


def _finished(run_dir: Path, planned: int) -> None:
    """Refuse a run with fewer rows than requests planned: scoring it would count each missing row as a wrong answer."""
    f = run_dir / "predictions.jsonl"
    rows = sum(1 for line in read_text(f).splitlines() if line.strip()) if f.is_file() else 0  # non-UTF-8: one line
    if rows < planned:
        raise UserError(f"{rows} of {planned} planned requests answered: a grid compares finished runs (resume it, "
                        "or leave it out)", file=paths.relative(f))


def load(run_dirs) -> list[GridRun]:
    """:func:`check`, then each run scored robust and strict (``user_id`` attached) and its cost."""
    runs = check(run_dirs)
    with reading_once():
        for r in runs:
            config, exs, tools = _planned(r.run_dir)
            _finished(r.run_dir, len(exs))
            adapter = benchmarks.get(config["benchmark"])
            outputs = adapter.scoring.load_predictions(r.run_dir / "predictions.jsonl", exs)
            users = {e.id: e.user_id for e in exs}
            for mode in ("robust", "strict"):
                df = score(exs, outputs, config["benchmark"], tools, strict=mode == "strict").per_example
                setattr(r, mode, df.assign(user_id=df["id"].map(users)))
            r.cost = cost(r.run_dir)
    return runs
