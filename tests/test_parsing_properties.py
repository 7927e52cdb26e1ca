"""Property-based tests: rendered calls round-trip in every style; arbitrary text never raises."""
import keyword

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pfc.benchmarks.ptbench.official import OfficialFormatError, official_parse, score_sample
from pfc.eval.matching import same_app
from pfc.eval.parsing import parse
from pfc.render import render
from pfc.schema import Call

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ident = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,8}(_[A-Za-z0-9]{1,6})?", fullmatch=True)
func_name = ident.filter(lambda s: not keyword.iskeyword(s))
arg_name = st.one_of(ident, st.sampled_from(["from", "class", "import", "in", "is", "lambda"]))
app_name = st.one_of(ident, st.builds(lambda a, b: f"{a} {b}", ident, ident))
scalar = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-10**30, max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(max_size=30))
value = st.recursive(scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=8)
calls = st.lists(st.builds(Call, st.just(None), func_name, st.dictionaries(arg_name, value, max_size=4)),
                 min_size=1, max_size=3)


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert same_app(g.app, w.app) and g.function == w.function and g.arguments == w.arguments


@SETTINGS
@given(app_name, calls, st.sampled_from(["ptbench", "json", "tool_calls"]))
def test_rendered_calls_round_trip(app, cs, style):
    cs = [Call(app, c.function, c.arguments) for c in cs]
    r = parse(render(cs, style), "auto" if style == "tool_calls" else style)
    assert r.ok, r.error
    _same(r.calls, cs)


@SETTINGS
@given(app_name, calls)
def test_rendered_calls_round_trip_in_auto_style_with_reasoning_and_fences(app, cs):
    cs = [Call(app, c.function, c.arguments) for c in cs]
    text = "<think>which app? {[(</think>\n```\n" + render(cs, "ptbench") + "\n```"
    r = parse(text)
    assert r.ok, r.error
    _same(r.calls, cs)


@SETTINGS
@given(st.text(max_size=400), st.sampled_from(["auto", "ptbench", "json"]))
def test_arbitrary_text_never_raises(text, style):
    r = parse(text, style)
    assert r.ok or (r.error and r.error.split(":")[0] in ("input", "format", "value"))


_ALPHABET = st.sampled_from(list("Shop:[](){}'\",=+-*/.0123456789abcxyz_ \n<>`") + ["<think>", "</think>", "from", "True", "null"])


@SETTINGS
@given(st.lists(_ALPHABET, max_size=80).map("".join), st.sampled_from(["auto", "ptbench", "json"]))
def test_near_miss_syntax_never_raises(text, style):
    parse(text, style)


@SETTINGS
@given(st.lists(_ALPHABET, max_size=80).map("".join))
def test_official_compat_never_raises_anything_but_its_format_error(text):
    try:
        official_parse(text)
    except OfficialFormatError:
        pass
    row = score_sample(["Shop", [{"f": {"x": [1]}}]], text, {"query_params": ["x"], "profile_params": []})
    assert row["format"] in (0, 1)
