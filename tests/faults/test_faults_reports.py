"""Fault suite, reports and comparisons: paired runs with too few ids in common, coverage always printed, a
hostile model name inert through report.md, a notebook and its HTML (headless Chromium), a full disk while
saving figures, a sweep with nothing to report."""
import errno
import json
import re
import shutil
import subprocess

import pytest
from faultkit import last_line, pfc

from pfc.run.config import RunConfig
from pfc.run.runner import execute

pytestmark = pytest.mark.slow  # runs, reports and a browser: not in make test-fast

HOSTILE = "m\n\n<script>document.body.setAttribute('data-pwned','1')</script>\n\n<img src=x " \
          "onerror=\"document.body.setAttribute('data-pwned','2')\"> | x"


def oracle(bench, out, limit=None):
    execute(RunConfig("tracebench", bench, "oracle", out, limit=limit, cache_path=out.parent / f"{out.name}.sqlite", progress=False))
    return out


@pytest.fixture(scope="module")
def runs(bench, tmp_path_factory):
    root = tmp_path_factory.mktemp("paired")
    return {"full": oracle(bench, root / "full"), "again": oracle(bench, root / "again"),
            "three": oracle(bench, root / "three", limit=3)}


def test_paired_runs_sharing_too_few_answered_ids_are_refused_saying_how_many(runs):
    line = last_line(pfc("compare", runs["full"], runs["three"], "--paired", "--n-boot", 10), 2)
    assert "they share 3 answered ids, too few for a paired comparison" in line


def test_a_paired_comparison_prints_its_coverage(runs):
    p = pfc("compare", runs["full"], runs["again"], "--paired", "--n-boot", 10)
    assert p.returncode == 0, p.stderr
    n = len((runs["full"] / "predictions.jsonl").read_text().splitlines())  # the oracle answers every example
    assert f"answered {n} of {n} examples" in p.stdout and f"paired on the {n} both answered" in p.stdout


def test_every_unpaired_comparison_prints_each_runs_coverage(runs):
    p = pfc("compare", runs["full"], runs["three"], "--n-boot", 0)
    assert p.returncode == 0, p.stderr
    cov = [ln for ln in p.stdout.splitlines() if ln.startswith("coverage: ")]
    assert len(cov) == 2 and "matched 3 of" in cov[1]


@pytest.fixture(scope="module")
def hostile_report(runs, tmp_path_factory):
    from pfc.report import tables as T
    from pfc.report.runs import write_report
    root = tmp_path_factory.mktemp("hostile")
    d = shutil.copytree(runs["three"], root / "run")
    cfg = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps({**cfg, "model": HOSTILE}))
    return write_report([T.load_run(d)], root / "rep", n_boot=0, parts=("tables",))


def test_a_model_name_reaches_report_md_as_inert_text(hostile_report):
    md = hostile_report.read_text()
    assert "<script" not in md and "<img" not in md and "&lt;script&gt;" in md
    row = next(ln for ln in md.splitlines() if "&lt;script&gt;" in ln and ln.startswith("| m "))
    assert row.count(" | ") == 7  # one row of the runs table: the name's '|' and blank lines made no new cells


@pytest.mark.skipif(not shutil.which("chromium"), reason="headless Chromium not installed (apt-get install chromium)")
def test_a_model_name_runs_no_script_in_the_pipelines_notebook_html(hostile_report, tmp_path):
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
    from pfc.report.pipeline import to_html
    md = hostile_report.read_text()
    nb = new_notebook(cells=[  # as notebook 04 shows report.md, plus the same name unescaped, in every route
        new_code_cell("display(Markdown(md.read_text()))", outputs=[new_output("display_data", data={
            "text/markdown": md, "text/plain": "<IPython.core.display.Markdown object>"})]),
        new_markdown_cell(HOSTILE),
        new_code_cell("print(name)", outputs=[new_output("display_data", data={"text/markdown": HOSTILE}),
                                              new_output("display_data", data={"text/html": HOSTILE}),
                                              new_output("stream", name="stdout", text=HOSTILE)])])
    nbformat.write(nb, tmp_path / "04.ipynb")
    html = to_html(tmp_path / "04.ipynb")
    dom = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000",
                          "--dump-dom", html.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0 and "<table" in dom.stdout, dom.stderr[-2000:]
    assert not re.search(r"<body[^>]*data-pwned", dom.stdout)


