"""benchmarks/bench_replay.py without a model: its children stubbed, the identical shares hand-counted."""
import json
from pathlib import Path

import pytest

# engine "a" answers the same both passes; engine "b" changes one of its four answers in the second pass
ANSWERS = {("a", 0): {"x1": "p", "x2": "q", "x3": "r", "x4": "s"},
           ("a", 1): {"x1": "p", "x2": "q", "x3": "r", "x4": "s"},
           ("b", 0): {"x1": "p", "x2": "q", "x3": "R", "x4": "s"},
           ("b", 1): {"x1": "p", "x2": "Q", "x3": "R", "x4": "s"}}


@pytest.fixture
def stubbed(bench_script, monkeypatch):
    be = bench_script("bench_engines")
    monkeypatch.setattr(be, "ENGINES", ("a", "b"))
    calls = []

    def child(argv, what):
        engine, out = argv[argv.index("--child") + 1], Path(argv[-1])
        k = sum(c == engine for c in calls)
        calls.append(engine)
        out.write_text(json.dumps({"engine": engine, "identity": f"{engine}-id", "s_per_example": 1.0 + k,
                                   "load_s": 2.0, "outputs": ANSWERS[(engine, k)]}))
        return 0
    monkeypatch.setattr(be, "run_child", child)
    return bench_script("bench_replay"), calls


def test_each_engine_runs_twice_alternating_and_its_identical_share_is_counted(stubbed, tmp_path):
    br, calls = stubbed
    out = tmp_path / "replay.json"
    assert br.main(["--engines", "a", "b", "--out", str(out)]) == 0
    assert calls == ["a", "b", "a", "b"]
    rows = {r["engine"]: r for r in json.loads(out.read_text())["rows"]}
    assert rows["a"]["identical_every_pass"] == 1.0 and rows["a"]["n"] == 4
    assert rows["b"]["identical_every_pass"] == 0.75  # x2 changed between b's passes
    assert rows["a"]["identical_to_first_pass_of"] == {"b": 0.75}  # x3 differs between the first passes
    assert rows["b"]["s_per_example"] == [1.0, 2.0]
    assert "| b | 1.0 / 2.0 | 0.75 (4) |" in out.with_suffix(".md").read_text()


def test_a_single_pass_is_refused_before_any_work(stubbed, tmp_path, capsys):
    br, calls = stubbed
    code = br.script_main("bench_replay", br.main, ["--engines", "a", "--passes", "1", "--out", str(tmp_path / "r.json")])
    assert code == 2 and "--passes must be >= 2" in capsys.readouterr().err
    assert calls == [] and list(tmp_path.iterdir()) == []


def test_a_pass_that_fails_is_refused_and_writes_nothing(stubbed, bench_script, tmp_path, capsys, monkeypatch):
    br, _ = stubbed
    import sys
    monkeypatch.setattr(sys.modules["bench_engines"], "run_child", lambda argv, what: 1)
    code = br.script_main("bench_replay", br.main, ["--engines", "a", "--out", str(tmp_path / "r.json")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "a, pass 1: not measured" in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
