"""Coverage of a predictions file: which example ids it matched, missed, did not know, or repeated.

A prediction file maps example ids to outputs; a silent mismatch (another dataset's ids,
a file cut short, a run appended twice) would score as a plausible-looking number.
:class:`Predictions` is the ``{id: output}`` dict that loading fills, remembering every id
it saw and the duplicates whose outputs differ (the last one is kept). :func:`coverage`
counts; :func:`check` refuses nothing matched, and with ``strict`` any missing, unknown or
duplicate id. Pure functions over ids; no file I/O.

    >>> p = Predictions(); p.add("a", "x"); p.add("a", "y"); p.add("z", "w")
    >>> c = coverage(["a", "b"], p); (c["matched"], c["missing"], c["unknown"], c["duplicate"], c["conflicting"])
    (1, 1, 1, 1, 1)
"""
from __future__ import annotations

from collections import Counter

from pfc.errors import UserError

SHOWN = 3  # ids named in a message


class Predictions(dict):
    """``{example id: raw output}`` plus what loading saw (``seen`` counts, ``conflicting`` ids)."""

    def __init__(self):
        super().__init__()
        self.seen: Counter = Counter()
        self.conflicting: set = set()

    def add(self, key: str, output) -> None:
        self.seen[key] += 1
        if key in self and self[key] != output:
            self.conflicting.add(key)
        self[key] = output

    def merge(self, other: "Predictions") -> None:
        for key, n in other.seen.items():
            if key in self:
                self.add(key, other[key])
                self.seen[key] += n - 1
            else:
                self[key] = other[key]
                self.seen[key] = n
        self.conflicting |= other.conflicting


def coverage(example_ids, preds: dict) -> dict:
    """Counts (and the first few ids) of matched, missing, unknown, duplicate and conflicting ids."""
    ids = list(example_ids)
    idset = set(ids)
    seen = getattr(preds, "seen", None) or Counter(preds.keys())
    missing = [i for i in ids if i not in preds]
    unknown = sorted(k for k in preds if k not in idset)
    dups = sorted(k for k, n in seen.items() if n > 1)
    return {"examples": len(ids), "prediction_lines": sum(seen.values()), "matched": len(idset & set(preds)),
            "missing": len(missing), "unknown": len(unknown), "duplicate": len(dups),
            "conflicting": len(getattr(preds, "conflicting", ())),
            "first_missing": missing[:SHOWN], "first_unknown": unknown[:SHOWN], "first_duplicate": dups[:SHOWN]}


def _ids(xs) -> str:
    return ", ".join(repr(x) for x in xs) + (", …" if xs else "")


def check(cov: dict, predictions_file, strict: bool = False) -> None:
    """Refuse a score that would mean nothing: no id matched; with ``strict``, any missing/unknown/duplicate id."""
    f = str(predictions_file)
    if cov["examples"] and not cov.get("prediction_lines"):
        raise UserError("holds no predictions (empty file)", file=f)
    if cov["examples"] and not cov["matched"]:
        raise UserError(f"no prediction matches an example id ({cov['unknown']} unknown ids such as "
                        f"{_ids(cov['first_unknown'])} while examples have ids such as {_ids(cov['first_missing'])}); "
                        "are these predictions for these examples?", file=f, field="id")
    if strict:
        problems = [f"{cov[k]} {k} (e.g. {_ids(cov['first_' + k])})" for k in ("missing", "unknown", "duplicate")
                    if cov[k]]
        if problems:
            raise UserError("--strict: " + "; ".join(problems), file=f, field="id")


def summary(cov: dict) -> str:
    """One line for a person: ``matched 89 of 89 examples; 0 missing, 0 unknown, 0 duplicate``."""
    s = (f"matched {cov['matched']} of {cov['examples']} examples; {cov['missing']} missing, "
         f"{cov['unknown']} unknown, {cov['duplicate']} duplicate")
    return s + (f" ({cov['conflicting']} with differing outputs)" if cov["conflicting"] else "")
