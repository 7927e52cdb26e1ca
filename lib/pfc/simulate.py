"""Simulate phone interaction logs of N users over several weeks, in each app's own raw format.

Each user has context-dependent app preferences (weekday vs weekend takeout, daily goods vs
electronics), long-term habits (home and work, payment method, seat class, usual drink),
temporal chains (a taxi's destination becomes the next coffee shop or restaurant; a flight
is followed by a hotel in that city; a ticket by a taxi to the venue) and noise. Raw events
carry personal data and some sessions are broken on purpose (see ``data/raw/README.md``).

Seeded per user (``random.Random(f"{seed}:{index}")``): the same seed gives byte-identical
output, whatever the number of worker processes.

    >>> users, events, pii = simulate_users(1, seed=0, records=100); len(users[0]["records"])
    100
"""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

from .simulate_world import (CINEMAS, COMBOS, KTVS, MALLS, MOVIES, PRODUCTS, RESTAURANTS, SHOWS, SONGS, VENUES,
                             VIDEOS, make_person, place)
from .toolset import load_tools, log_vocabulary

START = datetime(2025, 3, 3)
BROKEN = ("truncated_line", "missing_timestamp", "time_travel", "unknown_app", "missing_required_field",
          "invalid_value")
_SAME_FUNCTION = {}


def _alternatives(app: str, fn: str) -> list[str]:
    if not _SAME_FUNCTION:
        for t in load_tools():
            _SAME_FUNCTION.setdefault(t.function, []).append(t.app)
    return [a for a in _SAME_FUNCTION[fn] if a != app]


