"""The registries: benchmarks, backends and strategies by name, each in one place, and adapters complete."""
import pytest

from pfc import benchmarks, paths
from pfc.errors import UserError
from pfc.run import backends, strategies
from pfc.run.requests import prompt_module


def test_an_unknown_benchmark_is_a_user_error_naming_the_registered_ones():
    with pytest.raises(UserError, match="expected ptbench, toolspectrum or tracebench"):
        benchmarks.get("bfcl")


def test_an_unknown_backend_is_a_user_error():
    with pytest.raises(UserError, match="unknown backend 'gpt'"):
        backends.get("gpt")


def test_every_registered_builtin_backend_is_built_by_its_name():
    assert [backends.get(n).name for n in ("oracle", "query-oracle", "random", "history-prior", "no-history")] == \
        ["oracle", "query-oracle", "random", "history-prior", "no-history"]


def test_every_adapter_strategy_is_a_registered_strategy_its_prompt_module_can_build():
    for name in benchmarks.NAMES:
        adapter, prompts = benchmarks.get(name), prompt_module(name)
        assert set(adapter.running.strategies) <= set(strategies.STRATEGIES), name
        assert callable(prompts.request) and callable(prompts.template_identity), name
        if "hierarchical" in adapter.running.strategies:
            assert callable(prompts.domain_request), name


def test_default_data_is_the_built_benchmark_or_the_toolspectrum_release(monkeypatch, tmp_path):
    assert benchmarks.get("tracebench").data_dir() == paths.BENCHMARKS / "tracebench"
    assert benchmarks.get("ptbench").data_dir() == paths.BENCHMARKS / "ptbench"
    monkeypatch.delenv("PFC_TOOLSPECTRUM_DIR", raising=False)
    assert benchmarks.get("toolspectrum").data_dir() == paths.ROOT.parent / "shared" / "data" / "toolspectrum"
    monkeypatch.setenv("PFC_TOOLSPECTRUM_DIR", str(tmp_path))
    assert benchmarks.get("toolspectrum").data_dir() == tmp_path


def test_each_package_part_has_the_shape_its_protocol_names():
    from pfc.benchmarks.adapter import Builder, PromptModule, ReportSection
    for a in benchmarks.adapters():
        assert isinstance(a.prompts(), PromptModule), a.name
        assert a.section() is None or isinstance(a.section(), ReportSection), a.name
        assert a.builder() is None or callable(a.builder().command), a.name
        if a.building.params:  # a sweep may build it: the builder takes the spec's parameters
            assert isinstance(a.builder(), Builder), a.name
    assert benchmarks.get("toolspectrum").builder() is None  # the release is read in place, never built


def test_an_unknown_part_is_refused_and_a_missing_one_is_none():
    a = benchmarks.get("toolspectrum")
    assert a.part("baselines") is None and a.has("baselines") is False
    with pytest.raises(ValueError, match="unknown part 'tables'"):
        a.part("tables")


def test_output_styles_are_their_benchmarks_and_found_through_the_registry():
    from pfc.eval.parsing import parse, styles
    from pfc.render import render
    from pfc.schema import Call
    assert {s.name: a.name for a in benchmarks.adapters() for s in a.scoring.styles} == \
        {"tracebench": "tracebench", "ptbench": "ptbench"}
    assert styles() == ("auto", "ptbench", "json")  # TRACEBench's style is written (render), not a parse style
    calls = [Call("Shop", "buy", {"n": 2})]
    assert render(calls, "ptbench") == "Shop:[buy(n=2)]" and render(None, "ptbench") == "[]"
    assert render(calls, "tracebench") == '{"name": "Shop__buy", "arguments": {"n": 2}}'
    assert [(c.app, c.function, c.arguments) for c in parse("Shop:[buy(n=2)]", "ptbench").calls] == \
        [("Shop", "buy", {"n": 2})]
    assert parse('{"name": "Shop__buy", "arguments": {}}', "tracebench").error == "input:bad_style: tracebench"
    with pytest.raises(ValueError, match="unknown style 'bfcl'"):
        render(calls, "bfcl")


def test_a_benchmarks_own_baseline_is_declared_by_its_adapter_and_built_from_its_package(tmp_path):
    assert benchmarks.get("ptbench").running.baselines == ("nearest-train",)
    names = backends.names()
    assert names[:len(backends.BASELINES)] == tuple(backends.BASELINES)  # the built-in baselines, then the
    assert names[len(backends.BASELINES)] == "nearest-train"              # benchmarks' own, then the models
    assert names[len(backends.BASELINES) + 1:] == tuple(backends.MODELS)
    with pytest.raises(UserError, match="nearest-train: no training split"):  # pfc.benchmarks.ptbench.baselines
        backends.get("nearest-train", model=str(tmp_path / "nothing"))
