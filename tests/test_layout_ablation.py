"""The prompt-layout ablation report (``pfc.report.layout_ablation``): paired runs of two layouts."""
import json

import pytest

from pfc.report import layout_ablation as L
from pfc.run.runner import run

BASE = "tracebench-last_k"  # the tiny TRACEBench stands in for a benchmark with an ablation run


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setattr(L, "LAYOUT_ABLATION", {BASE: "prefix"})
    return tmp_path / "reference_runs"


def _runs(root, tiny, base_backend, ablation_backend):
    run("tracebench", tiny, base_backend, root / BASE, history="last_k", k=5)
    run("tracebench", tiny, ablation_backend, root / "layout" / f"{BASE}-prefix", history="last_k", k=5,
        layout="prefix")


def _metric(entry, key):
    return next(m for m in entry["metrics"] if m["key"] == key)


def test_a_run_against_itself_differs_by_zero_with_a_zero_interval(root, tiny_tracebench):
    _runs(root, tiny_tracebench, "history-prior", "history-prior")
    entry = L.ablation(root)["pairs"][0]
    m = _metric(entry, "overall")
    assert entry["n"] > 0 and m["diff"] == 0 and (m["paired_lo"], m["paired_hi"]) == (0, 0)
    assert m["a_only"] == m["b_only"] == 0 and m["mcnemar_p"] == 1


def test_difference_is_the_ablation_minus_the_reference_as_pfc_score_computes_them(root, tiny_tracebench):
    from pfc.eval.scoring import score_files
    _runs(root, tiny_tracebench, "history-prior", "oracle")  # the oracle scores 1 on every row
    hp = score_files("tracebench", tiny_tracebench, root / BASE / "predictions.jsonl").metrics["overall"]
    m = _metric(L.ablation(root)["pairs"][0], "overall")
    assert m["a"] == 1 and m["b"] == pytest.approx(hp, abs=1e-6) and m["diff"] == pytest.approx(1 - hp, abs=1e-6)
    assert 0 < hp < 1 and m["paired_lo"] > 0  # the oracle is better on every discordant row


def test_pairs_are_scored_on_the_ids_both_runs_answered(root, tiny_tracebench):
    _runs(root, tiny_tracebench, "history-prior", "oracle")
    pred = root / "layout" / f"{BASE}-prefix" / "predictions.jsonl"
    lines = pred.read_text().splitlines()
    pred.write_text("\n".join(lines[:3]) + "\n")
    entry = L.ablation(root)["pairs"][0]
    assert entry["n"] == 3 and entry["partial"] and _metric(entry, "overall")["a"] == 1


def test_a_missing_ablation_run_is_pending_not_zero(root, tiny_tracebench):
    run("tracebench", tiny_tracebench, "oracle", root / BASE, history="last_k", k=5)
    entry = L.ablation(root)["pairs"][0]
    assert entry["pending"] and "metrics" not in entry
    assert "Pending" in L.markdown(L.ablation(root))


def test_tracebench_layouts_build_the_same_requests_on_every_planned_example(tmp_path, tiny_tracebench):
    out = tmp_path / "reference_runs" / "tracebench-last_k"
    run("tracebench", tiny_tracebench, "oracle", out, history="last_k", k=5)
    check = L.tracebench_check(out.parent)
    n = sum(1 for _ in (tiny_tracebench / "examples.jsonl").open())
    assert check == {"run": "tracebench-last_k", "pending": False, "compared": n, "differ": 0}


def test_tracebench_check_counts_requests_that_differ(tmp_path, tiny_tracebench, monkeypatch):
    from pfc.run import requests
    out = tmp_path / "reference_runs" / "tracebench-last_k"
    run("tracebench", tiny_tracebench, "oracle", out, history="last_k", k=5)
    answer = requests.RequestBuilder.answer

    def layout_in_request(self, example, domain=None):  # a prompt module that did honour the layout
        req = answer(self, example, domain)
        return type(req)(req.messages + [{"role": "user", "content": self.layout}], req.tools, req.sampling)
    monkeypatch.setattr(requests.RequestBuilder, "answer", layout_in_request)
    check = L.tracebench_check(out.parent)
    assert check["differ"] == check["compared"] > 0


def test_write_puts_json_and_markdown_side_by_side(root, tiny_tracebench, tmp_path):
    _runs(root, tiny_tracebench, "history-prior", "oracle")
    js, md = L.write(root, tmp_path / "out")
    doc = json.loads(js.read_text())
    assert doc["pairs"][0]["n"] > 0 and f"layout/{BASE}-prefix" in md.read_text()
