"""Throughput engine for the ``hf`` backend: several requests decoded together on one shared prefix.

What it does, for the requests one ``generate_each`` call hands over (the runner's batch, in run order: by subset, user,
anchor):

1. **Groups** consecutive requests while a joining row costs at most ``join_tokens`` more prefill than a group of its
   own (:func:`pfc.run.backends.grouping.plan_groups`; at most ``max_batch`` rows and ``max_tokens_kv`` cached positions
   per group).
2. **Prefills the group's common prefix once**, on a batch-1 cache that is kept between groups and calls (cropped to the
   longest common prefix with the next group: the old one-sequence reuse, now across groups), in chunks of ``chunk``
   tokens.
3. **Prefills the per-request suffixes together** (right padding; padded positions are masked and every row keeps its
   own position ids), then **decodes all rows together**, one token per row per step; a row leaves the batch when it
   stops (stop token or ``max_tokens``). On CPU the rows' cache holds their suffixes only and attention reads the one
   prefix cache for all rows (:mod:`pfc.run.backends.hf_attention`: a 15k-token prefix is read once per step, not once
   per row); elsewhere the prefix cache is copied to each row.

KV caches are preallocated (:class:`GrowCache`): ``DynamicCache`` concatenates the whole cache on every decode step,
which on a 15k-token context copies ~180 MB per token.

Each row picks its tokens with the backend's own sampler and its own seeded generator, so outputs equal the
one-at-a-time path up to floating-point rounding of batched matmuls (a near-tie can flip under bf16;
``tests/test_hf_engine.py`` checks agreement on a fixed sample). Per-row ``prefill_s``/``decode_s`` are the group's
seconds split equally over its rows. It does not tokenize, pick models or cache responses (``pfc.run.backends.hf``,
``pfc.run.runner``).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
from transformers import DynamicCache
from transformers.cache_utils import Cache, DynamicLayer

from pfc.run.backends.grouping import common_prefix, plan_groups  # noqa: F401 - torch-free planner


class GrowLayer(DynamicLayer):
    """A KV layer with a preallocated buffer: appending writes in place (amortised growth)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.n = 0
        self.kbuf = self.vbuf = None

    def _view(self):
        self.keys, self.values = self.kbuf[:, :, :self.n], self.vbuf[:, :, :self.n]

    def reserve(self, total: int) -> None:
        if self.kbuf is not None and self.kbuf.shape[2] < total:
            b, h, _, d = self.kbuf.shape
            k = self.kbuf.new_empty((b, h, total, d))
            v = self.vbuf.new_empty((b, h, total, d))
            k[:, :, :self.n] = self.kbuf[:, :, :self.n]
            v[:, :, :self.n] = self.vbuf[:, :, :self.n]
            self.kbuf, self.vbuf = k, v

    def update(self, key_states, value_states, *args, **kwargs):
        b, h, m, d = key_states.shape
        if self.kbuf is None:
            self.kbuf = key_states.new_empty((b, h, max(m, 256), d))
            self.vbuf = value_states.new_empty((b, h, max(m, 256), d))
            self.dtype, self.device, self.is_initialized = key_states.dtype, key_states.device, True
        elif self.kbuf.shape[2] < self.n + m:
            self.reserve(max(self.n + m, 2 * self.kbuf.shape[2]))
        self.kbuf[:, :, self.n:self.n + m] = key_states
        self.vbuf[:, :, self.n:self.n + m] = value_states
        self.n += m
        self._view()
        return self.keys, self.values

    def get_seq_length(self) -> int:
        return self.n

    def crop(self, tokens_to_remove: int) -> None:
        self.n = max(0, self.n - abs(tokens_to_remove))
        if self.kbuf is not None:
            self._view()

    def select(self, rows) -> None:
        if self.kbuf is not None:
            self.kbuf, self.vbuf = self.kbuf[rows], self.vbuf[rows]
            self._view()

    @classmethod
    def blank(cls, like: "GrowLayer", rows: int, n: int, room: int) -> "GrowLayer":
        """A layer typed like ``like`` with ``rows`` rows holding ``n`` positions (zeros until the caller
        fills them) and room for ``room`` more."""
        g = cls()
        _, h, _, d = like.kbuf.shape
        g.kbuf = like.kbuf.new_zeros((rows, h, n + room, d))
        g.vbuf = like.vbuf.new_zeros((rows, h, n + room, d))
        g.n, g.dtype, g.device, g.is_initialized = n, like.dtype, like.device, True
        g._view()
        return g


