"""Queries at four vagueness levels for each anchor (TRACEBench §4.3), offline or by LLM role-play.

Elements of a call are its function and its arguments. A level says how many are omitted: most_clear none (and it names
the app, so nothing is left to infer); relevant_clear one or two (possibly the function); relevant_vague half;
most_vague all (no argument stated, function implicit). Only most_clear names the app: at the other levels the app is
left to the user's context-dependent preference (tool personalization). Only arguments whose value can be recovered from
the history (``long_term_history`` or ``recent_context``, see ``pfc.data.anchors``) may be omitted; a level that cannot
be met for an anchor is skipped and counted.

Every query is checked: each stated value appears in it and no omitted value does (an omitted value that shows up anyway
is relabelled as stated, so provenance stays true).

    >>> LEVELS
    ('most_clear', 'relevant_clear', 'relevant_vague', 'most_vague')
"""
from __future__ import annotations

import math
import random

LEVELS = ("most_clear", "relevant_clear", "relevant_vague", "most_vague")
FUNCTION = "<function>"
EXPLICIT = {
    "order_takeout": ["Order takeout", "Get me a delivery order", "Place a food delivery"],
    "order_coffee": ["Order a coffee", "Get me a coffee", "Order my coffee"],
    "order_tea": ["Order a tea", "Get me a milk tea"], "order_meal": ["Order a set meal", "Get me a fast-food meal"],
    "call_taxi": ["Call a taxi", "Book a ride", "Get me a car"], "book_restaurant": ["Book a table", "Reserve a table"],
    "search_restaurant": ["Find a restaurant", "Search for restaurants"], "buy_product": ["Buy", "Order online"],
    "book_flight": ["Book a flight", "Get me a plane ticket"], "book_train": ["Book a train ticket"],
    "book_hotel": ["Book a hotel", "Reserve a hotel room"], "create_event": ["Add a calendar event", "Put in my calendar"],
    "set_alarm": ["Set an alarm"], "add_todo": ["Add a to-do", "Remind me to do"],
    "search_movie": ["Look up showtimes"], "book_movie_ticket": ["Book movie tickets", "Get cinema tickets"],
    "book_show_ticket": ["Book show tickets"], "book_ktv": ["Book a KTV room"], "play_music": ["Play some music", "Put on music"],
    "play_video": ["Play a video", "Put on a show"], "log_exercise": ["Log my workout", "Record an exercise session"],
    "get_news": ["Show me the news"], "get_hot_topics": ["What's trending"], "search_answer": ["Look up"],
}
VAGUE = {
    "Food": ["I'm getting hungry", "Sort out my food", "The usual, please", "I could use something"],
    "Shopping": ["I need to restock", "Get that thing I need"], "Transport": ["I need to head out", "Get me there"],
    "Reminder": ["Don't let me forget", "Keep me on schedule"], "Entertainment": ["I want some entertainment", "Let's have fun tonight"],
    "Sport & Health": ["Keep track of my fitness", "Done with my workout"], "Knowledge": ["I'm curious about something"],
    "News": ["What's going on today?", "Catch me up"],
}
FRAG = {
    "restaurant": ["from {v}", "at {v}"], "items": ["{v}"], "address": ["to {v}", "delivered to {v}"],
    "destination": ["to {v}", "going to {v}"], "origin": ["from {v}", "picking me up at {v}"],
    "payment_method": ["pay with {v}", "using {v}"], "drink": ["a {v}"], "size": ["{v} size"],
    "store": ["from the {v} store"], "date": ["on {v}"], "time": ["at {v}"], "party_size": ["for {v} people"],
    "tickets": ["{v} tickets"], "quantity": ["{v} of them"], "topic": ["about {v}"], "genre": ["some {v}"],
    "city": ["in {v}"], "to_city": ["to {v}"], "from_city": ["from {v}"], "location": ["around {v}"],
    "song": ["{v}"], "video": ["{v}"], "cinema": ["at {v}"], "movie": ["{v}"], "venue": ["at {v}"],
    "duration_minutes": ["for {v} minutes"], "exercise": ["{v}"], "check_in": ["checking in {v}"],
    "nights": ["for {v} nights"], "title": ["\"{v}\""], "start_time": ["starting {v}"], "question": ["\"{v}\""],
}
BOOL = {"tableware": ("with cutlery", "no cutlery"), "pickup": ("for pickup", "delivered"),
        "coupon": ("with a coupon", "no coupon")}


def _text(v) -> str:
    return " and ".join(map(str, v)) if isinstance(v, list) else str(v)


def fragment(name: str, value, rng: random.Random) -> str:
    if isinstance(value, bool):
        yes, no = BOOL.get(name, (f"{name.replace('_', ' ')}: yes", f"{name.replace('_', ' ')}: no"))
        return yes if value else no
    tpl = rng.choice(FRAG.get(name, ["{n} {v}", "{n}: {v}"]))
    return tpl.format(v=_text(value), n=name.replace("_", " "))


