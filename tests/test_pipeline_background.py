"""make reproduce's background step: the real model's sampled run beside the steps after it (pfc.report.pipeline.running).

Python steps stand in for notebooks: a step that blocks until a later one has run proves the two overlapped
(sequentially it would time out), and a step that reads the background step's folder proves the wait.
"""
import json
import os
import threading

import pytest

from pfc.report import pipeline
from pfc.report.pipeline import executed
from pfc.report.pipeline import Step, StepFailed, reproduce
from pfc.report.pipeline.running import needs

QUIET = dict(log=lambda *a, **k: None)


def test_a_background_step_runs_beside_the_steps_after_it(tmp_path):
    later_ran = threading.Event()
    seen = {}
    folder = tmp_path / "run"

    def slow():  # finishes only once the step after it has run: sequentially, the wait would time out
        seen["overlapped"] = later_ran.wait(timeout=20)
        folder.mkdir()
        (folder / "predictions.jsonl").write_text("x")

    steps = [Step("model", None, {}, [], [folder / "predictions.jsonl"], fn=slow, background=folder),
             Step("other", None, {}, [], [tmp_path / "o"], fn=lambda: ((tmp_path / "o").write_text("1"), later_ran.set()))]
    records = reproduce(steps, state_path=tmp_path / "state.json", **QUIET)
    assert seen["overlapped"] is True
    assert [(r["step"], r["status"]) for r in records] == [("model", "ran"), ("other", "ran")]
    assert set(json.loads((tmp_path / "state.json").read_text())) == {"model", "other"}


def test_a_step_that_reads_the_background_steps_folder_waits_for_it(tmp_path):
    folder = tmp_path / "run"
    release = threading.Event()

    def slow():
        release.wait(timeout=0.5)  # never set: the model step takes its half second
        folder.mkdir()
        (folder / "predictions.jsonl").write_text("answers")

    read = {}
    steps = [Step("model", None, {}, [], [folder / "predictions.jsonl"], fn=slow, background=folder),
             Step("report", None, {}, [folder / "predictions.jsonl"], [tmp_path / "r"],
                  fn=lambda: (read.update(text=(folder / "predictions.jsonl").read_text()),
                              (tmp_path / "r").write_text("1")))]
    reproduce(steps, state_path=tmp_path / "state.json", **QUIET)
    assert read["text"] == "answers"


def test_needs_sees_an_input_or_output_in_the_folder_or_a_parameter_naming_it(tmp_path):
    folder = pipeline.paths.RUNS / "tb-hf-m-sample4"
    assert needs(Step("a", None, {}, [folder / "predictions.jsonl"]), folder)
    assert needs(Step("b", None, {}, [pipeline.paths.RUNS]), folder)  # an input folder holding it
    assert needs(Step("c", None, {"real_run": f"m=data/runs/{folder.name}:"}), folder)
    assert not needs(Step("d", None, {"x": "data/runs/tb-oracle"}, [pipeline.paths.RUNS / "tb-oracle"]), folder)


def test_a_failing_background_step_is_named_and_the_steps_that_finished_are_kept(tmp_path):
    def broken():
        raise ValueError("no weights")

    steps = [Step("model", None, {}, [], [tmp_path / "run" / "p"], fn=broken, background=tmp_path / "run"),
             Step("other", None, {}, [], [tmp_path / "o"], fn=lambda: (tmp_path / "o").write_text("1"))]
    with pytest.raises(StepFailed, match="step 'model' failed: ValueError: no weights"):
        reproduce(steps, state_path=tmp_path / "state.json", **QUIET)
    assert set(json.loads((tmp_path / "state.json").read_text())) == {"other"}


def test_a_failing_step_waits_for_the_background_step_and_keeps_its_work(tmp_path):
    folder = tmp_path / "run"
    go = threading.Event()

    def slow():
        go.wait(timeout=0.5)
        folder.mkdir()
        (folder / "p").write_text("x")

    steps = [Step("model", None, {}, [], [folder / "p"], fn=slow, background=folder),
             Step("broken", None, {}, [], [tmp_path / "never"], fn=lambda: 1 / 0)]
    with pytest.raises(StepFailed, match="step 'broken' failed: ZeroDivisionError"):
        reproduce(steps, state_path=tmp_path / "state.json", **QUIET)
    assert set(json.loads((tmp_path / "state.json").read_text())) == {"model"}
    again = reproduce(steps[:1], state_path=tmp_path / "state.json", **QUIET)
    assert again[0]["status"] == "skipped (inputs unchanged)"


def test_kernel_env_stays_set_until_the_last_overlapping_block_closes(monkeypatch):
    monkeypatch.delenv("PFC_PROGRESS", raising=False)
    inside, leave = threading.Event(), threading.Event()

    def other():
        with executed.kernel_env():
            inside.set()
            leave.wait(timeout=20)

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(timeout=20)
    with executed.kernel_env():
        leave.set()
        t.join(timeout=20)  # the other block closed first: a kernel started here still gets the environment
        assert os.environ.get("PFC_PROGRESS") == "terminal"
    assert "PFC_PROGRESS" not in os.environ


