"""Fault suite, sets of output files: perturb and export replaced whole, never over their input, never through a
link; third-party data never relabelled; a full disk or Ctrl-C leaves the previous set."""
import errno
import json
import os

import pytest
from faultkit import last_line, pfc, tree

from pfc.errors import UserError

pytestmark = pytest.mark.slow  # subprocess perturbs and exports: not in make test-fast

PT_OFFICIAL = "tests/golden/ptbench_official/test_trained_user/data.json"


def perturb(src, out, kind="shuffle-history", bench="tracebench"):
    return pfc("perturb", "--benchmark", bench, "--examples", src, "--kind", kind, "--out", out)


@pytest.fixture
def copy(bench, tmp_path):
    """A private copy of the tiny TRACEBench (tests that point outputs at their input)."""
    import shutil
    return shutil.copytree(bench, tmp_path / "tb")


@pytest.fixture
def variants(bench, tmp_path):
    """A finished perturb output (the 'previous set')."""
    out = tmp_path / "var"
    assert perturb(bench, out).returncode == 0
    return out


# ------------------------------------------------------------------ perturb
@pytest.mark.parametrize("where", [".", "..", "sub"])
def test_perturb_into_its_own_input_is_refused_and_the_source_unchanged(copy, where):
    before = tree(copy.parent)
    line = last_line(perturb(copy, copy / where), 2)
    assert "is also the input (--examples" in line and "field '--out'" in line
    assert tree(copy.parent) == before


def test_perturb_into_the_folder_of_its_input_file_is_refused(copy):
    before = tree(copy)
    line = last_line(perturb(copy / "examples.jsonl", copy), 2)
    assert "is also the input" in line and tree(copy) == before


