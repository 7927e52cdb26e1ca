"""Value matching rules (pfc.eval.matching), one behaviour per test."""
from pfc.eval.matching import same_app, value_matches, values_equal


def test_strings_ignore_case_and_whitespace():
    assert values_equal("  New\tYork ", "new york")


def test_different_strings_do_not_match():
    assert not values_equal("New York", "Newark")


def test_numbers_within_tolerance_match_and_numeric_strings_count():
    assert values_equal(2, 2.0000000001) and values_equal("3", 3) and values_equal(" 4.50", 4.5)


def test_bool_is_not_a_number():
    # trap: in Python True == 1
    assert not values_equal(True, 1) and not values_equal(0, False)


def test_bool_matches_its_string_spelling():
    assert values_equal(True, "true") and values_equal("False", False) and not values_equal("true", False)


def test_lists_compare_as_sets():
    assert values_equal(["b", "A"], ["a", "b"]) and not values_equal(["a"], ["a", "b"])


def test_scalar_equals_singleton_list():
    assert values_equal("resistance_bands", ["resistance_bands"])


def test_dicts_compare_key_by_key():
    assert values_equal({"Weight": "2kg"}, {"weight": "2KG"}) and not values_equal({"a": 1}, {"a": 1, "b": 2})


def test_none_only_matches_none():
    assert values_equal(None, None) and not values_equal(None, "none") and not values_equal("", None)


def test_any_acceptable_alternative_matches():
    assert value_matches("Elm Street", ["Elm St", "Elm Street"]) and not value_matches("Oak", ["Elm St"])


def test_nan_and_inf_strings_are_not_numbers():
    assert not values_equal("nan", float("nan")) and values_equal("inf", "INF")


def test_app_names_treat_space_underscore_and_case_alike():
    assert same_app("Didi_Chuxing", "didi chuxing") and not same_app("Didi", "Didi Chuxing")
