"""The sweep index: ``sweep.json`` (every planned run, its settings and status) and ``sweep.jsonl`` (results as
they arrive).

:func:`write_index` writes ``sweep.json`` atomically from a :class:`pfc.sweep.plan.Plan` and the statuses so
far; :func:`append_result` appends one result line to ``sweep.jsonl`` (the index never grows per write);
:func:`read_index` folds the two together, and :func:`run_dirs` lists a sweep's runs that wrote predictions
(``pfc report`` over a sweep directory). A malformed index is one line naming the file. It plans and runs
nothing.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from pfc.errors import UserError
from pfc.io.atomic import dumps, write_failed, write_json
from pfc.io.safepath import inside, open_append

INDEX = "sweep.json"
RESULTS = "sweep.jsonl"  # one line per result as it arrives (appended); folded into sweep.json when a sweep ends


def _bad_index(p: Path, why: str) -> UserError:
    return UserError(f"{why} (the sweep index); move it aside to start the sweep afresh", file=str(p))


def read_index(out) -> dict | None:
    """``sweep.json`` with the results appended to ``sweep.jsonl`` since it was written (last line per run wins;
    a cut last line, left by a kill, is ignored). A malformed index is one line naming the file."""
    p = Path(out) / INDEX
    if not p.exists():
        return None
    try:
        index = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise _bad_index(p, "not valid JSON") from None
    if not isinstance(index, dict) or not isinstance(index.get("runs", []), list) or not all(
            isinstance(r, dict) and isinstance(r.get("name"), str) and isinstance(r.get("run_dir"), str)
            for r in index.get("runs", [])):
        raise _bad_index(p, "not a sweep index (expected an object whose 'runs' each have a name and a run_dir)")
    later = {}
    j = Path(out) / RESULTS
    if j.is_file():
        for line in j.read_bytes().split(b"\n"):
            try:
                rec = json.loads(line)
            except (ValueError, UnicodeDecodeError, RecursionError):
                continue  # a cut last line
            if isinstance(rec, dict) and isinstance(rec.get("name"), str):
                later[rec["name"]] = rec
    for r in index.get("runs", []):
        r.update({k: v for k, v in later.get(r["name"], {}).items() if k != "name"})
    runs = index.get("runs", [])
    index["counts"] = {s: sum(1 for r in runs if r.get("status") == s) for s in dict.fromkeys(r.get("status")
                                                                                              for r in runs)}
    return index


def append_result(out, name: str, result: dict) -> None:
    """One run's result appended to ``sweep.jsonl`` (one short line, flushed): the index never grows per write."""
    p = Path(out) / RESULTS
    try:
        with open_append(p, "sweep index") as fh:
            fh.write(dumps({"name": name, **result}, default=str) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as e:
        raise write_failed(p, e, "the results recorded so far are kept") from None


def write_index(out, p: Plan, status: dict, spec_name: str) -> Path:
    """``sweep.json``: the spec and its hash, every run (directory relative to the sweep, label, settings,
    status, why it failed) and the skipped combinations. Written to a temporary file, then renamed."""
    out = Path(out)
    runs = []
    for r in p.runs:
        runs.append({**r.index_entry(), "run_dir": r.run_dir(".").as_posix(), "label": r.label(),
                     **status.get(r.name, {"status": "planned"})})
    index = {"spec": spec_name, "spec_hash": p.spec_hash, "n_runs": len(runs),
             "counts": {s: sum(1 for r in runs if r["status"] == s) for s in dict.fromkeys(r["status"] for r in runs)},
             "runs": runs, "skipped": p.skipped}
    out.mkdir(parents=True, exist_ok=True)
    written = write_json(out / INDEX, index, default=str)
    (out / RESULTS).unlink(missing_ok=True)  # folded in: every status it held is in the index just written
    return written


def run_dirs(sweep_dir) -> list[tuple[Path, str]]:
    """(run directory, label) of each run of a sweep that wrote predictions, in the index's order."""
    index = read_index(sweep_dir)
    if index is None:
        raise UserError(f"no {INDEX} here: not a sweep directory", file=str(sweep_dir))
    out = []
    for r in index.get("runs", []):
        d = inside(sweep_dir, r["run_dir"])  # a hostile index cannot point a report outside the sweep
        if (d / "predictions.jsonl").exists():
            out.append((d, r.get("label") or r["name"]))
    return out
