"""Simulate phone interaction logs of N users over several weeks, in each app's own raw format.

Each user prefers different apps for the same function in different observable contexts
(TRACEBench Definition 3.1; ``simulate_world.APP_CONTEXTS``, ``pfc.data.context``): one takeout app
at weekday lunch and another for dinner, one shop per product category, a commute taxi app and
a late-night one, business vs leisure travel apps, outdoor vs indoor workout apps. It also has
long-term habits (home and work, payment method, seat class, usual drink),
temporal chains (a taxi's destination becomes the next coffee shop or restaurant; a flight
is followed by a hotel in that city; a ticket by a taxi to the venue) and noise. Raw events
carry personal data and some sessions are broken on purpose (see ``data/raw/README.md``).

Seeded per user (``random.Random(f"{seed}:{index}")``): the same seed gives byte-identical
output, whatever the number of worker processes and whatever ``PYTHONHASHSEED`` is (no iteration
over sets of strings, no ``hash()``).

    >>> users, events, pii = simulate_users(1, seed=0, records=100); len(users[0]["records"])
    100
"""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

from pfc.data.simulate_world import (CINEMAS, CLIPS, COMBOS, DEPARTMENTS, EVENTS, KTVS, MALLS, MOVIES, NOTES, PRODUCTS,
                             QUESTIONS, RESTAURANTS, SHOP_CONTEXT, SHOWS, SONGS, TEAS, TODOS, VENUES, make_person,
                             place)
from pfc.data.toolset import load_tools, log_vocabulary
from pfc.io import atomic

START = datetime(2025, 3, 3)
BROKEN = ("truncated_line", "missing_timestamp", "time_travel", "unknown_app", "missing_required_field",
          "invalid_value")
NOISE = 0.04  # share of calls made, this time, with another app of the same kind


def apps_of() -> dict[str, list[str]]:
    """{function: [apps offering it]} in toolset order (a list, never a set: byte-identical output)."""
    out: dict[str, list[str]] = {}
    for t in load_tools():
        out.setdefault(t.function, []).append(t.app)
    return out


