"""Score the reference runs under ``reports/reference_runs/`` and write their ``metrics.json``.

Each subdirectory holding a ``pfc run`` output (``config.json``, ``run.json``,
``predictions.jsonl``, ``usage.json``; written by ``python -m pfc.run.reference``) is scored on
exactly the rows it holds with the project's scorer (``pfc.eval.scoring.score``) and bootstrap 95%
intervals over examples (``pfc.eval.bootstrap.estimates``): the headline metrics of
``pfc.report.real_models.HEADLINE``, TRACEBench per vagueness level and per history bin,
ToolSpectrum per subset (Table 3's columns) with both F1 definitions (ours, ⊥ an item, and the
paper-compatible ``*_paper``; ``pfc.benchmarks.toolspectrum``), and its strict mode (the headline
metrics, ours only). A run whose ``usage.json`` says fewer rows
``done`` than ``n_examples`` is labelled ``partial`` with its n in every entry and label.

It runs nothing (``pfc.run.reference`` does) and draws no table (the notebooks read ``label`` and
the intervals from here). A corrupt row is refused with a one-line error naming file, line and field.

    python -m pfc.report.reference            # writes reports/reference_runs/metrics.json
                                              # and paired.{json,md} (pfc.report.reference_pairs)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from pfc import benchmarks, paths
from pfc.errors import UserError
from pfc.schema import SchemaError
from pfc.eval.bootstrap import estimates
from pfc.eval.scoring import score
from pfc.provenance import sha256_path
from pfc.report.real_models import HEADLINE
from pfc.run.identity import examples_sha256

ROOT = paths.ROOT / "reports" / "reference_runs"  # the committed runs (read); metrics.json goes to paths.REPORTS
GROUPS = {"tracebench": ("vagueness", "history_bin"), "toolspectrum": ("subset",)}
EXTRA = {"toolspectrum": ["APP_paper", "API_paper", "RP_paper", "OP_paper"]}  # robust mode: Table 3's second F1
MODES = {"tracebench": (False,), "ptbench": (False,), "toolspectrum": (False, True)}  # strict?


def run_dirs(root: Path | None = None) -> list[Path]:
    """Every run directory under ``root`` (default: the committed ``ROOT``) with predictions, by name."""
    return sorted(p for p in Path(root or ROOT).glob("*/") if (p / "predictions.jsonl").is_file()
                  and (p / "config.json").is_file())


def _json(path: Path, field: str | None = None):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SchemaError(f"unreadable JSON ({type(e).__name__})", file=str(path), field=field) from None


def _cells(ci: dict) -> dict:
    return {k: [round(float(x), 6) if x == x else None for x in v] for k, v in ci.items()}


def is_reference(run_dir) -> bool:
    """True for a directory directly under a ``reference_runs/`` directory (the committed one, or a copy)."""
    return Path(run_dir).resolve().parent.name == "reference_runs"


def present(run: Path):
    """``(config, examples with a row, outputs, tools, planned n, label)`` of one run directory."""
    run = Path(run)
    config = _json(run / "config.json")
    usage = _json(run / "usage.json") if (run / "usage.json").exists() else {}
    bench = config.get("benchmark")
    if bench not in HEADLINE:
        raise SchemaError(f"unknown benchmark {bench!r}", file=str(run / "config.json"), field="benchmark")
    # built data (TRACEBench, our PTBench) lives under PFC_OUTPUT_ROOT when made there, else in the checkout
    examples, tools_path = (paths.source(config[k]) if config.get(k) else None for k in ("examples", "tools"))
    adapter = benchmarks.get(bench)
    if not examples.exists():
        raise UserError(f"{paths.relative(run / 'config.json')}: its examples {config['examples']} are not built "
                        "(make reproduce builds them; python -m pfc.report.reference needs them to re-score)")
    exs, tools = adapter.load(examples, tools_path)
    ident = _json(run / "run.json", "identity").get("identity") or {} if (run / "run.json").exists() else {}
    want = ident.get("examples_sha256")
    if want and examples_sha256(bench, examples, tools_path, exs, tools) != want:
        # PTBench: a run made on an earlier synthesis re-scores on that synthesis' history build, if built
        old = history_examples(config.get("examples"))
        if old is not None and old.exists():
            o_exs, o_tools = adapter.load(old, tools_path)
            if examples_sha256(bench, old, tools_path, o_exs, o_tools) == want:
                examples, exs, tools = old, o_exs, o_tools
        if examples != old:  # another build than the one the model answered: refuse
            raise UserError(f"{paths.relative(run / 'run.json')}: field identity.examples_sha256: {config['examples']} "
                            "is not the data this run answered (a different build?); rebuild it with the run's seed"
                            + (f" (an earlier PTBench synthesis: pfc build ptbench --synthesis 1 --out "
                               f"{paths.relative(old.parent.parent)})" if old is not None else ""))
    outputs = adapter.load_predictions(run / "predictions.jsonl", exs)
    known = {e.id for e in exs}
    stray = sorted(set(outputs) - known)
    if stray:
        raise SchemaError(f"id {stray[0]!r} is not an example of {config['examples']}",
                          file=str(run / "predictions.jsonl"), field="id")
    exs = [e for e in exs if e.id in outputs]
    if not exs:
        raise UserError(f"{run / 'predictions.jsonl'}: no finished rows")
    planned = int(usage.get("n_examples") or config.get("n_examples") or len(exs))
    tail = f" of {planned}, partial)" if len(exs) < planned else ")"
    return config, exs, outputs, tools, planned, f"{_label(config, run.name)} (reference run, n={len(exs)}{tail}"


SPLIT_LABELS = {"test_trained_user": "trained users", "test_untrained_user": "untrained users"}
# PTBench syntheses kept buildable as history: the build directory of each, beside the current one
PTBENCH_HISTORY = {"ptool-v1": "ptbench-v1"}


def history_examples(examples: str | None) -> Path | None:
    """Where the earlier (v1) PTBench synthesis keeps a run's examples: ``data/benchmarks/ptbench/X`` ->
    ``data/benchmarks/ptbench-v1/X`` (read from the output root when built there); None for other data."""
    prefix = "data/benchmarks/ptbench/"
    if not examples or not str(examples).startswith(prefix):
        return None
    return paths.source(f"data/benchmarks/{PTBENCH_HISTORY['ptool-v1']}/{str(examples)[len(prefix):]}")


def is_history(run: Path) -> bool:
    """True for a PTBench run made on an earlier synthesis than the current default: it stays in
    ``metrics.json`` and the paired comparisons as history, never in the accuracy tables. Read from its
    ``config.json`` (``synthesis``, recorded by the runner since v2; a PTBench run without it answered v1,
    which :func:`score_run` checks against the examples it re-scores on), so no build is needed."""
    config = _json(Path(run) / "config.json")
    if config.get("benchmark") != "ptbench":
        return False
    from pfc.data.ptool.build import DEFAULT_VERSION, VERSIONS
    return config.get("synthesis", "ptool-v1") != VERSIONS[DEFAULT_VERSION]


def _label(config: dict, fallback: str) -> str:
    """``run_label`` plus the PTBench user split a run covers (a reference run holds one split; Table 1's
    baselines hold both), e.g. ``qwen2.5-coder-0.5b [trained users]``.

    >>> _label({"model": "m", "examples": "data/benchmarks/ptbench/test_untrained_user/data.json"}, "x")
    'm [untrained users]'
    >>> _label({"model": "m", "history": "last_k", "k": 10, "examples": "data/benchmarks/tracebench"}, "x")
    'm [last_k k=10]'
    """
    from pfc.report.tables import run_label
    base = run_label(config, fallback)
    split = next((v for k, v in SPLIT_LABELS.items() if k in str(config.get("examples") or "")), None)
    if split is None:
        return base
    return f"{base[:-1]}, {split}]" if base.endswith("]") else f"{base} [{split}]"


def score_run(run: Path) -> dict:
    """One run's entry of ``metrics.json`` (see the module docstring)."""
    config, exs, outputs, tools, planned, label = present(run)
    ident = _json(run / "run.json", "identity").get("identity") if (run / "run.json").exists() else None
    identity = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest() if ident else None
    bench = config["benchmark"]
    adapter = benchmarks.get(bench)
    partial = len(exs) < planned
    name = config.get("model", "?")
    keys = {k: adapter.metric_keys[k] for k in HEADLINE[bench] if k in adapter.metric_keys}
    robust = {**keys, **{k: adapter.metric_keys[k] for k in EXTRA.get(bench, ())}}
    entry = {"run": run.name, "benchmark": bench, "label": label, "n": len(exs), "planned": planned,
             "partial": partial, "identity_sha256": identity, "model": name,
             "predictions_sha256": sha256_path(run / "predictions.jsonl"),
             "history": config.get("history"), "layout": config.get("layout")}
    if bench == "ptbench":  # which synthesis the run answered (its examples' meta; v1 records carry none)
        entry["synthesis"] = exs[0].meta.get("synthesis", "ptool-v1")
        if config.get("synthesis", "ptool-v1") != entry["synthesis"]:
            raise SchemaError(f"says {config.get('synthesis', 'ptool-v1')!r} but its examples are "
                              f"{entry['synthesis']!r}", file=str(run / "config.json"), field="synthesis")
    for strict in MODES[bench]:
        rep = score(exs, outputs, bench, tools, strict=strict)
        mode = "strict" if strict else "robust"
        entry[mode] = _cells(estimates(rep.per_example, keys if strict else robust))
        for g in GROUPS.get(bench, ()) if not strict else ():
            entry[f"by_{g}"] = {str(v): {"n": len(part), **_cells(estimates(part.reset_index(drop=True), robust))}
                                for v, part in rep.per_example.groupby(g, dropna=True)}
    return entry


def metrics(root: Path | None = None) -> dict:
    """``{run name: entry}`` for every run present; empty when none is."""
    from pfc.io.reuse import reading_once
    with reading_once():  # the runs on one build read its examples once
        return {run.name: score_run(run) for run in run_dirs(root)}


def write(root: Path | None = None, out: Path | None = None) -> Path | None:
    """Write ``metrics.json`` (default: ``reports/reference_runs/`` under the output root, which is the
    committed file outside tests); None (nothing written) when no run is present."""
    m = metrics(root)
    if not m:
        return None
    out = out or paths.REPORTS / "reference_runs" / "metrics.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(m, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pfc.report.reference", description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=str(ROOT), help="directory of reference run directories")
    args = ap.parse_args(argv)
    if not Path(args.root).is_dir():
        print(f"error: --root {args.root}: no such directory", file=sys.stderr)
        return 2
    try:
        out = write(Path(args.root), Path(args.root) / "metrics.json" if args.root != str(ROOT) else None)
        if out:
            from pfc.report import reference_pairs  # it reads this module's runs: imported here, not at the top
            reference_pairs.write(Path(args.root), out.parent)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {paths.relative(out)}" if out else f"no reference run under {args.root}; nothing written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
