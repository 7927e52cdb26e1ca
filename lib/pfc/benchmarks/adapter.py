"""The typed adapter: what a benchmark is, in four records by job, and the Protocols of its package's parts.

An :class:`Adapter` is a benchmark's ``name``, its ``package`` (the module defining ``ADAPTER``) and four records, one
per job: :class:`Scoring` (read and score its data: the eval stage), :class:`Running` (what ``pfc run`` and the built-in
baselines need), :class:`Reporting` (what the reports show) and :class:`Building` (where its data come from and what may
leave the repository). Code of a higher stage lives beside the adapter in its package, one module per job
(:data:`PARTS`), each typed by a Protocol here; the adapter finds them by name (:meth:`Adapter.part`), so the eval stage
that imports adapters never imports a higher stage. This module neither registers benchmarks (``pfc.benchmarks``) nor
holds any benchmark's facts.
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Protocol, runtime_checkable

from pfc import paths

# a benchmark package's modules by job -> the stage their code belongs to (tests/test_layers.py checks their
# imports as that stage's): the other modules of the package (its adapter, loaders, scorers) are eval's.
# ask_prompts: the ask-allowed prompt variants its prompts module hands over (VARIANT_PROMPTS, issue 64)
PARTS = {"prompts": "run", "ask_prompts": "run", "baselines": "run", "build": "train", "plans": "plans",
         "section": "report", "views": "report", "pipeline": "report", "inspect_task": "integrations"}

Loader = Callable[..., tuple]                  # (examples_path, tools_path) -> (examples, tools)
PredictionsLoader = Callable[[Any, list], Any]  # (path, examples) -> {id: raw output}
Context = Callable[[list, list], Any]           # (examples, tools) -> ctx passed to row()
Row = Callable[[Any, Any, Any], tuple]          # (example, parse_result, ctx) -> (row dict, Comparison, error_type)
TemplateCheck = Callable[[str], "str | None"]   # (output) -> None, or "format:not_exact_template: why"


def no_context(examples, tools) -> None:
    """The context of a benchmark whose rows need none."""
    return None


@runtime_checkable
class PromptModule(Protocol):
    """``<package>.prompts``: the texts of a run's requests (``pfc.run.requests.RequestBuilder``); a benchmark
    with the ``hierarchical`` strategy adds ``domain_request(rb, example)``."""
    def request(self, rb, example, domain=None) -> tuple: ...        # (messages, tool specs or None)
    def template_identity(self) -> dict: ...                         # {"source", "sha256"} of its template


@runtime_checkable
class ReportSection(Protocol):
    """``<package>.section``: its part of ``pfc report`` (``pfc.report.runs``), given that benchmark's runs only."""
    SUMMARY: Any                                                      # the metrics ``pfc compare`` prints
    INDEX: list                       # its headline tables on reports/index.html: [(table name, title)]
    def write(self, w, runs: list, n_boot: int, seed: int) -> None: ...


@runtime_checkable
class Builder(Protocol):
    """``<package>.build``: ``pfc build <name>`` (:meth:`command`, the parsed arguments) and a sweep's ``build``
    (:meth:`build`, the spec's parameters: those of ``Building.params``)."""
    def command(self, args) -> int: ...
    def build(self, out: Path, **params) -> None: ...  # absent where Building.params is empty


@dataclass(frozen=True)
class Export:
    """How ``pfc export`` publishes a benchmark this repository builds (``pfc.integrations.hf_datasets``)."""
    title: str
    command: str               # how it is built ({seed}, {users} from stats.json), for the card
    source: str = "unknown"    # the source data, when stats.json does not say
    splits: tuple = ()         # a build directory's unified/<split>/examples.jsonl; () = one ``test`` split
    tool_file: bool = False    # the benchmark ships tools.json


