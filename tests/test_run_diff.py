"""``pfc diff``: two runs' paired counts and discordant examples as a static page (``pfc.report.diff``).

Two baseline runs on the tiny TRACEBench (history-prior − no-history); the discordant ids are checked against the
runs' per-example frames scored here from their files (``pfc.eval.scoring.score_files``), the counts against
McNemar's; the page opens in headless Chromium and filters there. The committed 1.5B − 0.5B pair is in the slow tier.
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pfc import benchmarks, paths
from pfc.cli import main
from pfc.eval.paired import paired_table
from pfc.eval.scoring import score_files
from pfc.report import diff
from pfc.run.config import RunConfig
from pfc.run.runner import execute

HEADLINE = ("format", "app", "function_name", "function_param_values", "overall")
CHROMIUM = Path("/usr/bin/chromium")


def _run(tb, out, backend, ids=None):
    execute(RunConfig("tracebench", tb, backend, out, history="last_k", k=10, ids=ids, progress=False, use_cache=False))
    return out


@pytest.fixture(scope="module")
def pair(tiny_tracebench, tmp_path_factory):
    """``(run A, run B, diff.json content, diff.html path)`` for history-prior − no-history on the tiny TRACEBench."""
    tmp = tmp_path_factory.mktemp("diff")
    a, b = _run(tiny_tracebench, tmp / "hp", "history-prior"), _run(tiny_tracebench, tmp / "nh", "no-history")
    assert main(["diff", str(a), str(b), "--out", str(tmp / "out"), "--n-boot", "50"]) == 0
    return a, b, json.loads((tmp / "out" / "diff.json").read_text()), tmp / "out" / "diff.html"


def _frame(tb, run):
    return score_files("tracebench", tb, run / "predictions.jsonl").per_example.set_index("id")


def test_discordant_ids_are_those_right_in_one_run_only(pair, tiny_tracebench):
    a, b, result, _ = pair
    fa, fb = _frame(tiny_tracebench, a), _frame(tiny_tracebench, b)
    assert set(result["discordant"]) == set(HEADLINE)
    for m in HEADLINE:
        assert result["discordant"][m] == {"a_only": sorted(fa.index[(fa[m] == 1) & (fb.loc[fa.index, m] == 0)]),
                                           "b_only": sorted(fa.index[(fa[m] == 0) & (fb.loc[fa.index, m] == 1)])}
    assert sum(len(d["a_only"]) + len(d["b_only"]) for d in result["discordant"].values()) > 0  # a diff, not empty


def test_discordant_counts_are_the_mcnemar_counts_of_the_paired_table(pair, tiny_tracebench):
    a, b, result, _ = pair
    users = {e.id: e.user_id for e in benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)[0]}
    fa, fb = (_frame(tiny_tracebench, r).sort_index().reset_index() for r in (a, b))
    fa, fb = (f.assign(user_id=f["id"].map(users)) for f in (fa, fb))
    table = paired_table(fa, fb, {m: m for m in HEADLINE}, n_boot=10).set_index("key")
    assert [m["key"] for m in result["metrics"]] == list(HEADLINE)
    for rec in result["metrics"]:
        d = result["discordant"][rec["key"]]
        assert (len(d["a_only"]), len(d["b_only"])) == (rec["a_only"], rec["b_only"])
        assert (rec["a_only"], rec["b_only"]) == tuple(table.loc[rec["key"], ["a_only", "b_only"]])


def test_each_discordant_example_shows_gold_answers_verdicts_and_prompt(pair):
    a, b, result, html = pair
    i = result["discordant"]["overall"]["a_only"][0]
    x = result["examples"][i]
    rows = {s: {json.loads(line)["id"]: json.loads(line)["output"]
                for line in (r / "predictions.jsonl").read_text().splitlines()} for s, r in (("a", a), ("b", b))}
    assert x["answers"] == {s: rows[s][i] for s in "ab"}
    assert x["arguments"]["a"] and all(v["status"] == "correct" for v in x["arguments"]["a"])  # A is right on it
    assert x["prompt"]["a"].startswith("[system]") and x["query"] in x["prompt"]["a"]
    assert f"data-id='{i}'" in html.read_text()


def test_an_answer_holding_a_script_tag_shows_as_text(pair, tmp_path):
    a, b, result, _ = pair
    i = result["discordant"]["overall"]["a_only"][0]  # B is wrong on it: a broken answer keeps it discordant
    b2 = tmp_path / "nh"
    shutil.copytree(b, b2)
    rows = [json.loads(line) for line in (b2 / "predictions.jsonl").read_text().splitlines()]
    for r in rows:
        if r["id"] == i:
            r["output"] = "<script>alert(1)</script>"
    (b2 / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["diff", str(a), str(b2), "--out", str(tmp_path / "out"), "--n-boot", "0"]) == 0
    page = (tmp_path / "out" / "diff.html").read_text()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script") == 1  # the page's own filter script only


def test_runs_sharing_no_example_are_refused(pair, tiny_tracebench, tmp_path, capsys):
    a, _, result, _ = pair
    ids = sorted(json.loads(line)["id"] for line in (a / "predictions.jsonl").read_text().splitlines())
    x, y = _run(tiny_tracebench, tmp_path / "x", "oracle", ids[:3]), _run(tiny_tracebench, tmp_path / "y", "oracle", ids[3:6])
    capsys.readouterr()
    assert main(["diff", str(x), str(y), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "shares no example" in err and not (tmp_path / "out").exists()


def test_runs_on_different_builds_are_refused(pair, tmp_path, capsys):
    a, b, _, _ = pair
    b2 = tmp_path / "nh"
    shutil.copytree(b, b2)
    doc = json.loads((b2 / "run.json").read_text())
    doc["identity"]["examples_sha256"] = "0" * 64  # what a run on another build records
    (b2 / "run.json").write_text(json.dumps(doc))
    assert main(["diff", str(a), str(b2), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "identity.examples_sha256" in err and "another data build" in err


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Chromium")
def test_the_page_opens_filters_by_user_and_expands_a_row_in_chromium(pair):
    _, _, result, html = pair
    user = sorted({x["user"] for x in result["examples"].values()})[0]
    i = next(k for k, x in result["examples"].items() if x["user"] == user)
    dom = subprocess.run([str(CHROMIUM), "--headless=new", "--no-sandbox", "--disable-gpu", "--dump-dom",
                          f"{html.as_uri()}?user={user}&open={i}"], capture_output=True, text=True, timeout=60).stdout
    rows = re.findall(r"<details class=\"ex\"([^>]*)>", dom)
    assert rows and len(rows) == sum(len(v) for d in result["discordant"].values() for v in d.values())
    for attrs in rows:  # the JavaScript ran: other users' rows hidden, the asked-for row open
        assert bool(re.search(r'\shidden=""', attrs)) == (f'data-user="{user}"' not in attrs)
        assert bool(re.search(r'\sopen=""', attrs)) == (f'data-id="{i}"' in attrs)
    shown = [int(n) for n in re.findall(r"<span class=\"n\">(\d+)</span>", dom)]
    assert sum(shown) == sum(1 for attrs in rows if 'hidden=""' not in attrs) > 0


@pytest.mark.slow
def test_the_committed_model_pair_gives_the_counts_of_paired_json(tmp_path, monkeypatch):
    """qwen2.5-coder-1.5b − 0.5b on openvino, ``tracebench-last_k``: the McNemar counts of the committed
    ``paired.json`` (needs the default TRACEBench build, made here in a private output root, ~15 s)."""
    from pfc.data.build import build_tracebench
    monkeypatch.setattr(paths, "OUTPUT_ROOT", tmp_path)
    build_tracebench(tmp_path / "data" / "benchmarks" / "tracebench", progress=False)
    root = paths.ROOT / "reports" / "reference_runs"
    a, b = (f"qwen2.5-coder-{m}-openvino/tracebench-last_k" for m in ("1.5b", "0.5b"))
    committed = next(p for p in json.loads((root / "paired.json").read_text())["pairs"]
                     if p["question"] == "model" and (p["a"], p["b"]) == (a, b))
    result = diff.compute(root / a, root / b, n_boot=0)
    assert result["n"] == committed["n"] == 400
    want = {m["key"]: (m["a_only"], m["b_only"]) for m in committed["metrics"]}
    assert {k: (len(d["a_only"]), len(d["b_only"])) for k, d in result["discordant"].items()} == want