class GrowCache(DynamicCache):
    def __init__(self):
        Cache.__init__(self, layer_class_to_replicate=GrowLayer)

    def crop_to(self, length: int) -> None:
        for layer in self.layers:
            layer.crop(max(0, layer.get_seq_length() - length))

    def select(self, rows) -> None:
        for layer in self.layers:
            layer.select(rows)

    def expanded(self, rows: int, room: int) -> "GrowCache":
        """A new cache with ``rows`` copies of this (batch-1) cache and room for ``room`` more positions."""
        new = GrowCache()
        for layer in self.layers:
            n = layer.get_seq_length()
            g = GrowLayer.blank(layer, rows, n, room)
            g.kbuf[:, :, :n] = layer.kbuf[:, :, :n]
            g.vbuf[:, :, :n] = layer.vbuf[:, :, :n]
            new.layers.append(g)
        return new


def prefill(lm, ids: list[int], cache, chunk: int, device) -> torch.Tensor:
    """Feed ``ids`` after what ``cache`` holds (batch 1), ``chunk`` tokens at a time; last logits."""
    logits = None
    with torch.no_grad():
        for s in range(0, len(ids), chunk):
            x = torch.tensor([ids[s:s + chunk]], device=device)
            logits = lm(input_ids=x, past_key_values=cache, use_cache=True, logits_to_keep=1).logits[0, -1]
    return logits


def prefill_rows(lm, cache, x: torch.Tensor, lens: list[int], p: int, chunk: int, mask_of, device,
                 **extra) -> torch.Tensor:
    """Feed the right-padded suffixes ``x`` (rows × width, positions ``p``…) into ``cache``, ``chunk`` columns
    at a time, ``mask_of(s, e)`` the attention mask of columns s…e; the logits at each row's last token."""
    rows, width = x.shape
    hidden = []
    with torch.no_grad():
        for s in range(0, width, chunk):
            e = min(width, s + chunk)
            pos = torch.arange(p + s, p + e, device=device).expand(rows, -1)
            out = lm.get_decoder()(input_ids=x[:, s:e], attention_mask=mask_of(s, e), position_ids=pos,
                                   past_key_values=cache, use_cache=True, **extra)
            hidden.append(out.last_hidden_state)
        h = torch.cat(hidden, dim=1)[torch.arange(rows), torch.tensor([n - 1 for n in lens])]
        return lm.get_output_embeddings()(h)


def shares_prefix(lm, device) -> bool:
    """Whether ``run_group`` can keep the prefix shared (split attention, CPU) rather than copy it per row."""
    from pfc.run.backends import hf_attention
    return torch.device(device).type == "cpu" and getattr(lm.config, "_attn_implementation", "") == hf_attention.NAME


@dataclass(frozen=True)
class Decoder:
    """What every decode of one loaded model shares: the model, how a row picks its next token
    (``pick(logits, sampling, generator)``), the stop tokens, the pad token, the prefill chunk, the device."""
    lm: object
    pick: Callable
    stop: set
    pad: int
    chunk: int
    device: object


def run_group(dec: Decoder, prefix_cache, prompts: list[list[int]], samplings: list[dict],
              on_row=None) -> list[tuple[list[int], float, float]]:
    """Decode ``prompts`` (each = the cached prefix + its suffix) together; returns (tokens, prefill_s,
    decode_s) per row; ``on_row(i, tokens, prefill_s, decode_s)`` is called as each row finishes.

    With split attention (:func:`shares_prefix`) the rows' cache holds their suffixes only and every forward pass reads
    the prefix from ``prefix_cache`` (:mod:`pfc.run.backends.hf_attention`); otherwise the prefix is copied into each
    row."""
    t0 = time.perf_counter()
    rows = len(prompts)
    max_new = [int(s.get("max_tokens", 256)) for s in samplings]
    cache, valid, logits, extra = _prefill_group(dec, prefix_cache, prompts, max_new)
    t1 = time.perf_counter()
    nxt = torch.tensor([len(x) for x in prompts], device=dec.device)  # next position id per original row
    outs = _decode_group(dec, (cache, valid, logits, nxt), samplings, max_new, extra)
    t2 = time.perf_counter()
    prefill_each, decode_each = (t1 - t0) / rows, (t2 - t1) / rows
    final = []
    for r in range(rows):
        final.append((outs[r], prefill_each, decode_each))
        if on_row is not None:
            on_row(r, *final[-1])
    return final


