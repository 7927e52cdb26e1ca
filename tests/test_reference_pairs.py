"""Paired comparisons of reference runs (``pfc.report.reference.pairs``), each on the ids both answered."""
import json

import pytest

from pfc.eval.paired import records
from pfc.report.reference import pairs as P
from pfc.run.config import RunConfig
from pfc.run.runner import execute

A, B = "tracebench-retrieved", "tracebench-last_k"  # the history-mode pair, on the tiny TRACEBench


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setattr(P, "pairs", lambda: [("history", A, B)])
    return tmp_path / "reference_runs"


def _runs(root, tiny, a_backend, b_backend):
    execute(RunConfig("tracebench", tiny, a_backend, root / A, history="retrieved", k=5))
    execute(RunConfig("tracebench", tiny, b_backend, root / B, history="last_k", k=5))


def _metric(entry, key):
    return next(m for m in entry["metrics"] if m["key"] == key)


def test_a_baseline_against_itself_differs_by_zero_with_a_zero_interval(root, tiny_tracebench):
    _runs(root, tiny_tracebench, "no-history", "no-history")  # reads no history: the same answers in both modes
    entry = P.compute(root)["pairs"][0]
    m = _metric(entry, "overall")
    assert entry["n"] > 0 and m["diff"] == 0 and (m["paired_lo"], m["paired_hi"]) == (0, 0)
    assert m["a_only"] == m["b_only"] == 0 and m["mcnemar_p"] == 1


def test_difference_is_a_minus_b_as_pfc_score_computes_them(root, tiny_tracebench):
    from pfc.eval.scoring import score_files
    _runs(root, tiny_tracebench, "oracle", "history-prior")  # the oracle scores 1 on every row
    hp = score_files("tracebench", tiny_tracebench, root / B / "predictions.jsonl").metrics["overall"]
    m = _metric(P.compute(root)["pairs"][0], "overall")
    assert m["a"] == 1 and m["b"] == pytest.approx(hp, abs=1e-6) and m["diff"] == pytest.approx(1 - hp, abs=1e-6)
    assert 0 < hp < 1 and m["paired_lo"] > 0 and m["b_only"] == 0  # the oracle wins every discordant row


def test_pairs_are_scored_on_the_ids_both_runs_answered(root, tiny_tracebench):
    _runs(root, tiny_tracebench, "oracle", "history-prior")
    pred = root / A / "predictions.jsonl"
    lines = pred.read_text().splitlines()
    pred.write_text("\n".join(lines[:3]) + "\n")
    entry = P.compute(root)["pairs"][0]
    assert entry["n"] == 3 and entry["partial"] and _metric(entry, "overall")["a"] == 1


def test_a_missing_run_is_pending_not_zero(root, tiny_tracebench):
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", root / B, history="last_k", k=5))
    result = P.compute(root)
    assert result["pairs"][0]["pending"] and "metrics" not in result["pairs"][0]
    assert "pending" in P.markdown(result)


def test_a_started_run_with_no_finished_row_is_pending_not_refused(root, tiny_tracebench):
    _runs(root, tiny_tracebench, "oracle", "history-prior")
    (root / A / "predictions.jsonl").write_text("\n")  # opened by the runner, its first request not yet answered
    entry = P.compute(root)["pairs"][0]
    assert entry["pending"] and "metrics" not in entry


def test_the_planned_pairs_ask_the_three_questions():
    got = P.pairs()
    assert ("history", "tracebench-retrieved", "tracebench-last_k") in got
    assert ("lora", "ptbench-trained-lora", "ptbench-trained") in got
    assert ("layout", "layout/toolspectrum-paper", "toolspectrum") in got


def test_each_models_lora_run_pairs_with_that_models_base_run():
    got = P.pairs()
    ov = "qwen2.5-coder-0.5b-openvino"  # issue 38: the adapter retrained on the second synthesis, on openvino
    assert ("lora", f"{ov}/ptbench-untrained-lora", f"{ov}/ptbench-untrained") in got
    assert P._command(f"{ov}/ptbench-trained-lora") == ("python -m pfc.plans.reference --model qwen2.5-coder-0.5b "
                                                        "--backend openvino --only ptbench-trained-lora")
    assert len(got) == len(set(got))


