"""make reproduce's step skipping and stratified sampling (Python steps; notebooks are covered by nbval)."""
import json

from pfc.report import pipeline
from pfc.report.pipeline import Step, reproduce


def _steps(tmp_path, calls):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("1")
    b.write_text("1")
    out_a, out_b = tmp_path / "out_a", tmp_path / "out_b"
    return a, [
        Step("first", None, {"x": 1}, [a], [out_a], fn=lambda: (calls.append("first"), out_a.write_text("ok"))),
        Step("second", None, {"x": 2}, [b], [out_b], fn=lambda: (calls.append("second"), out_b.write_text("ok"))),
    ]


def test_unchanged_steps_are_skipped_and_a_changed_input_reruns_only_its_step(tmp_path):
    calls = []
    a, steps = _steps(tmp_path, calls)
    state = tmp_path / "state.json"
    first = reproduce(steps, log=lambda *x, **k: None, state_path=state)
    assert [r["status"] for r in first] == ["ran", "ran"]
    again = reproduce(steps, log=lambda *x, **k: None, state_path=state)
    assert [r["status"] for r in again] == ["skipped (inputs unchanged)"] * 2
    a.write_text("2")  # an input changed: only its step runs
    third = reproduce(steps, log=lambda *x, **k: None, state_path=state)
    assert [r["status"] for r in third] == ["ran", "skipped (inputs unchanged)"]
    assert calls == ["first", "second", "first"]


def test_a_missing_output_reruns_the_step_even_with_the_same_key(tmp_path):
    calls = []
    _, steps = _steps(tmp_path, calls)
    state = tmp_path / "state.json"
    reproduce(steps, log=lambda *x, **k: None, state_path=state)
    (tmp_path / "out_b").unlink()  # trap: a key match alone must not skip a step whose output is gone
    assert [r["status"] for r in reproduce(steps, log=lambda *x, **k: None, state_path=state)] == \
        ["skipped (inputs unchanged)", "ran"]


def test_a_failing_step_names_itself_and_keeps_the_finished_steps(tmp_path):
    calls = []
    _, steps = _steps(tmp_path, calls)
    steps.append(Step("broken", None, {}, [], [tmp_path / "never"], fn=lambda: 1 / 0))
    state = tmp_path / "state.json"
    try:
        reproduce(steps, log=lambda *x, **k: None, state_path=state)
        raise AssertionError("expected a failure")
    except RuntimeError as e:
        assert "broken" in str(e) and "ZeroDivisionError" in str(e)
    assert set(json.loads(state.read_text())) == {"first", "second"}


def test_stratified_sample_covers_every_vagueness_level_and_is_seeded(tmp_path):
    from pfc.data.build import build_tracebench
    from pfc.data.querygen import LEVELS
    from pfc.schema import load_examples
    bench = tmp_path / "tb"
    build_tracebench(bench, users=1, seed=1, records=200, queries=24, progress=False)
    s1 = pipeline.stratified_sample(bench, tmp_path / "s1", 4, seed=0)
    s2 = pipeline.stratified_sample(bench, tmp_path / "s2", 4, seed=0)
    assert (s1 / "examples.jsonl").read_bytes() == (s2 / "examples.jsonl").read_bytes()
    got = load_examples(s1 / "examples.jsonl")
    all_levels = {e.meta["vagueness"] for e in load_examples(bench / "examples.jsonl")}
    # trap: strata sorted as (level, mix) pairs would give 4 most_clear examples here
    assert len(got) == 4 and {e.meta["vagueness"] for e in got} == all_levels & set(LEVELS) == set(LEVELS)


def test_stratified_sample_covers_every_history_bin_present_too(tmp_path):
    # trap: a sample spread over levels only can leave a Fig. 4 history bin without a point
    from pfc.data.build import build_tracebench
    from pfc.eval.groups import history_bin
    from pfc.schema import load_examples
    bench = tmp_path / "tb"
    build_tracebench(bench, users=1, seed=1, records=520, queries=60, progress=False)
    everything = load_examples(bench / "examples.jsonl")
    bins = {history_bin(int(e.meta["history_length"])) for e in everything}
    got = load_examples(pipeline.stratified_sample(bench, tmp_path / "s", 4, seed=0) / "examples.jsonl")
    assert len(bins) >= 3  # the build reaches several bins (else this test proves nothing)
    assert {history_bin(int(e.meta["history_length"])) for e in got} == bins
    assert {e.meta["vagueness"] for e in got} == {e.meta["vagueness"] for e in everything}


def test_a_notebook_step_runs_its_kernel_over_local_sockets_and_shuts_it_down(tmp_path, capfd):
    # traps: over TCP ipykernel warns once per step that the channel is unencrypted; and papermill does not
    # shut down a kernel it was handed, so 23 steps left 23 kernels running until the pipeline exited
    import os
    import time

    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook
    nb = tmp_path / "t.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("import os; print(os.getpid())")]), str(nb))
    pipeline.execute(Step("t", str(nb), copy_name="kernel-check"))
    ran = nbformat.read(str(pipeline.paths.REPORTS / "notebooks" / "kernel-check.ipynb"), 4)
    pid = int(ran.cells[0].outputs[0]["text"])
    for _ in range(50):  # shutdown_kernel(now=True) kills and reaps; allow the OS a moment
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"the step's kernel (pid {pid}) is still running")
    assert "without encryption" not in capfd.readouterr().err
    assert not list(pipeline.paths.ROOT.glob("kernel-*")) and not list(tmp_path.glob("kernel-*"))