def _prefill_group(dec: Decoder, prefix_cache, prompts: list[list[int]], max_new: list[int]):
    """The rows' suffixes (their prompts after the cached prefix) prefilled together, right-padded; returns
    (the rows' cache, which cached positions each row sees, each row's last logits, the forward keywords)."""
    from pfc.run.backends.hf_attention import suffix_mask
    lm, pad, chunk, device = dec.lm, dec.pad, dec.chunk, dec.device
    p = prefix_cache.get_seq_length()
    rows = len(prompts)
    suffix = [x[p:] for x in prompts]
    lens = [len(s) for s in suffix]
    width = max(lens)
    shared = shares_prefix(lm, device) and p > 0  # an empty prefix cache has no layers to read
    extra = {"shared_prefix": prefix_cache} if shared else {}
    if shared:
        cache = GrowCache()
        off = 0  # suffix positions are counted from 0 in the rows' own cache
    else:
        cache = prefix_cache.expanded(rows, width + max(max_new) + 1)
        off = p
    x = torch.tensor([s + [pad] * (width - len(s)) for s in suffix], device=device)
    valid = torch.zeros((rows, off + width), dtype=torch.bool, device=device)  # which cached positions a row sees
    valid[:, :off] = True
    for r, n in enumerate(lens):
        valid[r, off:off + n] = True
    dtype = next(lm.parameters()).dtype
    logits = prefill_rows(lm, cache, x, lens, p, chunk,
                          lambda s, e: suffix_mask(lens, s, e, dtype) if shared else valid[:, :off + e].long(),
                          device, **extra)
    return cache, valid, logits, extra


def _decode_group(dec: Decoder, state: tuple, samplings: list[dict], max_new: list[int],
                  extra: dict) -> list[list[int]]:
    """One token per live row per step until every row has stopped (a stop token or its ``max_tokens``); a
    stopped row leaves the cache. ``state``: the prefilled (cache, visible positions, last logits, next position ids).
    Returns each row's tokens."""
    from pfc.run.backends.hf_attention import additive
    lm, pick, stop, pad, device = dec.lm, dec.pick, dec.stop, dec.pad, dec.device
    cache, valid, logits, nxt = state
    dtype = next(lm.parameters()).dtype
    gens = [torch.Generator().manual_seed(int(s.get("seed", 0))) for s in samplings]
    outs: list[list[int]] = [[] for _ in samplings]
    live = list(range(len(samplings)))  # original row of each cache row
    with torch.no_grad():
        while live:
            done_now, feed = [], []
            for j, r in enumerate(live):
                t = pick(logits[j], samplings[r], gens[r])
                if t in stop:
                    done_now.append(j)
                    feed.append(pad)
                    continue
                outs[r].append(t)
                feed.append(t)
                if len(outs[r]) >= max_new[r]:
                    done_now.append(j)
            keep = [j for j in range(len(live)) if j not in set(done_now)]
            if not keep:
                break
            if len(keep) < len(live):
                sel = torch.tensor(keep, device=device)
                cache.select(sel)
                valid = valid[sel]
                feed = [feed[j] for j in keep]
                live = [live[j] for j in keep]
            valid = torch.cat([valid, torch.ones((len(live), 1), dtype=torch.bool, device=device)], dim=1)
            mask = additive(valid, dtype)[:, None, None] if extra else valid.long()
            out = lm(input_ids=torch.tensor([[t] for t in feed], device=device), attention_mask=mask,
                     position_ids=nxt[live].unsqueeze(1), past_key_values=cache, use_cache=True, logits_to_keep=1,
                     **extra)
            logits = out.logits[:, -1]
            nxt[live] += 1
    return outs
