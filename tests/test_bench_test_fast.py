"""benchmarks/bench_test_fast.py's own logic, without cloning: reading pytest's summaries, finding heavy stacks,
the report's verdict."""
import sys


def test_pytest_summaries_are_read_from_both_invocations(bench_script):
    b = bench_script("bench_test_fast")
    log = ("....\n98 passed in 10.33s\nsome other line 3 passed\n"
           "============ 700 passed, 2 failed, 20 deselected in 95.20s ============\n")
    assert b.pytest_counts(log) == ["98 passed in 10.33s", "700 passed, 2 failed, 20 deselected in 95.20s"]


def test_a_package_missing_from_the_interpreter_is_not_reported_heavy(bench_script, monkeypatch):
    b = bench_script("bench_test_fast")
    monkeypatch.setattr(b, "HEAVY", ("json", "no_such_package_xyz"))
    assert b.heavy_installed(sys.executable) == ["json"]


def _result(**kw):
    return {"commit": "abc1234", "setup_s": 200.0, "test_fast_s": 95.0, "rc": 0, "pytest": ["9 passed in 1.0s"],
            "heavy_installed": [], "load_before": [0.1, 0.2, 0.3], "load_after": [1.0, 1.0, 1.0], "cpus": 2,
            "python": "3.11", "target_s": 120.0, "log_tail": "", **kw}


def test_the_verdict_needs_both_a_pass_and_the_time(bench_script):
    b = bench_script("bench_test_fast")
    assert "this run meets it" in b.render(_result())
    assert "this run misses it" in b.render(_result(test_fast_s=130.0))
    assert "this run misses it" in b.render(_result(rc=2, log_tail="E   boom"))
