"""``pfc export --format eee RUN…``: each ``pfc run`` directory as an Every Eval Ever (EEE, schema 0.3) record pair.

Per run, in EEE's datastore layout under ``--out`` (``data/<benchmark>/<developer>/<model>/``): the aggregate record
``<uuid>.json`` (one ``evaluation_results`` entry per headline metric of ``pfc score``, its metric's direction, bounds
and description from :data:`pfc.eval.metrics.METRICS`; the run's settings as its generation config; the run's identity
in the source metadata) and its instance-level companion ``<uuid>_samples.jsonl``: for each answered example, one row
per headline metric that is the mean of a per-example column (``overall``, ``format``, ...), the row's score being that
column, its ``evaluation_result_id`` naming the aggregate entry (as EEE asks: one instance row per aggregate result). A
ratio or count metric (``value_acc_*``, ``*_error``) has an aggregate entry only. Input: the request the runner sent
(:mod:`pfc.integrations.run_export`); output: the raw answer; metadata: user, groups, error type, value provenance. The
file's UUID (version 4 bits) is drawn from the run's path and identity, so exporting a run again replaces its files.
Plain JSON with no dependency on the ``every-eval-ever`` package (it needs Python 3.12; ``tests/test_eee_export.py``
validates and reads these files with it, from ``.venv-eee``). It translates; it never re-scores or re-runs anything.
Only ``pfc export`` imports it.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
import time
import uuid
from datetime import datetime
from pathlib import Path

from pfc import benchmarks, paths
from pfc.eval.metrics import METRICS
from pfc.integrations.run_export import read_run
from pfc.io import atomic

SCHEMA_VERSION = "0.3.0"
SETTINGS = ("backend", "strategy", "history", "k", "layout", "prompt_variant", "native_tools", "seed", "limit")
_UNSAFE = re.compile(r'[<>:"\\|?*\x00-\x1f/]')  # what a datastore path component may not hold


def _strings(d: dict) -> dict[str, str]:
    """EEE's ``additional_details``: every value a string (JSON for the rest), ``None`` left out."""
    return {k: v if isinstance(v, str) else json.dumps(v, sort_keys=True) for k, v in d.items() if v is not None}


def model_id(config: dict) -> str:
    """``developer/model`` as EEE files it: a Hub id as is, else ``<backend>/<model>``."""
    model = str(config.get("model") or config.get("backend"))
    return model if "/" in model else f"{config.get('backend')}/{model}"


def metric_config(key: str, name: str | None) -> dict:
    """A headline metric's EEE ``metric_config``: a rate is in [0, 1], a count in [0, inf)."""
    m = METRICS.get(name or key)
    if m is None:
        return {"metric_id": f"pfc.{key}", "metric_name": key, "lower_is_better": False}
    top = "Infinity" if m.aggregation == "sum" else 1.0
    return {"evaluation_description": m.description, "metric_id": f"pfc.{key}", "metric_name": key,
            "metric_kind": m.aggregation, "lower_is_better": not m.higher_is_better, "score_type": "continuous",
            "min_score": 0.0, "max_score": top}


def per_example_column(key: str, name: str | None) -> str | None:
    """The per-example column a headline metric is the mean of (``None``: a ratio, count or F1)."""
    m = METRICS.get(name or key)
    return m.columns[0] if m is not None and m.aggregation == "mean" and len(m.columns) == 1 else None


def instance_rows(run: dict, eval_id: str, mid: str) -> list[dict]:
    """One row per answered example and headline metric that is the mean of a per-example column."""
    bench = run["config"]["benchmark"]
    names = benchmarks.get(bench).scoring.metric_keys
    columns = {k: per_example_column(k, names.get(k)) for k in sorted(run["metrics"], key=lambda k: k != "overall")}
    rows = []
    for s in run["samples"]:
        raw = s["row"].get("output")
        answer = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
        users = [m["content"] for m in s["messages"] if m.get("role") == "user"]
        inp = {"raw": str(users[-1] if users else ""), "formatted": json.dumps(s["messages"], ensure_ascii=False),
               "reference": [json.dumps(s["gold"], ensure_ascii=False)]}
        shared = {"schema_version": SCHEMA_VERSION, "evaluation_id": eval_id, "model_id": mid,
                  "evaluation_name": bench, "sample_id": str(s["id"]),
                  "sample_hash": hashlib.sha256((inp["raw"] + "".join(inp["reference"])).encode()).hexdigest(),
                  "interaction_type": "single_turn", "input": inp, "output": {"raw": [answer]},
                  "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": answer,
                                          "extraction_method": "pfc.eval.parsing", "is_terminal": True}],
                  "metadata": {"user": s["user"], **s["labels"], "value_provenance": s["provenance"]}}
        for k, col in columns.items():
            value = s["scores"].get(col) if col else None
            if value is not None:
                rows.append({**shared, "evaluation_result_id": f"pfc:{k}",
                             "evaluation": {"score": float(value), "is_correct": float(value) == 1.0}})
    return rows


