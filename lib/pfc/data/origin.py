"""Where a set of examples comes from, read from the examples and their folder, never from a command's flags.

:func:`origin` says whether examples are third-party data (the ToolSpectrum release, the
official PTBench release: their records carry the release's own fields, which every copy,
variant and export keeps) and what they were made from (a build's ``stats.json`` ``source``,
or the ``origin`` a ``pfc perturb`` folder recorded from its input). ``pfc perturb`` records
it in ``perturb.json``; ``pfc export`` refuses third-party data and writes the source into
the card. It reads two small JSON files; it does not load examples.
"""
from __future__ import annotations

import json
from pathlib import Path

THIRD_PARTY_MARKS = (("toolspectrum", None, "the ToolSpectrum release"),
                     ("ptbench", "official_answer", "the official PTBench release"))


def third_party(examples) -> str | None:
    """The third-party release these examples (or any of them) come from, or None."""
    for e in examples:
        for bench, key, what in THIRD_PARTY_MARKS:
            if e.benchmark == bench and (key is None or key in (e.meta or {})):
                return what
    return None


def _json(p: Path) -> dict:
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return d if isinstance(d, dict) else {}


def origin(examples, examples_path) -> dict:
    """``{"third_party": release or None, "source": what the examples were made from, "derived": [steps]}``."""
    p = Path(examples_path)
    folder = p if p.is_dir() else p.parent
    made = _json(folder / "perturb.json").get("origin") if (folder / "perturb.json").is_file() else None
    if isinstance(made, dict):
        out = {"third_party": made.get("third_party"), "source": made.get("source", "unknown"),
               "derived": list(made.get("derived", []))}
    else:
        out = {"third_party": None, "source": str(_json(folder / "stats.json").get("source") or "unknown"),
               "derived": []}
    out["third_party"] = out["third_party"] or third_party(examples)
    if out["third_party"]:
        out["source"] = f"{out['third_party']} (third-party)"
    return out