def test_each_models_retrieved_run_pairs_with_its_own_last_k_run():
    got = [(a, b) for q, a, b in P.pairs() if q == "history"]
    assert got == [("tracebench-retrieved", "tracebench-last_k"),
                   *((f"qwen2.5-coder-{s}-openvino/tracebench-retrieved", f"qwen2.5-coder-{s}-openvino/tracebench-last_k")
                     for s in ("0.5b", "1.5b"))]
    assert P._command("qwen2.5-coder-1.5b-openvino/tracebench-retrieved") == (
        "python -m pfc.plans.reference --model qwen2.5-coder-1.5b --backend openvino --only tracebench-retrieved")


def test_tracebench_layouts_build_the_same_requests_on_every_planned_example(tmp_path, tiny_tracebench):
    out = tmp_path / "reference_runs" / "tracebench-last_k"
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", out, history="last_k", k=5))
    check = P.tracebench_check(out.parent)
    n = sum(1 for _ in (tiny_tracebench / "examples.jsonl").open())
    assert check == {"run": "tracebench-last_k", "pending": False, "compared": n, "differ": 0}


def test_tracebench_check_counts_requests_that_differ(tmp_path, tiny_tracebench, monkeypatch):
    from pfc.run import requests
    out = tmp_path / "reference_runs" / "tracebench-last_k"
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", out, history="last_k", k=5))
    answer = requests.RequestBuilder.answer

    def layout_in_request(self, example, domain=None):  # as if the prompt module honoured the layout
        req = answer(self, example, domain)
        return type(req)(req.messages + [{"role": "user", "content": self.layout}], req.tools, req.sampling)
    monkeypatch.setattr(requests.RequestBuilder, "answer", layout_in_request)
    check = P.tracebench_check(out.parent)
    assert check["differ"] == check["compared"] > 0


def test_write_puts_json_and_markdown_side_by_side(root, tiny_tracebench, tmp_path):
    _runs(root, tiny_tracebench, "oracle", "history-prior")
    js, md = P.write(root, tmp_path / "out")
    assert json.loads(js.read_text())["pairs"][0]["n"] > 0 and f"`{A}` (retrieved) − `{B}` (last_k)" in md.read_text()


def test_a_tiny_mcnemar_p_keeps_its_significant_digits():
    """28 discordant examples all one way: exact two-sided p = 2 * 0.5**28 = 2**-27 (by hand), not 0."""
    import pandas as pd
    from pfc.eval.paired import mcnemar_exact
    row = records(pd.DataFrame([{"key": "overall", "a": 0.9, "b": 0.1, "diff": 0.8, "a_only": 28, "b_only": 0,
                                 "mcnemar_p": mcnemar_exact(28, 0)}]))[0]
    assert row["mcnemar_p"] == pytest.approx(2 ** -27, rel=1e-5) and row["mcnemar_p"] > 0


def test_discordant_counts_stay_integers_beside_an_f1_row_without_them():
    """ToolSpectrum's table mixes a 0/1 metric (format: discordant counts) with F1 rows (none), so pandas holds
    the count columns as float; the report writes 3 and 0, not 3.0 and 0.0."""
    import pandas as pd
    table = pd.DataFrame([{"key": "format", "a": 1.0, "b": 0.8, "diff": 0.2, "a_only": 3, "b_only": 0,
                           "mcnemar_p": 0.25},
                          {"key": "APP", "a": 0.5, "b": 0.4, "diff": 0.1, "a_only": None, "b_only": None,
                           "mcnemar_p": None}])
    fmt, app = records(table)
    assert (fmt["a_only"], fmt["b_only"]) == (3, 0) and type(fmt["a_only"]) is int
    assert app["a_only"] is None and app["b_only"] is None
    md = "\n".join(P._table({"question": "layout", "a": "x", "b": "y", "pending": False, "n": 5, "partial": False,
                             "metrics": [fmt, app]}))
    assert "| 3 | 0 |" in md and "3.0" not in md


def test_a_table_of_f1_rows_only_keeps_its_missing_counts_missing():
    import pandas as pd
    (row,) = records(pd.DataFrame([{"key": "APP", "a": 0.5, "b": 0.4, "diff": 0.1, "a_only": None, "b_only": None,
                                    "mcnemar_p": None}]))
    assert row["a_only"] is None and row["b_only"] is None and row["mcnemar_p"] is None


