"""``pfc verify RUN…``: re-derive what a run directory claims from what it holds, one line per finding.

Recomputes each claim of a run's ``run.json`` identity (``examples_sha256``, ``prompt_template``, ``sample_sha256``)
and, for a run with an entry in the nearest ``metrics.json`` above it, that entry's predictions hash and scores (a
reference run of the tables without an entry is a finding too); each difference is ``FILE: field X: claims A, holds
B``. It runs and writes nothing. What is and is not checked, and the exit statuses: docs/cli.md, "Does a run hold what
it claims".

    pfc verify reports/reference_runs/tracebench-last_k reports/reference_runs/toolspectrum
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pfc import benchmarks, paths
from pfc.errors import UserError
from pfc.io.reuse import reading_once
from pfc.provenance import sha256_path
from pfc.report.reference.run import ROOT, _json, _object, has_rows, history_examples, identity, is_reference, is_run
from pfc.report.reference.score import score_run
from pfc.run.identity import examples_sha256, text_hash
from pfc.run.requests import template_identity
from pfc.schema import SchemaError

ABSENT = "(absent)"


def _show(v) -> str:
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)


def finding(file: Path, field: str, claims, holds) -> list[str]:
    """``["FILE: field X: claims A, holds B"]`` when ``claims != holds``, else ``[]``."""
    return [] if claims == holds else [f"{paths.relative(file)}: field {field}: claims {_show(claims)}, holds {_show(holds)}"]


def _flat(d: dict, prefix: str):
    for k, v in d.items():
        yield from _flat(v, f"{prefix}{k}.") if isinstance(v, dict) and v else [(f"{prefix}{k}", v)]


def diff(file: Path, prefix: str, claims: dict, holds: dict) -> list[str]:
    """:func:`finding` for every leaf field (``a.b.c``) that differs between two nested dicts."""
    a, b = dict(_flat(claims, prefix)), dict(_flat(holds, prefix))
    return [f for k in sorted(a.keys() | b.keys()) for f in finding(file, k, a.get(k, ABSENT), b.get(k, ABSENT))]


def identity_findings(run: Path, ident: dict, config: dict, held_examples: str | None) -> list[str]:
    """What ``run.json``'s identity claims against what the run holds: ``held_examples`` (the examples hash, None
    when not built), the prompt template the code records now, the hash of ``config.json``'s ids. A field the identity
    does not record (a run made before it existed) is not compared."""
    f, out = run / "run.json", []
    if "examples_sha256" in ident and held_examples is not None:
        out += finding(f, "identity.examples_sha256", ident["examples_sha256"], held_examples)
    if "prompt_template" in ident:
        now = template_identity(ident.get("benchmark") or config.get("benchmark"), ident.get("prompt_variant", "all"))
        out += diff(f, "identity.prompt_template.", ident["prompt_template"], now)
    if "sample_sha256" in ident:
        ids = config.get("ids")
        out += finding(f, "identity.sample_sha256", ident["sample_sha256"],
                       None if ids is None else text_hash(sorted(map(str, ids))))
    return out


def metrics_findings(file: Path, key: str, claims: dict, holds: dict, skip: tuple = ()) -> list[str]:
    """A ``metrics.json`` entry (``claims``) against the run re-scored (``holds``), the predictions' hash first;
    ``skip``: fields not compared (a copy's name and label)."""
    first = finding(file, f"{key}.predictions_sha256", claims.get("predictions_sha256"), holds.get("predictions_sha256"))
    rest = [{k: v for k, v in d.items() if k not in ("predictions_sha256", *skip)} for d in (claims, holds)]
    return first + diff(file, f"{key}.", *rest)


def committed_entry(run: Path, ident: dict | None = None) -> tuple[Path, str, dict | None] | None:
    """``(metrics.json, the run's key there, its entry or None)`` of the nearest ``metrics.json`` above ``run``;
    for a run with no entry there (a copy moved elsewhere), the committed entry recording its run identity
    (``identity_sha256``; :func:`copied_entry`); None when there is neither."""
    run = Path(run).absolute()
    above = None
    for up in run.parents:
        if (up / "metrics.json").is_file():
            key = run.relative_to(up).as_posix()
            doc = _json(up / "metrics.json")
            above = up / "metrics.json", key, doc.get(key) if isinstance(doc, dict) else None
            break
    if (above is None or above[2] is None) and ident:
        return copied_entry(ident) or above
    return above


def copied_entry(ident: dict) -> tuple[Path, str, dict] | None:
    """The committed ``metrics.json`` entry (under ``ROOT``) whose ``identity_sha256`` is this run identity's,
    None when none is: a copy of a committed run, wherever it is, still claims that entry's predictions and scores."""
    committed = ROOT / "metrics.json"
    if not committed.is_file():
        return None
    h = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()
    doc = _json(committed)
    found = [(k, e) for k, e in (doc.items() if isinstance(doc, dict) else ())
             if isinstance(e, dict) and e.get("identity_sha256") == h]
    return (committed, *found[0]) if found else None


def built(config: dict) -> tuple[Path | None, Path]:
    """``(tools, examples)`` paths a run's examples are read from: an earlier data version's build for a run made
    on one (``pfc.report.reference.run.history_examples``), else its config's (the output root first)."""
    tools = paths.source(config["tools"]) if config.get("tools") else None
    return tools, history_examples(config) or paths.source(config["examples"])


def findings(run: Path, skip_unbuilt: bool = False) -> list[str] | str:
    """Every finding of one run directory (``[]``: it holds what it claims), or the line saying it was skipped
    (``skip_unbuilt`` and its examples not built). Not a run directory, or an unreadable record: UserError."""
    run = Path(run)
    if not is_run(run):
        raise UserError(f"{paths.relative(run)}: not a run directory (no predictions.jsonl and config.json)")
    config, ident = _object(run / "config.json"), identity(run) or {}
    bench = config.get("benchmark")
    if bench not in benchmarks.NAMES or not config.get("examples"):
        raise SchemaError(f"expected a known benchmark and its examples, got {bench!r}",
                          file=str(run / "config.json"), field="benchmark" if config.get("examples") else "examples")
    tools, examples = built(config)
    held, out = None, []
    if not examples.exists():
        if skip_unbuilt:
            return f"skipped {paths.relative(run)}: its examples {config['examples']} are not built"
        out += finding(run / "config.json", "examples", config["examples"], "(not built: make reproduce builds it)")
    else:
        exs, tls = benchmarks.get(bench).scoring.load(examples, tools)
        held = examples_sha256(bench, examples, tools, exs, tls)
    out += identity_findings(run, ident, config, held)
    entry = committed_entry(run, ident)
    if entry is not None and entry[2] is not None:
        file, key, claims = entry
        copy = () if file.parent in run.absolute().parents else ("run", "label")  # a copy's name is its own
        if held is not None and ident.get("examples_sha256") in (None, held):  # re-scored on the examples it answered
            out += metrics_findings(file, key, claims, json.loads(json.dumps(score_run(run, key), sort_keys=True)),
                                    copy)
        else:
            out += finding(file, f"{key}.predictions_sha256", claims.get("predictions_sha256"),
                           sha256_path(run / "predictions.jsonl"))
    elif entry is not None and is_reference(run) and has_rows(run):
        out += finding(entry[0], entry[1], ABSENT, "a reference run of the tables")
    return out


def verify_cmd(args) -> int:
    """``pfc verify``: each run's findings, ``ok RUN`` or ``skipped RUN: …``; exit 1 on any finding."""
    bad = False
    with reading_once():  # runs on one build read and hash it once
        for run in args.runs:
            found = findings(Path(run), args.skip_unbuilt)
            lines = [found] if isinstance(found, str) else found or [f"ok {paths.relative(Path(run))}"]
            bad |= isinstance(found, list) and bool(found)
            print("\n".join(lines), flush=True)
    return 1 if bad else 0
