"""benchmarks/bench_openvino_options.py without a model: each option's verdicts against ``hf``'s on the same
examples and its agreement with the first ``default`` (hand-counted), and the report's rows."""
from types import SimpleNamespace

import pandas as pd


def _fake_score(examples, outputs, benchmark, tools=None, *a, **kw):
    """A scorer standing in for the benchmark's: an answer is right when it is "ok"."""
    return SimpleNamespace(per_example=pd.DataFrame(
        {"id": [e.id for e in examples], "valid": [int(outputs[e.id] == "ok") for e in examples]}))


def _doc(runs):
    return {"model": "m", "benchmark": "b", "n": 4, "when": "2026-12-04 18:00", "runs": runs, "notes": [],
            "command": "python benchmarks/bench_openvino_options.py"}


def _run(option, outputs, s=2.0):
    return {"option": option, "outputs": outputs, "s_per_example": s, "loadavg_start": [1.0], "loadavg_end": [1.5]}


def _compare(bo, monkeypatch, doc, hf_outputs):
    from pfc.eval import scoring
    monkeypatch.setattr(scoring, "score", _fake_score)
    exs = [SimpleNamespace(id=i) for i in "1234"]
    bo.compare(doc, {"cells": {"m|b|hf": {"outputs": hf_outputs}}}, lambda bench, n: (exs, []))


def test_an_option_is_compared_with_hf_example_by_example(bench_script, monkeypatch):
    bo = bench_script("bench_openvino_options")
    # hf right on 1, 2; the option right on 1, 3, 4: only this 2 (3, 4), only hf 1 (2); McNemar p = 1.0 (b+d = 3)
    doc = _doc([_run("int8", {"1": "ok", "2": "no", "3": "ok", "4": "ok"})])
    _compare(bo, monkeypatch, doc, {"1": "ok", "2": "ok", "3": "no", "4": "no"})
    r = doc["runs"][0]
    assert r["right"] == ["1", "3", "4"]
    assert r["vs_hf"] == {"n": 4, "only_this": 2, "only_ref": 1, "p": 1.0}


def test_agreement_with_default_is_the_share_of_identical_raw_answers(bench_script, monkeypatch):
    bo = bench_script("bench_openvino_options")
    doc = _doc([_run("default", {"1": "ok", "2": "a", "3": "b", "4": "c"}),
                _run("kv-u8", {"1": "ok", "2": "a", "3": "x", "4": "y"})])
    _compare(bo, monkeypatch, doc, {"1": "ok", "2": "ok", "3": "ok", "4": "ok"})
    assert [r["same_as_default"] for r in doc["runs"]] == [1.0, 0.5]


def test_the_report_gives_each_option_its_ratio_to_the_first_default_and_keeps_a_failed_one(bench_script, tmp_path):
    bo = bench_script("bench_openvino_options")
    doc = _doc([_run("default", {"1": "ok"}, 4.0), _run("batched-8192", {"1": "ok"}, 3.0),
                {"option": "int8", "not_run": "the child exited with status 2 (its error is above)"}])
    bo.write(tmp_path / "o.json", doc)
    md = (tmp_path / "o.md").read_text()
    assert "| 2 | batched-8192 |" in md and "| 3.0 | 0.75× |" in md          # 3.0 / 4.0
    assert "| 3 | int8 |" in md and "not run: the child exited with status 2" in md


def test_prefill_first_prefills_a_batch_whole_then_decodes_it(bench_script):
    """The option's wrapper: a call of several prompts goes twice to the pipeline, first with the one-token
    config for every prompt, then as asked; a one-prompt call (a warm prefix) goes once."""
    bo = bench_script("bench_openvino_options")
    calls = []

    class Pipe:
        def generate(self, prompts, configs):
            calls.append((list(prompts), list(configs)))
            return ["out"] * len(prompts)

    pf = bo.PrefillFirst(Pipe(), "one")
    assert pf.generate(["p"], ["c"]) == ["out"]
    assert pf.generate(["a", "b"], ["c1", "c2"]) == ["out", "out"]
    assert calls == [(["p"], ["c"]), (["a", "b"], ["one", "one"]), (["a", "b"], ["c1", "c2"])]