class _Day:
    """Builds one day's records for one person."""

    def __init__(self, rng: random.Random, p: dict, day: datetime, out: list):
        self.rng, self.p, self.day, self.out = rng, p, day, out
        self.weekend = day.weekday() >= 5

    def at(self, hh: int, mm_max: int = 59) -> datetime:
        return self.day + timedelta(hours=hh, minutes=self.rng.randint(0, mm_max), seconds=self.rng.randint(0, 59))

    def add(self, t: datetime, app: str, fn: str, **args):
        if self.rng.random() < 0.05:  # noise: this time, another app of the same kind
            app = self.rng.choice(_alternatives(app, fn) or [app])
        self.out.append({"time": t, "app": app, "function": fn, "arguments": args})

    def run(self):
        r, p = self.rng, self.p
        city = p["city"]
        if not self.weekend and r.random() < 0.15:
            self.add(self.at(6), "Calendar", "set_alarm", time=p["alarm"], repeat="weekdays")
        if r.random() < 0.7:
            app = p["coffee_weekend" if self.weekend else "coffee_weekday"]
            drink = p["drink"] if r.random() < 0.85 else r.choice(["Americano", "Latte", "Mocha"])
            pickup = r.random() < 0.4
            args = dict(drink=drink, size=p["size"], sugar=p["sugar"], temperature=p["temperature"], pickup=pickup)
            args.update(store=place(app, p["work_district"], city)) if pickup else \
                args.update(address=p["home" if self.weekend else "work"])
            self.add(self.at(7), app, "order_coffee", **args)
        if not self.weekend and r.random() < 0.35:
            self.add(self.at(8), p["taxi_commute"], "call_taxi", origin=p["home"], destination=p["work"],
                     car_type=p["car_type"], payment_method=p["pay"])
        if r.random() < 0.8:
            topic = p["topic"] if r.random() < 0.8 else r.choice(["tech", "world", "sports"])
            self.add(self.at(9), p["news_app"], "get_hot_topics" if p["news_app"] == "Weibo" else "get_news", topic=topic)
        if r.random() < 0.6:
            name, cuisine, menu = r.choice(p["lunch_spots"])
            app = p["takeout_weekend" if self.weekend else "takeout_weekday"]
            self.add(self.at(11), app, "order_takeout", restaurant=place(name, p["work_district"], city),
                     items=r.sample(menu, 2), address=p["home" if self.weekend else "work"],
                     payment_method=p["pay"], tableware=p["tableware"])
        if r.random() < 0.12:
            self.add(self.at(14), "Calendar", "add_todo", title=r.choice(["Pay rent", "Call mom", "Renew passport"]),
                     priority=r.choice(["normal", "high"]))
        self.evening()
        if r.random() < 0.4:
            dur = p["duration"] + r.choice([0, 0, 10, -10])
            self.add(self.at(19), p["sport_app"], "log_exercise", exercise=p["exercise"], duration_minutes=dur,
                     intensity=r.choice(["medium", "high"]))
        if r.random() < 0.5:
            genre = p["genre"] if r.random() < 0.8 else r.choice(list(SONGS))
            self.add(self.at(21), p["music_app"], "play_music", song=r.choice(SONGS[genre]), genre=genre)
        if r.random() < 0.3:
            self.add(self.at(22), p["video_app"], "play_video", video=r.choice(VIDEOS), episode=r.randint(1, 30),
                     quality="1080p")
        if self.weekend and r.random() < 0.35:
            cat = r.choice(list(PRODUCTS))
            app = p["shop"][cat]
            self.add(self.at(15), app, "buy_product", product=r.choice(PRODUCTS[cat]), category=cat,
                     quantity=r.choice([1, 1, 2]), address=p["home"], payment_method=p["pay"],
                     shipping="express" if app == "JD" else "standard", coupon=app == "Pinduoduo")

    def evening(self):
        r, p = self.rng, self.p
        city, start = p["city"], p["work" if not self.weekend else "home"]
        choice = r.random()
        if choice < 0.22:   # dinner out: search, book, taxi there (temporal chain)
            name, cuisine, _ = r.choice(RESTAURANTS)
            district = r.choice([p["home_district"], p["work_district"]])
            spot = place(name, district, city)
            self.add(self.at(17, 20), r.choice(["Dianping", "Meituan"]), "search_restaurant", cuisine=cuisine,
                     location=place(r.choice(MALLS), district, city), sort_by="rating")
            self.add(self.at(17, 50) + timedelta(minutes=30), "Dianping", "book_restaurant", restaurant=spot,
                     party_size=r.choice([2, 2, 4]), date=self.day.strftime("%Y-%m-%d"), time="19:00")
            self.add(self.at(18, 40), p["taxi_evening"], "call_taxi", origin=start, destination=spot,
                     car_type=p["car_type"], payment_method=p["pay"])
        elif choice < 0.36:  # movie: book, then taxi to the cinema
            cinema = place(r.choice(CINEMAS), r.choice([p["home_district"], p["work_district"]]), city)
            movie = r.choice(MOVIES)
            self.add(self.at(17), p["movie_app"], "search_movie", movie=movie, city=city,
                     date=self.day.strftime("%Y-%m-%d"))
            self.add(self.at(18, 20), p["movie_app"], "book_movie_ticket", movie=movie, cinema=cinema,
                     date=self.day.strftime("%Y-%m-%d"), time="20:30", tickets=r.choice([1, 2]), seat_area=p["seat_area"])
            self.add(self.at(19, 45), p["taxi_evening"], "call_taxi", origin=start, destination=cinema,
                     car_type=p["car_type"], payment_method=p["pay"])
        elif choice < 0.46:  # taxi to a mall, then a coffee picked up there
            mall = place(r.choice(MALLS), r.choice(list({p["home_district"], p["work_district"]})), city)
            self.add(self.at(17, 30), p["taxi_evening"], "call_taxi", origin=start, destination=mall,
                     car_type=p["car_type"], payment_method=p["pay"])
            app = p["coffee_weekend" if self.weekend else "coffee_weekday"]
            self.add(self.at(18, 59), app, "order_coffee", drink=p["drink"], size=p["size"], sugar=p["sugar"],
                     temperature=p["temperature"], pickup=True, store=f"{app} @ {mall}")
        elif choice < 0.52 and self.weekend:  # a show or KTV, then a taxi there
            if r.random() < 0.5:
                venue = place(r.choice(VENUES), r.choice([p["home_district"], p["work_district"]]), city)
                self.add(self.at(16), "Damai", "book_show_ticket", show=r.choice(SHOWS), venue=venue,
                         date=self.day.strftime("%Y-%m-%d"), tickets=2, seat_area=p["seat_area"])
            else:
                venue = place(r.choice(KTVS), p["home_district"], city)
                self.add(self.at(16), "Meituan", "book_ktv", venue=venue, date=self.day.strftime("%Y-%m-%d"),
                         time="20:00", room_size="medium")
            self.add(self.at(19), p["taxi_evening"], "call_taxi", origin=p["home"], destination=venue,
                     car_type=p["car_type"], payment_method=p["pay"])
        elif choice < 0.55:
            self.add(self.at(18), "KFC", "order_meal", combo=r.choice(COMBOS), address=p["home"], payment_method=p["pay"])
        else:  # dinner delivered home
            name, _, menu = r.choice(p["lunch_spots"])
            self.add(self.at(19), p["takeout_weekend"], "order_takeout", restaurant=place(name, p["home_district"], city),
                     items=r.sample(menu, 2), address=p["home"], payment_method=p["pay"], tableware=p["tableware"])

    def trip(self):
        """Flight or train to another city, a hotel there, a meeting, a question about the city."""
        r, p = self.rng, self.p
        dest = r.choice(p["trip_cities"])
        when = self.day + timedelta(days=r.randint(2, 5))
        date = when.strftime("%Y-%m-%d")
        if r.random() < 0.5:
            self.add(self.at(20), p["flight_app"], "book_flight", from_city=p["city"], to_city=dest, date=date,
                     seat_class=p["seat_class"], passengers=1, airline=p["airline"])
        else:
            self.add(self.at(20), p["train_app"], "book_train", from_city=p["city"], to_city=dest, date=date,
                     seat_class=p["train_seat"], passengers=1)
        self.add(self.at(21), p["hotel_app"], "book_hotel", city=dest, check_in=date, nights=r.choice([1, 2, 3]),
                 room_type=p["room_type"], hotel_brand=p["hotel_brand"])
        self.add(self.at(22), "Calendar", "create_event", title=f"Meeting in {dest}", start_time=f"{date} 10:00",
                 location=dest, remind_before_minutes=60)
        if r.random() < 0.6:
            self.add(self.at(22), "Zhihu", "search_answer", question=f"things to do in {dest}")


