"""The ``hf`` backend's engines behind one small interface: a call's requests in, one response each out.

:class:`Engine` is what :class:`pfc.run.backends.hf.HFBackend` hands a call to:
``generate_each(requests, encode, done)`` turns each request into prompt ids with ``encode`` (the
backend's chat template, :mod:`pfc.run.backends.chat_template`) and calls ``done(index, response)`` as each
response is ready; a request that fails is a failure row, never an exception. Every engine reads the same
loaded model (:class:`Loaded`), samples with :func:`pick` (temperature 0 = greedy; else temperature +
top-p, a generator seeded per request) and keeps the last prompt's KV cache for the next call
(:meth:`Engine.reset` forgets it). :func:`engine_for` picks one:

- :class:`OneByOne` (``engine="single"``, and any engine with ``prefix_reuse=False``): one sequence at a time, each
  prompt prefilled after the part it shares with the previous prompt (with prefix reuse), then decoded alone;
- :class:`Grouped` (``engine="batch"``, ``"continuous"``): requests sharing a prefix planned into groups
  (:func:`pfc.run.backends.grouping.plan_groups`), the prefix prefilled once, the rows decoded together by
  :func:`pfc.run.backends.hf_engine.run_group` (fixed groups) or :func:`pfc.run.backends.hf_stream.run_stream` (at most
  ``max_batch`` live rows, a stopped row's place taken at once).

An engine changes only how the same computation is batched. This module imports torch only when an engine runs; it does
not load models, render prompts or cache responses.

    >>> [type(engine_for(name, reuse, None, 8)).__name__ for name, reuse in
    ...  (("single", True), ("batch", True), ("continuous", False))]
    ['OneByOne', 'Grouped', 'OneByOne']
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

from pfc.run.backends import Response
from pfc.run.backends.chat_template import decode
from pfc.run.backends.grouping import common_prefix


@dataclass
class Loaded:
    """What every engine reads: the model and its tokenizer, where it runs, the stop ids, the prefill chunk."""
    lm: object
    tok: object
    device: str
    stop: set
    chunk: int = 1024

    @property
    def pad(self) -> int:
        return self.tok.pad_token_id if self.tok.pad_token_id is not None else 0


def pick(logits, sampling: dict, gen) -> int:
    """The next token: the most likely at temperature 0, else sampled with temperature and top-p by ``gen``."""
    import torch
    temp = float(sampling.get("temperature", 0) or 0)
    if temp <= 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits.float() / temp, dim=-1)
    top_p = float(sampling.get("top_p", 1.0) or 1.0)
    if top_p < 1.0:
        sp, si = torch.sort(probs, descending=True)
        keep = torch.cumsum(sp, 0) - sp < top_p  # the smallest set reaching top_p (at least one token)
        probs = torch.zeros_like(probs).scatter(0, si[keep], sp[keep])
    return int(torch.multinomial(probs / probs.sum(), 1, generator=gen))


def crop(cache, length: int) -> None:
    """Keep the first ``length`` positions of a DynamicCache (transformers 5 takes the number to drop)."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)


def _failure(e: Exception, t0: float | None = None) -> Response:
    return Response(error=f"{type(e).__name__}: {e}"[:300], latency_s=0.0 if t0 is None else time.perf_counter() - t0)


class Engine:
    """Decodes one call's requests on a loaded model; keeps the last prompt's KV cache between calls."""
    name = ""

    def __init__(self, m: Loaded):
        self.m = m
        self.cache, self.prev_ids = None, []

    def reset(self) -> None:
        """Forget the cached prefix (after a failure, or to time a prefill from scratch)."""
        self.cache, self.prev_ids = None, []

    def generate_each(self, requests, encode, done) -> None:  # pragma: no cover - interface
        """``encode(request) -> ids`` for each request, ``done(index, response)`` as each response is ready."""
        raise NotImplementedError


class OneByOne(Engine):
    """One sequence at a time, after the previous prompt's cached prefix (``prefix_reuse``)."""
    name = "single"

    def __init__(self, m: Loaded, prefix_reuse: bool = True):
        super().__init__(m)
        self.prefix_reuse = prefix_reuse

    def generate_each(self, requests, encode, done) -> None:
        for i, r in enumerate(requests):
            t0 = time.perf_counter()
            try:
                ids = encode(r)
                text, n, timing = self.generate_ids(ids, r.sampling)
                resp = Response(text=text, latency_s=time.perf_counter() - t0,
                                usage={"prompt_tokens": len(ids), "completion_tokens": n, **timing})
            except Exception as e:  # noqa: BLE001 - one failed request is a failure row, not a crash
                self.reset()
                resp = _failure(e, t0)
            done(i, resp)

    def generate_ids(self, ids: list[int], sampling: dict):
        """Prefill (reusing the cached prefix) then decode token by token; returns (text, n, timing)."""
        import torch
        from transformers import DynamicCache
        m = self.m
        gen = torch.Generator().manual_seed(int(sampling.get("seed", 0)))
        reuse = common_prefix(self.prev_ids, ids) if (self.prefix_reuse and self.cache is not None) else 0
        reuse = min(reuse, len(ids) - 1)  # at least one new token gives the next-token logits
        if reuse > 0:
            crop(self.cache, reuse)
            cache = self.cache
        else:
            cache = DynamicCache()
        self.reset()  # restored only when this request completes
        t0 = time.perf_counter()
        out, t1 = self._decode(ids[reuse:], cache, sampling, gen)
        t2 = time.perf_counter()
        if self.prefix_reuse:
            crop(cache, len(ids))  # keep the prompt only: the next request shares at most the prompt
            self.cache, self.prev_ids = cache, ids
        return decode(m.tok, out), len(out), {"prefill_s": round(t1 - t0, 4), "decode_s": round(t2 - t1, 4),
                                              "reused_tokens": reuse}

    def _decode(self, new_ids: list[int], cache, sampling: dict, gen) -> tuple[list[int], float]:
        """Feed ``new_ids`` after ``cache``, then pick tokens until a stop token or ``max_tokens``; returns the
        answer's ids and the time the prefill ended."""
        import torch
        m = self.m
        max_new = int(sampling.get("max_tokens", 256))
        with torch.no_grad():
            x = torch.tensor([new_ids], device=m.device)
            # logits_to_keep=1: the vocabulary projection of every prompt position would cost more than the model
            logits = m.lm(input_ids=x, past_key_values=cache, use_cache=True, logits_to_keep=1).logits[0, -1]
            if str(m.device).startswith("cuda"):
                torch.cuda.synchronize()  # GPU kernels are asynchronous: prefill time ends when they do
            t1 = time.perf_counter()
            out: list[int] = []
            while len(out) < max_new:
                t = pick(logits, sampling, gen)
                if t in m.stop:
                    break
                out.append(t)
                if len(out) == max_new:
                    break
                logits = m.lm(input_ids=torch.tensor([[t]], device=m.device), past_key_values=cache,
                              use_cache=True, logits_to_keep=1).logits[0, -1]
        return out, t1


