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


def test_default_data_is_the_built_benchmark_or_the_toolspectrum_release():
    assert benchmarks.get("tracebench").data_dir() == paths.BENCHMARKS / "tracebench"
    assert benchmarks.get("ptbench").data_dir() == paths.BENCHMARKS / "ptbench"
    assert benchmarks.get("toolspectrum").data_dir() == paths.toolspectrum_dir()
