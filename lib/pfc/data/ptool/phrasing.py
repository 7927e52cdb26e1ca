"""Request phrasing of the PTool v2 synthesis: a grammar whose paraphrase families are split train/test.

A request is ``opener + wrapper(core) + closer``; the core is an action's verb phrase with the object mention and the
extra slots (date, time, party size, ...) placed after it or, fronted, before the wrapper; a second call joins with a
connector, a platform hint with a hint frame. Every list below is a set of *paraphrase families*: item ``i`` of a list
belongs to the test side when ``i % 3 == 2`` and to the train side otherwise (:func:`side_of`), and slot orders are
split by placement and permutation parity, so a test request shares no frame, verb phrase, slot realization or slot
order with any training request. Values are stated verbatim.

It draws from the ``random.Random`` it is given (seeded by the caller) and never writes profile values into a request;
it does not choose values, users or platforms.

    >>> import random
    >>> q = request(random.Random(0), "test", [("search", "flights", "Lisbon", [])], None)
    >>> "Lisbon" in q
    True
"""
from __future__ import annotations

import itertools
import random

SIDES = ("train", "test")

VERBS = {
    "search": ["find {X}", "look up {X}", "search for {X}", "pull up {X}", "check what's available for {X}",
               "track down {X}", "get me results for {X}", "scan the listings for {X}", "dig up options for {X}",
               "go looking for {X}", "bring up {X}", "hunt for {X}"],
    "browse": ["browse {X}", "show me a list of {X}", "let me see {X}", "open the listing of {X}", "flip through {X}",
               "give me an overview of {X}", "display {X}", "walk me through {X}", "put {X} on screen"],
    "compare": ["compare offers for {X}", "line up the options for {X}", "weigh up the deals on {X}",
                "set the choices for {X} side by side", "contrast the prices of {X}", "benchmark the offers for {X}",
                "rank the offers for {X}", "check which deal on {X} is better", "stack up the alternatives for {X}"],
    "order": ["order {X}", "buy {X}", "purchase {X}", "get {X} delivered", "place an order for {X}",
              "have {X} sent over", "pick up {X} for me online", "grab {X}", "send for {X}"],
    "book": ["book {X}", "lock in {X}", "make a booking for {X}", "secure {X}", "arrange {X}", "sort out {X}",
             "set up a booking for {X}", "get {X} booked", "nail down {X}"],
    "reserve": ["reserve {X}", "hold {X}", "put a reservation on {X}", "keep {X} aside", "save a spot for {X}",
                "block out {X}", "claim {X}", "earmark {X}", "get a hold placed on {X}"],
    "cancel": ["cancel {X}", "call off {X}", "drop {X}", "scrap {X}", "undo {X}", "void {X}",
               "withdraw {X}", "kill {X}", "revoke {X}"],
    "track": ["track {X}", "check on {X}", "tell me where {X} stands", "follow up on {X}", "get the status of {X}",
              "see how {X} is progressing", "monitor {X}", "look into the progress of {X}", "trace {X}"],
    "rate": ["rate {X}", "leave a rating on {X}", "score {X}", "give {X} a rating", "review {X}",
             "grade {X}", "post a score for {X}", "mark {X}", "put a rating on {X}"],
    "save": ["save {X}", "bookmark {X}", "keep {X} for later", "stash {X} in my list", "pin {X}",
             "store {X}", "add {X} to my saved items", "put {X} aside for later", "hang on to {X}"],
    "share": ["share {X}", "pass {X} along", "forward {X}", "send {X} across", "show {X} to someone",
              "circulate {X}", "hand {X} over", "spread {X}", "relay {X}"],
    "schedule": ["schedule {X}", "plan {X}", "put {X} in the calendar", "slot in {X}", "set a time for {X}",
                 "pencil in {X}", "line up {X}", "calendar {X}", "fix a slot for {X}"],
    "remind": ["remind me about {X}", "set a reminder for {X}", "ping me about {X}", "nudge me about {X}",
               "don't let me forget {X}", "alert me about {X}", "give me a heads-up on {X}", "flag {X} for me",
               "jog my memory about {X}"],
    "download": ["download {X}", "save {X} offline", "get {X} onto my device", "fetch {X} for offline use",
                 "pull {X} down", "grab a copy of {X}", "keep an offline copy of {X}", "export {X}", "copy down {X}"],
    "subscribe": ["subscribe to {X}", "follow {X}", "sign me up for updates on {X}", "keep me posted on {X}",
                  "turn on updates for {X}", "opt me in to {X}", "register me for news on {X}", "watch {X} for news",
                  "get me alerts on {X}"],
    "pay": ["pay {X}", "settle {X}", "cover {X}", "send the payment for {X}", "clear {X}", "take care of paying {X}",
            "pay off {X}", "square up {X}", "make the payment on {X}"],
}
MENTIONS = ["{v}", "the {noun} for {v}", "{noun}: {v}", "{v} ({noun})", "{noun} matching {v}", "{noun} about {v}",
            "the {v} {noun}", "{noun} named {v}", "{noun} tied to {v}"]
