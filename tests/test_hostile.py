"""Hostile model output: typed failures (or inert strings), and nothing is ever executed.

An audit hook records every code-execution, process and network event while the parsers
and the compat scorer run; the marker file that each payload would create must not exist.
Timing of these inputs is measured by benchmarks/bench_scoring.py, not asserted here.
"""
import sys

import pytest

from pfc.benchmarks.ptbench.official import score_sample
from pfc.eval.parsing import parse

_EVENTS = []
_WATCH = {"exec", "os.system", "subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork",
          "socket.connect", "builtins.input", "ctypes.dlopen", "os.remove", "shutil.rmtree"}
_ARMED = [False]


def _hook(event, args):
    if _ARMED[0] and event in _WATCH:
        _EVENTS.append(event)


sys.addaudithook(_hook)
# The parsers' own lazy imports (a style's benchmark package, pfc.benchmarks' registry) happen here, before any test
# arms the hook: importing a module is an "exec" event too, and only model output must never cause one.
for _style in ("auto", "ptbench", "json"):
    parse("Shop:[f(x=1)]", _style)

MARK = "/tmp/pfc_pwned_marker"  # noqa: S108 — the file a payload would create
RUN = f"__import__('os').system('touch {MARK}')"
CODE_FORMS = [
    f"Shop:[f(x={RUN})]", f"Shop:[f(x=1+{RUN})]", f"Shop:[f(x={RUN}*2)]", f"Shop:[f(x=-{RUN})]",
    f"Shop:[f(x=lambda: {RUN})]", f"Shop:[f(x=(lambda: {RUN})())]", f"Shop:[f(x=[{RUN} for _ in [1]])]",
    f"Shop:[f(x={{k: {RUN} for k in 'a'}})]", f"Shop:[f(x=({RUN} for _ in [1]))]",
    f"Shop:[f(x=f'{{{RUN}}}')]", f"Shop:[f(x=(y:={RUN}))]", f"Shop:[f(x={RUN} if 1 else 0)]",
    f"Shop:[f(x={RUN} and 1)]", f"Shop:[f(x={RUN} == 1)]", f"Shop:[f(x=[1][{RUN}])]",
    "Shop:[f(x=().__class__.__bases__[0].__subclasses__())]", "Shop:[f(x=1+eval('1'))]",
    "Shop:[f(x=1+exec('import os'))]", "Shop:[f(x=1+open('/etc/passwd').read())]",
    "Shop:[f(x=1+getattr(__builtins__, 'ev'+'al')('1'))]", f"Shop:[{RUN}]", f"{RUN}:[f()]",
    f"Shop:[f(**{{'x': {RUN}}})]", f"Shop:[f(x=*{RUN})]", f"Shop:[f(x=await {RUN})]",
    f"Shop:[f(x=(yield {RUN}))]", "Shop:[f(x=1+len('ab'))]", f"Shop:[f(x={{{RUN}}})]",
    f"Shop:[f(x={RUN}.real)]", f"Shop:[f(x=1 if {RUN} else 2)]",
    '{"APP": "a", "API": "b", "params": {"x": "' + RUN.replace("'", "\\u0027") + '"}}',
]
SIZES = ["[" * 100_000 + "]" * 100_000, "Shop:[f(x=" + "[" * 100_000 + "]" * 100_000 + ")]",
         "Shop:[f(x=" + "-" * 100_000 + "1)]", "Shop:[f(x=" + "+".join(["1"] * 50_000) + ")]",
         "x" * 10_000_000, "Shop:[f(x='" + "a" * 10_000_000 + "')]", '{"a": ' * 100_000,
         "Shop:[f(x=1" + "0" * 5000 + ")]", "Shop:[f(x=10**10**10)]", "Shop:[f(x=2**999999)]",
         "Shop:[f(x='a'*10**10)]", "Shop:[f(x=[0]*10**12)]", "Shop:[f(x=1<<10**9)]",
         "Shop:[f(x=1e999)]", "Shop:[f(x=float('nan'))]", '{"APP":"a","API":"b","params":{"x":Infinity}}',
         '{"APP":"a","API":"b","params":{"x":-NaN}}', '{"APP":"a","API":"b","params":{"x":1' + "0" * 100 + "}}",
         "Shop:[f(x='\x00')]", "\x00", "Shop:[f(x=1)]\x00", "\ud800", "Shop:[f(x='\\N{BOGUS}')]"]


@pytest.fixture(autouse=True)
def _armed(tmp_path):
    import os
    if os.path.exists(MARK):
        os.remove(MARK)
    _EVENTS.clear()
    _ARMED[0] = True
    yield
    _ARMED[0] = False


@pytest.mark.parametrize("text", CODE_FORMS)
@pytest.mark.parametrize("style", ["auto", "ptbench", "json"])
def test_code_execution_attempt_runs_nothing(text, style):
    r = parse(text, style)
    import os
    assert not os.path.exists(MARK) and _EVENTS == []
    # either refused, or kept as inert text that is never evaluated
    for c in r.calls:
        for v in c.arguments.values():
            assert isinstance(v, (str, int, float, bool, type(None), list, dict))


@pytest.mark.parametrize("text", CODE_FORMS)
def test_compat_scorer_runs_nothing_and_counts_a_format_error(text):
    # trap: the published evaluator calls eval() on arithmetic; ours must not (format error instead)
    row = score_sample(["Shop", [{"f": {"x": [1]}}]], text, {"query_params": ["x"], "profile_params": []})
    import os
    assert not os.path.exists(MARK) and _EVENTS == []
    if "+" in text and "__import__" in text:
        assert row["format"] == 0


@pytest.mark.parametrize("text", SIZES, ids=[f"size{i}" for i in range(len(SIZES))])
def test_oversized_and_degenerate_inputs_give_typed_failures(text):
    r = parse(text)
    assert _EVENTS == []
    if not r.ok:
        assert r.error.split(":")[0] in ("input", "format", "value")
    else:  # only inert strings may come back (e.g. float('nan') stays text)
        assert all(isinstance(v, str) for c in r.calls for v in c.arguments.values())


@pytest.mark.parametrize("text", SIZES, ids=[f"size{i}" for i in range(len(SIZES))])
def test_oversized_inputs_in_compat_mode_are_format_errors_not_crashes(text):
    row = score_sample(["Shop", [{"f": {"x": [1]}}]], text, {"query_params": ["x"], "profile_params": []})
    assert row["format"] in (0, 1) and _EVENTS == []


def test_huge_integer_literal_is_refused_with_a_number_error():
    assert parse("Shop:[f(x=10**100)]").error.startswith("value:number_too_large")


def test_nan_and_infinity_are_refused():
    assert parse("Shop:[f(x=1e999)]").error.startswith("value:non_finite")
    assert parse('{"APP":"a","API":"b","params":{"x":NaN}}').error.startswith("value:non_finite")