def test_perturb_stopped_mid_write_leaves_the_previous_set_whole(bench, variants, monkeypatch):
    from pfc.data import counterfactual as cf
    from pfc.schema import load_examples
    before = tree(variants)

    def cut(examples, path):  # a Ctrl-C after part of the file is written
        path.write_text("{}\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(cf, "write_examples", cut)
    with pytest.raises(KeyboardInterrupt):
        cf.build_variants(bench, variants, "shuffle-history")
    assert tree(variants) == before and len(load_examples(variants / "examples.jsonl")) > 3
    assert [p.name for p in variants.parent.iterdir() if p.name.startswith(".")] == []  # no build folder left


def test_perturb_on_a_full_disk_is_one_line_and_keeps_the_previous_set(bench, variants, monkeypatch):
    from pfc.data import counterfactual as cf
    before = tree(variants)

    def full(examples, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(cf, "write_examples", full)
    with pytest.raises(UserError, match="no space left on device; the previous set of variants, if any, is unchanged"):
        cf.build_variants(bench, variants, "shuffle-history")
    assert tree(variants) == before


def test_perturb_output_is_swapped_in_whole_with_its_manifest_last(bench, variants):
    m = json.loads((variants / "perturb.json").read_text())
    assert m["variants"] == sum(1 for _ in open(variants / "examples.jsonl"))
    assert perturb(bench, variants, kind="drop-profile").returncode == 0  # a second set replaces the first whole
    assert json.loads((variants / "perturb.json").read_text())["kind"] == "drop-profile"


def test_perturb_never_replaces_a_folder_it_did_not_write(bench, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    line = last_line(perturb(bench, tmp_path / "mine"), 2)
    assert "no perturb.json: not a set of variants pfc wrote" in line
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_a_shift_of_more_than_a_century_is_one_line_not_a_bug(bench, tmp_path):
    line = last_line(perturb(bench, tmp_path / "o", kind="shift-time:+99999999"), 2)
    assert "field '--kind'" in line and "at most 36500" in line


# ------------------------------------------------------------------ export
@pytest.fixture
def exported(bench, tmp_path):
    out = tmp_path / "hf"
    p = pfc("export", "--benchmark", "tracebench", "--examples", bench, "--out", out)
    assert p.returncode == 0, p.stderr
    return out


def test_export_into_a_previous_export_keeps_none_of_its_splits(bench, exported):
    (exported / "data" / "train-00000-of-00001.parquet").write_bytes(b"PAR1 from an earlier PTBench export")
    p = pfc("export", "--benchmark", "tracebench", "--examples", bench, "--out", exported)
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in (exported / "data").iterdir()) == ["test-00000-of-00001.parquet"]


def test_export_never_writes_through_a_link_in_its_folder(bench, exported, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours")
    (exported / "tools.json").unlink()
    (exported / "tools.json").symlink_to(victim)
    assert pfc("export", "--benchmark", "tracebench", "--examples", bench, "--out", exported).returncode == 0
    assert victim.read_text() == "not yours" and not (exported / "tools.json").is_symlink()


def test_export_refuses_a_card_that_is_a_link_and_leaves_its_target(bench, tmp_path):
    victim = tmp_path / "victim.md"
    victim.write_text("my notes")
    (tmp_path / "hf").mkdir()
    (tmp_path / "hf" / "README.md").symlink_to(victim)
    line = last_line(pfc("export", "--benchmark", "tracebench", "--examples", bench, "--out", tmp_path / "hf"), 2)
    assert "not a dataset export pfc wrote" in line and victim.read_text() == "my notes"


def test_export_stopped_mid_write_leaves_the_previous_export(bench, exported, monkeypatch):
    import pyarrow.parquet as pq
    from pfc.integrations import hf_datasets
    before = tree(exported)

    def cut(table, where, **kw):
        open(where, "wb").write(b"PAR1")
        raise KeyboardInterrupt

    monkeypatch.setattr(pq, "write_table", cut)
    with pytest.raises(KeyboardInterrupt):
        hf_datasets.export("tracebench", bench, exported)
    assert tree(exported) == before


def test_export_into_its_own_input_is_refused(copy):
    before = tree(copy)
    line = last_line(pfc("export", "--benchmark", "tracebench", "--examples", copy, "--out", copy), 2)
    assert "is also the input" in line and tree(copy) == before


@pytest.mark.parametrize("license", ["mit\nx-injected: true", "cc-by-4.0 ---", ""])
def test_a_license_that_is_not_one_identifier_is_refused(bench, tmp_path, license):
    line = last_line(pfc("export", "--benchmark", "tracebench", "--examples", bench, "--out", tmp_path / "o",
                         "--license", license), 2)
    assert "field '--license'" in line and not (tmp_path / "o").exists()


def test_official_ptbench_data_passed_through_perturb_is_never_exported_as_ours(tmp_path):
    from pfc import paths
    out = tmp_path / "var"
    p = perturb(paths.ROOT / PT_OFFICIAL, out, kind="drop-profile", bench="ptbench")
    assert p.returncode == 0, p.stderr
    assert json.loads((out / "perturb.json").read_text())["origin"]["third_party"] == "the official PTBench release"
    line = last_line(pfc("export", "--benchmark", "ptbench", "--examples", out, "--out", tmp_path / "hf"), 2)
    assert "the official PTBench release, third-party data that is never exported" in line
    assert not (tmp_path / "hf").exists()


def test_export_card_names_the_origin_recorded_by_perturb(bench, variants, tmp_path):
    p = pfc("export", "--benchmark", "tracebench", "--examples", variants, "--out", tmp_path / "hf")
    assert p.returncode == 0, p.stderr
    card = (tmp_path / "hf" / "README.md").read_text()
    assert "then pfc perturb --kind shuffle-history --seed 0" in card


# ------------------------------------------------------------------ run directories: links
def test_a_lock_file_that_is_a_link_is_refused_and_its_target_untouched(bench, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "run").mkdir()
    os.symlink(victim, tmp_path / "run" / ".pfc-writer.lock")
    line = last_line(pfc("run", "--benchmark", "tracebench", "--examples", bench, "--backend", "oracle",
                         "--limit", 2, "--out", tmp_path / "run"), 2)
    assert "lock file .pfc-writer.lock is a symbolic link" in line and victim.read_text() == "precious"


def test_a_run_file_that_is_a_link_is_refused_and_its_target_untouched(tmp_path):
    from pfc.run.writer import RunWriter
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "run").mkdir()
    os.symlink(victim, tmp_path / "run" / "predictions.jsonl")
    with pytest.raises(UserError, match="predictions.jsonl: is a symbolic link"):
        RunWriter(tmp_path / "run").finished()
    with pytest.raises(UserError, match="predictions.jsonl: is a symbolic link"):
        with RunWriter(tmp_path / "run"):
            pass
    assert victim.read_text() == "precious\n"


def test_an_unfinished_set_of_variants_without_its_manifest_is_replaced(bench, tmp_path):
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "examples.jsonl").write_text('{"id": "zz-left-by-a-kill"')  # left by a killed older perturb
    assert perturb(bench, tmp_path / "var").returncode == 0
    assert (tmp_path / "var" / "perturb.json").is_file()
    assert "zz-left-by-a-kill" not in (tmp_path / "var" / "examples.jsonl").read_text()