class Grouped(Engine):
    """Groups sharing a prefix, the prefix prefilled once and the rows decoded together (``stream``: at most
    ``max_batch`` live rows, a stopped row replaced at once; else fixed groups of up to ``max_batch`` rows)."""

    def __init__(self, m: Loaded, stream: bool, max_batch: int):
        super().__init__(m)
        self.stream, self.max_batch = stream, max_batch
        self.name = "continuous" if stream else "batch"

    def generate_each(self, requests, encode, done) -> None:
        from pfc.run.backends import hf_engine as eng
        ids: dict[int, list[int]] = {}
        for i, r in enumerate(requests):
            try:
                ids[i] = encode(r)
            except Exception as e:  # noqa: BLE001 - one bad request is a failure row
                done(i, _failure(e))
        order = sorted(ids)
        for group in eng.plan_groups([ids[i] for i in order], max_batch=len(order) if self.stream else self.max_batch,
                                     max_tokens_kv=10 ** 12 if self.stream else 160_000,
                                     shared=eng.shares_prefix(self.m.lm, self.m.device)):
            idx = [order[j] for j in group]
            self._run_group(idx, [ids[i] for i in idx], [requests[i].sampling for i in idx], done)

    def _run_group(self, idx: list[int], prompts: list[list[int]], samplings: list[dict], done) -> None:
        """One group: its common prefix in the cache, then its rows decoded; a failure fails the rows not done."""
        from pfc.run.backends import hf_engine as eng, hf_stream
        m, finished = self.m, set()
        t0 = time.perf_counter()
        try:
            p = min(len(x) for x in prompts) - 1
            for x in prompts[1:]:
                p = min(p, common_prefix(prompts[0], x))
            reused = self.prefix(prompts[0][:p])
            t_pre = time.perf_counter() - t0
            rows = min(len(prompts), self.max_batch) if self.stream else len(prompts)

            def row(j, toks, pre, dec):
                pre += t_pre / len(idx)
                finished.add(idx[j])
                done(idx[j], Response(text=decode(m.tok, toks), latency_s=round(pre + dec, 4), usage={
                    "prompt_tokens": len(prompts[j]), "completion_tokens": len(toks), "prefill_s": round(pre, 4),
                    "decode_s": round(dec, 4), "reused_tokens": reused if j == 0 else p, "batch_rows": rows}))
            go = partial(hf_stream.run_stream, live=self.max_batch) if self.stream else eng.run_group
            go(eng.Decoder(m.lm, pick, m.stop, m.pad, m.chunk, m.device), self.cache, prompts, samplings, on_row=row)
        except Exception as e:  # noqa: BLE001 - the group's requests become failure rows
            self.reset()
            for i in idx:
                if i not in finished:
                    done(i, _failure(e, t0))

    def prefix(self, prefix: list[int]) -> int:
        """Make ``self.cache`` (batch 1) hold exactly ``prefix``, reusing what it shares; returns reused tokens."""
        from pfc.run.backends import hf_engine as eng
        cache = self.cache if isinstance(self.cache, eng.GrowCache) else None
        reuse = common_prefix(self.prev_ids, prefix) if cache is not None else 0
        if cache is None:
            cache = eng.GrowCache()
        cache.crop_to(reuse)
        self.reset()
        if len(prefix) > reuse:
            eng.prefill(self.m.lm, prefix[reuse:], cache, self.m.chunk, self.m.device)
        self.cache, self.prev_ids = cache, list(prefix)
        return reuse


def engine_for(name: str, prefix_reuse: bool, m: Loaded, max_batch: int) -> Engine:
    """The engine called ``name`` (``single``, ``batch``, ``continuous``); without prefix reuse every prompt is
    prefilled from scratch, alone."""
    if name == "single" or not prefix_reuse:
        return OneByOne(m, prefix_reuse)
    return Grouped(m, stream=name == "continuous", max_batch=max_batch)
