"""make reproduce's step skipping and stratified sampling (Python steps; notebooks are covered by nbval)."""
import json
import shutil

import pytest

from openai_stub import Endpoint, completion, serve
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
    from pfc.groups import history_bin
    from pfc.schema import load_examples
    bench = tmp_path / "tb"
    build_tracebench(bench, users=1, seed=1, records=520, queries=60, progress=False)
    everything = load_examples(bench / "examples.jsonl")
    bins = {history_bin(int(e.meta["history_length"])) for e in everything}
    got = load_examples(pipeline.stratified_sample(bench, tmp_path / "s", 4, seed=0) / "examples.jsonl")
    assert len(bins) >= 3  # the build reaches several bins (else this test proves nothing)
    assert {history_bin(int(e.meta["history_length"])) for e in got} == bins
    assert {e.meta["vagueness"] for e in got} == {e.meta["vagueness"] for e in everything}


@pytest.mark.notebook
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


# ---------------------------------------------------------------- BACKEND=/MODEL=: one run per benchmark
def _release(root):
    """A ToolSpectrum release cut to 2 samples per subset (the plan only needs its files)."""
    from pfc.benchmarks.toolspectrum import release_dir
    src = release_dir()
    for sub in ("api", "prompts"):
        shutil.copytree(src / sub, root / sub)
    (root / "data").mkdir()
    for f in sorted((src / "data").glob("dataset_*.json")):
        (root / "data" / f.name).write_text(json.dumps(json.loads(f.read_text())[:2]))
    return root


def _ptbench_checkout(root):
    """A PTBench checkout: the golden fixture's two test splits (3 records each) and a src/template.py."""
    from pfc import paths
    from pfc.benchmarks.ptbench import SPLITS
    for s in SPLITS:
        (root / s).mkdir(parents=True)
        records = json.loads((paths.GOLDEN / "ptbench_official" / s / "data.json").read_text())[:3]
        (root / s / "data.json").write_text(json.dumps(records))
    (root / "src").mkdir()
    (root / "src" / "template.py").write_text('prompt = """OFFICIAL-TEMPLATE {profile} {platforms} {tools} {format}"""\n'
                                              'format = "p:[f(a=1)]"\n')
    return root


def _own_runs(steps):
    return {s.params["benchmark"]: s for s in steps if s.params.get("backend") == "openai"}


def test_backend_adds_one_run_on_each_benchmark_and_leaves_the_other_steps_as_they_were(tmp_path, monkeypatch, release):
    monkeypatch.setenv("PFC_TOOLSPECTRUM_DIR", str(release))
    monkeypatch.delenv("PFC_PTBENCH_DIR", raising=False)
    base = pipeline.plan(real_model="none")
    mine = pipeline.plan("openai", "org/my-model", real_model="none")
    own = _own_runs(mine)
    others = [s for s in mine if s not in own.values()]
    assert [s.name for s in others] == [s.name for s in base]
    for a, b in zip(others, base):  # only the report steps change: they read the added runs too
        assert {k for k in a.params if a.params[k] != b.params.get(k)} <= {"run_dirs", "runs"}, a.name
    evaluate = next(s for s in mine if s.name == "evaluate").params["run_dirs"].split(",")
    assert [d.split("/")[-1] for d in evaluate if "openai" in d] == ["tb-openai-my-model", "ts-openai-my-model",
                                                                     "pt-openai-my-model"]
    assert sorted(own) == ["ptbench", "toolspectrum", "tracebench"]
    assert {b: s.params["run_id"] for b, s in own.items()} == {
        "tracebench": "tb-openai-my-model", "toolspectrum": "ts-openai-my-model", "ptbench": "pt-openai-my-model"}
    ours = next(s for s in mine if "pt-oracle" in s.params.get("run_ids", {}).values()).params["examples"]
    assert own["ptbench"].params["examples"] == ours     # no PFC_PTBENCH_DIR: our PTool build, as the baselines
    assert all(s.params["model"] == "org/my-model" for s in own.values())


def test_backend_runs_ptbench_on_the_official_data_when_pfc_ptbench_dir_is_set(tmp_path, monkeypatch):
    from pfc import paths
    checkout = _ptbench_checkout(tmp_path / "PTBench")
    monkeypatch.setenv("PFC_PTBENCH_DIR", str(checkout))
    pt = _own_runs(pipeline.plan("openai", "m", real_model="none", leave_out=("toolspectrum",)))["ptbench"]
    assert pt.params["run_id"] == "pt-official-openai-m"
    assert pt.params["examples"] == paths.relative(checkout)
    assert pt.inputs == [checkout / "test_untrained_user" / "data.json", checkout / "test_trained_user" / "data.json"]


class _Answers(Endpoint):
    def reply(self):
        return 200, completion('{"name": "A__f", "arguments": {}}')


@pytest.mark.notebook
@pytest.mark.slow
def test_make_reproduce_backend_runs_a_local_openai_server_on_all_three_benchmarks(tiny_tracebench, release, tmp_path,
                                                                                  monkeypatch):
    # the run steps BACKEND=openai adds, executed as make reproduce executes them (notebook 03 under papermill),
    # against a local OpenAI-compatible endpoint; the benchmarks are cut small, the steps are the pipeline's own
    from pfc import paths
    from pfc.schema import load_examples, write_examples
    out = tmp_path / "out"
    monkeypatch.setenv("PFC_OUTPUT_ROOT", str(out))   # the notebooks' kernels write here
    root = paths.OUTPUT_ROOT
    for name in ("OUTPUT_ROOT", "OUT_DATA", "BENCHMARKS", "RUNS", "REPORTS", "PROCESSED", "INTERIM", "FIGURES", "CACHE"):
        monkeypatch.setattr(paths, name, out / getattr(paths, name).relative_to(root))
    tb = paths.BENCHMARKS / "tracebench"
    tb.mkdir(parents=True)
    write_examples(load_examples(tiny_tracebench / "examples.jsonl")[:4], tb / "examples.jsonl")
    shutil.copy(tiny_tracebench / "tools.json", tb / "tools.json")
    monkeypatch.setenv("PFC_TOOLSPECTRUM_DIR", str(_release(tmp_path / "ts")))
    monkeypatch.setenv("PFC_PTBENCH_DIR", str(_ptbench_checkout(tmp_path / "PTBench")))
    with serve(_Answers) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
        own = _own_runs(pipeline.plan("openai", "stub", real_model="none"))
        records = reproduce(list(own.values()), log=lambda *x, **k: None, state_path=tmp_path / "state.json")
        bodies = list(_Answers.bodies)
    assert [r["status"] for r in records] == ["ran"] * 3
    rows = {b: (paths.RUNS / s.params["run_id"] / "predictions.jsonl").read_text().splitlines() for b, s in own.items()}
    assert {b: len(r) for b, r in rows.items()} == {"tracebench": 4, "toolspectrum": 6, "ptbench": 6}
    assert len(bodies) == 16                                                  # one request per example
    official = [b for b in bodies if "OFFICIAL-TEMPLATE" in json.dumps(b)]
    assert len(official) == 6                                                 # PTBench used the checkout's prompt
    configs = {b: json.loads((paths.RUNS / s.params["run_id"] / "config.json").read_text()) for b, s in own.items()}
    assert {b: (c["backend"], c["model"]) for b, c in configs.items()} == {b: ("openai", "stub") for b in own}