def records(run: dict, now: int) -> tuple[str, dict, list[dict]]:
    """``(repository path of the aggregate, aggregate record, instance rows)`` of one run's dicts
    (:func:`pfc.integrations.run_export.read_run`); ``now``: the export's Unix time (``retrieved_timestamp``)."""
    config, bench = run["config"], run["config"]["benchmark"]
    mid = model_id(config)
    dev, *rest = [_UNSAFE.sub("_", p) for p in mid.split("/")]
    digest = hashlib.sha256(json.dumps([run["run"], run["run_json"]], sort_keys=True).encode()).digest()
    folder = f"data/{_UNSAFE.sub('_', bench)}/{dev}/{'_'.join(rest)}/{uuid.UUID(bytes=digest[:16], version=4)}"
    when = str(int(datetime.fromisoformat(run["created"]).timestamp()))
    eval_id = f"{bench}/{mid.replace('/', '_')}/{when}"
    names, sampling = benchmarks.get(bench).scoring.metric_keys, config.get("sampling") or {}
    generation = {"generation_args": {k: sampling[k] for k in ("temperature", "top_p", "top_k", "max_tokens")
                                      if isinstance(sampling.get(k), (int, float))},
                  "additional_details": _strings({k: config.get(k) for k in SETTINGS})}
    source = {"dataset_name": bench, "source_type": "other",
              "additional_details": _strings({"examples": config.get("examples"), "planned": run["planned"],
                                              "answered": len(run["samples"])})}
    results = [{"evaluation_result_id": f"pfc:{k}", "evaluation_name": bench, "source_data": source,
                "evaluation_timestamp": when, "metric_config": metric_config(k, names.get(k)),
                "score_details": {"score": float(v)}, "generation_config": generation}
               for k, v in sorted(run["metrics"].items(), key=lambda kv: kv[0] != "overall")]
    rows = instance_rows(run, eval_id, mid)
    aggregate = {
        "schema_version": SCHEMA_VERSION, "evaluation_id": eval_id, "evaluation_timestamp": when,
        "retrieved_timestamp": str(now),
        "source_metadata": {"source_name": "pfc", "source_type": "evaluation_run",
                            "source_organization_name": "pfc (personalized function calling benchmarks)",
                            "evaluator_relationship": "third_party",
                            "additional_details": _strings({"pfc_run": run["run"], "run": run["run_json"]})},
        "eval_library": {"name": "pfc", "version": str((config.get("versions") or {}).get("pfc") or "unknown"),
                         "additional_details": _strings({"git_commit": config.get("git_commit")})},
        "model_info": {"name": str(config.get("model")), "id": mid, "developer": dev,
                       "inference_platform": str(config.get("backend")),
                       "additional_details": {"deployment_type": "unknown" if config.get("backend") == "openai"
                                              else "self_deployed", "model_availability": "unknown"}},
        "evaluation_results": results,
        "detailed_evaluation_results": {"format": "jsonl", "file_path": f"{folder}_samples.jsonl",
                                        "hash_algorithm": "sha256", "total_rows": len(rows)}}
    return f"{folder}.json", aggregate, rows


def export(runs, out=None, now: int | None = None) -> list[Path]:
    """Write each run's aggregate record and samples under ``out`` (default ``reports/eee``), the pair as one set
    (the aggregate, which points at the samples, last); progress on stderr. A directory that is not a run, or whose
    examples are not built, is refused (``pfc.errors.UserError``) before anything of it is written."""
    out = Path(out) if out else paths.REPORTS / "eee"
    now = int(time.time()) if now is None else now
    written = []
    for i, run_dir in enumerate(runs, 1):
        print(f"pfc export: [{i}/{len(runs)}] {paths.relative(Path(run_dir))}", file=sys.stderr, flush=True)
        rel, aggregate, rows = records(read_run(run_dir), now)
        samples = "".join(atomic.dumps(r) + "\n" for r in rows)
        aggregate["detailed_evaluation_results"]["checksum"] = hashlib.sha256(samples.encode()).hexdigest()
        target = out / rel
        atomic.write_set(target.parent, {target.name: atomic.dumps(aggregate, indent=1) + "\n",
                                         f"{target.stem}_samples.jsonl": samples}, stamp=target.name)
        written.append(target)
        print(f"pfc export: wrote {paths.relative(target)} and its _samples.jsonl ({len(rows)} rows)", file=sys.stderr)
    return written
