"""Ctrl-C on the issue-18 benchmark scripts: one line on stderr, exit 130, no half-written report;
every benchmark script writes its files through ``pfc.io.atomic``."""
import ast
from pathlib import Path

import pytest

from pfc import paths

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"




def _interrupt(*args, **kw):
    raise KeyboardInterrupt


@pytest.mark.model
def test_bench_throughput_interrupted_before_a_measurement_writes_nothing(bench_script, tmp_path, monkeypatch, capsys):
    bt = bench_script("bench_throughput")
    monkeypatch.setattr(bt, "get", lambda *a, **kw: None)   # no model load
    monkeypatch.setattr(bt, "samples", lambda n: {"ptbench": []})
    monkeypatch.setattr(bt, "measure_all", _interrupt)
    out = tmp_path / "perf.json"
    assert bt.main(["--benchmarks", "ptbench", "--one-process", "--out", str(out)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"bench_throughput: interrupted; nothing measured; {paths.relative(out)} unchanged"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.model
def test_bench_throughput_interrupted_while_loading_the_model_says_one_line(bench_script, tmp_path, monkeypatch, capsys):
    bt = bench_script("bench_throughput")
    monkeypatch.setattr(bt, "get", _interrupt)   # Ctrl-C during the model load, before any measuring
    out = tmp_path / "perf.json"
    assert bt.main(["--benchmarks", "ptbench", "--one-process", "--out", str(out)]) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        f"bench_throughput: interrupted; nothing measured; {paths.relative(out)} unchanged"]


@pytest.mark.model
def test_bench_throughput_interrupted_after_a_measurement_keeps_it(bench_script, tmp_path, monkeypatch, capsys):
    bt = bench_script("bench_throughput")
    monkeypatch.setattr(bt, "get", lambda *a, **kw: None)
    monkeypatch.setattr(bt, "samples", lambda n: {"ptbench": []})
    out = tmp_path / "perf.json"

    def one_then_stop(args, res, *rest):
        bt.row(res, "ptbench", "prefix").update(n=2, after_s_per_example=1.5)
        bt.write(out, res)
        raise KeyboardInterrupt
    monkeypatch.setattr(bt, "measure_all", one_then_stop)
    assert bt.main(["--benchmarks", "ptbench", "--one-process", "--out", str(out)]) == 130
    assert "measurements finished before it are in" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["perf.json", "perf.md"]  # no temporary file left
    assert '"after_s_per_example": 1.5' in out.read_text()


@pytest.mark.model
def test_bench_attention_interrupted_writes_nothing(bench_script, tmp_path, monkeypatch, capsys):
    ba = bench_script("bench_attention")
    monkeypatch.setattr(ba, "measure", _interrupt)
    out = tmp_path / "perf_attention.json"
    assert ba.main(["--out", str(out)]) == 130
    assert capsys.readouterr().err.strip() == \
        f"bench_attention: interrupted; nothing written, {paths.relative(out)} unchanged"
    assert list(tmp_path.iterdir()) == []


def _plain_writes(source: str) -> list[int]:
    """Lines of ``source`` that call ``.write_text``/``.write_bytes``/``open(..., "w")`` other than ``atomic.*``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in ("write_text", "write_bytes") and \
                not (isinstance(f.value, ast.Name) and f.value.id == "atomic"):
            lines.append(node.lineno)
        elif isinstance(f, ast.Name) and f.id == "open" and any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) and ("w" in a.value or "a" in a.value)
                for a in node.args[1:2] + [k.value for k in node.keywords if k.arg == "mode"]):
            lines.append(node.lineno)
    return lines


def test_plain_write_checker_sees_path_writes_and_open_for_writing():
    src = 'from pathlib import Path\nPath("a").write_text("x")\nopen("b", "w")\natomic.write_text(p, "x")\nopen("c")\n'
    assert _plain_writes(src) == [2, 3]


def test_every_benchmark_script_writes_through_atomic():
    """A killed benchmark leaves the previous report or the new one, never half of one."""
    bad = {f.name: found for f in sorted(BENCH.glob("*.py"))
           if (found := _plain_writes(f.read_text(encoding="utf-8")))}
    assert set(bad) <= {"vllm_server.py"}  # its server's log is streamed while the server runs (not a whole file)
    assert all(len(lines) == 1 for lines in bad.values())


def test_agreement_report_lists_only_the_runs_whose_rows_it_keeps(bench_script):
    ba = bench_script("bench_agreement")
    first = {"when": "d1", "command": "c1", "benchmarks": [{"benchmark": "ptbench"}, {"benchmark": "tracebench"}]}
    rows, runs = ba.kept_rows(first, {"tracebench"})            # second run re-measures tracebench
    second = {"when": "d2", "command": "c2", "benchmarks": rows + [{"benchmark": "tracebench"}], "earlier": runs}
    rows, runs = ba.kept_rows(second, {"ptbench"})              # third run re-measures ptbench: run 1 is gone
    assert rows == [{"benchmark": "tracebench", "from": {"when": "d2", "command": "c2"}}]
    assert runs == [{"when": "d2", "command": "c2"}]
    rows, runs = ba.kept_rows(second, {"toolspectrum"})         # nothing re-measured: both runs stay, once each
    assert [r["from"]["when"] for r in rows] == ["d1", "d2"] and [r["when"] for r in runs] == ["d1", "d2"]


@pytest.mark.model
@pytest.mark.parametrize("script", sorted(f.stem for f in BENCH.glob("bench_*.py")))
def test_benchmark_script_refuses_an_out_in_a_missing_folder_in_one_line(script, tmp_path):
    """Before any work: one line naming the path, exit 2, nothing written (was: a traceback after the work)."""
    import subprocess
    import sys
    flag = "--report" if script == "bench_finetune" else "--out"
    target = tmp_path / "missing" / "perf.md"
    required = {"bench_gpu": ["--model", "m", "--bench", "b"],
                "bench_floor_recheck": ["--measured", str(tmp_path / "none.json")]}.get(script, [])
    p = subprocess.run([sys.executable, str(BENCH / f"{script}.py"), flag, str(target), *required],
                       capture_output=True, text=True, timeout=300)
    err = p.stderr.strip().splitlines()
    assert p.returncode == 2, p.stderr
    assert len(err) == 1 and err[0].startswith(f"{script}: ") and str(tmp_path / "missing") in err[0], p.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_agreement_report_for_a_dotted_model_name_keeps_the_whole_name(bench_script):
    """``perf_agreement_qwen2.5-coder-1.5b_openvino-bf16.json``, not ``perf_agreement_qwen2.5-coder-1.json``
    (``Path.with_suffix`` takes ``.5b_openvino-bf16`` for a suffix)."""
    from pathlib import Path
    ba = bench_script("bench_agreement")
    stem = Path("reports") / "perf_agreement_qwen2.5-coder-1.5b_openvino-bf16"
    assert ba._named(stem, ".json").name == "perf_agreement_qwen2.5-coder-1.5b_openvino-bf16.json"
