"""benchmarks/bench_floor_recheck.py without a model: a measured run set against a floor whose inputs are given
(the floor child stubbed), the ratio hand-computed from engine_floor's own doctest case, and its refusals."""
import json

import pytest

# engine_floor's doctest case: 2 layers of width 4, every rate 1 GFLOP/s, one 100-token prompt, a 10-token answer:
# prefill 100·576 + 80 + 100·50·32 = 217,680 flop, decode 10·656 + 32·(10·100 + 45) = 40,000 flop
SHAPES = {"hidden": 4, "inter": 8, "layers": 2, "heads": 2, "kv_heads": 1, "head_dim": 2, "vocab": 10}
RATES = dict.fromkeys(["matmul_prefill", "matmul_decode", "attn_prefill", "attn_decode"], 1.0)
FLOOR = {"model": "m", "shapes": SHAPES,
         "benchmarks": {"tracebench": {"plan": [[100, 0]], "prompt_lens": [100], "rates": RATES}}}


def _measured(tmp_path, s_per_example):
    run = {"option": "default", "model": "m", "benchmark": "tracebench", "s_per_example": s_per_example,
           "completion_tokens_per_example": 10, "loadavg_start": [0.5], "loadavg_end": [1.5]}
    p = tmp_path / "opts.json"
    p.write_text(json.dumps({"n": 24, "runs": [run, {"option": "int8", "not_run": "no IR"}]}))
    return p


def test_a_run_is_set_against_the_floor_of_its_hour(bench_script, tmp_path, monkeypatch):
    fr = bench_script("bench_floor_recheck")
    calls = []
    monkeypatch.setattr(fr, "measure_floor", lambda model, bench, n: calls.append((model, bench, n)) or FLOOR)
    out = tmp_path / "recheck.json"
    s = 2 * 257_680e-9  # twice the floor
    assert fr.main(["--measured", str(_measured(tmp_path, s)), "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert calls == [("m", "tracebench", 24)]  # one floor per model, the run's own sample size
    (row,) = doc["rows"]  # the option that did not run is left out
    assert row["x_floor"] == 2.0
    assert "| m | default |" in out.with_suffix(".md").read_text()


def test_no_run_of_the_benchmark_is_a_one_line_refusal(bench_script, tmp_path, capsys):
    fr = bench_script("bench_floor_recheck")
    code = fr.script_main("bench_floor_recheck", fr.main,
                          ["--benchmark", "ptbench", "--measured", str(_measured(tmp_path, 1.0)),
                           "--out", str(tmp_path / "r.json")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "no measured ptbench run" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("text", ["{", "[1, 2]"])
def test_a_broken_measured_file_is_refused(bench_script, tmp_path, capsys, text):
    fr = bench_script("bench_floor_recheck")
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    code = fr.script_main("bench_floor_recheck", fr.main, ["--measured", str(bad), "--out", str(tmp_path / "r.json")])
    assert code == 2 and "bad.json" in capsys.readouterr().err
