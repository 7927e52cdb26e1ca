"""benchmarks/bench_throughput.py's own logic, without a model: repeated timings and their arguments."""
from types import SimpleNamespace

import pytest

from pfc.errors import UserError
from pfc.run.backends import get


def test_repeats_report_the_median_run_and_keep_every_run(bench_script, tiny_tracebench, tmp_path):
    bt = bench_script("bench_throughput")
    from pfc import benchmarks
    ids = sorted(e.id for e in benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)[0])[:3]
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


class _FakeChild:
    """Stands in for a child process of the benchmark: on wait() it writes the report its --out names, with one
    row per benchmark for its one after backend (or raises Ctrl-C once, when told to)."""
    calls: list = []
    interrupt_on: str | None = None

    def __init__(self, cmd, env):
        self.argv, self.env = cmd[2:], env
        _FakeChild.calls.append(self.argv)

    def _arg(self, flag):
        return self.argv[self.argv.index(flag) + 1]

    def wait(self):
        import json
        from pathlib import Path
        name = self._arg("--after")
        rows = [{"benchmark": b, "layout": lay, "after_backend": name, "n": 2, "n_before": None,
                 "before_s_per_example": None, "after_s_per_example": 1.0, "before_examples_per_hour": None,
                 "after_examples_per_hour": 3600.0, "speedup": None, "agreement": None}
                for b in ("ptbench", "tracebench") for lay in ("paper", "prefix")]
        Path(self._arg("--out")).write_text(json.dumps({
            "when": "now", "machine": "m", "model": "x", "command": "child", "after_backends": [name],
            "after_identity": {name: f"id-{name}"}, "benchmarks": rows}))
        if _FakeChild.interrupt_on == name:
            _FakeChild.interrupt_on = None
            raise KeyboardInterrupt
        return 0


@pytest.fixture
def fake_children(monkeypatch, bench_script):
    bt = bench_script("bench_throughput")
    _FakeChild.calls, _FakeChild.interrupt_on = [], None
    monkeypatch.setattr(bt.subprocess, "Popen", _FakeChild)
    return bt


def test_each_after_backend_is_measured_by_its_own_child_process(fake_children, tmp_path):
    bt = fake_children
    out = tmp_path / "perf.json"
    argv = ["--benchmarks", "ptbench", "tracebench", "--repeat", "openvino=3", "--out", str(out)]
    assert bt.main(argv) == 0
    first, second = _FakeChild.calls
    assert first[first.index("--after") + 1] == "hf" and "--repeat" not in first and "--before-from" not in first
    assert second[second.index("--after") + 1] == "openvino"
    assert second[second.index("--repeat") + 1] == "openvino=3"
    # the second child reuses the first one's before measurements (its report)
    assert second[second.index("--before-from") + 1] == first[first.index("--out") + 1]


