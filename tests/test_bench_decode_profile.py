"""benchmarks/bench_decode_profile.py without a model: seconds per decoded token and the report's rows
(hand-computed), a failed engine kept as a row."""
import json


def _row(model, engine, pre, dec, toks):
    return {"model": model, "engine": engine,
            "prefill": {"n": 4, "s_per_example": pre, "completion_tokens_per_example": 1.0, "loadavg_start": [1.0],
                        "loadavg_end": [1.2]},
            "decode": {"n": 4, "s_per_example": dec, "completion_tokens_per_example": toks, "loadavg_start": [1.2],
                       "loadavg_end": [1.5]}}


def test_seconds_per_token_is_the_decode_pass_over_its_tokens(bench_script):
    dp = bench_script("bench_decode_profile")
    assert dp.per_token({"s_per_example": 4.5, "completion_tokens_per_example": 150.0}) == 0.03
    assert dp.per_token({"s_per_example": 1.0, "completion_tokens_per_example": 0}) is None


def test_the_report_adds_the_two_passes_and_shows_the_engines_reports_figure(bench_script, tmp_path):
    dp = bench_script("bench_decode_profile")
    (tmp_path / "e.json").write_text(json.dumps({"cells": {"m|toolspectrum|openvino": {"s_per_example": 8.29}}}))
    res = {"benchmark": "toolspectrum", "n": 4, "started": "2026-12-05 00:00", "note": "",
           "rows": [_row("m", "openvino", 1.95, 4.26, 142.0), _row("m", "vllm", 3.76, 4.59, 153.0),
                    {"model": "m", "engine": "hf", "not_run": "the child exited 2"}]}
    md = dp.report(res, tmp_path / "e.json")
    assert "| m | openvino | 1.95 | 4.26 | 6.21 | 8.29 | 142.0 | 0.03 | 1.0–1.5 |" in md    # 4.26 / 142 = 0.03
    assert "| m | vllm | 3.76 | 4.59 | 8.35 | – | 153.0 | 0.03 | 1.0–1.5 |" in md          # no such cell: –
    assert "| m | hf | not run: the child exited 2 |" in md
