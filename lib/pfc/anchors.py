"""Anchor-behaviour selection (TRACEBench §4.3): coarse filtering, optional LLM screening, review sheet.

For every call with enough history before it, each argument value is traced to where it
could come from, using only the user's *earlier* records:

- ``long_term_history``: the value is the user's usual one for this function (the mode,
  with a share of at least ``HABIT_SHARE`` over at least ``HABIT_MIN`` earlier calls);
- ``recent_context``: otherwise, the value (or a value it contains) appeared in a record
  of a *different* function within ``RECENT_HOURS`` (a taxi's destination, a flight's city);
- ``None``: neither; a query must state it.

Coarse policies: P1 an argument both anomalous against the user's habit and tied to recent
context; P2 an argument tied to recent context; P3 an argument anomalous against the habit;
P4 habitual arguments only. Labels: ``tool`` when the user has used several apps for the
function and chose the usual one for the context (weekday/weekend); ``parameter`` when some
value comes from long-term history; ``temporal`` when some comes from recent context.

    >>> POLICIES[0]
    'P1_anomalous_and_recent'
"""
from __future__ import annotations

import csv
import json
import random
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path

from .schema import SchemaError
from .matching import strings_in as _strings

RECENT_HOURS = 6
HABIT_MIN, HABIT_SHARE = 3, 0.5
MIN_HISTORY = 10
POLICIES = ("P1_anomalous_and_recent", "P2_tied_to_recent_other_tool", "P3_anomalous_vs_history", "P4_habitual")


def _key(v) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)



def _context(t: datetime) -> str:
    return "weekend" if t.weekday() >= 5 else "weekday"


def candidates(user_rows: list[dict]) -> list[dict]:
    """Candidate anchors of one user (rows sorted by time: time, app, function, arguments)."""
    habits: dict = defaultdict(Counter)        # (function, arg) -> Counter of value keys
    apps: dict = defaultdict(Counter)          # (function, context) -> Counter of apps
    recent: list[tuple[datetime, str, set]] = []  # (time, function, string values)
    out = []
    for i, rec in enumerate(user_rows):
        t = datetime.fromisoformat(rec["time"])
        fn, args = rec["function"], rec["arguments"]
        window = [r for r in recent if r[0] >= t - timedelta(hours=RECENT_HOURS) and r[1] != fn]
        if i >= MIN_HISTORY:
            sources, anomalous = {}, set()
            for a, v in args.items():
                c = habits[(fn, a)]
                total = sum(c.values())
                mode, mode_n = c.most_common(1)[0] if c else (None, 0)
                strong = total >= HABIT_MIN and mode_n / total >= HABIT_SHARE
                vals = set(_strings(v))
                tied = bool(vals) and any(s == w or (len(w) >= 6 and w in s) for s in vals
                                          for _, _, ws in window for w in ws)
                if strong and _key(v) == mode:
                    sources[a] = "long_term_history"
                elif tied:
                    sources[a] = "recent_context"
                else:
                    sources[a] = None
                if strong and _key(v) != mode:
                    anomalous.add(a)
            used = apps[(fn, _context(t))]
            usual_app = used.most_common(1)[0][0] if used else None
            app_ok = usual_app == rec["app"]
            recent_args = {a for a, s in sources.items() if s == "recent_context"}
            reasons = []
            if anomalous & recent_args:
                reasons.append(POLICIES[0])
            if recent_args:
                reasons.append(POLICIES[1])
            if anomalous:
                reasons.append(POLICIES[2])
            if not reasons and any(s == "long_term_history" for s in sources.values()):
                reasons.append(POLICIES[3])
            if reasons and app_ok:
                types = [k for k, ok in (("tool", len({a for (f, _), cnt in apps.items() if f == fn for a in cnt}) >= 2),
                                         ("parameter", "long_term_history" in sources.values()),
                                         ("temporal", bool(recent_args))) if ok]
                out.append({"user_id": rec["user_id"], "seq": rec["seq"], "time": rec["time"], "app": rec["app"],
                            "function": fn, "scenario": rec.get("scenario"), "arguments": args,
                            "sources": sources, "types": types, "reasons": reasons, "llm_verdict": None})
        for a, v in args.items():
            habits[(fn, a)][_key(v)] += 1
        apps[(fn, _context(t))][rec["app"]] += 1
        recent.append((t, fn, {s for v in args.values() for s in _strings(v)}))
        recent = [r for r in recent if r[0] >= t - timedelta(hours=RECENT_HOURS)]
    return out


def select(histories, per_user: int = 60, seed: int = 0) -> list[dict]:
    """Coarse filtering over all users; at most ``per_user`` anchors each, P1-P3 first, seeded."""
    anchors = []
    for user, part in histories.groupby("user_id", sort=True):
        cands = candidates(part.sort_values("seq").to_dict("records"))
        rng = random.Random(f"{seed}:{user}")
        strong = [c for c in cands if c["reasons"][0] != POLICIES[3]]
        habitual = [c for c in cands if c["reasons"][0] == POLICIES[3]]
        rng.shuffle(strong)
        rng.shuffle(habitual)
        chosen = sorted((strong[: per_user * 2 // 3] + habitual)[:per_user], key=lambda c: c["seq"])
        anchors += chosen
    for k, a in enumerate(anchors):
        a["anchor_id"] = f"a{k:05d}"
    return anchors


def screen(anchors: list[dict], judge, history_of) -> list[dict]:
    """Optional fine screening: ``judge(messages) -> text`` (any model backend); verdict stored.

    ``history_of(anchor)`` gives the records before the anchor. Anchors judged "drop" are
    removed; an unreadable verdict keeps the anchor and is stored as "unclear".
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
    with path.open("w", newline="", encoding="utf-8") as fh:
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
