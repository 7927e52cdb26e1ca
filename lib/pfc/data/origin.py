"""Where a set of examples comes from, read from the examples and their folder, never from a command's flags.

:func:`origin` says whether examples are third-party data (their adapter's ``Building.third_party``, or
``Building.release``: a release whose record format every copy and variant keeps, unless a pfc build
recorded them: ``stats.json`` beside them) and what they were made from (a build's ``source``,
or the ``origin`` a ``pfc perturb`` folder recorded from its input). ``pfc perturb`` records
it in ``perturb.json``; ``pfc export`` refuses third-party data and writes the source into
the card. It reads two small JSON files; it does not load examples.
"""
from __future__ import annotations

import json
from pathlib import Path

from pfc import benchmarks


def third_party(examples, built: bool = False) -> str | None:
    """The third-party release these examples (or any of them) come from, or None. ``built``: a pfc build
    record (``stats.json`` with its seed) lies beside them, so records in a release's format are ours."""
    building = {a.name: a.building for a in benchmarks.adapters()}
    for e in examples:
        b = building.get(e.benchmark)
        if b is not None and b.third_party:
            return b.third_party
        if b is not None and b.release and b.release[0] in (e.meta or {}) and not built:
            return b.release[1]
    return None


def _json(p: Path) -> dict:
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return d if isinstance(d, dict) else {}


def build_record(folder: Path) -> dict | None:
    """The ``stats.json`` a pfc build wrote for examples in ``folder`` (or two levels up: PTBench's
    ``unified/<split>/``), or None."""
    for d in (folder, folder.parent, folder.parent.parent):
        st = _json(d / "stats.json")
        if "seed" in st:
            return st
    return None


def origin(examples, examples_path) -> dict:
    """``{"third_party": release or None, "source": what the examples were made from, "derived": [steps]}``."""
    p = Path(examples_path)
    folder = p if p.is_dir() else p.parent
    made = _json(folder / "perturb.json").get("origin") if (folder / "perturb.json").is_file() else None
    if isinstance(made, dict):
        return {"third_party": made.get("third_party"), "source": made.get("source", "unknown"),
                "derived": list(made.get("derived", []))}
    record = build_record(folder)
    out = {"third_party": third_party(examples, built=record is not None),
           "source": str((record or {}).get("source") or "unknown"), "derived": []}
    if out["third_party"]:
        out["source"] = f"{out['third_party']} (third-party)"
    return out