class _Day:
    """Builds one day's records for one person."""

    def __init__(self, rng: random.Random, p: dict, day: datetime, out: list, apps: dict):
        self.rng, self.p, self.day, self.out, self.apps = rng, p, day, out, apps
        self.weekend = day.weekday() >= 5
        self.date = day.strftime("%Y-%m-%d")

    def at(self, hh: int, mm_max: int = 59) -> datetime:
        return self.day + timedelta(hours=hh, minutes=self.rng.randint(0, mm_max), seconds=self.rng.randint(0, 59))

    def app(self, fn: str, context: str) -> str:
        return self.p["apps"][fn][context]

    def add(self, t: datetime, app: str, fn: str, **args):
        others = [a for a in self.apps[fn] if a != app]
        if others and self.rng.random() < NOISE:
            app = self.rng.choice(others)
        self.out.append({"time": t, "app": app, "function": fn, "arguments": args})

    def here(self, name: str, district: str | None = None) -> str:
        return place(name, district or self.rng.choice([self.p["home_district"], self.p["work_district"]]), self.p["city"])

    def run(self):
        r, p = self.rng, self.p
        work = not self.weekend
        if work and r.random() < 0.15:
            self.add(self.at(6), "Calendar", "set_alarm", time=p["alarm"], repeat="weekdays")
        if r.random() < 0.45:
            genre = p["genre_morning"]
            self.add(self.at(7), self.app("play_music", "morning"), "play_music", song=r.choice(SONGS[genre]),
                     genre=genre, shuffle=p["shuffle"])
        if work and r.random() < 0.6:
            self.add(self.at(8), self.app("order_coffee", "work"), "order_coffee", drink=p["drink"], size=p["size"],
                     sugar=p["sugar"], temperature=p["temperature"], pickup=False, address=p["work"])
        if work and r.random() < 0.35:
            self.add(self.at(8), self.app("call_taxi", "commute"), "call_taxi", origin=p["home"], destination=p["work"],
                     car_type=p["car_type"], payment_method=p["pay"])
        if r.random() < 0.6:
            topic = p["topic"] if r.random() < 0.85 else r.choice(["tech", "world", "sports"])
            self.add(self.at(9), self.app("get_news", "morning"), "get_news", topic=topic)
        if work:
            self.lunch()
        if r.random() < 0.25:
            self.add(self.at(13), "Weibo", "get_hot_topics", topic=p["topic"])
        self.afternoon()
        self.evening()
        self.night()

    def lunch(self):
        r, p = self.rng, self.p
        if r.random() < 0.12:
            self.add(self.at(11, 20), self.app("search_restaurant", "lunch"), "search_restaurant",
                     cuisine=p["lunch_cuisine"], location=self.here(p["fav_mall"], p["work_district"]), sort_by="distance")
        if r.random() < 0.55:
            k = 0 if r.random() < 0.6 else r.choice([1, 2])
            name, _, menu = p["lunch_spots"][k]
            items = menu[:1] if r.random() < 0.7 else r.sample(menu, 2)
            self.add(self.at(11, 50), self.app("order_takeout", "lunch"), "order_takeout",
                     restaurant=place(name, p["work_district"], p["city"]), items=items, address=p["work"],
                     payment_method=p["pay"], tableware=p["tableware"], spice_level=p["spice"])
        if r.random() < 0.25:
            if r.random() < 0.4:
                kw = r.choice(CLIPS)
                self.add(self.at(12, 20), self.app("search_video", "clips"), "search_video", keyword=kw, sort_by="newest")
                self.add(self.at(12, 20) + timedelta(minutes=30), self.app("play_video", "clips"), "play_video",
                         video=kw, quality=p["quality"])
            else:
                self.add(self.at(12), self.app("play_video", "clips"), "play_video", video=r.choice(CLIPS),
                         quality=p["quality"])

    def afternoon(self):
        r, p = self.rng, self.p
        if r.random() < 0.12:
            self.add(self.at(13), "Xiaohongshu", "search_notes", keyword=p["note_topic"], sort_by="rating")
        if r.random() < 0.15:
            self.add(self.at(15), "HeyTea", "order_tea", drink=p["tea"], size=p["size"], sugar=p["sugar"],
                     temperature=p["temperature"], pickup=False, address=p["home" if self.weekend else "work"],
                     toppings=p["toppings"])
        if r.random() < 0.08:
            due = (self.day + timedelta(days=r.randint(1, 7))).strftime("%Y-%m-%d")
            self.add(self.at(14), "Calendar", "add_todo", title=r.choice(TODOS), due_date=due, priority=p["priority"])
        if r.random() < 0.05:
            when = (self.day + timedelta(days=r.randint(1, 10))).strftime("%Y-%m-%d")
            self.add(self.at(15), "Calendar", "create_event", title=r.choice(EVENTS), start_time=f"{when} 18:30",
                     location=self.here(r.choice(MALLS)), remind_before_minutes=p["remind"])
        if r.random() < 0.05:
            when = (self.day + timedelta(days=r.randint(1, 5))).strftime("%Y-%m-%d")
            dept = p["department"] if r.random() < 0.7 else r.choice(DEPARTMENTS)
            self.add(self.at(16), "Huawei_Health", "book_doctor", department=dept, date=when, time="09:30")
        if r.random() < 0.06:
            self.add(self.at(16), "Zhihu", "search_answer", question=r.choice(QUESTIONS), sort_by="rating")
        if self.weekend and r.random() < 0.35:  # leisure: taxi to a mall, coffee picked up there
            mall = self.here(r.choice(MALLS) if r.random() < 0.5 else p["fav_mall"])
            self.add(self.at(14, 20), self.app("call_taxi", "evening"), "call_taxi", origin=p["home"], destination=mall,
                     car_type=p["car_type"], payment_method=p["pay"])
            app = self.app("order_coffee", "leisure")
            self.add(self.at(15), app, "order_coffee", drink=p["drink"], size=p["size"], sugar=p["sugar"],
                     temperature=p["temperature"], pickup=True, store=f"{app} @ {mall}")
        if self.weekend and r.random() < 0.25:
            self.movie("weekend", 14)
        if r.random() < 0.3:
            cat = r.choices(list(PRODUCTS), weights=[45, 15, 20, 10, 10])[0]
            app = self.app("buy_product", SHOP_CONTEXT[cat])
            args = dict(product=r.choice(PRODUCTS[cat]), category=cat, quantity=1, address=p["home"],
                        payment_method=p["pay"])
            args.update(shipping="express") if app == "JD" else args.update(coupon=True)
            self.add(self.at(16), app, "buy_product", **args)

    def movie(self, context: str, hh: int):
        r, p = self.rng, self.p
        app = self.app("book_movie_ticket", context)
        movie, cinema = r.choice(MOVIES), self.here(r.choice(CINEMAS))
        if r.random() < 0.75:
            self.add(self.at(hh, 20), self.app("search_movie", context), "search_movie", movie=movie, city=p["city"],
                     date=self.date)
        self.add(self.at(hh, 20) + timedelta(minutes=30), app, "book_movie_ticket", movie=movie, cinema=cinema,
                 date=self.date, time="20:30" if context == "weeknight" else "16:30", tickets=r.choice([1, 2]),
                 seat_area=p["seat_area"], screen=p["screen"])
        return cinema

    def evening(self):
        r, p = self.rng, self.p
        start = p["home"] if self.weekend else p["work"]
        choice = r.random()
        if choice < 0.2:   # dinner out: search, book, taxi there (temporal chain)
            ctx = "friends" if self.weekend else "date"
            name, cuisine, _ = r.choice(RESTAURANTS)
            mall = self.here(r.choice(MALLS))
            spot = place(name, mall.split("(")[1].split(",")[0], p["city"])
            self.add(self.at(17, 20), self.app("search_restaurant", "dinner"), "search_restaurant", cuisine=cuisine,
                     location=mall, sort_by="rating")
            self.add(self.at(17, 50) + timedelta(minutes=5), self.app("book_restaurant", ctx), "book_restaurant",
                     restaurant=spot, party_size=4 if ctx == "friends" else 2, date=self.date, time="19:00",
                     location=mall)
            self.add(self.at(18, 40), self.app("call_taxi", "evening"), "call_taxi", origin=start, destination=spot,
                     car_type=p["car_type"], payment_method=p["pay"])
        elif choice < 0.32 and not self.weekend:  # movie: book, then taxi to the cinema
            cinema = self.movie("weeknight", 18)
            self.add(self.at(19, 45), self.app("call_taxi", "evening"), "call_taxi", origin=start, destination=cinema,
                     car_type=p["car_type"], payment_method=p["pay"])
        elif choice < 0.47 and self.weekend:  # a show or KTV, then a taxi there and home late
            if r.random() < 0.5:
                show, venue = r.choice(SHOWS), self.here(r.choice(VENUES))
                if r.random() < 0.6:
                    self.add(self.at(17, 20), "Damai", "search_show", keyword=show, city=p["city"], date=self.date)
                if r.random() < 0.7:
                    self.add(self.at(17, 20), "Damai", "search_venue", city=p["city"], keyword=venue.split(" (")[0])
                self.add(self.at(17, 50) + timedelta(minutes=5), "Damai", "book_show_ticket", show=show, venue=venue,
                         date=self.date, tickets=2, seat_area=p["seat_area"])
            else:
                venue = self.here(r.choice(KTVS), p["home_district"])
                self.add(self.at(17, 50), "Meituan", "book_ktv", venue=venue, date=self.date, time="20:00",
                         room_size="medium", party_size=4)
            self.add(self.at(19), self.app("call_taxi", "evening"), "call_taxi", origin=p["home"], destination=venue,
                     car_type=p["car_type"], payment_method=p["pay"])
            self.add(self.at(23), self.app("call_taxi", "night"), "call_taxi", origin=venue, destination=p["home"],
                     car_type=p["car_night"], payment_method=p["pay"])
        elif choice < 0.5:  # a bike ride: route to a park, a shared bike there
            park = self.here(p["park"], p["home_district"])
            self.add(self.at(17, 30), "Baidu_Maps", "get_route", origin=p["home"], destination=park, mode="cycling")
            self.add(self.at(17, 30) + timedelta(minutes=31), "Hellobike", "rent_bike", location=park,
                     bike_type=p["bike"])
        elif choice < 0.55:
            self.add(self.at(18), "KFC", "order_meal", combo=r.choice(COMBOS), address=p["home"], payment_method=p["pay"])
        elif choice < 0.9:  # dinner delivered home
            name, _, menu = p["lunch_spots"][0 if r.random() < 0.6 else r.choice([1, 2])]
            self.add(self.at(19), self.app("order_takeout", "dinner"), "order_takeout",
                     restaurant=place(name, p["home_district"], p["city"]), items=menu[:1], address=p["home"],
                     payment_method=p["pay"], tableware=p["tableware"], spice_level=p["spice"])
        self.exercise_and_news()

    def exercise_and_news(self):
        """The end of an evening: sometimes a workout logged, sometimes the news."""
        r, p = self.rng, self.p
        if r.random() < 0.4:
            outdoor = r.random() < p["outdoor_share"]
            ex = p["outdoor" if outdoor else "indoor"]
            app = self.app("log_exercise", "outdoor" if outdoor else "indoor")
            if not outdoor and r.random() < 0.4:
                self.add(self.at(20, 10), "Keep", "start_workout", exercise=ex, duration_minutes=p["duration"])
            self.add(self.at(20, 50) + timedelta(minutes=5), app, "log_exercise", exercise=ex,
                     duration_minutes=p["duration"], intensity=p["intensity"])
        if r.random() < 0.4:
            topic = p["topic_evening"] if r.random() < 0.85 else r.choice(["tech", "world", "sports"])
            self.add(self.at(21), self.app("get_news", "evening"), "get_news", topic=topic)

    def night(self):
        r, p = self.rng, self.p
        if r.random() < 0.5:
            genre = p["genre_night"]
            self.add(self.at(22), self.app("play_music", "night"), "play_music", song=r.choice(SONGS[genre]), genre=genre,
                     shuffle=p["shuffle"])
        if r.random() < 0.3:
            if r.random() < 0.25:
                self.add(self.at(22, 20), self.app("search_video", "series"), "search_video", keyword=p["series"],
                         sort_by="relevance")
            self.add(self.at(22, 20) + timedelta(minutes=30), self.app("play_video", "series"), "play_video",
                     video=p["series"], episode=r.randint(1, 30), quality=p["quality"])
        if r.random() < 0.03:
            genre = p["genre_night"]
            self.add(self.at(23), "QQMusic", "create_playlist", playlist=f"{genre} nights", genre=genre,
                     songs=SONGS[genre][:2])

    def trip(self, business: bool):
        """A flight or train to another city, a hotel there; a meeting, or notes about the city."""
        r, p = self.rng, self.p
        ctx = "business" if business else "leisure"
        dest = r.choice(p["trip_cities"])
        date = (self.day + timedelta(days=r.randint(2, 5))).strftime("%Y-%m-%d")
        hh = 15 if business else 10
        if r.random() < 0.65:
            self.add(self.at(hh, 20), self.app("book_flight", ctx), "book_flight", from_city=p["city"], to_city=dest,
                     date=date, seat_class=p["seat_class"] if business else "economy", passengers=1 if business else 2,
                     airline=p["airline"])
        else:
            self.add(self.at(hh, 20), self.app("book_train", ctx), "book_train", from_city=p["city"], to_city=dest,
                     date=date, seat_class=p["train_seat"], passengers=1 if business else 2)
        app = self.app("book_hotel", ctx)
        extra = {"breakfast": True} if app == "Ctrip" else {}
        self.add(self.at(hh, 20) + timedelta(minutes=25), app, "book_hotel", city=dest, check_in=date,
                 nights=1 if business else 2, room_type=p["room_type"] if business else "double",
                 hotel_brand=p["hotel_brand"], **extra)
        if business:
            self.add(self.at(hh, 20) + timedelta(minutes=35), "Calendar", "create_event", title=f"Meeting in {dest}",
                     start_time=f"{date} 10:00", location=dest, remind_before_minutes=p["remind"])
        elif r.random() < 0.7:
            self.add(self.at(hh, 20) + timedelta(minutes=40), "Xiaohongshu", "search_notes",
                     keyword=f"things to do in {dest}", sort_by="rating", location=dest)
        if r.random() < 0.4:
            self.add(self.at(hh, 20) + timedelta(minutes=45), "Baidu_Baike", "search_entry", keyword=dest,
                     category="city")
        if r.random() < 0.3:
            self.add(self.at(hh, 20) + timedelta(minutes=50), "Zhihu", "search_answer",
                     question=f"things to do in {dest}", sort_by="rating")


def simulate_person(index: int, seed: int, records: int = 500) -> dict:
    """One user's person dict and ``records`` time-ordered standardized calls."""
    rng = random.Random(f"{seed}:{index}")
    apps = apps_of()
    p = make_person(rng, index, apps)
    out: list = []
    day, last_trip = START, START - timedelta(days=30)
    while len(out) < records:
        d = _Day(rng, p, day, out, apps)
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
    from pfc.progress import stream as progress_stream
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
