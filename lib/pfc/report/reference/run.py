"""One committed reference run directory (``reports/reference_runs/<run>``): what it holds and its label.

:func:`present` reads a run's config, the rows it finished and the examples they answer (refusing a
run whose examples are another build than the one it answered), and labels it with its n;
:func:`is_reference` says whether a directory is such a run and :func:`planned_runs` finds them, both from
the plan record each run keeps in its own ``run.json`` (``pfc.plans.reference.record``), never from where it
sits or what its folders are called. It scores nothing
(``pfc.report.reference``, ``pfc.report.reference.pairs``) and writes nothing.
"""
from __future__ import annotations

import json
from pathlib import Path

from pfc import benchmarks, paths
from pfc.plans.versions import data_version, history_builds, history_examples  # noqa: F401  (re-exported)
from pfc.errors import UserError
from pfc.report.labels import run_label
from pfc.run.identity import examples_sha256, plan_record
from pfc.schema import SchemaError

ROOT = paths.ROOT / "reports" / "reference_runs"  # the committed runs (read); metrics.json goes to paths.REPORTS


def _json(path: Path, field: str | None = None):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SchemaError(f"unreadable JSON ({type(e).__name__})", file=str(path), field=field) from None


def _object(path: Path, field: str | None = None) -> dict:
    """A JSON file that must hold an object (a run's ``config.json``, ``run.json``), else a SchemaError."""
    doc = _json(path, field)
    if not isinstance(doc, dict):
        raise SchemaError(f"expected a JSON object, got {type(doc).__name__}", file=str(path), field=field)
    return doc


def identity(run: Path) -> dict | None:
    """A run's identity as its ``run.json`` records it (None without a ``run.json`` or an identity); a
    ``run.json`` that is unreadable, or whose identity or plan record is not an object, is refused."""
    f = Path(run) / "run.json"
    if not f.is_file():
        return None
    doc = _object(f)
    for k in ("identity", "plan"):
        if doc.get(k) is not None and not isinstance(doc[k], dict):
            raise SchemaError(f"expected an object, got {type(doc[k]).__name__}", file=str(f), field=k)
    return doc.get("identity") or None


def is_run(d: Path) -> bool:
    """True for a ``pfc run`` output directory (predictions and config)."""
    return (d / "predictions.jsonl").is_file() and (d / "config.json").is_file()


def answered(d: Path) -> bool:
    """True when ``d/predictions.jsonl`` holds a finished row, config or not (what notebooks 08 and 09 read). The
    runner opens the file before its first request ends, so a run in its first batch has the file and no row."""
    pred = Path(d) / "predictions.jsonl"
    if not pred.is_file():
        return False
    with open(pred, "rb") as f:
        return any(line.strip() for line in f)


def has_rows(d: Path) -> bool:
    """True for a run directory (:func:`is_run`) that holds a finished row (:func:`answered`). A run that has
    started but not yet finished its first request is pending to the scores and pairs, as a missing one is, not a run of
    n = 0 (which :func:`present` refuses); it still marks its folder as a plan root."""
    return is_run(Path(d)) and answered(d)


def planned_runs(root: Path) -> list[tuple[Path, dict]]:
    """``(run directory, plan record)`` of every run under ``root`` that records the plan which made it
    (``run.json``'s ``plan``, ``pfc.run.identity.plan_record``) and sits where that record says, at its run name below a
    plan root (``root`` itself or a model's folder in it); by depth, then path (``root``'s own runs first)."""
    root = Path(root)
    found = []
    for f in root.rglob("run.json"):
        d, rec = f.parent, plan_record(f.parent)
        if is_run(d):  # a run's damaged run.json is refused, never read as a run made by hand (left out)
            identity(d)
        if rec.get("run") and is_run(d) and d.as_posix().endswith("/" + rec["run"]):
            found.append((d, rec))
    return sorted(found, key=lambda x: (len(x[0].relative_to(root).parts), x[0].relative_to(root).as_posix()))


def plan_root(run: Path, record: dict) -> Path:
    """The plan root a recorded run sits in: its directory less its run name (``<root>`` or ``<root>/<folder>``)."""
    base = Path(run)
    for _ in Path(record["run"]).parts:
        base = base.parent
    return base


def plan_roots(root: Path) -> list[Path]:
    """The plan roots under ``root`` that hold runs (``root`` itself first, then each model's folder)."""
    return list(dict.fromkeys(plan_root(d, rec) for d, rec in planned_runs(root)))


def run_key(run: Path, root: Path) -> str:
    """A run's name in ``metrics.json`` and ``paired.json``: its path under the root (``tracebench-last_k``,
    ``qwen2.5-coder-1.5b-openvino/tracebench-last_k``)."""
    return Path(run).relative_to(Path(root)).as_posix()


def shown(config: dict, run) -> dict:
    """The config a run's label is made from: a run whose plan says so names its engine after the model
    (``qwen2.5-coder-0.5b · openvino``: every model folder's run of the reference plan, as the top-level ``hf`` runs of
    the same model share its tables)."""
    named = plan_record(run).get("names_engine")
    return {**config, "model": f"{config.get('model')} · {config.get('backend')}"} if named else config


def joins_tables(record: dict) -> bool:
    """True for the plan record of a reference run that joins the accuracy tables (the reference plan's runs;
    its side runs, the layout ablation and the variants, do not)."""
    return record.get("plan") == "reference" and bool(record.get("tables"))


