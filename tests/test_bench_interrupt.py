"""Ctrl-C on the issue-18 benchmark scripts: one line on stderr, exit 130, no half-written report."""
import importlib.util
from pathlib import Path

import pytest

from pfc import paths

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _script(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _interrupt(*args, **kw):
    raise KeyboardInterrupt


@pytest.mark.model
def test_bench_throughput_interrupted_before_a_measurement_writes_nothing(tmp_path, monkeypatch, capsys):
    bt = _script("bench_throughput")
    monkeypatch.setattr(bt, "get", lambda *a, **kw: None)   # no model load
    monkeypatch.setattr(bt, "samples", lambda n: {"ptbench": []})
    monkeypatch.setattr(bt, "measure_all", _interrupt)
    out = tmp_path / "perf.json"
    assert bt.main(["--benchmarks", "ptbench", "--out", str(out)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"bench_throughput: interrupted; nothing measured; {paths.relative(out)} unchanged"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.model
def test_bench_throughput_interrupted_while_loading_the_model_says_one_line(tmp_path, monkeypatch, capsys):
    bt = _script("bench_throughput")
    monkeypatch.setattr(bt, "get", _interrupt)   # Ctrl-C during the model load, before any measuring
    out = tmp_path / "perf.json"
    assert bt.main(["--benchmarks", "ptbench", "--out", str(out)]) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        f"bench_throughput: interrupted; nothing measured; {paths.relative(out)} unchanged"]


@pytest.mark.model
def test_bench_throughput_interrupted_after_a_measurement_keeps_it(tmp_path, monkeypatch, capsys):
    bt = _script("bench_throughput")
    monkeypatch.setattr(bt, "get", lambda *a, **kw: None)
    monkeypatch.setattr(bt, "samples", lambda n: {"ptbench": []})
    out = tmp_path / "perf.json"

    def one_then_stop(args, res, *rest):
        bt.row(res, "ptbench", "prefix").update(n=2, after_s_per_example=1.5)
        bt.write(out, res)
        raise KeyboardInterrupt
    monkeypatch.setattr(bt, "measure_all", one_then_stop)
    assert bt.main(["--benchmarks", "ptbench", "--out", str(out)]) == 130
    assert "measurements finished before it are in" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["perf.json", "perf.md"]  # no temporary file left
    assert '"after_s_per_example": 1.5' in out.read_text()


@pytest.mark.model
def test_bench_attention_interrupted_writes_nothing(tmp_path, monkeypatch, capsys):
    ba = _script("bench_attention")
    monkeypatch.setattr(ba, "measure", _interrupt)
    out = tmp_path / "perf_attention.json"
    assert ba.main(["--out", str(out)]) == 130
    assert capsys.readouterr().err.strip() == \
        f"bench_attention: interrupted; nothing written, {paths.relative(out)} unchanged"
    assert list(tmp_path.iterdir()) == []
