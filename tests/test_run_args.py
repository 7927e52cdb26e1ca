"""``pfc run``'s flags are one table of ``RunConfig`` fields (``pfc.run.run_args.FLAGS``): the parser, the
configuration a command line describes and the command line a configuration is (what ``pfc sweep`` prints)
all come from it, so a configuration survives the round trip through ``pfc run``'s own parser."""
from dataclasses import fields

import pytest

from pfc.run.config import RunConfig
from pfc.run.run_args import FLAGS, config_from_args, flag_keys, parse_run_args, run_args

# every field `pfc run` has a flag for, each away from its default
EVERY_FLAG = RunConfig(
    "ptbench", "data/x.json", "hf", "out/r", model="m", strategy="few_shot", history="last_k", k=7, limit=3,
    native=False, seed=4, batch_size=2, sampling={"max_tokens": 64, "temperature": 0.0, "top_p": 0.5},
    tools="t.json", backend_options={"concurrency": 2, "timeout": 9.5, "max_retries": 0, "dtype": "float32",
                                     "device": "cuda", "engine": "single", "prefix_reuse": False, "adapter": "ad",
                                     "max_batched_tokens": 4096},
    force=True, use_cache=False, prompt_variant="no_basic", layout="prefix")


@pytest.mark.parametrize("cfg", [EVERY_FLAG, RunConfig("tracebench", "tb", "oracle", "out"),
                                 RunConfig("toolspectrum", "ts", "history-prior", "o", sampling={"top_p": 1.0},
                                           backend_options={"dtype": "auto"})],
                         ids=["every flag", "defaults", "some"])
def test_a_config_survives_pfc_run_args_and_pfc_runs_own_parser(cfg):
    assert parse_run_args(run_args(cfg)) == cfg


def test_every_flag_is_a_field_of_run_config_and_the_round_trip_covers_them_all():
    names = {f.name for f in fields(RunConfig)}
    assert {f.field.partition(".")[0] for f in FLAGS} <= names
    args = run_args(EVERY_FLAG)
    assert {f.flag for f in FLAGS} <= set(args)  # each flag of the table is exercised above
    # the fields without a flag: not in a command line, so a command line leaves them at their defaults
    assert names - {f.field.partition(".")[0] for f in FLAGS} == {"cache_path", "progress", "ids", "plan"}


def test_the_parser_refuses_what_pfc_run_refuses_as_one_user_error():
    from pfc.errors import UserError
    with pytest.raises(UserError, match="--k"):
        parse_run_args(run_args(RunConfig("tracebench", "tb", "oracle", "out")) + ["--k", "0"])


def test_defaults_are_run_configs_own_and_left_out_of_a_command_line():
    assert run_args(RunConfig("tracebench", "tb", "oracle", "out")) == [
        "run", "--benchmark", "tracebench", "--examples", "tb", "--backend", "oracle", "--out", "out"]
    sub = __import__("argparse").ArgumentParser().add_subparsers()
    from pfc.run.run_args import add_run_parser
    ns = add_run_parser(sub).parse_args(["--benchmark", "tracebench", "--examples", "tb", "--backend", "oracle",
                                         "--out", "out"])
    assert config_from_args(ns) == RunConfig("tracebench", "tb", "oracle", "out")  # argparse's defaults: RunConfig's


def test_a_sweep_spec_may_set_exactly_the_option_and_sampling_keys_pfc_run_has_flags_for():
    assert set(flag_keys("sampling")) == {"max_tokens", "temperature", "top_p"}
    assert set(flag_keys("backend_options")) == {"concurrency", "timeout", "max_retries", "dtype", "device", "engine",
                                                 "prefix_reuse", "adapter", "max_batched_tokens"}


def test_pfc_run_writes_the_config_json_it_always_wrote(tiny_tracebench, tmp_path):
    """``config.json`` of a ``pfc run`` with every setting flag: the keys, their order and their values as
    before the flags came from one table (issue 36: the same file for the same command)."""
    import json
    from pfc.cli import main
    out = tmp_path / "r"
    assert main(["run", "--benchmark", "tracebench", "--examples", str(tiny_tracebench), "--backend", "history-prior",
                 "--out", str(out), "--history", "last_k", "--k", "5", "--limit", "7", "--seed", "3",
                 "--max-tokens", "64", "--temperature", "0", "--top-p", "0.5", "--batch-size", "4",
                 "--concurrency", "2", "--timeout", "9", "--retries", "1", "--dtype", "float32", "--device", "cpu",
                 "--engine", "single", "--no-prefix-reuse", "--layout", "prefix", "--no-cache", "--prompt-format"]) == 0
    cfg = json.loads((out / "config.json").read_text())
    assert list(cfg) == ["benchmark", "examples", "backend", "model", "strategy", "history", "k", "limit",
                         "native_tools", "seed", "sampling", "n_examples", "git_commit", "versions", "backend_options",
                         "prompt_variant", "layout", "cache", "ids", "batch_size", "model_identity",
                         "hierarchical_fallback"]
    assert {k: v for k, v in cfg.items() if k not in ("examples", "git_commit", "versions", "model_identity")} == {
        "benchmark": "tracebench", "backend": "history-prior", "model": "history-prior", "strategy": "zero_shot",
        "history": "last_k", "k": 5, "limit": 7, "native_tools": False, "seed": 3,
        "sampling": {"temperature": 0.0, "top_p": 0.5, "max_tokens": 64, "seed": 3}, "n_examples": 7,
        "backend_options": {"concurrency": 2, "timeout": 9.0, "max_retries": 1, "dtype": "float32", "device": "cpu",
                            "engine": "single", "prefix_reuse": False},
        "prompt_variant": "all", "layout": "prefix", "cache": False, "ids": None, "batch_size": 4,
        "hierarchical_fallback": None}
    assert list(cfg["backend_options"]) == ["concurrency", "timeout", "max_retries", "dtype", "device", "engine",
                                            "prefix_reuse"]
    assert list(json.loads((out / "run.json").read_text())) == ["identity"]  # no plan record: a run made by hand
