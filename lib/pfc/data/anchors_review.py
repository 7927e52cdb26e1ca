"""The second and third steps of anchor selection (TRACEBench §4.3): optional LLM fine screening and the
manual review sheet.

:func:`screen` asks any model backend whether each anchor tests personalization and drops those judged
"drop"; :func:`export_review` writes ``anchors_review.csv`` for a person to mark, and :func:`import_review`
keeps the anchors marked keep. The coarse filtering and balanced pick that come first are
``pfc.data.anchors``; the build that calls all three is ``pfc.data.build``.

    >>> [a["anchor_id"] for a in screen([{"anchor_id": "a1", "app": "A", "function": "f", "arguments": {},
    ...     "sources": {}}], lambda messages: "DROP", lambda a: [])]
    []
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from pfc.io import atomic
from pfc.schema import SchemaError


def screen(anchors: list[dict], judge, history_of) -> list[dict]:
    """Optional fine screening: ``judge(messages) -> text`` (any model backend); verdict stored.

    ``history_of(anchor)`` gives the records before the anchor. Anchors judged "drop" are removed; an unreadable verdict
    keeps the anchor and is stored as "unclear".
    """
    kept = []
    for a in anchors:
        recent = history_of(a)[-10:]
        msg = ("You review benchmark items for personalized function calling. Does this call test "
               "personalization from the user's history (habits or recent context)? Answer KEEP or DROP.\n"
               f"Recent history: {json.dumps(recent, ensure_ascii=False, default=str)[:3000]}\n"
               f"Call: {a['app']}.{a['function']}({json.dumps(a['arguments'], ensure_ascii=False)})\n"
               f"Where each value comes from: {json.dumps(a['sources'])}")
        text = str(judge([{"role": "user", "content": msg}]) or "")
        up = text.upper()
        a["llm_verdict"] = "drop" if "DROP" in up and "KEEP" not in up else "keep" if "KEEP" in up else "unclear"
        if a["llm_verdict"] != "drop":
            kept.append(a)
    return kept


REVIEW_COLUMNS = ["anchor_id", "user_id", "time", "app", "function", "arguments", "sources", "types", "reasons",
                  "llm_verdict", "keep", "reviewer_note"]


def export_review(anchors: list[dict], path) -> Path:
    """A CSV sheet for manual review: set ``keep`` to yes/no, add a note, re-import."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic.open_text(path, newline="") as fh:
        w = csv.DictWriter(fh, REVIEW_COLUMNS)
        w.writeheader()
        for a in anchors:
            w.writerow({**{k: a.get(k) for k in REVIEW_COLUMNS[:5]}, "arguments": json.dumps(a["arguments"], ensure_ascii=False),
                        "sources": json.dumps(a["sources"]), "types": "|".join(a["types"]),
                        "reasons": "|".join(a["reasons"]), "llm_verdict": a.get("llm_verdict") or "",
                        "keep": "yes", "reviewer_note": ""})
    return path


def import_review(path, anchors: list[dict]) -> list[dict]:
    """Anchors whose row says keep = yes; errors name the file, line and field."""
    by_id = {a["anchor_id"]: a for a in anchors}
    kept = []
    with Path(path).open(newline="", encoding="utf-8") as fh:
        for line, row in enumerate(csv.DictReader(fh), start=2):
            aid = row.get("anchor_id")
            if aid not in by_id:
                raise SchemaError(f"unknown anchor id {aid!r}", file=str(path), line=line, field="anchor_id")
            keep = (row.get("keep") or "").strip().lower()
            if keep not in ("yes", "y", "no", "n", "1", "0", "true", "false"):
                raise SchemaError(f"expected yes or no, got {keep!r}", file=str(path), line=line, field="keep")
            if keep in ("yes", "y", "1", "true"):
                a = by_id[aid]
                a["reviewer_note"] = row.get("reviewer_note") or ""
                kept.append(a)
    return kept
