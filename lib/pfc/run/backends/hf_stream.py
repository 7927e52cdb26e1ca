"""Continuous batching for the ``hf`` engine: a finished row's place is taken by the next request at once.

:func:`pfc.run.backends.hf_engine.run_group` decodes a fixed set of rows until the last one
stops, so one answer that runs to ``max_tokens`` keeps a whole group waiting: on ToolSpectrum
(a 15.6k-token toolset shared by the subset) two of 24 answers ran to 512 tokens, and the groups
they were in spent ~60 % of their decode steps on one or two live rows. Here at most ``live``
rows decode together and, as soon as one stops, the next request of the group joins:

1. **admit**: the newcomer's suffix (its prompt after the shared prefix) is prefilled alone, reading the prefix through
   the split attention (:mod:`pfc.run.backends.hf_attention`); no right padding, so no position is computed for nothing;
2. **merge**: the live rows' own caches are compacted (each row keeps only its valid positions, left-aligned: keys
   already carry their rotary positions, so their order in the cache does not matter to attention) and the newcomer's is
   stacked beside them;
3. **decode**: one token per live row per step, as ``run_group`` does; a row that stops leaves.

Each row samples with its own seeded generator, so its tokens depend only on its own prompt (up to the rounding of
batched matmuls, as in ``run_group``). Per-row ``prefill_s`` is the row's own admission; ``decode_s`` is its share of
each step it was live for (a step's seconds over its live rows). Only the CPU shared-prefix path streams
(:func:`pfc.run.backends.hf_engine.shares_prefix`); elsewhere :func:`run_stream` runs ``run_group`` on consecutive
slices of ``live`` rows. It does not plan groups, tokenize or cache responses.
"""
from __future__ import annotations

import time

import torch

from pfc.run.backends.hf_engine import Decoder, GrowCache, GrowLayer, prefill_rows, run_group, shares_prefix


def _prefill_row(lm, prefix_cache, suffix: list[int], p: int, chunk: int, device):
    """A one-row cache holding ``suffix`` (positions ``p``…) after the shared prefix; (cache, last logits)."""
    from pfc.run.backends.hf_attention import suffix_mask
    cache = GrowCache()
    dtype = next(lm.parameters()).dtype
    lens = [len(suffix)]
    logits = prefill_rows(lm, cache, torch.tensor([suffix], device=device), lens, p, chunk,
                          lambda s, e: suffix_mask(lens, s, e, dtype), device, shared_prefix=prefix_cache)
    return cache, logits


def merge(cache: GrowCache | None, valid: torch.Tensor | None, new: GrowCache, room: int = 256):
    """The live rows' cache with ``new`` (one row, every position valid) stacked after them, each row
    compacted to its valid positions, left-aligned; returns (cache, valid).

        >>> a, b = GrowCache(), GrowCache()
        >>> _ = a.update(torch.arange(8.).reshape(2, 1, 4, 1), torch.zeros(2, 1, 4, 1), 0)
        >>> _ = b.update(torch.full((1, 1, 1, 1), 9.), torch.zeros(1, 1, 1, 1), 0)
        >>> ok = torch.tensor([[True, False, True, True], [True, True, False, False]])
        >>> c, v = merge(a, ok, b, room=0)
        >>> c.layers[0].keys[:, 0, :, 0].tolist(), v.int().tolist()
        ([[0.0, 2.0, 3.0], [4.0, 5.0, 0.0], [9.0, 0.0, 0.0]], [[1, 1, 1], [1, 1, 0], [1, 0, 0]])
    """
    keep = [] if valid is None else [torch.nonzero(valid[r]).flatten() for r in range(valid.shape[0])]
    m = new.get_seq_length()
    width = max([m, *(len(k) for k in keep)])
    rows = len(keep) + 1
    out = GrowCache()
    for li, layer in enumerate(new.layers):
        g = GrowLayer.blank(layer, rows, width, room)
        for r, idx in enumerate(keep):
            old = cache.layers[li]
            g.kbuf[r, :, :len(idx)] = old.kbuf[r].index_select(1, idx)
            g.vbuf[r, :, :len(idx)] = old.vbuf[r].index_select(1, idx)
        g.kbuf[rows - 1, :, :m] = layer.kbuf[0, :, :m]
        g.vbuf[rows - 1, :, :m] = layer.vbuf[0, :, :m]
        out.layers.append(g)
    ok = torch.zeros((rows, width), dtype=torch.bool)
    for r, idx in enumerate(keep):
        ok[r, :len(idx)] = True
    ok[rows - 1, :m] = True
    return out, ok


