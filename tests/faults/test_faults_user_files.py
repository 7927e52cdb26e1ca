"""Fault suite, files the user added to pfc's own output folders (issue 66, group 1): ``pfc perturb``,
``pfc export`` and ``pfc report`` writing again into their earlier folder replace it whole
(``pfc.io.dirset``), so one holding anything they did not write (a note, a run made inside a set of
variants) is refused in one line and left as it was; without it the folder is replaced as before."""
import pytest
from faultkit import tree

from pfc.cli import main
from pfc.run.config import RunConfig
from pfc.run.runner import execute


def perturb(bench, out, seed=0):
    return main(["perturb", "--benchmark", "tracebench", "--examples", str(bench), "--kind", "swap-user",
                 "--seed", str(seed), "--out", str(out)])


def refused(capsys, code):
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, (code, err)
    return err[0]


def test_perturb_into_its_own_set_refuses_to_delete_a_note_the_user_added(bench, tmp_path, capsys):
    out = tmp_path / "var"
    assert perturb(bench, out) == 0 and perturb(bench, out, seed=1) == 0  # its own set: replaced as before
    (out / "notes.txt").write_text("which donor did what")
    before = tree(out)
    capsys.readouterr()
    assert refused(capsys, perturb(bench, out, seed=2)) == (
        f"pfc perturb: {out}: holds notes.txt, which pfc did not write; the set of variants is replaced whole, "
        "so move it out first or choose another folder")
    assert tree(out) == before and [p.name for p in tmp_path.iterdir()] == ["var"]


def test_perturb_into_its_own_set_refuses_to_delete_a_run_made_inside_it(bench, tmp_path, capsys):
    out = tmp_path / "var"
    assert perturb(bench, out) == 0
    execute(RunConfig("tracebench", out, "oracle", out / "run", limit=3, cache_path=tmp_path / "c.sqlite",
                      progress=False))
    before = tree(out)
    capsys.readouterr()
    line = refused(capsys, perturb(bench, out, seed=1))
    assert line.startswith(f"pfc perturb: {out}: holds run, which pfc did not write")
    assert tree(out) == before and (out / "run" / "predictions.jsonl").is_file()


def test_export_into_its_own_folder_refuses_to_delete_a_file_the_user_added(bench, tmp_path, capsys):
    pytest.importorskip("pyarrow")
    out = tmp_path / "hf"
    export = ["export", "--benchmark", "tracebench", "--examples", str(bench), "--out", str(out)]
    assert main(export) == 0 and main(export) == 0  # its own export: replaced as before
    (out / "data" / "LICENSE.txt").write_text("ours")
    before = tree(out)
    capsys.readouterr()
    line = refused(capsys, main(export))
    assert line.startswith(f"pfc export: {out}: holds data/LICENSE.txt, which pfc did not write")
    assert tree(out) == before


def test_report_into_its_own_folder_refuses_to_delete_notes_the_user_added(bench, tmp_path, capsys):
    run = tmp_path / "run"
    execute(RunConfig("tracebench", bench, "oracle", run, limit=5, cache_path=tmp_path / "c.sqlite", progress=False))
    rep = tmp_path / "rep"
    report = ["report", str(run), "--out", str(rep), "--n-boot", "0"]
    assert main(report) == 0 and main(report) == 0  # its own report, figures and all: replaced as before
    (rep / "figures" / "notes.md").write_text("the dip at 40 records")
    before = tree(rep)
    capsys.readouterr()
    line = refused(capsys, main(report))
    assert line == (f"pfc report: {rep}: holds figures/notes.md, which pfc did not write; the report is replaced "
                    "whole, so move it out first or choose another folder")
    assert tree(rep) == before
