"""The typed configuration of one run, checked before anything runs.

:class:`RunConfig` holds every choice of a run (benchmark, examples, backend and model,
strategy, history, sampling, seed, sample, cache), whoever starts it: ``pfc run`` (its flags are a table of
these fields, ``pfc.run.run_args``), a sweep, a plan of ``pfc.plans``, the pipeline, a notebook, a test;
:meth:`RunConfig.check` refuses a
configuration that cannot work with a :class:`pfc.errors.UserError` naming the option;
:meth:`RunConfig.record` is what ``config.json`` says about it. This module runs nothing
(``pfc.run.runner``) and reads no example beyond the shape check.

    >>> RunConfig("tracebench", "ex.jsonl", "oracle", "out", seed=3).full_sampling()["seed"]
    3
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pfc import benchmarks, paths
from pfc.errors import UserError
from pfc.provenance import git_commit, versions
from pfc.run.backends import DEFAULT_SAMPLING
from pfc.run.prompts import check_layout
from pfc.run.requests import prompt_module


def __getattr__(name: str):
    """``RUN_STRATEGIES``: each registered benchmark's ``pfc run`` strategies, as its adapter declares them,
    read at first use (``PFC_BENCHMARKS`` may register more)."""
    if name == "RUN_STRATEGIES":
        return {n: benchmarks.get(n).running.strategies for n in benchmarks.names()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

HIERARCHICAL_FALLBACK = ("step 1's answer is read as a domain by name, then by app name, then by the one domain "
                         "sharing most words with it (pfc.run.prompts.match_domain); when none is read, step 2 "
                         "shows the full candidate toolset; each row records step 1's answer, the domain, how it "
                         "was matched and whether it fell back")


def check_strategy(benchmark: str, strategy: str) -> None:
    have = benchmarks.get(benchmark).running.strategies if benchmark in benchmarks.names() else None
    if strategy not in (have or ()):
        raise UserError(f"`pfc run` supports strategies {have} for {benchmark}, not {strategy!r}")


def check_prompt_variant(benchmark: str, variant: str, native: bool = True) -> None:
    """Prompt variants exist where the benchmark's prompt module lists them (``VARIANTS``: PTBench's profile
    ablations, Table 2, Fig. 3, Table 3; TRACEBench's prompt axes); elsewhere only ``all``. A module's
    ``check_variant(variant, native)`` refuses one that cannot work with the run's tool format."""
    module = prompt_module(benchmark)
    variants = getattr(module, "VARIANTS", ("all",))
    if variant != "all" and variants == ("all",):
        having = [n for n in benchmarks.NAMES if getattr(prompt_module(n), "VARIANTS", ("all",)) != ("all",)]
        raise UserError(f"--prompt-variant {variant!r} applies to {', '.join(having)} only")
    if variant not in variants:
        raise UserError(f"unknown --prompt-variant {variant!r}; expected one of {variants}")
    if hasattr(module, "check_variant"):
        module.check_variant(variant, native)


@dataclass(frozen=True)
class RunConfig:
    benchmark: str
    examples: str | Path                   # a directory (examples.jsonl + tools.json) or a file
    backend: object                        # a backend name (``pfc.run.backends.names()``) or a Backend
    out_dir: str | Path
    model: str = ""
    strategy: str = "zero_shot"
    history: str = "full"                  # full | last_k | retrieved (pfc.run.history)
    k: int = 50
    limit: int | None = None
    native: bool = True                    # tools as native function specs (else in the prompt)
    seed: int = 0
    batch_size: int = 16
    sampling: dict = field(default_factory=dict)  # overrides of DEFAULT_SAMPLING
    cache_path: str | Path | None = None   # default: paths.CACHE / responses.sqlite
    tools: str | Path | None = None
    backend_options: dict = field(default_factory=dict)
    progress: bool = True
    force: bool = False                    # a directory made by another run: move its files aside
    use_cache: bool = True
    ids: tuple | None = None               # run only these example ids (a sample)
    prompt_variant: str = "all"            # PTBench profile ablations, TRACEBench prompt axes
    layout: str = "paper"                  # prompt layout (pfc.run.prompts.LAYOUTS): paper | prefix
    plan: dict | None = None               # the plan that made it (pfc.plans): kept in run.json, not its identity

    def check(self) -> None:
        """Refuse (UserError) an option that cannot work, before any example is read."""
        if int(self.batch_size) < 1:
            raise UserError(f"batch size must be >= 1, got {self.batch_size}")
        benchmarks.get(self.benchmark)
        check_strategy(self.benchmark, self.strategy)
        check_prompt_variant(self.benchmark, self.prompt_variant, self.native)
        check_layout(self.layout)

    def full_sampling(self) -> dict:
        return {**DEFAULT_SAMPLING, **(self.sampling or {}), "seed": self.seed}

    def sample_ids(self) -> list[str] | None:
        return None if self.ids is None else sorted(map(str, self.ids))

    def record(self, backend, n_examples: int) -> dict:
        """``config.json``: every parameter, the seed, git commit, package versions, the model's identity."""
        return {"benchmark": self.benchmark, "examples": paths.relative(Path(self.examples)), "backend": backend.name,
                "model": backend.model, "strategy": self.strategy, "history": self.history, "k": self.k,
                "limit": self.limit, "native_tools": self.native, "seed": self.seed, "sampling": self.full_sampling(),
                "n_examples": n_examples, "git_commit": git_commit(), "versions": versions(),
                "backend_options": self.backend_options or {}, "prompt_variant": self.prompt_variant,
                "layout": self.layout, "cache": self.use_cache, "ids": self.sample_ids(), "batch_size": self.batch_size,
                "model_identity": backend.describe(),
                "hierarchical_fallback": HIERARCHICAL_FALLBACK if self.strategy == "hierarchical" else None}
