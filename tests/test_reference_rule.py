"""Each model against the history-prior rule (``pfc.report.reference.rule``): the rule answers a committed model
run's own ids and settings, and the pair is model − rule on them.

Known answers by construction: a "model" run that *is* the rule (backend ``history-prior``) ties it on every metric
with no discordant example; the ``no-history`` baseline (the same rule with the history hidden) cannot beat it on
the app, which only the history decides where the request does not name it."""
import json
from pathlib import Path

import pytest

from pfc.plans import rule as plan
from pfc.plans.reference import MODEL_PAIRS, record
from pfc.report.reference import pairs as P
from pfc.report.reference import rule as R
from pfc.run.config import RunConfig
from pfc.run.runner import execute

BIG, SMALL, ENGINE = MODEL_PAIRS[0]
RUN = "tracebench-last_k"


@pytest.fixture
def root(tiny_tracebench, tmp_path):
    """The smaller model's folder answered by the rule itself, the larger's by the history-blind baseline."""
    root = tmp_path / "reference_runs"
    ids = tuple(sorted(json.loads(line)["id"] for line in (tiny_tracebench / "examples.jsonl").open())[:12])
    for model, backend in ((SMALL, "history-prior"), (BIG, "no-history")):
        execute(RunConfig("tracebench", tiny_tracebench, backend, root / f"{model}-{ENGINE}" / RUN, model=model,
                          history="last_k", k=5, ids=ids, progress=False, use_cache=False,
                          plan=record(RUN, model, ENGINE)))
    return root


def _rule(root, tmp_path, model):
    plan.make(root, tmp_path / "runs")
    got = R.pairs(root, P.pair, n_boot=50, seed=0, runs=tmp_path / "runs")
    return {p["a"]: p for p in got}[f"{model}-{ENGINE}/{RUN}"]


def test_a_model_run_that_is_the_rule_ties_it_on_every_metric(root, tmp_path):
    p = _rule(root, tmp_path, SMALL)
    assert not p["pending"] and p["n"] == 12 and not p["partial"] and p["b"] == plan.RULE
    assert all(m["diff"] == 0 and m["a_only"] == 0 and m["b_only"] == 0 for m in p["metrics"])


def test_the_rule_answers_the_model_runs_ids_with_its_settings(root, tmp_path):
    _rule(root, tmp_path, SMALL)
    made = plan.rule_dir(f"{SMALL}-{ENGINE}/{RUN}", tmp_path / "runs")
    cfg = json.loads((made / "config.json").read_text())
    model = json.loads((root / f"{SMALL}-{ENGINE}" / RUN / "config.json").read_text())
    assert cfg["backend"] == plan.RULE and cfg["ids"] == model["ids"] and (cfg["history"], cfg["k"]) == ("last_k", 5)
    rows = [json.loads(line)["id"] for line in (made / "predictions.jsonl").open()]
    assert sorted(rows) == sorted(model["ids"])


def test_the_history_blind_baseline_does_not_beat_the_rule_on_the_app(root, tmp_path):
    app = {m["key"]: m for m in _rule(root, tmp_path, BIG)["metrics"]}["app"]
    assert app["diff"] <= 0 and app["a"] == pytest.approx(app["b"] + app["diff"])


def test_a_run_without_rows_is_pending_and_the_rule_does_not_run_for_it(root, tmp_path):
    assert plan.make(root, tmp_path / "runs") == [plan.rule_dir(f"{m}-{ENGINE}/{RUN}", tmp_path / "runs")
                                                  for m in (SMALL, BIG)]
    got = {p["a"]: p for p in R.pairs(root, P.pair, n_boot=0, seed=0, runs=tmp_path / "runs")}
    other = f"{SMALL}-{ENGINE}/tracebench-retrieved"
    assert got[other] == {"question": "rule", "a": other, "b": plan.RULE, "pending": True}
    assert not plan.rule_dir(other, tmp_path / "runs").exists()


def test_a_pair_whose_rule_run_is_not_made_is_pending_and_names_the_command(root, tmp_path):
    got = {p["a"]: p for p in R.pairs(root, P.pair, n_boot=0, seed=0, runs=tmp_path / "runs")}
    name = f"{SMALL}-{ENGINE}/{RUN}"
    assert got[name] == {"question": "rule", "a": name, "b": plan.RULE, "pending": True, "commands": [plan.COMMAND]}


def test_paired_markdown_has_the_rule_section_with_each_model_minus_the_rule(root, tmp_path):
    plan.make(root, tmp_path / "runs")
    md = P.markdown({"pairs": R.pairs(root, P.pair, n_boot=0, seed=0, runs=tmp_path / "runs"),
                     P.LAYOUTS: {"pending": True}})
    assert f"## {P.TITLES['rule']}" in md
    assert f"`{SMALL}-{ENGINE}/{RUN}` ({SMALL}) − `{plan.RULE}` ({plan.RULE}), n = 12 paired examples." in md


def test_each_link_of_paired_markdown_opens_the_page_make_diffs_writes(root, tmp_path, monkeypatch):
    import re

    from pfc import paths
    from pfc.report.reference import diffs
    monkeypatch.setattr(paths, "RUNS", tmp_path / "runs")
    plan.make(root)
    P.write(root, root)
    links = re.findall(r"\[diff page\]\(([^)]+)\)", (root / "paired.md").read_text())
    assert len(links) == 3  # the model pair and both rule pairs: the only finished ones
    written = diffs.write_all(root, tell=lambda line: None)
    assert sorted(p.relative_to(root).as_posix() for p in written) == sorted(links)
    page = json.loads((root / links[0]).with_name("diff.json").read_text())
    assert not any(Path(r["dir"]).is_absolute() for r in page["runs"].values())


def test_the_rule_answers_the_runs_the_report_reads_by_default():
    from pfc.report.reference.run import ROOT
    assert plan.COMMITTED == ROOT


@pytest.mark.parametrize("module", ["pfc.plans.rule", "pfc.report.reference.diffs"])
def test_the_rule_and_diff_commands_refuse_an_unknown_argument_before_doing_anything(module, capsys):
    import importlib
    with pytest.raises(SystemExit) as stop:
        importlib.import_module(module).main(["--bogus"])
    assert stop.value.code == 2 and "unrecognized arguments: --bogus" in capsys.readouterr().err


@pytest.mark.parametrize("text", [b"\xff\xfe not utf-8", b"[1, 2", b"[]", b'{"benchmark": 3}'])
def test_a_broken_model_run_config_is_one_user_error_naming_it(root, text, tmp_path):
    from pfc.errors import UserError
    (root / f"{SMALL}-{ENGINE}" / RUN / "config.json").write_bytes(text)
    with pytest.raises(UserError, match="config.json"):
        plan.make(root, tmp_path / "runs")


@pytest.mark.parametrize("text", [b"\xff\xfe not utf-8", b"", b'{"pairs": 1}'])
def test_a_broken_paired_json_is_one_user_error_naming_it(text, tmp_path):
    from pfc.errors import UserError
    from pfc.report.reference import diffs
    (tmp_path / "paired.json").write_bytes(text)
    with pytest.raises(UserError, match="paired.json"):
        diffs.write_all(tmp_path, tell=lambda line: None)
