"""Fault suite: ``pfc perturb --kind`` refuses, in one line naming ``--kind``, an argument that is empty after its
``:`` (``dose:``), a dose K listed twice (``dose:4,4``) and digits that are not ASCII (``dose:٤``, which ``int``
reads as 4); the kinds it took before read as before."""
import pytest

from pfc.data.counterfactual_dose import DOSES
from pfc.data.counterfactual_kinds import parse_kind
from pfc.errors import UserError


@pytest.mark.parametrize("kind", ["dose:", "dose:@20", "contradict-stated:", "truncate-history:", "swap-user:",
                                  "dose:\u0664", "dose:0,\u0664", "truncate-history:\u0665", "shift-time:+\u0663",
                                  "contradict-stated:\u0668", "dose@\u0662\u0660", "dose:\uff14"])
def test_an_empty_or_non_ascii_argument_is_an_unknown_kind(kind):
    with pytest.raises(UserError) as e:
        parse_kind(kind)
    assert str(e.value).startswith("field '--kind': ") and repr(kind) in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("kind, k", [("dose:4,4", 4), ("dose:0,16,4,16", 16), ("dose:4,04", 4), ("dose:4,4@20", 4)])
def test_a_dose_listed_twice_is_refused(kind, k):
    with pytest.raises(UserError, match=rf"^field '--kind': kind {kind!r} lists K = {k} twice; list each dose once"):
        parse_kind(kind)


@pytest.mark.parametrize("kind, parsed", [("dose", ("dose", DOSES)), ("dose:16,0,4", ("dose", (0, 4, 16))),
                                          ("dose:0@20", ("dose", (0,))), ("truncate-history:5", ("truncate-history", 5)),
                                          ("shift-time:-3", ("shift-time", -3)), ("swap-user", ("swap-user", None)),
                                          ("contradict-stated:8", ("contradict-stated", 8))])
def test_the_kinds_taken_before_read_as_before(kind, parsed):
    assert parse_kind(kind) == parsed
