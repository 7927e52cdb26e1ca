"""Reference runs (``python -m pfc.plans.reference``) stopped or refused before their first row: one line and
an exit status, never a traceback (issue 39, case 13)."""
from pathlib import Path

from pfc import paths
from pfc.errors import UserError
from pfc.plans import Planned, reference
from pfc.run.config import RunConfig


def _one_run(monkeypatch, tmp_path):
    """A plan of one tiny run; the data checks pass on stand-in files (nothing is built or run)."""
    monkeypatch.chdir(tmp_path)  # main() moves to the repository root: the test's working directory comes back after
    tb = paths.BENCHMARKS / "tracebench"
    tb.mkdir(parents=True, exist_ok=True)
    (tb / "examples.jsonl").touch()
    monkeypatch.setattr("pfc.benchmarks.ptbench.plans.data", lambda seed: tmp_path / "pt")
    monkeypatch.setattr(reference, "plan", lambda *a, **k: [Planned("tracebench-last_k", RunConfig(
        "tracebench", tb, "hf", tmp_path / "out", history="last_k", k=10))])


def test_ctrl_c_while_a_reference_run_loads_its_model_is_one_line_and_130(monkeypatch, tmp_path, capsys):
    _one_run(monkeypatch, tmp_path)

    def loading(*a, **kw):  # Ctrl-C arrives while the backend loads, before the runner writes anything
        raise KeyboardInterrupt

    monkeypatch.setattr("pfc.run.runner.execute", loading)
    assert reference.main(["--only", "tracebench-last_k"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == ("python -m pfc.plans.reference: tracebench-last_k: interrupted before its first row; "
                       "the same command resumes every run")
    assert not any("Traceback" in line for line in err)


def test_a_data_build_the_plan_refuses_is_one_line_and_2(monkeypatch, tmp_path, capsys):
    _one_run(monkeypatch, tmp_path)

    def other_synthesis(seed):
        raise UserError("a PTBench build of another synthesis", file="data/benchmarks/ptbench/stats.json",
                        field="synthesis")

    monkeypatch.setattr("pfc.benchmarks.ptbench.plans.data", other_synthesis)
    assert reference.main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("python -m pfc.plans.reference: data/benchmarks/ptbench/stats.json") and "synthesis" in err[0]


def test_a_variant_set_without_its_manifest_is_rebuilt_not_used(monkeypatch, tmp_path):
    """An unfinished set of variants (examples written, perturb.json not yet) is built again before the run."""
    monkeypatch.chdir(tmp_path)
    tb = paths.BENCHMARKS / "tracebench"
    tb.mkdir(parents=True, exist_ok=True)
    (tb / "examples.jsonl").touch()
    variants = tmp_path / "variants"
    variants.mkdir()
    (variants / "examples.jsonl").write_text("")             # left by a stop: no manifest
    built = []
    monkeypatch.setattr("pfc.benchmarks.ptbench.plans.data", lambda seed: tmp_path / "pt")
    monkeypatch.setattr(reference, "plan", lambda *a, **k: [Planned(
        "counterfactual/tracebench-swap-user", RunConfig("tracebench", variants, "hf", tmp_path / "out", ids=(),
                                                         history="last_k", k=10),
        build=lambda: built.append(Path(variants)))])
    from types import SimpleNamespace
    real = reference.benchmarks.get

    class NoExamples:  # each adapter as it is, except that the variant set holds no example
        scoring = SimpleNamespace(load=lambda p, t: ([], None))

        def __init__(self, name):
            self.adapter = real(name)

        def __getattr__(self, name):
            return getattr(self.adapter, name)
    monkeypatch.setattr(reference.benchmarks, "get", NoExamples)
    monkeypatch.setattr("pfc.run.runner.execute", lambda *a, **kw: None)
    reference.main(["--only", "counterfactual/tracebench-swap-user"])
    assert built == [variants]
