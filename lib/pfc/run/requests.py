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

from pfc import benchmarks
from pfc.benchmarks.adapter import PromptModule
from pfc.run.backends import Request


def prompt_module(benchmark: str) -> PromptModule:
    """The prompt module of ``benchmark`` (``<its package>.prompts``)."""
    return benchmarks.get(benchmark).prompts()


def template_identity(benchmark: str, variant: str = "all") -> dict:
    """``{"source", "sha256"}`` of the prompt template this run's requests are built from (its prompt
    module's ``template_identity``; of ``variant``'s prompts where the module takes a variant, TRACEBench's
    prompt axes). A different template means different requests: a different run."""
    import inspect
    fn = prompt_module(benchmark).template_identity
    return fn(variant) if variant != "all" and "variant" in inspect.signature(fn).parameters else fn()


class RequestBuilder:
    def __init__(self, benchmark: str, tools, strategy: str = "zero_shot", history: str = "full", k: int = 50,
                 native: bool = True, sampling: dict | None = None, pool=(), prompt_variant: str = "all",
                 layout: str = "paper"):
        self.benchmark, self.strategy, self.history, self.k, self.native = benchmark, strategy, history, k, native
        self.tools_by_key = tools if isinstance(tools, dict) else {t.key: t for t in tools}
        self.sampling, self.pool, self.prompt_variant = dict(sampling or {}), pool, prompt_variant
        self.layout = layout
        self.seed = int(self.sampling.get("seed", 0))
        self.prompts = prompt_module(benchmark)
        self.cache: dict = {}  # the prompt module's per-run state (ToolSpectrum: one prompter per subset)

    def domain(self, example) -> tuple[Request, dict]:
        """Hierarchical step 1 and the domain names it may answer with."""
        p = self.prompts.domain_request(self, example)
        return Request(p.messages, None, dict(self.sampling)), p.meta["domains"]

    def answer(self, example, domain: str | None = None) -> Request:
        """The request for the answer (step 2 of the hierarchical strategy: ``domain`` from step 1)."""
        messages, specs = self.prompts.request(self, example, domain)
        return Request(messages, specs, dict(self.sampling))
