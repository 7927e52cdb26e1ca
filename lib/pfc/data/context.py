"""The observable context of a call: weekday or weekend, part of day, and a context argument.

TRACEBench Definition 3.1: a user may prefer different apps for the same function depending on the query's context
(daily goods on one platform, electronics on another; one taxi app for the commute, another at night). This module names
that context from what a model can see — the request time and the call's arguments — so the simulator, anchor selection,
build statistics and baselines all mean the same thing by it. It does not decide which app a user prefers.

    >>> context_of("2025-03-08T19:30:00", {"category": "electronics"})
    ('weekend', 'evening', 'electronics')
"""
from __future__ import annotations

from datetime import datetime

DAYPARTS = ((5, "morning"), (11, "midday"), (14, "afternoon"), (17, "evening"), (22, "night"))
CONTEXT_ARGS = ("category", "exercise")  # arguments whose value is itself the context


def daypart(hour: int) -> str:
    """morning 5-10, midday 11-13, afternoon 14-16, evening 17-21, night 22-4."""
    label = "night"
    for start, name in DAYPARTS:
        if hour >= start:
            label = name
    return label


def context_of(time, args: dict | None = None) -> tuple[str, str, str]:
    """(weekday|weekend, daypart, context-argument value or '') of a call at ``time``."""
    t = time if isinstance(time, datetime) else datetime.fromisoformat(str(time))
    value = next((str(args[a]) for a in CONTEXT_ARGS if args and isinstance(args.get(a), str)), "")
    return ("weekend" if t.weekday() >= 5 else "weekday", daypart(t.hour), value)


def most_frequent(apps: list[str]) -> str | None:
    """The most frequent app of a list; ties go to the alphabetically first (deterministic)."""
    counts: dict[str, int] = {}
    for a in apps:
        counts[a] = counts.get(a, 0) + 1
    return min(counts, key=lambda a: (-counts[a], a)) if counts else None
