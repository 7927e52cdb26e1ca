"""One simulated day of one person: the standardized calls they make, in the order of the day.

Each user prefers different apps for the same function in different observable contexts (TRACEBench Definition 3.1;
``simulate_world.APP_CONTEXTS``, ``pfc.data.context``): one takeout app at weekday lunch and another for dinner, one
shop per product category, a commute taxi app and a late-night one, business vs leisure travel apps, outdoor vs indoor
workout apps. It also has long-term habits (home and work, payment method, seat class, usual drink), temporal chains (a
taxi's destination becomes the next coffee shop or restaurant; a flight is followed by a hotel in that city; a ticket by
a taxi to the venue) and noise (``NOISE``).

It draws only from the ``random.Random`` it is given, in a fixed order (the same seed gives the same calls). It does not
write raw log lines or files, nor decide how many days a person lives (``pfc.data.simulate``), nor who the person is
(``pfc.data.simulate_world``).

    >>> from pfc.data.simulate_world import make_person; from pfc.data.toolset import load_tools
    >>> rng, apps, out = random.Random(0), {t.function: [t.app] for t in load_tools()}, []
    >>> Day(rng, make_person(rng, 0, apps), datetime(2025, 3, 3), out, apps).run(); sorted(out[0])
    ['app', 'arguments', 'function', 'time']
"""
from __future__ import annotations

import random
from datetime import datetime, timedelta

from pfc.data.simulate_world import (CINEMAS, CLIPS, COMBOS, DEPARTMENTS, EVENTS, KTVS, MALLS, MOVIES, PRODUCTS, QUESTIONS,
                                     RESTAURANTS, SHOP_CONTEXT, SHOWS, SONGS, TODOS, VENUES, place)

NOISE = 0.04  # share of calls made, this time, with another app of the same kind


class Day:
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