class _Live:
    """The rows decoding together: their original indices, their cache (each row's own positions), which of
    those positions each row sees, their last logits and their next position ids."""

    def __init__(self):
        self.rows: list[int] = []
        self.cache = self.valid = self.logits = None
        self.nxt: list[int] = []

    def admit(self, r: int, one: GrowCache, logits, n_positions: int) -> None:
        """Row ``r`` (its one-row cache and last logits) stacked after the live rows."""
        self.cache, self.valid = merge(self.cache if self.rows else None, self.valid if self.rows else None, one)
        self.logits = logits if not self.rows else torch.cat([self.logits, logits])
        self.rows.append(r)
        self.nxt.append(n_positions)

    def keep(self, keep: list[int], device) -> None:
        """Only the live rows at positions ``keep`` stay."""
        if len(keep) == len(self.rows):
            return
        self.rows = [self.rows[j] for j in keep]
        self.nxt = [self.nxt[j] for j in keep]
        if not self.rows:
            self.cache = self.valid = self.logits = None
            return
        sel = torch.tensor(keep, device=device)
        self.cache.select(sel)
        self.valid = self.valid[sel]

    def step(self, lm, feed: list[int], prefix_cache, dtype, device) -> None:
        """One forward pass: each live row's token ``feed[j]`` in, the next logits out."""
        from pfc.run.backends.hf_attention import additive
        self.valid = torch.cat([self.valid, torch.ones((len(self.rows), 1), dtype=torch.bool)], dim=1)
        with torch.no_grad():
            out = lm(input_ids=torch.tensor([[t] for t in feed], device=device),
                     attention_mask=additive(self.valid, dtype)[:, None, None],
                     position_ids=torch.tensor(self.nxt, device=device)[:, None], past_key_values=self.cache,
                     use_cache=True, logits_to_keep=1, shared_prefix=prefix_cache)
        self.logits = out.logits[:, -1]
        self.nxt = [x + 1 for x in self.nxt]


def _in_slices(dec: Decoder, prefix_cache, prompts, samplings, live, on_row):
    """No split attention: ``run_group`` on consecutive slices of ``live`` rows."""
    out: list = []
    for s in range(0, len(prompts), live):
        cb = None if on_row is None else (lambda j, *a, s=s: on_row(s + j, *a))
        out += run_group(dec, prefix_cache, prompts[s:s + live], samplings[s:s + live], on_row=cb)
    return out


def run_stream(dec: Decoder, prefix_cache, prompts: list[list[int]], samplings: list[dict], live: int = 8,
               on_row=None) -> list[tuple[list[int], float, float]]:
    """Decode ``prompts`` (each = the cached prefix + its suffix), at most ``live`` at a time, a stopped row
    replaced at once by the next; returns (tokens, prefill_s, decode_s) per row, ``on_row(i, tokens, prefill_s,
    decode_s)`` called as each row finishes (in finishing order)."""
    lm, pick, stop, chunk, device = dec.lm, dec.pick, dec.stop, dec.chunk, dec.device
    p = prefix_cache.get_seq_length()
    if not (shares_prefix(lm, device) and p > 0):  # no split attention: fixed groups of `live` rows
        return _in_slices(dec, prefix_cache, prompts, samplings, live, on_row)
    dtype = next(lm.parameters()).dtype
    n = len(prompts)
    gens = [torch.Generator().manual_seed(int(s.get("seed", 0))) for s in samplings]
    max_new = [int(s.get("max_tokens", 256)) for s in samplings]
    toks: list[list[int]] = [[] for _ in range(n)]
    pre_s, dec_s = [0.0] * n, [0.0] * n
    results: list = [None] * n
    queue = list(range(n))
    rows = _Live()
    while queue or rows.rows:
        while queue and len(rows.rows) < live:  # admit
            r = queue.pop(0)
            t0 = time.perf_counter()
            one, lg = _prefill_row(lm, prefix_cache, prompts[r][p:], p, chunk, device)
            rows.admit(r, one, lg, len(prompts[r]))
            pre_s[r] = time.perf_counter() - t0
        feed, keep = [], []
        for j, r in enumerate(rows.rows):
            t = pick(rows.logits[j], samplings[r], gens[r])
            if t not in stop:
                toks[r].append(t)
            if t in stop or len(toks[r]) >= max_new[r]:
                results[r] = (toks[r], pre_s[r], dec_s[r])
                if on_row is not None:
                    on_row(r, *results[r])
            else:
                keep.append(j)
                feed.append(t)
        rows.keep(keep, device)
        if not rows.rows:
            continue
        t0 = time.perf_counter()
        rows.step(lm, feed, prefix_cache, dtype, device)
        share = (time.perf_counter() - t0) / len(rows.rows)
        for r in rows.rows:
            dec_s[r] += share
    return results
