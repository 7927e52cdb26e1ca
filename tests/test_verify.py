"""``pfc verify``: a clean run holds what it claims (exit 0); a hand-edited copy is one line naming the file, the
field, the claim and what is held (exit 1); a directory that is no run is refused (exit 2). The run: the tiny
TRACEBench answered by a baseline backend on a sample of ids, its ``metrics.json`` entry beside it as the
reference report writes one (``pfc.report.reference.score.score_run``)."""
import hashlib
import json
import shutil

import pytest

from pfc import paths
from pfc.cli import main
from pfc.report.reference.score import score_run
from pfc.run.config import RunConfig
from pfc.run.runner import execute


@pytest.fixture
def run(tiny_tracebench, tmp_path):
    """``tmp_path/run``: a finished run on a copy of the tiny TRACEBench (``tmp_path/tb``), 12 sampled ids, its
    entry in ``tmp_path/metrics.json`` under the key ``run``."""
    tb = shutil.copytree(tiny_tracebench, tmp_path / "tb")
    ids = [json.loads(line)["id"] for line in (tb / "examples.jsonl").read_text().splitlines()[::15]]
    cfg = RunConfig("tracebench", tb, "history-prior", tmp_path / "run", ids=ids, use_cache=False, progress=False)
    assert execute(cfg)["done"] == len(ids) == 13
    (tmp_path / "metrics.json").write_text(json.dumps({"run": score_run(tmp_path / "run")}))
    return tmp_path / "run"


def _verify(capsys, *args):
    code = main(["verify", *map(str, args)])
    return code, capsys.readouterr().out.splitlines()


def _sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_clean_run_verifies_ok_with_exit_0(run, capsys):
    assert _verify(capsys, run) == (0, [f"ok {paths.relative(run)}"])


def test_a_changed_answer_is_a_predictions_hash_finding_of_its_metrics_entry(run, capsys):
    pred = run / "predictions.jsonl"
    before = _sha(pred)
    rows = [json.loads(line) for line in pred.read_text().splitlines()]
    rows[0]["output"] = json.dumps({"name": "no_such_tool", "arguments": {}})
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out = _verify(capsys, run)
    assert code == 1
    assert out[0] == (f"{paths.relative(run.parent / 'metrics.json')}: field run.predictions_sha256: "
                      f"claims {before}, holds {_sha(pred)}")
    assert any(line.startswith(f"{paths.relative(run.parent / 'metrics.json')}: field run.robust.") for line in out[1:])


def test_an_edited_examples_file_is_an_examples_hash_finding(run, capsys):
    f = run.parent / "tb" / "examples.jsonl"
    lines = f.read_text().splitlines()
    ex = json.loads(lines[-1])
    ex["query"] = ex["query"] + " (edited)"
    f.write_text("\n".join([*lines[:-1], json.dumps(ex)]) + "\n")
    claimed = json.loads((run / "run.json").read_text())["identity"]["examples_sha256"]
    code, out = _verify(capsys, run)
    prefix = f"{paths.relative(run / 'run.json')}: field identity.examples_sha256: claims {claimed}, holds "
    assert code == 1 and len(out) == 1 and out[0].startswith(prefix) and out[0] != prefix + claimed


def test_an_edited_prompt_template_sha_is_a_prompt_template_finding(run, capsys):
    doc = json.loads((run / "run.json").read_text())
    recorded = doc["identity"]["prompt_template"]["sha256"]
    doc["identity"]["prompt_template"]["sha256"] = "0" * 64
    (run / "run.json").write_text(json.dumps(doc))
    (run.parent / "metrics.json").unlink()  # its identity_sha256 would differ too: the run.json finding alone
    assert _verify(capsys, run) == (1, [f"{paths.relative(run / 'run.json')}: field identity.prompt_template.sha256: "
                                        f"claims {'0' * 64}, holds {recorded}"])


def test_unbuilt_examples_are_a_finding_or_with_skip_unbuilt_skipped(run, capsys):
    shutil.rmtree(run.parent / "tb")
    code, out = _verify(capsys, run)
    assert code == 1 and out[0].startswith(f"{paths.relative(run / 'config.json')}: field examples: claims ")
    assert _verify(capsys, "--skip-unbuilt", run) == (
        0, [f"skipped {paths.relative(run)}: its examples {paths.relative(run.parent / 'tb')} are not built"])


def test_a_directory_that_is_no_run_is_refused_with_exit_2(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 2
    assert "not a run directory" in capsys.readouterr().err



def test_a_hand_edited_copy_elsewhere_is_checked_against_the_committed_entry_of_its_identity(run, tmp_path,
                                                                                               monkeypatch, capsys):
    from pfc.report import verify
    monkeypatch.setattr(verify, "ROOT", tmp_path)  # tmp_path/metrics.json stands for the committed one
    copy = shutil.copytree(run, tmp_path / "elsewhere" / "renamed")
    (tmp_path / "elsewhere" / "metrics.json").write_text("{}")  # a metrics.json above it without its entry
    assert _verify(capsys, copy) == (0, [f"ok {paths.relative(copy)}"])  # an unedited copy: clean, though renamed
    pred = copy / "predictions.jsonl"
    before = _sha(pred)
    rows = [json.loads(line) for line in pred.read_text().splitlines()]
    rows[0]["output"] = json.dumps({"name": "no_such_tool", "arguments": {}})
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out = _verify(capsys, copy)
    assert code == 1 and out[0] == (f"{paths.relative(tmp_path / 'metrics.json')}: field run.predictions_sha256: "
                                    f"claims {before}, holds {_sha(pred)}")
