"""A notebook run with an empty ``out_dir`` writes to a throw-away folder from ``pfc.paths.scratch_dir``; under the
tests that folder lies inside the session's own output root, which the root conftest removes, so ``make test`` leaves
nothing behind in the system's temporary directory."""
import json
import os
from pathlib import Path

from pfc import paths
from pfc.report.notebook_helpers import out_dir


def test_an_empty_out_dir_is_a_new_folder_under_pfc_scratch_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PFC_SCRATCH_DIR", str(tmp_path / "scratch"))
    a, b = out_dir("", "pfc-08-"), out_dir("", "pfc-08-")
    assert a.parent == b.parent == tmp_path / "scratch"
    assert a != b and a.name.startswith("pfc-08-") and not any(a.iterdir())


def test_a_given_out_dir_is_not_a_scratch_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("PFC_SCRATCH_DIR", str(tmp_path / "scratch"))
    assert out_dir("reports/x") == paths.OUTPUT_ROOT / "reports" / "x"
    assert not (tmp_path / "scratch").exists()


def test_without_pfc_scratch_dir_the_folder_is_in_the_system_temporary_directory(monkeypatch):
    import tempfile
    monkeypatch.delenv("PFC_SCRATCH_DIR")
    d = paths.scratch_dir("pfc-t-")
    try:
        assert d.parent == Path(tempfile.gettempdir())
    finally:
        d.rmdir()


def test_the_test_session_keeps_scratch_folders_inside_its_own_output_root():
    root, scratch = Path(os.environ["PFC_OUTPUT_ROOT"]), Path(os.environ["PFC_SCRATCH_DIR"])
    assert scratch.parent == root  # removed with it at the session's end (conftest.py)


def test_no_notebook_makes_a_temporary_folder_that_nothing_removes():
    for nb in sorted(paths.NOTEBOOKS.glob("*.ipynb")):
        code = "".join(line for c in json.loads(nb.read_text())["cells"] if c["cell_type"] == "code"
                       for line in c["source"])
        assert "mkdtemp" not in code, f"{nb.name}: use pfc.paths.scratch_dir (the tests' PFC_SCRATCH_DIR)"


def test_a_pfc_scratch_dir_that_is_a_file_is_refused_naming_the_variable(tmp_path, monkeypatch):
    import pytest
    from pfc.errors import UserError
    (tmp_path / "f").write_text("x")
    monkeypatch.setenv("PFC_SCRATCH_DIR", str(tmp_path / "f"))
    with pytest.raises(UserError, match="PFC_SCRATCH_DIR is not a usable folder"):
        paths.scratch_dir()
