"""Fault suite, run pairs and stale answers (issue 66, groups 2, 3, 7 and 11): ``pfc personalize`` refuses a
variants run whose set was made from another build than the originals run answered, ``pfc personalize`` and
``pfc report`` refuse a run whose examples were re-made since (what ``pfc run`` checks: the examples hash in
its ``run.json``), ToolSpectrum swap-user pairs are scored, and rows with unknown or repeated ids are reported
as ``pfc score`` reports them."""
import json
import shutil

import pytest

from pfc.cli import main
from pfc.data.counterfactual import build_variants
from pfc.run.config import RunConfig
from pfc.run.runner import execute


def run(bench, examples, out, benchmark="tracebench"):
    execute(RunConfig(benchmark, examples, "history-prior", out, cache_path=out.parent / "c.sqlite", progress=False))
    return out


@pytest.fixture(scope="module")
def pair(bench, tmp_path_factory):
    root = tmp_path_factory.mktemp("pairs")
    build_variants(bench, root / "var", "swap-user", seed=0)
    return root, run(bench, bench, root / "orig"), run(bench, root / "var", root / "var-run")


def personalize(capsys, *args):
    code = main(["personalize", *map(str, args), "--n-boot", "0"])
    cap = capsys.readouterr()
    return code, cap


def one_line(code, cap):
    err = cap.err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "Traceback" not in cap.err, (code, cap.err)
    return err[0]


def test_personalize_refuses_variants_made_from_another_build_whose_ids_match(bench, pair, tmp_path, capsys):
    _, orig, _ = pair
    other = shutil.copytree(bench, tmp_path / "other-build")  # another build: the same ids, another first query
    lines = (other / "examples.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    lines[0] = json.dumps({**first, "query": first["query"] + " (rebuilt)"}, ensure_ascii=False)
    (other / "examples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    build_variants(other, tmp_path / "var", "swap-user", seed=0)
    var_run = run(bench, tmp_path / "var", tmp_path / "var-run")
    line = one_line(*personalize(capsys, orig, var_run))
    assert line.startswith(f"pfc personalize: {tmp_path / 'var' / 'perturb.json'}: field 'examples.sha256': ")
    assert line.endswith("that the originals run answered (another build?): not a pair")


@pytest.fixture
def remade(bench, pair, tmp_path):
    """A variants run, then its set re-made with another seed (the same ids, other donors)."""
    var = shutil.copytree(pair[0] / "var", tmp_path / "var")
    var_run = run(bench, var, tmp_path / "var-run")
    build_variants(bench, var, "swap-user", seed=1)
    return var_run


def test_personalize_refuses_a_variants_run_whose_set_was_re_made_since(pair, remade, capsys):
    _, orig, _ = pair
    line = one_line(*personalize(capsys, orig, remade))
    assert line.startswith(f"pfc personalize: {remade / 'run.json'}: field 'identity.examples_sha256': ")
    assert "no longer holds the examples this run answered (re-made since?)" in line


def test_report_refuses_a_run_whose_examples_were_re_made_since(remade, tmp_path, capsys):
    code = main(["report", str(remade), "--out", str(tmp_path / "rep"), "--n-boot", "0"])
    line = one_line(code, capsys.readouterr())
    assert line.startswith(f"pfc report: {remade / 'run.json'}: field 'identity.examples_sha256': ")
    assert not (tmp_path / "rep" / "report.md").exists()


def test_personalize_reports_unknown_and_differing_duplicate_ids_as_pfc_score_does(bench, pair, tmp_path, capsys):
    _, orig, var_run = pair
    dup = shutil.copytree(orig, tmp_path / "orig")
    rows = (dup / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(rows[0])
    extra = [{**first, "output": "[]"}, {**first, "id": "no-such-example"}]  # a differing repeat, an unknown id
    (dup / "predictions.jsonl").write_text("\n".join(rows + [json.dumps(r) for r in extra]) + "\n", encoding="utf-8")
    assert main(["score", "--benchmark", "tracebench", "--examples", str(bench), "--predictions",
                 str(dup / "predictions.jsonl"), "--out", str(tmp_path / "score")]) == 0
    said = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("pfc score: ")]
    assert len(said) == 1 and "1 unknown, 1 duplicate (1 with differing outputs)" in said[0]
    code, cap = personalize(capsys, dup, var_run)
    assert code == 0
    assert f"pfc personalize: {dup}/predictions.jsonl: {said[0][len('pfc score: '):]}" in cap.err.splitlines()
    got = json.loads(cap.out)["coverage"]["predictions"]
    assert got["originals_run"] == said[0][len("pfc score: "):] and "0 unknown, 0 duplicate" in got["variants_run"]


def test_personalize_scores_toolspectrum_swap_user_pairs(release, tmp_path, capsys):
    from pfc import benchmarks
    from pfc.schema import write_examples, write_tools
    exs, tools = benchmarks.get("toolspectrum").scoring.load(release, None)
    src = tmp_path / "ts"
    src.mkdir()
    write_examples(exs[:40], src / "examples.jsonl")
    write_tools(tools, src / "tools.json")
    build_variants(src, tmp_path / "var", "swap-user", seed=0, benchmark="toolspectrum")
    orig = run(None, src, tmp_path / "orig", "toolspectrum")
    var_run = run(None, tmp_path / "var", tmp_path / "var-run", "toolspectrum")
    code, cap = personalize(capsys, orig, var_run)
    assert code == 0, cap.err
    got = json.loads(cap.out)
    assert got["kinds"] == {"swap-user": 40} and got["coverage"]["answered_by_both"] == 40
    metrics = {r["metric"]: r for r in got["personalization"]}
    # ToolSpectrum's swap-user variants keep their gold (no counterfactual items): nothing to follow, 40 compared
    assert metrics["context_following"]["items"] == 0 and metrics["context_following"]["value"] is None
    assert metrics["sensitivity"]["items"] == 40