def simulate_person(index: int, seed: int, records: int = 300) -> dict:
    """One user's person dict and ``records`` time-ordered standardized calls."""
    rng = random.Random(f"{seed}:{index}")
    p = make_person(rng, index)
    out: list = []
    day, last_trip = START, START - timedelta(days=30)
    while len(out) < records:
        d = _Day(rng, p, day, out)
        d.run()
        if (day - last_trip).days > 7 and rng.random() < 0.12:
            d.trip()
            last_trip = day
        day += timedelta(days=1)
    out.sort(key=lambda rec: rec["time"])
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


def simulate_users(n: int, seed: int = 0, records: int = 300):
    """(users, raw lines, planted personal-data strings), all in memory."""
    users = [simulate_person(i, seed, records) for i in range(n)]
    lines = [line for i, u in enumerate(users) for line in raw_lines(u, i, seed)]
    return users, lines, sorted({s for u in users for s in planted_pii(u["person"])})


def _chunk(args) -> str:
    start, stop, seed, records = args
    return "".join(line + "\n" for i in range(start, stop)
                   for line in raw_lines(simulate_person(i, seed, records), i, seed))


def simulate(n: int, seed: int, out_dir, records: int = 300, workers: int = 1, progress: bool = True) -> Path:
    """Write ``out_dir/events.jsonl`` and ``manifest.json``; identical bytes for any ``workers``."""
    from tqdm import tqdm
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    step = max(1, min(200, n // (workers * 4) or 1))
    jobs = [(s, min(s + step, n), seed, records) for s in range(0, n, step)]
    tmp = out / "events.jsonl.part"
    with tmp.open("w", encoding="utf-8") as fh, tqdm(total=n, desc="simulating users", unit="user",
                                                     disable=not progress) as bar:
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
    tmp.replace(out / "events.jsonl")  # never leave a half-written log behind
    (out / "manifest.json").write_text(json.dumps({
        "format": "pfc-raw-events/1", "users": n, "seed": seed, "records_per_user": records,
        "start": START.strftime("%Y-%m-%d"), "generator": "pfc.simulate"}, indent=1) + "\n")
    return out
