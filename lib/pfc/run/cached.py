"""A backend behind the response cache, metered: answers from the cache first, the backend for the rest.

:class:`CachedBackend` keys each request by backend, model identity, messages, tools, sampling
and backend version (``pfc.run.cache.cache_key``); a hit is answered at once (``cached=True``),
the misses go to the backend in one call and each fresh response is cached as soon as it
exists (failures never are). It counts backend calls, cache hits, tokens, cost, latencies and
prefill/decode time (:meth:`CachedBackend.usage`). A model backend gets the rendered requests
only; a built-in baseline (``Backend.reads_examples``) gets the examples too, through
``Baseline.answer_each``. This module does not build prompts nor write the run directory.

    >>> latency_summary([1.0, 2.0, 3.0])["p50"]
    2.0
"""
from __future__ import annotations

import statistics

from pfc.run.backends import Request, Response
from pfc.run.cache import ResponseCache, cache_key

COST_KEYS = ("prompt_tokens", "completion_tokens", "reused_tokens", "prefill_s", "decode_s")


def generation(resp: Response) -> dict:
    """What generating this answer cost, as the backend recorded it when it generated it (a cached answer
    keeps its original cost): tokens and prefill/decode seconds; {} for backends that record none."""
    return {k: resp.usage[k] for k in COST_KEYS if isinstance(resp.usage.get(k), (int, float))} \
        if resp.usage.get("prefill_s") is not None else {}


def latency_summary(latencies: list[float]) -> dict:
    """p50/p90/p99/max over successful backend calls; percentiles interpolate between observed values
    (``method='inclusive'``), so none exceeds the maximum."""
    xs = sorted(latencies)
    q = statistics.quantiles(xs, n=100, method="inclusive") if len(xs) > 1 else [xs[0]] * 99
    return {"n": len(xs), "p50": q[49], "p90": q[89], "p99": q[98], "max": xs[-1]}


class CachedBackend:
    """``backend`` answered through ``cache`` (None: neither read nor written), with its usage counted."""

    def __init__(self, backend, cache: ResponseCache | None):
        self.backend, self.cache = backend, cache
        self.model_id = backend.identity()
        self.version = getattr(backend, "version", "")
        self.counts = {"backend_calls": 0, "cache_hits": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0}
        self.timing = {"prefill_s": 0.0, "decode_s": 0.0, "reused_tokens": 0}
        self.latencies: list[float] = []

    def key(self, r: Request) -> str:
        return cache_key(self.backend.name, self.model_id, r.messages, r.tools, r.sampling, self.version)

    def call(self, requests: list[Request], examples: list, on_done) -> None:
        """Answers each request; ``on_done(i, response)`` runs per request as soon as its response exists.
        ``examples[i]`` is the example of ``requests[i]``: only a built-in baseline ever reads it."""
        keys = [self.key(r) for r in requests]
        missing = []
        for i, key in enumerate(keys):
            hit = self.cache.get(key) if self.cache is not None else None
            if hit:
                self.counts["cache_hits"] += 1
                on_done(i, Response(**hit, cached=True))
            else:
                missing.append(i)
        if not missing:
            return

        def fresh(j, resp):
            i = missing[j]
            self.counts["backend_calls"] += 1
            if resp.error is None:
                if self.cache is not None:
                    self.cache.put(keys[i], resp.to_json())
                self.latencies.append(resp.latency_s)
                self.counts["prompt_tokens"] += resp.usage.get("prompt_tokens", 0)
                self.counts["completion_tokens"] += resp.usage.get("completion_tokens", 0)
                self.counts["cost"] += resp.cost
                for t in self.timing:
                    self.timing[t] += resp.usage.get(t, 0)
            on_done(i, resp)
        todo = [requests[i] for i in missing]
        if self.backend.reads_examples:  # a built-in baseline: the examples go by their own path
            self.backend.answer_each(todo, [examples[i] for i in missing], on_done=fresh)
        else:  # a model backend: the rendered requests only, never the gold
            self.backend.generate_each(todo, on_done=fresh)

    def usage(self) -> dict:
        """Latency percentiles, timing and the backend's warnings, for ``usage.json`` (counts: ``counts``)."""
        out = {}
        if self.latencies:
            out["latency_s"] = latency_summary(self.latencies)
        if any(self.timing.values()):
            out["timing"] = {k: round(v, 3) for k, v in self.timing.items()}
        warnings = list(getattr(self.backend, "warnings", []) or [])
        if warnings:
            out["warnings"] = warnings
        return out

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
