"""Simulate phone interaction logs of N users over several weeks, in each app's own raw format.

A person (``simulate_world.make_person``) lives day after day (``simulate_day.Day``: context-dependent app choices,
habits, temporal chains, noise) until they have ``records`` standardized calls; this module then writes each call as its
app's raw log lines, with personal data, views, duplicated uploads, cancellations and sessions broken on purpose (see
``data/raw/README.md``), into ``events.jsonl`` and ``manifest.json``. It does not anonymize or validate logs
(``pfc.data.preprocess``).

Seeded per user (``random.Random(f"{seed}:{index}")``): the same seed gives byte-identical output, whatever the number
of worker processes and whatever ``PYTHONHASHSEED`` is (no iteration over sets of strings, no ``hash()``).

    >>> users, events, pii = simulate_users(1, seed=0, records=100); len(users[0]["records"])
    100
"""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

from pfc.data.simulate_day import Day
from pfc.data.simulate_world import make_person
from pfc.data.toolset import load_tools, log_vocabulary
from pfc.io import atomic
from pfc.progress import stream as progress_stream

START = datetime(2025, 3, 3)
BROKEN = ("truncated_line", "missing_timestamp", "time_travel", "unknown_app", "missing_required_field",
          "invalid_value")


def apps_of() -> dict[str, list[str]]:
    """{function: [apps offering it]} in toolset order (a list, never a set: byte-identical output)."""
    out: dict[str, list[str]] = {}
    for t in load_tools():
        out.setdefault(t.function, []).append(t.app)
    return out


def simulate_person(index: int, seed: int, records: int = 500) -> dict:
    """One user's person dict and ``records`` time-ordered standardized calls."""
    rng = random.Random(f"{seed}:{index}")
    apps = apps_of()
    p = make_person(rng, index, apps)
    out: list = []
    day, last_trip = START, START - timedelta(days=30)
    while len(out) < records:
        d = Day(rng, p, day, out, apps)
        d.run()
        if (day - last_trip).days >= 3 and rng.random() < 0.3:
            d.trip(business=not d.weekend)
            last_trip = day
        day += timedelta(days=1)
    out.sort(key=lambda rec: (rec["time"], rec["app"], rec["function"]))
    return {"person": p, "records": out[:records]}


# ------------------------------------------------------------------ raw events
def _dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def raw_lines(user: dict, index: int, seed: int) -> list[str]:
    """The raw log lines of one user: app vocabulary, personal data, views, duplicates, broken sessions."""
    rng = random.Random(f"{seed}:raw:{index}")
    p = user["person"]
    lines = []
    for k, rec in enumerate(user["records"]):
        vocab = log_vocabulary(rec["app"])
        payload = {vocab["fields"][a]: v for a, v in rec["arguments"].items()}
        fn = rec["function"]
        if fn in ("book_flight", "book_train", "book_hotel"):
            payload.update(passenger_name=p["name"], id_no=p["id_number"], contact_email=p["email"])
        if fn in ("order_takeout", "order_meal", "buy_product") and rng.random() < 0.5:
            payload.update(receiver=p["name"], receiver_phone=p["phone"])
        if rng.random() < 0.08:
            payload[vocab["fields"]["note"]] = f"Please call {p['name']} at {p['phone']} when you arrive"
        sid = f"{p['device']}-{k:05d}"
        t = rec["time"]
        ev = {"ts": t.strftime("%Y-%m-%dT%H:%M:%S"), "device": p["device"], "account": {"name": p["name"],
              "phone": p["phone"]}, "app": rec["app"], "action": vocab["actions"][fn], "session": sid,
              "event": "submit", "payload": payload}
        if rng.random() < 0.15:
            view = {**ev, "event": "view", "payload": {}, "ts": (t - timedelta(seconds=40)).strftime("%Y-%m-%dT%H:%M:%S")}
            lines.append(_dumps(view))
        broken = rng.choice(BROKEN) if rng.random() < 0.03 else None
        if broken == "truncated_line":
            lines.append(_dumps(ev)[: rng.randint(10, 60)])
            continue
        if broken == "missing_timestamp":
            ev.pop("ts")
        elif broken == "time_travel":
            lines.append(_dumps({**ev, "event": "view", "payload": {}}))
            ev["ts"] = (t - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%S")
        elif broken == "unknown_app":
            ev["app"] = "com.unknown.app"
        elif broken == "missing_required_field":
            req = [vocab["fields"][a] for a in _required(rec["app"], fn)]
            if req:
                payload.pop(req[0], None)
        elif broken == "invalid_value":
            payload[vocab["fields"][next(iter(rec["arguments"]))]] = -1
        lines.append(_dumps(ev))
        if rng.random() < 0.01:
            lines.append(_dumps(ev))  # a duplicated upload
        if rng.random() < 0.02:
            lines.append(_dumps({**ev, "event": "cancel", "payload": {}}))
    return lines


_REQ: dict = {}


def _required(app: str, fn: str) -> list[str]:
    if not _REQ:
        _REQ.update({(t.app, t.function): t.required for t in load_tools()})
    return _REQ.get((app, fn), [])


def planted_pii(person: dict) -> list[str]:
    return [person[k] for k in ("name", "phone", "email", "id_number", "home", "work")]


def simulate_users(n: int, seed: int = 0, records: int = 500):
    """(users, raw lines, planted personal-data strings), all in memory."""
    users = [simulate_person(i, seed, records) for i in range(n)]
    lines = [line for i, u in enumerate(users) for line in raw_lines(u, i, seed)]
    return users, lines, sorted({s for u in users for s in planted_pii(u["person"])})


def _chunk(args) -> str:
    start, stop, seed, records = args
    return "".join(line + "\n" for i in range(start, stop)
                   for line in raw_lines(simulate_person(i, seed, records), i, seed))


def simulate(n: int, seed: int, out_dir, records: int = 500, workers: int = 1, progress: bool = True) -> Path:
    """Write ``out_dir/events.jsonl`` and ``manifest.json``; identical bytes for any ``workers``."""
    from tqdm import tqdm
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    step = max(1, min(200, n // (workers * 4) or 1))
    jobs = [(s, min(s + step, n), seed, records) for s in range(0, n, step)]
    with atomic.open_text(out / "events.jsonl") as fh, tqdm(total=n, desc="simulating users", unit="user",
                                                     disable=not progress, file=progress_stream()) as bar:
        if workers > 1:
            from multiprocessing import Pool
            with Pool(workers) as pool:
                for (s, e, *_), text in zip(jobs, pool.imap(_chunk, jobs)):
                    fh.write(text)
                    bar.update(e - s)
        else:
            for job in jobs:
                fh.write(_chunk(job))
                bar.update(job[1] - job[0])
    atomic.write_text(out / "manifest.json", json.dumps({
        "format": "pfc-raw-events/1", "users": n, "seed": seed, "records_per_user": records,
        "start": START.strftime("%Y-%m-%d"), "generator": "pfc.data.simulate"}, indent=1) + "\n")
    return out