def test_the_children_reports_merge_into_one_ordered_by_benchmark_layout_backend(fake_children, tmp_path):
    import json
    bt = fake_children
    out = tmp_path / "perf.json"
    assert bt.main(["--benchmarks", "ptbench", "tracebench", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert [(r["benchmark"], r["layout"], r["after_backend"]) for r in res["benchmarks"]] == [
        (b, lay, be) for b in ("ptbench", "tracebench") for lay in ("prefix", "paper") for be in ("hf", "openvino")]
    assert res["after_identity"] == {"hf": "id-hf", "openvino": "id-openvino"}
    assert res["after_backends"] == ["hf", "openvino"] and res["isolation"] == "one process per after backend"
    assert res["command"].endswith(f"--benchmarks ptbench tracebench --out {out}")
    assert "in its own process" in (tmp_path / "perf.md").read_text(encoding="utf-8")


def test_ctrl_c_during_the_second_child_keeps_both_childrens_rows_and_says_one_line(fake_children, tmp_path, capsys):
    import json
    bt = fake_children
    _FakeChild.interrupt_on = "openvino"
    out = tmp_path / "perf.json"
    assert bt.main(["--benchmarks", "ptbench", "--out", str(out)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "interrupted; the measurements finished before it are in" in err[0]
    assert {r["after_backend"] for r in json.loads(out.read_text())["benchmarks"]} == {"hf", "openvino"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["perf.json", "perf.md"]


@pytest.mark.model  # --one-process measures in this process: main() loads torch
def test_one_process_runs_no_child(fake_children, tmp_path, monkeypatch):
    bt = fake_children
    monkeypatch.setattr(bt, "get", lambda *a, **kw: None)
    monkeypatch.setattr(bt, "samples", lambda n: {})
    measured = []
    monkeypatch.setattr(bt, "measure_all", lambda args, res, benches, plan, *rest: measured.append(rest[3]))
    assert bt.main(["--benchmarks", "ptbench", "--one-process", "--out", str(tmp_path / "p.json")]) == 0
    assert _FakeChild.calls == [] and list(measured[0]) == ["hf", "openvino"]  # both backends, in this process


def _report(model, s_per_ex):
    rows = [{"benchmark": "tracebench", "layout": "prefix", "after_backend": be, "n": 4, "n_before": None,
             "before_s_per_example": None, "after_s_per_example": s, "before_examples_per_hour": None,
             "after_examples_per_hour": round(3600 / s, 1), "speedup": None, "agreement": None}
            for be, s in s_per_ex.items()]
    return {"when": "now", "machine": "m", "model": model, "command": "c", "benchmarks": rows,
            "samples_sha256": {"tracebench": "same"},
            "after_identity": {"hf": f"{model}@1:bfloat16", "openvino": f"{model}@2:openvino-1:bf16:kv-bf16"}}


def test_a_second_model_is_kept_beside_the_first_with_its_ratio_to_it(bench_script, tmp_path):
    import json
    bt = bench_script("bench_throughput")
    out = tmp_path / "perf.json"
    bt.write(out, _report("small", {"hf": 12.0, "openvino": 4.0}))
    bt.write(out, _report("big", {"hf": 40.0, "openvino": 10.0}))
    doc = json.loads(out.read_text())
    assert doc["model"] == "small" and doc["benchmarks"][0]["after_s_per_example"] == 12.0  # the first stays main
    assert doc["models"]["big"]["benchmarks"][1]["after_s_per_example"] == 10.0
    md = (tmp_path / "perf.md").read_text(encoding="utf-8")
    # by hand: 40 / 12 = 3.33 (over the 3x target), 10 / 4 = 2.5 (within it); the faster engine is openvino
    assert "| tracebench | prefix | hf | 40.0 (4) | 90.0 | " in md and "| 12.0 | 3.33× ✗ | – |" in md
    assert "| 4.0 | 2.5× ✓ |" in md and "tracebench: openvino 10.0 s/ex" in md


def test_measuring_the_first_model_again_keeps_the_second(bench_script, tmp_path):
    import json
    bt = bench_script("bench_throughput")
    out = tmp_path / "perf.json"
    bt.write(out, _report("small", {"openvino": 4.0}))
    bt.write(out, _report("big", {"openvino": 10.0}))
    bt.write(out, _report("small", {"openvino": 5.0}))
    doc = json.loads(out.read_text())
    assert doc["benchmarks"][0]["after_s_per_example"] == 5.0 and list(doc["models"]) == ["big"]
    assert "| 5.0 | 2.0× ✓ |" in (tmp_path / "perf.md").read_text(encoding="utf-8")


def test_the_phases_asked_for_reach_each_child(fake_children, tmp_path):
    bt = fake_children
    assert bt.main(["--benchmarks", "ptbench", "--phases", "prefix", "--out", str(tmp_path / "perf.json")]) == 0
    for argv in _FakeChild.calls:
        assert argv[argv.index("--phases") + 1:argv.index("--phases") + 2] == ["prefix"]


def test_a_second_model_measured_in_two_parts_keeps_both_parts_rows(bench_script, tmp_path):
    import json
    bt = bench_script("bench_throughput")
    out = tmp_path / "perf.json"
    bt.write(out, _report("small", {"hf": 12.0, "openvino": 4.0}))
    bt.write(out, _report("big", {"openvino": 10.0}))
    bt.write(out, {**_report("big", {"hf": 40.0}), "command": "d"})
    rows = json.loads(out.read_text())["models"]["big"]["benchmarks"]
    assert sorted((r["after_backend"], r["after_s_per_example"]) for r in rows) == [("hf", 40.0), ("openvino", 10.0)]


def test_a_second_model_measured_in_two_parts_says_when_each_part_was_measured(bench_script, tmp_path):
    import json
    bt = bench_script("bench_throughput")
    out = tmp_path / "perf.json"
    bt.write(out, _report("small", {"hf": 12.0, "openvino": 4.0}))
    bt.write(out, {**_report("big", {"openvino": 10.0}), "when": "day 1", "after_backends": ["openvino"]})
    bt.write(out, {**_report("big", {"hf": 40.0}), "when": "day 2", "after_backends": ["hf"]})
    big = json.loads(out.read_text())["models"]["big"]
    assert {r["after_backend"]: r["measured"] for r in big["benchmarks"]} == {"openvino": "day 1", "hf": "day 2"}
    assert big["after_backends"] == ["hf", "openvino"]
    assert "Measured on day 1 (openvino); day 2 (hf), m;" in (tmp_path / "perf.md").read_text(encoding="utf-8")


def test_a_part_written_by_several_children_names_its_command_once(bench_script, tmp_path):
    import json
    bt = bench_script("bench_throughput")
    out = tmp_path / "perf.json"
    bt.write(out, _report("small", {"hf": 12.0}))
    bt.write(out, {**_report("big", {"openvino": 10.0}), "command": "part 1"})
    for _ in range(3):  # one write per benchmark's child, each with the same command
        bt.write(out, {**_report("big", {"hf": 40.0}), "command": "part 2"})
    assert json.loads(out.read_text())["models"]["big"]["command"] == "part 1; part 2"


@pytest.mark.parametrize("change", [{"samples_sha256": {"tracebench": "other"}}, {"samples_sha256": {}},
                                    {"after_identity": {"openvino": "big@3:openvino-2:bf16:kv-bf16"}}])
def test_a_second_model_on_other_examples_or_engine_settings_gets_no_ratio(bench_script, tmp_path, change):
    """PTBench's synthesis changed between the 0.5B's and the 1.5B's measurements: a ratio across them would
    compare two datasets. Other examples, no recorded sample, or another engine version: no ratio, said why."""
    bt = bench_script("bench_throughput")
    out = tmp_path / "perf.json"
    bt.write(out, _report("small", {"openvino": 4.0}))
    bt.write(out, {**_report("big", {"openvino": 10.0}), **change})
    md = (tmp_path / "perf.md").read_text(encoding="utf-8")
    row = next(line for line in md.split("## Second model")[1].splitlines()
               if line.startswith("| tracebench | prefix | openvino | 10.0 (4) | 360.0 | "))
    assert row.endswith("| – | – | – |")  # no first-model s/ex, no ratio (warm-up not recorded here)
    assert "No ratio for tracebench" in md and "`--model small` first" in md


@pytest.mark.parametrize("text", ['{"model": "small", "benchmarks": [', '["not", "a", "report"]', '{"when": "x"}'])
def test_an_existing_out_that_is_not_a_report_is_refused_before_any_measurement(fake_children, tmp_path, capsys, text):
    out = tmp_path / "perf.json"
    out.write_text(text)
    from pfc.errors import script_main
    assert script_main("bench_throughput", fake_children.main, ["--benchmarks", "ptbench", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "perf.json: not a throughput report" in err[0] and "Traceback" not in err[0]
    assert _FakeChild.calls == [] and out.read_text() == text  # nothing measured, nothing overwritten


def test_failed_requests_are_counted_and_named_never_timed_as_answers(bench_script, tiny_tracebench, tmp_path):
    from pfc import benchmarks
    from pfc.run.backends import Backend, Response
    bt = bench_script("bench_throughput")
    ids = sorted(e.id for e in benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)[0])[:3]

    class Failing(Backend):  # a model backend whose server died: every request comes back as an error
        name = "failing"

        def generate(self, requests):
            return [Response(error="HTTP 500: engine dead") for _ in requests]

    m = bt.measure("tracebench", [(tiny_tracebench, ids)], Failing(), "prefix", None, tmp_path)
    assert m["failed"] == 3 and m["first_error"] == "HTTP 500: engine dead" and m["outputs"] == {}
    ok = bt.measure("tracebench", [(tiny_tracebench, ids)], get("oracle", ""), "prefix", None, tmp_path / "ok")
    assert "failed" not in ok and len(ok["outputs"]) == 3