SLOTS = {
    "date": ["on {v}", "for {v}", "dated {v}", "with the date {v}", "the day being {v}", "set for {v}"],
    "time": ["at {v}", "around {v}", "starting {v}", "for the {v} slot", "from {v}", "timed at {v}"],
    "quantity": ["{v} of them", "quantity {v}", "{v} units", "in a batch of {v}", "a count of {v}", "{v} pieces"],
    "party_size": ["for {v} people", "party of {v}", "{v} guests", "a group of {v}", "seats for {v}", "{v} in total"],
    "stars": ["{v} stars", "a {v} star score", "with a score of {v}", "{v} out of five", "giving it {v}", "{v} points"],
    "amount": ["{v} dollars", "for {v} dollars", "an amount of {v}", "totalling {v}", "worth {v}", "a sum of {v}"],
    "recipient": ["with {v}", "to {v}", "for {v} to see", "sending it to {v}", "so {v} gets it", "over to {v}"],
}
FRONT = ["{s}, ", "{s}: ", "{s} - "]
WRAPPERS = ["{c}.", "could you {c}?", "please {c}.", "I'd like you to {c}.", "can you {c} for me?", "I need you to {c}.",
            "would you {c}?", "go ahead and {c}.", "help me {c}.", "I want to {c}.", "it would be great if you could {c}.",
            "time to {c}.", "let's {c}.", "my plan is to {c}.", "kindly {c}.", "I was hoping you'd {c}.",
            "do me a favour and {c}.", "see if you can {c}."]
OPENERS = ["", "Hey, ", "Hi there, ", "", "Okay so ", "Quick favour: ", "Right, ", "Hello! ", "When you get a chance, ",
           "So, ", "Morning, ", "Listen, ", "Alright, ", "Good day! ", "Um, "]
CLOSERS = ["", " Thanks!", " Cheers.", "", " Appreciate it.", " No rush.", " Thank you so much.", " That's all.",
           " Much obliged.", " Thanks in advance.", " That would help a lot.", " Let me know when it's done.",
           " Ta.", " Many thanks.", " Thanks a bunch."]
CONNECTORS = ["Then", "After that,", "Next,", "Also,", "And once that's done,", "Plus,",
              "Following that,", "On top of that,", "Afterwards,"]
HINT_FRAMES = [" - {h}.", ", {h}.", " ({h}).", ", ideally {h}.", ", and {h}.", " - {h}, please."]


def side_of(i: int) -> str:
    """The side (train/test) of item ``i`` of a paraphrase list."""
    return "test" if i % 3 == 2 else "train"


def pick(rng: random.Random, items: list, side: str):
    """A random item of ``items`` on ``side``."""
    return rng.choice([x for i, x in enumerate(items) if side_of(i) == side])


def _order(rng: random.Random, n: int, side: str) -> tuple[bool, tuple]:
    """(fronted, permutation) of ``n`` extra slots: train = after+even or fronted+odd; test the other two."""
    perms = list(itertools.permutations(range(n)))
    parity = {p: sum(a > b for a, b in itertools.combinations(p, 2)) % 2 for p in perms}
    options = [(f, p) for f in (False, True) for p in perms
               if (parity[p] == int(f)) == (side == "train") or (n < 2 and f == (side == "test"))]
    if n < 2:
        options = [(side == "test", perms[0])]
    return rng.choice(options)


def clause(rng: random.Random, side: str, action: str, noun: str, slot_value, extras: list) -> tuple[str, str]:
    """(fronted part, core) of one call: the verb phrase, its object and its extra slots."""
    mention = pick(rng, MENTIONS, side).format(v=slot_value, noun=noun)
    core = pick(rng, VERBS[action], side).format(X=mention)
    fronted, perm = _order(rng, len(extras), side)
    parts = [pick(rng, SLOTS[name], side).format(v=v) for name, v in (extras[i] for i in perm)]
    if not parts:
        return "", core
    if fronted:
        return pick(rng, FRONT, side).format(s=" ".join(parts)), core
    return "", core + " " + " ".join(parts)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def request(rng: random.Random, side: str, calls: list, hint: str | None) -> str:
    """One request on ``side`` for ``calls`` = [(action, noun, slot value, [(slot, value), ...])]."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}")
    out = []
    for k, (action, noun, value, extras) in enumerate(calls):
        front, core = clause(rng, side, action, noun, value, extras)
        sentence = pick(rng, WRAPPERS, side).format(c=core)
        if k == 0:
            out.append(pick(rng, OPENERS, side) + front + sentence if front else pick(rng, OPENERS, side) + sentence)
        else:
            out.append(pick(rng, CONNECTORS, side) + " " + front + sentence)
    text = " ".join(out)
    if hint:
        text = text.rstrip(".?!") + pick(rng, HINT_FRAMES, side).format(h=hint)
    text += pick(rng, CLOSERS, side)
    return _cap(text.strip())
