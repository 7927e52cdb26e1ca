"""benchmarks/bench_throughput.py's own logic, without a model: repeated timings and their arguments."""
from types import SimpleNamespace

import pytest

from pfc.errors import UserError
from pfc.run.backends import get


def test_repeats_report_the_median_run_and_keep_every_run(bench_script, tiny_tracebench, tmp_path):
    bt = bench_script("bench_throughput")
    from pfc import benchmarks
    ids = sorted(e.id for e in benchmarks.get("tracebench").load(tiny_tracebench, None)[0])[:3]
    made = []

    def make():
        made.append(get("oracle", ""))
        return made[-1]

    res = {"when": "now", "machine": "m", "model": "oracle", "command": "c", "benchmarks": []}
    bt.measure_all(SimpleNamespace(out=str(tmp_path / "perf.json")), res, ["tracebench"],
                   {"tracebench": [(tiny_tracebench, ids)]}, {}, None, get("oracle", ""), {"openvino": make()},
                   repeat={"openvino": 3}, fresh={"openvino": make})
    prefix, paper = bt.row(res, "tracebench", "prefix", "openvino"), bt.row(res, "tracebench", "paper", "openvino")
    assert len(made) == 3                                       # each repeat on a newly made engine
    runs = prefix["after_s_per_example_runs"]
    assert len(runs) == 3 and prefix["after_s_per_example"] == sorted(runs)[1]
    assert "after_s_per_example_runs" not in paper             # repeats are for the prefix layout only
    assert "median of" in (tmp_path / "perf.md").read_text(encoding="utf-8")


def test_the_median_of_an_even_number_of_runs_is_the_lower_middle(bench_script):
    bt = bench_script("bench_throughput")
    m = bt.median_of([{"s_per_example": x} for x in (4.4, 3.9, 4.1, 4.0)])
    assert m["s_per_example"] == 4.0 and m["s_per_example_runs"] == [4.4, 3.9, 4.1, 4.0]


def test_a_single_run_records_no_runs_list(bench_script):
    bt = bench_script("bench_throughput")
    assert bt.median_of([{"s_per_example": 4.4}]) == {"s_per_example": 4.4}


@pytest.mark.parametrize("item", ["nope=3", "openvino=x", "openvino=0", "openvino"])
def test_a_bad_repeat_argument_is_one_user_error(bench_script, item):
    bt = bench_script("bench_throughput")
    with pytest.raises(UserError, match="--repeat"):
        bt._pairs("--repeat", [item], {"hf", "openvino"})


def test_repeat_arguments_parse_to_counts(bench_script):
    bt = bench_script("bench_throughput")
    assert bt._pairs("--repeat", ["openvino=3", "hf=2"], {"hf", "openvino"}) == {"openvino": 3, "hf": 2}
