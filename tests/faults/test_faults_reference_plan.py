"""The reference plan's command line (``python -m pfc.plans.reference``) given a path for ``--model`` or stopped
while it plans (issue 66, group 5): one line and an exit status before any planning work, never a run folder
outside ``reports/reference_runs/`` and never a traceback."""
import pytest

from pfc import paths
from pfc.errors import UserError
from pfc.plans import reference


def _one_line(capsys, status, got):
    err = capsys.readouterr().err.strip().splitlines()
    assert got == status and len(err) == 1 and "Traceback" not in err[0] and "bug in pfc" not in err[0], err
    return err[0]


@pytest.fixture
def no_planning(monkeypatch, tmp_path):
    """The plan's data checks pass on stand-in files; planning itself fails the test (nothing may be planned)."""
    monkeypatch.chdir(tmp_path)
    tb = paths.BENCHMARKS / "tracebench"
    tb.mkdir(parents=True, exist_ok=True)
    (tb / "examples.jsonl").touch()
    monkeypatch.setattr("pfc.benchmarks.ptbench.plans.data", lambda seed: tmp_path / "pt")

    def planned(*a, **k):
        raise AssertionError("planned")
    monkeypatch.setattr(reference, "plan", planned)


def _model_dir(tmp_path):
    d = tmp_path / "models" / "my-model"  # a directory holding only config.json (no tokenizer, no weights)
    d.mkdir(parents=True)
    (d / "config.json").write_text("{}")
    return str(d)


@pytest.mark.parametrize("model", [_model_dir, lambda tmp: "../../x", lambda tmp: "a/b", lambda tmp: ".."])
@pytest.mark.parametrize("backend", ["hf", "openvino"])
def test_a_model_given_as_a_path_is_refused_before_planning(no_planning, tmp_path, capsys, model, backend):
    model = model(tmp_path)
    with pytest.raises(UserError, match="not a path"):
        reference.out_root(model, backend)
    line = _one_line(capsys, 2, reference.main(["--model", model, "--backend", backend, "--only", "tracebench-last_k"]))
    assert "--model" in line and "not a path" in line
    assert not list(tmp_path.glob("models/my-model-*")) and not (tmp_path / "x-hf").exists()


def test_a_model_name_still_names_its_folder_under_the_root():
    assert reference.out_root("qwen2.5-coder-1.5b", "openvino") == reference.OUT / "qwen2.5-coder-1.5b-openvino"
    assert reference.out_root("my_model+v2.1", "hf").parent == reference.OUT


def test_ctrl_c_while_planning_is_one_line_and_130(no_planning, monkeypatch, capsys):
    def planning(*a, **k):  # the ~15 s of sampling: Ctrl-C arrives there
        raise KeyboardInterrupt
    monkeypatch.setattr(reference, "plan", planning)
    assert reference.main(["--only", "tracebench-last_k"]) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and "interrupted" in err


def test_an_unknown_only_name_is_refused_before_planning(no_planning, capsys):
    line = _one_line(capsys, 2, reference.main(["--only", "tracebench-last-k"]))
    assert "unknown run 'tracebench-last-k'" in line and "tracebench-last_k" in line


def test_a_known_only_name_is_planned(no_planning, monkeypatch):
    asked = []
    monkeypatch.setattr(reference, "plan", lambda *a, **k: asked.append(a) or [])
    assert reference.main(["--only", "format/tracebench-default", "--record"]) == 2  # planned, then not in this plan
    assert len(asked) == 1
