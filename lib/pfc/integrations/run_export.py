"""One ``pfc run`` directory as plain dicts, for the exporters of runs (``pfc export --inspect``).

:func:`read_run` reads a run directory (``config.json``, ``run.json``, ``predictions.jsonl``) and the examples
it answered (refused when they are not built, or are another build than the one it answered:
``pfc.run.identity.check_answered``), and gives per answered example the request the runner sent it
(rebuilt with ``pfc.run.requests.RequestBuilder`` from the settings ``config.json`` records, as
``pfc.run.runner`` builds it), its row of ``predictions.jsonl``, the scorer's per-example columns
(``pfc.eval.scoring.score``) and what the example says of itself (user, groups, value provenance, gold call).
It writes nothing and imports no outside tool (:mod:`pfc.integrations.inspect_logs` turns the dicts into a log).
"""
from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path

from pfc import benchmarks, paths
from pfc.plans.versions import history_examples
from pfc.errors import UserError
from pfc.eval.scoring import json_safe, score
from pfc.jsonl import iter_jsonl
from pfc.run.identity import check_answered
from pfc.run.requests import RequestBuilder


def _object(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UserError(f"unreadable JSON ({type(e).__name__})", file=paths.relative(path)) from None
    if not isinstance(doc, dict):
        raise UserError(f"expected a JSON object, got {type(doc).__name__}", file=paths.relative(path))
    return doc


def plain(v):
    """A per-example value as plain JSON (numpy scalars unwrapped, NaN as None)."""
    v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and math.isnan(v) else v


def builder(config: dict, tools, examples: list) -> RequestBuilder:
    """The run's request settings as ``pfc.run.runner`` sets them (its few-shot pool: every example for a run of
    sampled ids, else the first ``limit``)."""
    limit = config.get("limit") if config.get("ids") is None else None
    return RequestBuilder(config["benchmark"], tools, config.get("strategy", "zero_shot"),
                          config.get("history", "full"), config.get("k", 50), config.get("native_tools", True), config.get("sampling"),
                          examples[:limit] if limit else examples, config.get("prompt_variant", "all"),
                          config.get("layout", "paper"))


def example_fields(ex, per_example: dict, groups) -> dict:
    """An example's scores (the scorer's numeric per-example columns), labels (its groups, error type), user,
    gold call, meta and value provenance (``[{argument: source}]`` per gold call)."""
    cols = {k: plain(v) for k, v in per_example.items() if k != "id"}
    scores = {k: v for k, v in cols.items() if k not in groups and (v is None or isinstance(v, (int, float)))}
    gold = ex.to_dict()["gold"]
    calls = [c for c in gold or [] if isinstance(c, dict)]
    provenance = [{a: (r or {}).get("source") for a, r in (c.get("roles") or {}).items()} for c in calls]
    return {"scores": scores, "labels": {k: v for k, v in cols.items() if k not in scores}, "user": ex.user_id,
            "gold": gold, "meta": ex.meta, "provenance": provenance}

def read_run(run) -> dict:
    """``{"run", "config", "run_json", "metrics", "planned", "created", "samples": [...]}`` of one run directory
    (``created``: when the run finished, UTC: ``usage.json``'s ``finished_at``, which a checkout keeps, else
    ``predictions.jsonl``'s modification time)."""
    run = Path(run)
    cfg, pred = run / "config.json", run / "predictions.jsonl"
    for f in (cfg, pred):
        if not f.is_file():
            raise UserError(f"{paths.relative(f)}: no such file (not a pfc run directory)")
    config = _object(cfg)
    bench = config.get("benchmark")
    if bench not in benchmarks.NAMES:
        raise UserError(f"{paths.relative(cfg)}: field 'benchmark' is {bench!r}; expected one of {benchmarks.NAMES}")
    ex_path, tools_path = (paths.source(config[k]) if config.get(k) else None for k in ("examples", "tools"))
    if ex_path is None or not ex_path.exists():
        raise UserError(f"{paths.relative(cfg)}: field 'examples': {config.get('examples')} is not built "
                        "(build it with the run's seed, then export)")
    adapter = benchmarks.get(bench)
    every, tools = adapter.scoring.load(ex_path, tools_path)
    try:
        check_answered(run, bench, ex_path, tools_path, every, tools)
    except UserError:  # a run made on an earlier data version (PTBench ptool-v1): read on that version's build
        old = history_examples(config)
        if old is None or not old.exists():
            raise
        ex_path = old
        every, tools = adapter.scoring.load(ex_path, tools_path)
        check_answered(run, bench, ex_path, tools_path, every, tools)
    outputs = adapter.scoring.load_predictions(pred, every)
    exs = [e for e in every if e.id in outputs]
    if not exs:
        raise UserError(f"{paths.relative(pred)}: no finished rows")
    rows = {str(r["id"]): r for _, r in iter_jsonl(pred) if isinstance(r, dict) and "id" in r}  # the last row wins
    asks = str(config.get("prompt_variant") or "").startswith("ask")  # the ask-allowed prompt: replies are actions
    rep = score(exs, outputs, bench, tools, actions=asks or None)
    scored = {r["id"]: r for r in rep.per_example.to_dict("records")}
    rb, groups = builder(config, tools, every), set(adapter.scoring.group_by)
    samples = []
    for ex in exs:
        row = rows.get(ex.id) or {"id": ex.id, "output": outputs[ex.id]}
        req = rb.answer(ex, (row.get("domain_step") or {}).get("domain"))  # hierarchical: step 2 in step 1's domain
        samples.append({"id": ex.id, "messages": req.messages, "tools": req.tools or [], "row": row,
                        **example_fields(ex, scored[ex.id], groups)})
    metrics = {k: v for k, v in json_safe(rep.metrics).items() if "/" not in k and isinstance(v, (int, float))}
    return {"run": paths.relative(run), "config": config, "metrics": metrics, "samples": samples,
            "run_json": _object(run / "run.json") if (run / "run.json").is_file() else {},
            "planned": int(config.get("n_examples") or len(exs)),
            "created": created(run, pred)}


def created(run: Path, pred: Path) -> str:
    """When ``run`` finished, UTC ISO 8601: ``usage.json``'s ``finished_at`` (``pfc.run.writer`` writes it in UTC
    without an offset), else the modification time of ``pred`` (a clone's checkout time)."""
    usage = run / "usage.json"
    doc = _object(usage) if usage.is_file() else {}
    try:
        when = datetime.fromisoformat(str(doc["finished_at"]))
    except (KeyError, ValueError):
        return datetime.fromtimestamp(pred.stat().st_mtime, timezone.utc).isoformat()
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).isoformat()