@dataclass(frozen=True)
class OutputStyle:
    """An answer format named after the benchmark whose format it is: ``pfc parse --style NAME`` reads it with
    ``readers`` (``pfc.eval.parsing.READERS``; none: not a parse style), ``pfc.render.render`` writes it."""
    name: str
    render: Callable[[list | None], Any]   # calls (None: no call) -> the text a model would write
    readers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scoring:
    """Reading and scoring its data (``pfc.eval.scoring``)."""
    metric_keys: dict[str, str]            # published key -> metric name in pfc.eval.metrics.METRICS
    load: Loader
    load_predictions: PredictionsLoader
    row: Row
    context: Context = no_context
    style: str = "auto"                    # default output style for parsing
    group_by: list[str] = field(default_factory=list)  # meta keys to report metrics by
    strict_template: TemplateCheck | None = None
    official_compat: bool = False          # `--compat official`: the official scorer exists
    styles: tuple[OutputStyle, ...] = ()   # the output styles named after it (pfc.benchmarks.output_style)


@dataclass(frozen=True)
class Running:
    """What ``pfc run`` and the built-in baselines need of it."""
    strategies: tuple[str, ...] = ("zero_shot", "few_shot", "cot")  # `pfc run` strategies (pfc.run.strategies)
    render_style: str = "json"             # how the built-in baselines write their answers (pfc.render)
    needs_tools: bool = False              # prompts list the tool file's tools: a run without them is refused
    tools_in_examples: bool = False        # each example carries its own candidate tools: no tool file needed
    history_selection: bool = False        # its prompts select history records (sweeps vary history and k)
    query_spans: bool = True               # gold values carry their provenance per span (the query-oracle)
    baselines: tuple[str, ...] = ()        # backends of its own: names in its baselines part's BACKENDS


@dataclass(frozen=True)
class Reporting:
    """What the real-model and reference reports show of it."""
    headline: tuple[str, ...] = ()         # published keys of the real-model and reference reports, in order
    groups: tuple[str, ...] = ()           # meta keys the reference report breaks the headline down by
    extra: tuple[str, ...] = ()            # further published keys the reference report adds in robust mode
    modes: tuple[bool, ...] = (False,)     # the reference report's modes: strict scoring or not, in order
    paper: str = ""                        # the paper whose tables it lays out (data/paper_results), if any


@dataclass(frozen=True)
class Building:
    """Where its data come from and what may leave the repository."""
    params: frozenset[str] = frozenset()   # a sweep's 'build' may set these (empty: sweeps cannot build it)
    default_data: Callable[[], Path | None] | None = None  # where its data is by default; None: paths.BENCHMARKS/name
    data_env: str = ""                     # the environment variable that moves its default_data
    export: Export | None = None           # how `pfc export` publishes it (None: refused)
    third_party: str = ""                  # whose data it is, when it is never exported (the refusal names it)
    release: tuple[str, str] = ()          # (meta key, release): a record with that key is in the format of a
                                           # third-party release, and its data unless a pfc build recorded it
    action_kinds: tuple[str, ...] = ()     # `pfc perturb` kinds whose gold is not a call (ask, cannot) it admits


@dataclass(frozen=True)
class Adapter:
    name: str
    package: str                           # the module defining ADAPTER: its parts are modules of that package
    scoring: Scoring
    running: Running = Running()
    reporting: Reporting = Reporting()
    building: Building = Building()

    def has(self, job: str) -> bool:
        """Whether the package has a module for ``job``, without importing it."""
        return importlib.util.find_spec(f"{self.package}.{job}") is not None

    def part(self, job: str) -> ModuleType | None:
        """The package's module for ``job`` (one of :data:`PARTS`), imported when first asked for; None when the
        benchmark has none."""
        if job not in PARTS:
            raise ValueError(f"unknown part {job!r}; expected one of {sorted(PARTS)}")
        return importlib.import_module(f"{self.package}.{job}") if self.has(job) else None

    def prompts(self) -> PromptModule:
        return importlib.import_module(f"{self.package}.prompts")  # type: ignore[return-value]  # required

    def section(self) -> ReportSection | None:
        return self.part("section")  # type: ignore[return-value]

    def builder(self) -> Builder | None:
        return self.part("build")  # type: ignore[return-value]

    def data_dir(self) -> Path | None:
        """Where its data is by default (``Building.default_data``), else where ``make reproduce`` builds it."""
        if self.building.default_data is not None:
            return self.building.default_data()
        return paths.BENCHMARKS / self.name
