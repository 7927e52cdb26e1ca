"""Model backends behind one small interface: requests (messages + tools + sampling) -> responses.

Every backend implements :meth:`Backend.generate` on a batch of :class:`Request` and returns
one :class:`Response` per request (raw text and/or native tool calls, usage, latency, or an
error — a backend never raises for one failed request). A request is what the model sees —
the rendered messages, the tool specs and sampling — never the example behind it: its gold
stays away from every model backend. Built in, no model needed: ``oracle``, ``query-oracle``,
``random``, ``history-prior``, ``no-history``, ``always-habit`` (``pfc.run.backends.builtin``); they are
:class:`Baseline` s and answer from the examples themselves (gold, history) through their own,
separately named path, :meth:`Baseline.answer`, which the runner calls with the examples.
Response caching and resumable runs are ``pfc.run.cache`` and ``pfc.run.runner``.

    >>> get("oracle").name
    'oracle'
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from pfc.errors import UserError
from pfc import benchmarks

# The papers' settings (TRACEBench/ToolSpectrum: temperature 0.1, top_p 0.1).
DEFAULT_SAMPLING = {"temperature": 0.1, "top_p": 0.1, "max_tokens": 512, "seed": 0}


@dataclass
class Request:
    messages: list[dict]
    tools: list[dict] | None = None          # OpenAI function-calling specs, or None (prompt format)
    sampling: dict = field(default_factory=lambda: dict(DEFAULT_SAMPLING))


@dataclass
class Response:
    text: str | None = None
    tool_calls: list[dict] | None = None     # OpenAI-style [{"function": {"name", "arguments"}}]
    usage: dict = field(default_factory=dict)  # prompt_tokens, completion_tokens
    latency_s: float = 0.0
    cost: float = 0.0
    error: str | None = None                 # set when the request failed (never cached)
    cached: bool = False

    def output(self):
        """What goes into predictions.jsonl: text, or an assistant message with tool calls."""
        if self.tool_calls:
            return {"role": "assistant", "content": self.text, "tool_calls": self.tool_calls}
        return self.text

    def to_json(self) -> dict:
        return {"text": self.text, "tool_calls": self.tool_calls, "usage": self.usage,
                "latency_s": self.latency_s, "cost": self.cost}


class Backend:
    """Subclasses set ``name`` and implement ``generate``.

    What a backend declares, so that a run that cannot work is refused before it starts:
    :meth:`supports` (the benchmarks it can answer: any, unless it needs the gold values'
    per-span provenance, ``needs_query_spans``, which an adapter may lack, or is a benchmark's own baseline,
    which only the benchmarks that declare it admit, :func:`admitted_by`), ``needs_tools`` (it picks among the
    tool specs, so a run without a tool file cannot work), ``version`` (changes when outputs
    may change for the same request: built-in backends hash their code; part of the cache
    key and the run identity), and :meth:`preflight` (raises a one-line error when the
    backend cannot be reached at all).
    """
    name = "base"
    model = ""
    reads_examples = False  # True for Baseline: the runner hands it the examples (gold included)
    needs_query_spans = False  # answers from the gold values' provenance per span (``Running.query_spans``)
    needs_tools = False
    version = ""

    @classmethod
    def supports(cls, benchmark: str) -> bool:
        """Whether this backend can answer ``benchmark`` (a registered name)."""
        owners = admitted_by(cls.name)
        if owners and benchmark not in owners:
            return False
        if not cls.needs_query_spans:
            return True
        return benchmarks.get(benchmark).running.query_spans

    def preflight(self) -> None:
        """Raise ``pfc.errors.UserError`` if no request can succeed (e.g. the server is down)."""

    def generate(self, requests: list[Request]) -> list[Response]:  # pragma: no cover - interface
        raise NotImplementedError

    def generate_each(self, requests: list[Request], on_done=None) -> list[Response]:
        """``generate``, calling ``on_done(index, response)`` as each response is ready (backends that
        finish requests one by one override this so a run caches and shows progress per request)."""
        out = self.generate(requests)
        if on_done is not None:
            for i, r in enumerate(out):
                on_done(i, r)
        return out

    def describe(self) -> dict:
        return {"backend": self.name, "model": self.model}

    def identity(self) -> str:
        """The model part of the response-cache key: the model name plus whatever else decides the
        outputs (a weights fingerprint, dtype); backends that load weights override it."""
        return self.model


class Baseline(Backend):
    """A built-in baseline: it answers from the examples themselves (the oracles from their gold, the
    others from history and profile), never from a model. The runner calls :meth:`answer_each` with each request's
    example; through :meth:`generate` (the model backends' path) every request fails."""
    reads_examples = True

    def answer(self, requests: list[Request], examples: list) -> list[Response]:  # pragma: no cover - interface
        raise NotImplementedError

    def answer_each(self, requests: list[Request], examples: list, on_done=None) -> list[Response]:
        out = self.answer(requests, examples)
        if on_done is not None:
            for i, r in enumerate(out):
                on_done(i, r)
        return out

    def generate(self, requests: list[Request]) -> list[Response]:
        """A request alone (no example) cannot be answered: each is a failed response, as in any backend."""
        return [Response(error=f"the {self.name} baseline answers from examples (answer(requests, examples)), "
                               "not from a request alone") for _ in requests]


def chat_function(backend: Backend, sampling: dict | None = None):
    """``chat(messages) -> text`` over a backend (for LLM screening and role-play); failures give ''."""
    def chat(messages: list[dict]) -> str:
        (resp,) = backend.generate([Request(messages, None, {**DEFAULT_SAMPLING, **(sampling or {})})])
        return resp.text or ""
    return chat


def chat_from_args(args):
    """``chat(messages) -> text`` through ``--llm-backend``/``--llm-model`` (LLM screening, role-play, agents of
    ``pfc build``), or None without ``--llm-backend``."""
    if not args.llm_backend:
        return None
    return chat_function(get(args.llm_backend, args.llm_model or ""))


# name -> "module:Class": the one place a backend is registered (imported only when asked for); a benchmark's
# own baselines are its adapter's (``Running.baselines``, in its package's ``baselines`` part: ``BACKENDS``)
BASELINES: dict[str, str] = {
    "oracle": "pfc.run.backends.builtin:Oracle",
    "query-oracle": "pfc.run.backends.builtin:QueryOracle",
    "random": "pfc.run.backends.builtin:RandomBaseline",
    "history-prior": "pfc.run.backends.builtin:HistoryPrior",
    "no-history": "pfc.run.backends.builtin:NoHistory",
    "always-habit": "pfc.run.backends.builtin:AlwaysHabit",
    "always-call": "pfc.run.backends.ask_baselines:AlwaysCall",     # issue 64's ask-or-infer baselines
    "always-ask": "pfc.run.backends.ask_baselines:AlwaysAsk",
    "ask-threshold": "pfc.run.backends.ask_baselines:AskThreshold",
}
MODELS: dict[str, str] = {
    "hf": "pfc.run.backends.hf:HFBackend",
    "openai": "pfc.run.backends.openai:OpenAIBackend",
    "vllm": "pfc.run.backends.vllm:VLLMBackend",
    "openvino": "pfc.run.backends.openvino:OpenVINOBackend",
}
REGISTRY: dict[str, str] = {**BASELINES, **MODELS}


def names() -> tuple[str, ...]:
    """Every backend's name: the built-in baselines, the registered benchmarks' own, the model backends."""
    return (*BASELINES, *(b for a in benchmarks.loaded() for b in a.running.baselines), *MODELS)


def admitted_by(name: str) -> tuple[str, ...]:
    """The benchmarks that declare ``name`` as a baseline of their own (``Running.baselines``): the only ones it
    answers; ``()`` for a backend no benchmark owns (it answers any it supports)."""
    return tuple(a.name for a in benchmarks.loaded() if name in a.running.baselines)


def get(name: str, model: str = "", **options) -> Backend:
    """A backend by its registered name (:data:`REGISTRY`, or a benchmark's own: ``Running.baselines``)."""
    if name in REGISTRY:
        module, cls = REGISTRY[name].split(":")
        return getattr(importlib.import_module(module), cls)(model=model, **options)
    own = next((a for a in benchmarks.loaded() if name in a.running.baselines), None)
    if own is None:
        raise UserError(f"unknown backend {name!r}; expected one of {names()}")
    return own.part("baselines").BACKENDS[name](model=model, **options)
