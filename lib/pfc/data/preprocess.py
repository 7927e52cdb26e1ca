"""Raw interaction logs -> anonymized, validated, standardized histories (TRACEBench §4.2).

- **Validation**: sessions with a missing or unparsable timestamp, events out of time order, an unknown app or action, a
  missing required field or an invalid value are dropped whole, each counted under its reason; malformed JSON lines,
  duplicated uploads and cancelled orders are counted too.
- **Standardization**: each app's own field and action names are mapped back to the standardized functions and
  parameters (``pfc.data.toolset``); fields outside the schema (passenger names, ID numbers, contact details) are
  dropped.
- **Anonymization**: stable pseudonymous user ids (salted hash of the device; salt from ``PFC_ANON_SALT``); exact
  home/work addresses become stable pseudonyms that keep district and city; names, phone numbers, e-mail addresses and
  ID numbers left in free text are replaced by ``[NAME]``, ``[PHONE]``, ``[EMAIL]``, ``[ID]``.

Output: a histories table (``histories.parquet``) and ``preprocess_report.json``.

    >>> scrub_text("call Li Na at 13812345678", names=["Li Na"])
    'call [NAME] at [PHONE]'
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

from pfc.data.toolset import load_tools, log_vocabulary
from pfc.io import atomic
from pfc.errors import UserError
from pfc.progress import stream as progress_stream

PHONE = re.compile(r"(?<!\d)1[3-9]\d{9}(?!\d)")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
ID_NUMBER = re.compile(r"(?<![\dA-Za-z])\d{17}[\dXx](?![\dA-Za-z])")
EXACT_ADDRESS = re.compile(r"No\. \d+ [\w' ]+ Road, Building \d+, Room \d+, ([\w' ]+) District, ([\w' ]+)")
DEFAULT_SALT = "pfc-default-salt"  # set PFC_ANON_SALT for real data


def _salt() -> str:
    return os.environ.get("PFC_ANON_SALT", DEFAULT_SALT)


def pseudonym(value: str, prefix: str, n: int = 10) -> str:
    return prefix + hashlib.sha256((_salt() + "\x00" + value).encode()).hexdigest()[:n]


def _address(m: re.Match) -> str:
    return f"Address {pseudonym(m.group(0), '', 6)} ({m.group(1)} District, {m.group(2)})"


def scrub_text(text: str, names=()) -> str:
    """Replace personal data in free text (exact addresses keep district and city)."""
    text = EXACT_ADDRESS.sub(_address, text)
    text = EMAIL.sub("[EMAIL]", text)
    text = ID_NUMBER.sub("[ID]", text)
    text = PHONE.sub("[PHONE]", text)
    for name in names:
        if name:
            text = text.replace(name, "[NAME]")
    return text


def scrub(value, names=()):
    if isinstance(value, str):
        return scrub_text(value, names)
    if isinstance(value, list):
        return [scrub(v, names) for v in value]
    if isinstance(value, dict):
        return {k: scrub(v, names) for k, v in value.items()}
    return value


def _reverse_vocab() -> tuple[dict, dict]:
    tools = {(t.app, t.function): t for t in load_tools()}
    actions, fields = {}, {}
    for app in {a for a, _ in tools}:
        v = log_vocabulary(app)
        actions[app] = {act: fn for fn, act in v["actions"].items() if (app, fn) in tools}
        fields[app] = {f: p for p, f in v["fields"].items()}
    return actions, fields


def _valid_value(value, spec: dict) -> bool:
    t = spec.get("type")
    ok = {"string": isinstance(value, str), "integer": isinstance(value, int) and not isinstance(value, bool),
          "boolean": isinstance(value, bool), "array": isinstance(value, list),
          "number": isinstance(value, (int, float)) and not isinstance(value, bool)}.get(t, True)
    if not ok or ("enum" in spec and value not in spec["enum"]):
        return False
    return not (t == "integer" and value < 0)


def _check_session(events: list[dict], actions, fields, tools) -> tuple[str | None, dict | None]:
    """(drop reason, standardized call) for one session's events."""
    times = []
    for e in events:
        try:
            times.append(datetime.strptime(e["ts"], "%Y-%m-%dT%H:%M:%S"))
        except (KeyError, TypeError, ValueError):
            return "missing_or_bad_timestamp", None
    if times != sorted(times):
        return "temporal_inconsistency", None
    if any(e.get("event") == "cancel" for e in events):
        return "cancelled_by_user", None
    submits = [e for e in events if e.get("event") == "submit"]
    if not submits:
        return "incomplete_session", None
    ev = submits[0]
    app = ev.get("app")
    if app not in actions:
        return "unknown_app", None
    fn = actions[app].get(ev.get("action"))
    if fn is None:
        return "unknown_action", None
    tool = tools[(app, fn)]
    props = tool.parameters["properties"]
    args = {}
    for f, v in (ev.get("payload") or {}).items():
        p = fields[app].get(f)
        if p in props:
            args[p] = v
    if any(r not in args for r in tool.required):
        return "missing_required_field", None
    if not all(_valid_value(v, props[p]) for p, v in args.items()):
        return "invalid_value", None
    return None, {"time": ev["ts"], "app": app, "function": fn, "arguments": args,
                  "scenario": tool.domain, "device": ev.get("device"),
                  "names": [((ev.get("account") or {}).get("name") or "")]}