def is_reference(run_dir) -> bool:
    """True for a reference run of the accuracy tables, as its own ``run.json`` records (:func:`joins_tables`)."""
    return joins_tables(plan_record(run_dir))


def examples_hash(run: Path) -> str | None:
    """The examples hash a run's identity records (which build it answered), None when it records none."""
    return (identity(run) or {}).get("examples_sha256")


def present(run: Path):
    """``(config, examples with a row, outputs, tools, planned n, label)`` of one run directory."""
    run = Path(run)
    config = _object(run / "config.json")
    usage = _object(run / "usage.json") if (run / "usage.json").exists() else {}
    bench = config.get("benchmark")
    if bench not in benchmarks.NAMES:
        raise SchemaError(f"unknown benchmark {bench!r}", file=str(run / "config.json"), field="benchmark")
    # built data (TRACEBench, our PTBench) lives under PFC_OUTPUT_ROOT when made there, else in the checkout
    examples, tools_path = (paths.source(config[k]) if config.get(k) else None for k in ("examples", "tools"))
    adapter = benchmarks.get(bench)
    if not examples.exists():
        raise UserError(f"{paths.relative(run / 'config.json')}: its examples {config['examples']} are not built "
                        "(make reproduce builds them; python -m pfc.report.reference needs them to re-score)")
    exs, tools = adapter.scoring.load(examples, tools_path)
    ident = identity(run) or {}
    want = ident.get("examples_sha256")
    if want and examples_sha256(bench, examples, tools_path, exs, tools) != want:
        # PTBench: a run made on an earlier synthesis re-scores on that synthesis' history build, if built
        old = history_examples(config)
        if old is not None and old.exists():
            o_exs, o_tools = adapter.scoring.load(old, tools_path)
            if examples_sha256(bench, old, tools_path, o_exs, o_tools) == want:
                examples, exs, tools = old, o_exs, o_tools
        if examples != old:  # another build than the one the model answered: refuse
            raise UserError(f"{paths.relative(run / 'run.json')}: field identity.examples_sha256: {config['examples']} "
                            "is not the data this run answered (a different build?); rebuild it with the run's seed"
                            + (f" (an earlier PTBench synthesis: pfc build ptbench --synthesis "
                               f"{data_version(bench, config).number} --out {paths.relative(old.parent.parent)})"
                               if old is not None else ""))
    outputs = adapter.scoring.load_predictions(run / "predictions.jsonl", exs)
    known = {e.id for e in exs}
    stray = sorted(set(outputs) - known)
    if stray:
        raise SchemaError(f"id {stray[0]!r} is not an example of {config['examples']}",
                          file=str(run / "predictions.jsonl"), field="id")
    if config.get("ids") is not None:  # a run of sampled ids: a row of any other example is not the run's
        outside = sorted(set(outputs) - set(map(str, config["ids"])))
        if outside:
            raise SchemaError(f"id {outside[0]!r} is not one of the run's sampled ids ({paths.relative(run / 'config.json')}"
                              " ids)", file=str(run / "predictions.jsonl"), field="id")
    exs = [e for e in exs if e.id in outputs]
    if not exs:
        raise UserError(f"{paths.relative(run / 'predictions.jsonl')}: no finished rows")
    planned = int(usage.get("n_examples") or config.get("n_examples") or len(exs))
    tail = f" of {planned}, partial)" if len(exs) < planned else ")"
    return config, exs, outputs, tools, planned, f"{_label(shown(config, run), run.name)} (reference run, n={len(exs)}{tail}"


SPLIT_LABELS = {"test_trained_user": "trained users", "test_untrained_user": "untrained users"}


def is_history(run: Path) -> bool:
    """True for a run made on an earlier data version than the current build (a PTBench synthesis): it stays
    in ``metrics.json`` and the paired comparisons as history, never in the accuracy tables. Read from its
    ``config.json`` (:func:`data_version`; ``pfc.report.reference.score.score_run`` checks it against the examples it
    re-scores on), so no build is needed."""
    config = _object(Path(run) / "config.json")
    v = data_version(config.get("benchmark"), config)
    return v is not None and not v.current


def _label(config: dict, fallback: str) -> str:
    """``run_label`` plus the PTBench user split a run covers (a reference run holds one split; Table 1's
    baselines hold both), e.g. ``qwen2.5-coder-0.5b [trained users]``.

    >>> _label({"model": "m", "examples": "data/benchmarks/ptbench/test_untrained_user/data.json"}, "x")
    'm [untrained users]'
    >>> _label({"model": "m", "synthesis": "ptool-v2", "examples": "data/benchmarks/ptbench/test_trained_user"}, "x")
    'm [trained users, ptool-v2]'
    >>> _label({"model": "m", "history": "last_k", "k": 10, "examples": "data/benchmarks/tracebench"}, "x")
    'm [last_k k=10]'
    """
    base = run_label(config, fallback)
    split = next((v for k, v in SPLIT_LABELS.items() if k in str(config.get("examples") or "")), None)
    if split is None:
        return base
    if config.get("synthesis"):  # which PTBench synthesis the row answered (recorded by the runner since v2)
        split = f"{split}, {config['synthesis']}"
    return f"{base[:-1]}, {split}]" if base.endswith("]") else f"{base} [{split}]"