def test_the_planned_pairs_compare_the_two_models_on_one_engine_run_for_run():
    from pfc.plans.reference import SWAP_RUN, paired_runs
    got = [(a, b) for q, a, b in P.pairs() if q == "model"]
    assert len(got) == len(paired_runs())
    assert ("qwen2.5-coder-1.5b-openvino/tracebench-last_k", "qwen2.5-coder-0.5b-openvino/tracebench-last_k") in got
    assert (f"qwen2.5-coder-1.5b-openvino/{SWAP_RUN}", f"qwen2.5-coder-0.5b-openvino/{SWAP_RUN}") in got
    assert ("qwen2.5-coder-0.5b-openvino/toolspectrum", "toolspectrum") in [(a, b) for q, a, b in P.pairs()
                                                                          if q == "engine"]


def test_two_model_folders_pair_run_for_run(tmp_path, tiny_tracebench, monkeypatch):
    root = tmp_path / "reference_runs"
    a, b = "big-openvino/tracebench-last_k", "small-openvino/tracebench-last_k"
    monkeypatch.setattr(P, "pairs", lambda: [("model", a, b)])
    execute(RunConfig("tracebench", tiny_tracebench, "oracle", root / a, history="last_k", k=5))
    execute(RunConfig("tracebench", tiny_tracebench, "no-history", root / b, history="last_k", k=5))
    entry = P.compute(root)["pairs"][0]
    assert not entry["pending"] and entry["n"] > 0 and _metric(entry, "overall")["a"] == 1
    assert f"`{a}` (oracle) − `{b}` (no-history)" in P.markdown(P.compute(root))


def test_runs_on_different_builds_are_not_compared(tmp_path, tiny_tracebench, monkeypatch):
    """Two runs whose identities name different examples (PTBench's v1 and v2 share ids, not examples) are
    refused as a pair, never scored on one side's examples."""
    root = tmp_path / "reference_runs"
    monkeypatch.setattr(P, "pairs", lambda: [("engine", A, B)])
    _runs(root, tiny_tracebench, "oracle", "oracle")
    ident = root / A / "run.json"
    doc = json.loads(ident.read_text())
    doc["identity"]["examples_sha256"] = "0" * 64
    ident.write_text(json.dumps(doc))
    result = P.compute(root)
    assert result["pairs"][0]["other_data"] and "metrics" not in result["pairs"][0]
    assert "not compared" in P.markdown(result) and P.frame(result).empty


def test_a_pending_model_folder_run_names_the_command_that_makes_it():
    assert P._command("qwen2.5-coder-1.5b-openvino/toolspectrum") == (
        "python -m pfc.plans.reference --model qwen2.5-coder-1.5b --backend openvino --only toolspectrum")
    assert P._command("layout/toolspectrum-paper") == "python -m pfc.plans.reference --only layout/toolspectrum-paper"
    assert P._command("ptbench-trained") == "python -m pfc.plans.reference --only ptbench-trained"


def test_an_interval_over_too_few_users_is_flagged_rough(root, tiny_tracebench):
    """The tiny TRACEBench has fewer than MIN_USERS users: the table flags a bootstrap interval that resamples a
    handful of users and says why, and counts the users."""
    _runs(root, tiny_tracebench, "oracle", "history-prior")
    result = P.compute(root)
    m = _metric(result["pairs"][0], "overall")
    assert m["clusters"] < P.MIN_USERS and m["paired_lo"] is not None
    md = P.markdown(result)
    assert "] †" in md and f"fewer than {P.MIN_USERS} users" in md and f"| {m['clusters']} |" in md


def test_a_rerun_pair_is_scored_on_the_cells_ids_and_names_each_sides_batch_size(tmp_path, monkeypatch, tiny_tracebench):
    """The re-run question (issue 65): the format grid's default cell, planned on a subset, against the full run of the
    same prompts in another batch size; a deterministic baseline answers the same, so the difference is 0."""
    from pfc import benchmarks
    root = tmp_path / "reference_runs"
    monkeypatch.setattr(P, "pairs", lambda: [("rerun", P.RERUN_RUN, B)])
    exs, _ = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    ids = tuple(sorted(e.id for e in exs)[:5])
    execute(RunConfig("tracebench", tiny_tracebench, "history-prior", root / P.RERUN_RUN, history="last_k", k=5,
                      ids=ids, batch_size=64))
    execute(RunConfig("tracebench", tiny_tracebench, "history-prior", root / B, history="last_k", k=5, batch_size=16))
    result = P.compute(root)
    entry = result["pairs"][0]
    assert (entry["n"], entry["partial"], entry["a_batch_size"], entry["b_batch_size"]) == (5, False, 64, 16)
    assert _metric(entry, "overall")["diff"] == 0
    assert f"`{P.RERUN_RUN}` (64) − `{B}` (16), n = 5 paired examples." in P.markdown(result)
