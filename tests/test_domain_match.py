"""Hierarchical step 1: reading a domain out of a model's answer (pfc.run.prompts.match_domain)."""
from pfc.run.prompts import match_domain

# A made-up two-domain catalogue in the shape step 1 shows: {domain: {app: description}}.
DOMAINS = {"Travel": {"Ctrip": "Book hotels and flights", "Didi": "Ride hailing"},
           "Food": {"Meituan": "Order takeout meals", "Dianping": "Restaurant reviews and booking"}}


def test_domain_name_wins_over_everything_else():
    # trap: the answer also mentions an app of another domain; the named domain is what was said
    assert match_domain("Travel (maybe Meituan?)", DOMAINS) == ("Travel", "name")


def test_earliest_named_domain_wins():
    assert match_domain("food, not travel", DOMAINS) == ("Food", "name")


def test_domain_name_must_be_a_whole_word():
    # trap: "Foodie" contains "Food" but does not name it; it shares no word either
    assert match_domain("Foodie", DOMAINS) == (None, "none")


def test_app_name_reads_as_its_domain():
    assert match_domain("Use Didi.", DOMAINS) == ("Travel", "app")


def test_unique_word_overlap_picks_the_domain():
    # hand count: {"hotels"} ∩ Travel's words = 1, ∩ Food's = 0
    assert match_domain("Hotels", DOMAINS) == ("Travel", "overlap")


def test_tied_overlap_is_no_domain():
    # hand count: "booking" is in Food's text (Dianping); "book" is not "booking"; add a Travel word
    # "flights" -> Travel 1, Food 1: a tie is not a choice, the caller falls back
    assert match_domain("flights booking", DOMAINS) == (None, "none")


def test_reasoning_block_is_ignored():
    assert match_domain("<think>Travel? no.</think> Food", DOMAINS) == ("Food", "name")


def test_hostile_answers_are_none_never_raise():
    for text in (None, 42, "", "{" * 50_000, "\x00\x01", "Travel" * 0):
        assert match_domain(text, DOMAINS) == (None, "none")
    assert match_domain("Travel", {}) == (None, "none")