def _read_sessions(files: list[Path], progress: bool) -> tuple[dict[str, list], Counter]:
    """The events of ``files`` grouped by session, in reading order, and the line counts (lines read, lines
    dropped by reason, duplicated uploads removed)."""
    from tqdm import tqdm
    counts = Counter()
    sessions: dict[str, list] = defaultdict(list)
    seen = set()
    for f in files:
        with f.open("rb") as fh:  # bytes: an undecodable line is skipped and counted, not fatal
            for n, raw_line in enumerate(tqdm(fh, desc=f"reading {f.name}", unit=" lines", disable=not progress,
                                              mininterval=1, file=progress_stream())):
                counts["lines"] += 1
                try:
                    line = raw_line.decode("utf-8-sig" if n == 0 else "utf-8")
                except UnicodeDecodeError:
                    counts["dropped_lines:not_utf8"] += 1
                    continue
                try:
                    ev = json.loads(line)
                    sid = ev["session"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    counts["dropped_lines:malformed_json"] += 1
                    continue
                key = line.strip()
                if key in seen:
                    counts["duplicate_events_removed"] += 1
                    continue
                seen.add(key)
                sessions[sid].append(ev)
    return sessions, counts


def _standard_calls(sessions: dict[str, list]) -> tuple[list[dict], Counter]:
    """One anonymized, standardized call per valid session (``user_id``, ``time``, ``app``, ``function``,
    ``scenario``, ``arguments`` as JSON), and the sessions dropped by reason."""
    actions, fields = _reverse_vocab()
    tools = {(t.app, t.function): t for t in load_tools()}
    counts = Counter()
    rows = []
    for sid, events in sessions.items():
        reason, call = _check_session(events, actions, fields, tools)
        if reason:
            counts[f"dropped_sessions:{reason}"] += 1
            continue
        names = call.pop("names")
        device = call.pop("device") or sid
        call["user_id"] = pseudonym(device, "u", 8)
        call["arguments"] = json.dumps(scrub(call["arguments"], names), ensure_ascii=False, sort_keys=True)
        rows.append(call)
    return rows, counts


def preprocess(raw_dir, out_dir, progress: bool = True) -> dict:
    """Read ``raw_dir/*.jsonl``; write ``out_dir/histories.parquet`` and ``preprocess_report.json``."""
    import pandas as pd
    raw, out = Path(raw_dir), Path(out_dir)
    if not raw.is_dir():
        raise UserError("expected a directory of raw *.jsonl logs", file=str(raw_dir))
    files = sorted(raw.glob("*.jsonl"))
    if not files:
        raise UserError("no *.jsonl raw logs in this directory", file=str(raw_dir))
    sessions, counts = _read_sessions(files, progress)
    rows, dropped = _standard_calls(sessions)
    counts.update(dropped)
    counts["sessions"] = len(sessions)
    counts["calls_kept"] = len(rows)
    df = pd.DataFrame(rows, columns=["user_id", "time", "app", "function", "scenario", "arguments"])
    df = df.sort_values(["user_id", "time", "app", "function"], kind="stable").reset_index(drop=True)
    df["seq"] = df.groupby("user_id").cumcount()
    out.mkdir(parents=True, exist_ok=True)
    with atomic.staged(out / "histories.parquet") as tmp:
        df.to_parquet(tmp, index=False)
    report = {"raw_files": [f.name for f in files], "users": int(df["user_id"].nunique()),
              **dict(sorted(counts.items()))}
    atomic.write_text(out / "preprocess_report.json", json.dumps(report, indent=1) + "\n")
    return report


def load_histories(out_dir):
    """The histories table, with ``arguments`` decoded."""
    import pandas as pd
    df = pd.read_parquet(Path(out_dir) / "histories.parquet")
    df["arguments"] = df["arguments"].map(json.loads)
    return df
