"""Hand-made users for the evidence-dose tests (``test_dose.py``, ``test_dose_window.py``): u1 prefers Luckin
(3 coffee records, 3 news records, two older news records in a longer history); u2 and u3 use Starbucks, the
population's favourite. Golden values in those tests are worked out by hand from these records."""
import pytest

from pfc.data.counterfactual import perturb
from pfc.schema import Example, GoldCall, HistoryEntry, Role

COFFEE, NEWS = "order_coffee", "get_news"


def rec(t, app, fn=COFFEE, **args):
    return HistoryEntry(t, app, fn, args or ({"size": "large"} if fn == COFFEE else {"topic": "tech"}))


def ex(id_, user, history, app="Luckin", anchor="2025-03-20T09:00:00", query="Order a large coffee"):
    gold = [GoldCall(app, COFFEE, {"size": "large"}, roles={"size": Role("query")})]
    return Example(id_, "tracebench", query, gold, user, None, None, history, None,
                   {"anchor_time": anchor, "app_stated": False, "history_length": len(history)})


# u1 prefers Luckin (3 records); u2 and u3 use Starbucks (4 each, size medium): the population's favourite.
H1 = rec("2025-03-01T09:00:00", "Luckin")      # Saturday morning: weekend
H2 = rec("2025-03-03T09:00:00", "Luckin")      # Monday morning: the request's context (Thursday morning)
H3 = rec("2025-03-05T20:00:00", "Luckin")      # Wednesday evening
N = [rec(f"2025-03-0{d}T10:00:00", "Toutiao", NEWS) for d in (2, 4, 6)]
OLD = [rec("2025-02-20T10:00:00", "Toutiao", NEWS), rec("2025-02-21T10:00:00", "Toutiao", NEWS)]
E1_HIST = sorted([H1, H2, H3, *N], key=lambda h: h.time)


def starbucks_user(user):
    hist = [rec(f"2025-03-1{d}T08:00:00", "Starbucks", size="medium") for d in range(4)]
    hist += [rec("2025-03-09T10:00:00", "Toutiao", NEWS, topic=user)]
    return ex(f"{user}-e", user, hist, app="Starbucks")


@pytest.fixture()
def hand():
    e1 = ex("e1", "u1", E1_HIST)
    e1b = ex("e1b", "u1", OLD + E1_HIST, anchor="2025-03-25T09:00:00")  # u1's longest history: two older records
    return [e1, e1b, starbucks_user("u2"), starbucks_user("u3")]


def one(examples, kind, id_="e1"):
    variants, skipped = perturb(examples, kind, seed=0)
    return next((v for v in variants if v.meta["counterfactual"]["original_id"] == id_), None), skipped
