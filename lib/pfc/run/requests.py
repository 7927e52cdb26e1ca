"""Requests of one run: each example's prompt (and tool specs) under the run's strategy and history.

:class:`RequestBuilder` holds what every request of a run shares (the candidate tools, the
strategy, history mode, sampling, few-shot pool, PTBench prompt variant) and builds the answer
request of an example (:meth:`RequestBuilder.answer`, optionally restricted to one domain) and
the hierarchical strategy's step 1 (:meth:`RequestBuilder.domain`). The texts are the prompt
module of the benchmark's package (``<package>.prompts``, ``pfc.benchmarks.adapter.PromptModule``: ``request(rb, example, domain)``, for the
hierarchical strategy ``domain_request(rb, example)``, and ``template_identity()``); a request
carries the rendered messages, tool specs and sampling only — never the example.
:func:`template_identity` says which template text a run uses and where it comes from (our
wording, an official file, the ToolSpectrum release), by content hash, for the run identity.
This module calls no backend.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from pfc import benchmarks
from pfc.benchmarks.adapter import PromptModule
from pfc.run.backends import Request


def prompt_module(benchmark: str, variant: str = "all") -> PromptModule:
    """The prompt module of ``benchmark`` (``<its package>.prompts``) or, for a prompt variant that module hands
    to another part of its package (``VARIANT_PROMPTS``, a job of ``pfc.benchmarks.adapter.PARTS``: TRACEBench's
    ask-allowed prompt, issue 64), that part."""
    adapter = benchmarks.get(benchmark)
    module = adapter.prompts()
    part = getattr(module, "VARIANT_PROMPTS", {}).get(variant)  # {variant: the part that serves it}
    return adapter.part(part) if part else module  # type: ignore[return-value]


def template_identity(benchmark: str, variant: str = "all") -> dict:
    """``{"source", "sha256"}`` of the prompt template this run's requests are built from (its prompt
    module's ``template_identity``; a variant another part serves: that part's ``template_identity(variant)``; of
    ``variant``'s prompts where the module takes a variant, TRACEBench's prompt axes). A different template means
    different requests: a different run."""
    module, own = prompt_module(benchmark, variant), prompt_module(benchmark)
    if module is not own:
        return module.template_identity(variant)  # type: ignore[call-arg]
    fn = own.template_identity
    return fn(variant) if variant != "all" and "variant" in inspect.signature(fn).parameters else fn()


@dataclass(eq=False, repr=False)
class RequestBuilder:
    """A run's request settings (the fields) and what they derive: tools by key, the seed, the prompt module."""
    benchmark: str
    tools: object                  # the candidate tools, a list or {key: Tool}
    strategy: str = "zero_shot"
    history: str = "full"
    k: int = 50
    native: bool = True
    sampling: dict | None = None
    pool: object = ()              # the few-shot pool
    prompt_variant: str = "all"
    layout: str = "paper"

    def __post_init__(self):
        tools = self.tools
        self.tools_by_key = tools if isinstance(tools, dict) else {t.key: t for t in tools}
        self.sampling = dict(self.sampling or {})
        self.seed = int(self.sampling.get("seed", 0))
        self.prompts = prompt_module(self.benchmark, self.prompt_variant)
        self.cache: dict = {}  # the prompt module's per-run state (ToolSpectrum: one prompter per subset)

    def domain(self, example) -> tuple[Request, dict]:
        """Hierarchical step 1 and the domain names it may answer with."""
        p = self.prompts.domain_request(self, example)
        return Request(p.messages, None, dict(self.sampling)), p.meta["domains"]

    def answer(self, example, domain: str | None = None) -> Request:
        """The request for the answer (step 2 of the hierarchical strategy: ``domain`` from step 1)."""
        messages, specs = self.prompts.request(self, example, domain)
        return Request(messages, specs, dict(self.sampling))