def test_a_full_disk_while_saving_a_figure_is_one_line_naming_the_file(runs, tmp_path, monkeypatch, capsys):
    from pfc.cli import main
    from pfc.io import atomic
    real = atomic._stage

    def full_for_images(path, data):
        if path.suffix in (".png", ".pdf"):
            raise atomic.write_failed(path, OSError(errno.ENOSPC, "No space left on device"))
        return real(path, data)

    monkeypatch.setattr(atomic, "_stage", full_for_images)
    assert main(["report", str(runs["full"]), "--out", str(tmp_path / "rep"), "--n-boot", "0"]) == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert re.search(r"rep/\S+\.png: cannot write: no space left on device", line), line
    assert not list((tmp_path / "rep").rglob("*.png")) and not (tmp_path / "rep" / "report.md").exists()


def _full_disk_for_figures(monkeypatch):
    from pfc.report import figures

    def full(fig, stem):  # the first figure fails midway, after tables and runs.json were written
        raise OSError(errno.ENOSPC, "No space left on device", str(stem) + ".png")

    monkeypatch.setattr(figures, "save", full)


def test_a_report_cut_by_a_full_disk_leaves_the_previous_report_whole(runs, tmp_path, monkeypatch, capsys):
    from faultkit import tree
    from pfc.cli import main
    rep = tmp_path / "rep"
    assert main(["report", str(runs["three"]), "--out", str(rep), "--n-boot", "0"]) == 0
    capsys.readouterr()
    before = tree(rep)
    assert "report.md" in before and any(k.endswith(".png") for k in before)
    _full_disk_for_figures(monkeypatch)
    assert main(["report", str(runs["full"]), "--out", str(rep), "--n-boot", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len([ln for ln in err if ln.startswith("pfc report: ")]) == 1 and "Traceback" not in "\n".join(err)
    assert re.fullmatch(rf"pfc report: {re.escape(str(rep))}/figures/\S+\.png: cannot write: no space left on "
                        r"device; the previous report, if any, is unchanged", err[-1]), err[-1]
    assert tree(rep) == before  # the earlier report, every file byte for byte
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no build folder left


def test_a_report_replaces_the_previous_set_whole(runs, tmp_path):
    """What the earlier report wrote (what its report.md links) and the new one does not is gone: the folder then
    holds exactly what a report of the new runs into an empty folder holds. (A file the earlier report did not
    write is refused, never deleted: test_faults_user_files.)"""
    from pfc.cli import main
    rep, fresh = tmp_path / "rep", tmp_path / "fresh"
    assert main(["report", str(runs["full"]), "--out", str(rep), "--n-boot", "0"]) == 0
    (rep / "figures" / "old_figure.png").write_bytes(b"a figure an earlier version wrote")  # and linked:
    with open(rep / "report.md", "a", encoding="utf-8") as f:
        f.write("\n![an older figure](figures/old_figure.png)\n")
    assert main(["report", str(runs["three"]), "--out", str(rep), "--n-boot", "0"]) == 0
    assert main(["report", str(runs["three"]), "--out", str(fresh), "--n-boot", "0"]) == 0
    assert not (rep / "figures" / "old_figure.png").exists()
    assert {p.relative_to(rep).as_posix() for p in rep.rglob("*")} == \
        {p.relative_to(fresh).as_posix() for p in fresh.rglob("*")}
    assert [m["run_dir"].rsplit("/", 1)[-1] for m in json.loads((rep / "runs.json").read_text())] == ["three"]


def test_a_report_never_replaces_a_folder_it_did_not_write(runs, tmp_path, capsys):
    from pfc.cli import main
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    assert main(["report", str(runs["three"]), "--out", str(tmp_path / "mine"), "--n-boot", "0"]) == 2
    assert "holds other files and no report.md" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]