def test_the_real_models_sample_run_runs_in_the_background_and_the_walkthrough_waits_for_it(tmp_path, monkeypatch):
    from pfc.report.pipeline import planning  # a plan, nothing run: the core stack (make test-fast) has no torch
    monkeypatch.setattr(planning, "_has_torch", lambda: True)
    steps = pipeline.plan(real_model=str(tmp_path / "m"), leave_out=("toolspectrum", "ptbench"))
    run = next(s for s in steps if s.name.startswith("run real model"))
    assert run.background == pipeline.paths.RUNS / run.params["run_id"]
    assert [s.name for s in steps if s.background] == [run.name]
    later = [s.name for s in steps[steps.index(run) + 1:]]
    waiting = [s.name for s in steps[steps.index(run) + 1:] if needs(s, run.background)]
    assert waiting == ["evaluate", "error taxonomy", "figures", "walkthrough"]  # the steps that read its run
    assert later.index("counterfactual contexts") < later.index("evaluate")   # the studies go on beside it
    walk = next(s for s in steps if s.name == "walkthrough")
    assert run.background / "predictions.jsonl" in walk.inputs


def test_on_a_terminal_a_line_logged_beside_the_background_step_first_clears_its_progress_bar(tmp_path, monkeypatch):
    from pfc.report.pipeline import running as pipeline_run
    monkeypatch.setattr(pipeline_run, "_tty", lambda: True)
    lines = []
    folder = tmp_path / "run"
    steps = [Step("before", None, {}, [], [tmp_path / "b"], fn=lambda: (tmp_path / "b").write_text("1")),
             Step("model", None, {}, [], [folder / "p"], fn=lambda: (folder.mkdir(), (folder / "p").write_text("x")),
                  background=folder),
             Step("beside", None, {}, [], [tmp_path / "c"], fn=lambda: (tmp_path / "c").write_text("1")),
             Step("reads it", None, {}, [folder / "p"], [tmp_path / "d"], fn=lambda: (tmp_path / "d").write_text("1"))]
    reproduce(steps, state_path=tmp_path / "state.json", log=lambda line, **k: lines.append(line))
    cleared = [line[len("\r\x1b[K"):] for line in lines if line.startswith("\r\x1b[K")]
    assert cleared[0] == "[3/4] beside … running" and cleared[1].startswith("[3/4] beside: ran (")
    # before it starts and once it has been waited for, lines are plain (no bar is drawing)
    assert "[2/4] model … running, beside the steps after it" in lines and "[4/4] reads it … running" in lines


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _slow_notebook(tmp_path):
    """A notebook whose one cell writes its kernel's pid to ``pid`` and then sleeps 120 s: (notebook, pid file)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook
    pid_file = tmp_path / "pid"
    nb = tmp_path / "slow.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell(
        f"import os, time, pathlib; pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid())); time.sleep(120)")]),
        str(nb))
    return nb, pid_file


def _wait_for(pid_file) -> None:
    import time
    for _ in range(600):
        if pid_file.exists() and pid_file.read_text():
            return
        time.sleep(0.1)


def test_ctrl_c_beside_a_background_notebook_stops_its_kernel_before_the_pipeline_returns(tmp_path):
    # trap: the background step's thread is a daemon; without stop_kernels its kernel ran on after the pipeline
    # exited, until it noticed its parent gone (and printed a warning after the pipeline's last line)
    import time

    nb, pid_file = _slow_notebook(tmp_path)

    def ctrl_c():
        _wait_for(pid_file)  # the kernel has started and is in its long cell
        raise KeyboardInterrupt

    folder = tmp_path / "run"
    steps = [Step("slow", str(nb), {}, [], [folder / "p"], copy_name="bg-interrupt-check", background=folder),
             Step("user presses Ctrl-C", None, {}, [], [tmp_path / "never"], fn=ctrl_c)]
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        reproduce(steps, state_path=tmp_path / "state.json", **QUIET)
    assert time.perf_counter() - t0 < 100  # not the cell's 120 s
    assert not _alive(int(pid_file.read_text()))
    assert not (tmp_path / "state.json").exists() or "slow" not in json.loads((tmp_path / "state.json").read_text())


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt for the test's length: a process started in the background by a non-interactive
    shell (`make test &`, a nohup job) inherits SIGINT ignored, and then ``_thread.interrupt_main`` does nothing."""
    import signal
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_while_waiting_for_the_background_step_after_a_failure_still_stops_its_kernel(tmp_path, ctrl_c_raises):
    import _thread
    import time

    nb, pid_file = _slow_notebook(tmp_path)

    def broken():
        _wait_for(pid_file)
        threading.Timer(1.0, _thread.interrupt_main).start()  # the user gives up on the wait a second later
        raise ZeroDivisionError

    folder = tmp_path / "run"
    steps = [Step("slow", str(nb), {}, [], [folder / "p"], copy_name="bg-wait-interrupt-check", background=folder),
             Step("broken", None, {}, [], [tmp_path / "never"], fn=broken)]
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        reproduce(steps, state_path=tmp_path / "state.json", **QUIET)
    assert time.perf_counter() - t0 < 100
    assert not _alive(int(pid_file.read_text()))
