"""Score the reference runs under ``reports/reference_runs/`` and write their ``metrics.json``.

Each subdirectory holding a ``pfc run`` output (``config.json``, ``run.json``, ``predictions.jsonl``, ``usage.json``;
written by ``python -m pfc.plans.reference``) is scored on exactly the rows it holds with the project's scorer
(``pfc.eval.scoring.score``) and bootstrap 95% intervals over examples (``pfc.eval.bootstrap.estimates``): the headline
metrics of each adapter's ``Reporting.headline`` (``pfc.benchmarks``), TRACEBench per vagueness level and per history
bin, ToolSpectrum per subset (Table 3's columns) with both F1 definitions (ours, ⊥ an item, and the paper-compatible
``*_paper``; ``pfc.benchmarks.toolspectrum``), and its strict mode (the headline metrics, ours only). A run whose
``usage.json`` says fewer rows ``done`` than ``n_examples`` is labelled ``partial`` with its n in every entry and label.

It runs nothing (``pfc.plans.reference`` does) and draws no table (the notebooks read ``label`` and the intervals from
here). A corrupt row is refused with a one-line error naming file, line and field.

    python -m pfc.report.reference            # writes reports/reference_runs/metrics.json
                                              # and paired.{json,md} (pfc.report.reference.pairs)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from pfc import benchmarks, paths
from pfc.errors import UserError, entry
from pfc.eval.bootstrap import estimates
from pfc.eval.scoring import score
from pfc.provenance import sha256_path
from pfc.io import atomic
from pfc.report.reference import ask as ask_report
from pfc.report.reference.run import (ROOT, SPLIT_LABELS, _json, _label,  # noqa: F401  (re-exported)
                                      data_version, has_rows, history_examples, is_history, is_reference, is_run,
                                      plan_roots, planned_runs, present, run_key)
from pfc.report.reference.run import identity as recorded_identity
from pfc.schema import SchemaError
from pfc.io.reuse import reading_once


def run_dirs(root: Path | None = None) -> list[Path]:
    """Every run directory of the accuracy tables under ``root`` (default: the committed ``ROOT``), as each run's
    own plan record says (``pfc.report.reference.run.planned_runs``): the runs at the top (the original 0.5B ``hf``
    runs), then each model folder's (``<model>-<backend>/<run>``), by name. The side runs (layout ablation, variants)
    are the paired comparisons' and notebook 08's. A run with no finished row yet is left out
    (``pfc.report.reference.run.has_rows``)."""
    return [d for d, rec in planned_runs(Path(root or ROOT)) if rec.get("tables") and has_rows(d)]


def _cells(ci: dict) -> dict:
    return {k: [round(float(x), 6) if x == x else None for x in v] for k, v in ci.items()}


def score_run(run: Path, key: str | None = None) -> dict:
    """One run's entry of ``metrics.json`` (see the module docstring); ``key``: its name there (default: the
    folder's name)."""
    config, exs, outputs, tools, planned, label = present(run)
    ident = recorded_identity(run)
    identity = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest() if ident else None
    bench = config["benchmark"]
    adapter = benchmarks.get(bench)
    partial = len(exs) < planned
    name = config.get("model", "?")
    keys = {k: adapter.scoring.metric_keys[k] for k in adapter.reporting.headline if k in adapter.scoring.metric_keys}
    robust = {**keys, **{k: adapter.scoring.metric_keys[k] for k in adapter.reporting.extra}}
    entry = {"run": key or run.name, "benchmark": bench, "backend": config.get("backend"), "label": label, "n": len(exs), "planned": planned,
             "partial": partial, "identity_sha256": identity, "model": name,
             "predictions_sha256": sha256_path(run / "predictions.jsonl"),
             "history": config.get("history"), "layout": config.get("layout")}
    said = data_version(bench, config)
    if said is not None:  # which data version (PTBench: synthesis) the run answered, as its examples record it
        entry["synthesis"] = data_version(bench, exs[0].meta).name
        if said.name != entry["synthesis"]:
            raise SchemaError(f"says {said.name!r} but its examples are {entry['synthesis']!r}",
                              file=str(run / "config.json"), field="synthesis")
    for strict in adapter.reporting.modes:
        rep = score(exs, outputs, bench, tools, strict=strict)
        mode = "strict" if strict else "robust"
        entry[mode] = _cells(estimates(rep.per_example, keys if strict else robust))
        for g in adapter.reporting.groups if not strict else ():
            entry[f"by_{g}"] = {str(v): {"n": len(part), **_cells(estimates(part.reset_index(drop=True), robust))}
                                for v, part in rep.per_example.groupby(g, dropna=True)}
    return entry


def metrics(root: Path | None = None) -> dict:
    """``{run name: entry}`` for every run present, then ``{"<folder>/ask": entry}`` of each model folder's
    ask-or-infer runs (``pfc.report.reference.ask``); empty when none is."""
    with reading_once():  # the runs on one build read its examples once
        root = Path(root or ROOT)
        return {**{run_key(run, root): score_run(run, run_key(run, root)) for run in run_dirs(root)},
                **ask_report.entries(root)}  # each model folder's ask-or-infer runs, pooled (issue 64)


def write(root: Path | None = None, out: Path | None = None) -> Path | None:
    """Write ``metrics.json`` (default: ``reports/reference_runs/`` under the output root, which is the
    committed file outside tests); None (nothing written) when no run is present."""
    m = metrics(root)
    if not m:
        return None
    out = out or paths.REPORTS / "reference_runs" / "metrics.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(out, json.dumps(m, indent=1, sort_keys=True) + "\n")
    return out


def main(argv=None) -> int:
    """The command line, through the one error path (``pfc.errors.entry``): a UserError is one line, exit 2;
    Ctrl-C one line, exit 130."""
    return entry("python -m pfc.report.reference", _main, argv)


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pfc.report.reference", description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=str(ROOT), help="directory of reference run directories")
    args = ap.parse_args(argv)
    if not Path(args.root).is_dir():
        raise UserError(f"--root {args.root}: no such directory")
    out = write(Path(args.root), Path(args.root) / "metrics.json" if args.root != str(ROOT) else None)
    if out:
        from pfc.report.reference import pairs as reference_pairs  # it reads this module's runs: imported here, not at the top
        reference_pairs.write(Path(args.root), out.parent)
    print(f"wrote {paths.relative(out)}" if out else f"no reference run under {args.root}; nothing written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