def _rng(anchor: dict, seed: int) -> random.Random:
    """Seeded by the anchor's place in the user's history (or its id): the same before and after selection."""
    if "user_id" in anchor and "seq" in anchor:
        return random.Random(f"{seed}:{anchor['user_id']}:{anchor['seq']}")
    return random.Random(f"{seed}:{anchor['anchor_id']}")


def level_count(anchor: dict, seed: int = 0) -> int:
    """How many vagueness levels :func:`generate` plans for this anchor."""
    return len(plan_levels(anchor, _rng(anchor, seed)))


def app_display(app: str) -> str:
    return app.replace("_", " ")


def plan_levels(anchor: dict, rng: random.Random) -> dict[str, set[str]]:
    """{level: omitted elements} for the levels this anchor allows."""
    args = list(anchor["arguments"])
    omittable = [FUNCTION] + [a for a in args if anchor["sources"].get(a)]
    n = len(args) + 1
    plans = {"most_clear": set()}
    rc = min(2, len(omittable), max(1, n - 1))
    if rc >= 1 and n >= 2:
        plans["relevant_clear"] = set(rng.sample(omittable, rng.randint(1, rc)))
    half = max(math.ceil(n / 2), len(plans.get("relevant_clear", ())) + 1)
    if half < n and half <= len(omittable):
        plans["relevant_vague"] = set(rng.sample(omittable, half))
    if len(omittable) == n:
        plans["most_vague"] = set(omittable)
    return plans


def render(anchor: dict, omitted: set[str], rng: random.Random, name_app: bool = False) -> str:
    stated = [a for a in anchor["arguments"] if a not in omitted]
    if FUNCTION in omitted:
        head = rng.choice(VAGUE.get(anchor.get("scenario"), ["Can you take care of it"]))
    else:
        head = rng.choice(EXPLICIT.get(anchor["function"], [anchor["function"].replace("_", " ").capitalize()]))
    if name_app:
        head += f" on {app_display(anchor['app'])}"
    frags = [fragment(a, anchor["arguments"][a], rng) for a in stated]
    if not frags:
        return head + rng.choice([".", " — you know what I like.", ", like last time."])
    if FUNCTION in omitted:  # a vague head is a sentence of its own
        return head + rng.choice([": ", " — "]) + ", ".join(frags) + "."
    polite = rng.choice(["", "Please ", "Could you "])
    body = head if not polite else polite + head[0].lower() + head[1:]
    return body + " " + ", ".join(frags) + rng.choice([".", ", thanks.", " please."])


def check(query: str, anchor: dict, omitted: set[str]) -> set[str]:
    """Arguments the query actually states; raises ValueError if a meant-to-be-stated value is absent."""
    q = query.lower()
    stated = set()
    for a, v in anchor["arguments"].items():
        values = [x for x in (v if isinstance(v, list) else [v]) if not isinstance(x, bool)]
        present = all(str(x).lower() in q for x in values) if values else a not in omitted
        if a not in omitted and not present:
            raise ValueError(f"value of {a!r} missing from the query")
        if a not in omitted or (values and all(len(str(x)) >= 3 and str(x).lower() in q for x in values)):
            stated.add(a)
    return stated


def generate(anchor: dict, seed: int = 0, chat=None) -> list[dict]:
    """Queries for one anchor: [{level, query, stated, function_stated, generator}]."""
    rng = _rng(anchor, seed)
    out = []
    for level, omitted in plan_levels(anchor, rng).items():
        query, generator, name_app = None, "template", level == "most_clear"
        if chat is not None:
            query, generator = _roleplay(anchor, level, omitted, chat, name_app), "llm"
            try:
                check(query, anchor, omitted)
                if name_app and not app_stated(query, anchor["app"]):
                    raise ValueError("app not named")
            except (ValueError, TypeError):
                query, generator = None, "template-fallback"
        if query is None:
            query = render(anchor, omitted, rng, name_app)
        stated = check(query, anchor, omitted)
        if level == "most_vague" and stated:
            continue  # an omitted value leaked in: not most vague any more
        out.append({"level": level, "query": query, "stated": sorted(stated),
                    "function_stated": FUNCTION not in omitted, "app_stated": app_stated(query, anchor["app"]),
                    "generator": generator})
    return out


def app_stated(query: str, app: str) -> bool:
    """Whether the query names the app (as written, or with spaces for underscores)."""
    q = query.lower()
    return app.lower() in q or app_display(app).lower() in q


def _roleplay(anchor: dict, level: str, omitted: set[str], chat, name_app: bool = False) -> str:
    keep = {a: v for a, v in anchor["arguments"].items() if a not in omitted}
    msg = ("Role-play the phone user whose action is below and write the one-sentence request they would "
           f"say to an assistant. Vagueness level: {level}. State exactly these values, word for word: "
           f"{keep}. Do not mention: {sorted(a for a in omitted if a != FUNCTION)}"
           + (". Do not name the action itself." if FUNCTION in omitted else "")
           + (f". Name the app {app_display(anchor['app'])}." if name_app else ". Do not name the app.")
           + f"\nAction: {anchor['app']}.{anchor['function']}({anchor['arguments']})\nRequest:")
    return str(chat([{"role": "user", "content": msg}]) or "").strip().strip('"')
