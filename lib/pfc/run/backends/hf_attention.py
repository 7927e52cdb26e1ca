"""Attention over a prefix shared by every row of a batch, read once per step (the ``hf`` engine on CPU).

The throughput engine (:mod:`pfc.run.backends.hf_engine`) decodes the rows of a group together after one common prefix
(a ToolSpectrum subset's 15k-token toolset, a TRACEBench user's history). Copying that prefix's KV cache into every row
makes each decode step read it once per row: with 8 rows and a 15k-token prefix that is ~1.5 GB per step on a
memory-bound CPU. Here the prefix stays a batch-1 cache and attention is split in two:

- **prefix part**: every row's queries (and the query heads that share one KV head, GQA) are folded into one long query
  against the shared keys: one kernel call, the prefix read once per step;
- **suffix part**: each row against its own keys (its prompt suffix and its generated tokens), with the row's causal and
  padding mask (while decoding, a few hundred keys per row: plain float32 matmuls, ~30× cheaper here than a kernel call
  per row);
- the two partial softmaxes are merged exactly with their log-sum-exp (``o = o₁·e^{l₁−l} + o₂·e^{l₂−l}``, ``l =
  log(e^{l₁} + e^{l₂})``).

This is the same attention as over the concatenated keys; only the rounding of the two partial outputs (bf16) differs.
It uses torch's CPU flash-attention kernel, which returns the log-sum-exp
(``aten._scaled_dot_product_flash_attention_for_cpu``); on other devices the engine keeps the copied prefix. Registered
with transformers' ``AttentionInterface`` under :data:`NAME`; a forward pass without the ``shared_prefix`` keyword is
plain ``sdpa``, so the model behaves as before everywhere else. It does not plan groups or sample tokens.

    >>> NAME
    'pfc_shared_prefix'
"""
from __future__ import annotations

import torch

NAME = "pfc_shared_prefix"


def _flash(q, k, v, mask, scale):
    """(output, log-sum-exp) of softmax(q·kᵀ·scale + mask)·v; ``mask`` additive, in q's dtype, or None."""
    return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, False, attn_mask=mask,
                                                                      scale=scale)


def split_attention(query, key, value, prefix_key, prefix_value, suffix_mask, scale):
    """Attention of ``query`` [b, hq, q, d] over a shared prefix [1, hk, P, d] then per-row keys
    [b, hk, S, d] (``suffix_mask`` additive [b, 1, q, S]); returns [b, q, hq, d] like transformers' attention
    functions."""
    b, hq, q, d = query.shape
    hk, s = key.shape[1], key.shape[2]
    g = hq // hk  # query heads per KV head: query head h reads KV head h // g
    folded = query.reshape(b, hk, g * q, d).transpose(0, 1).reshape(1, hk, b * g * q, d)
    o1, l1 = _flash(folded, prefix_key, prefix_value, None, scale)
    o1 = o1.reshape(hk, b, g * q, d).transpose(0, 1)
    l1 = l1.reshape(hk, b, g * q).transpose(0, 1)
    if q == 1:  # decoding: a few hundred own keys per row; plain float32 math (the kernel's fixed cost dominates)
        sc = (query.reshape(b, hk, g, d).float() @ key.float().transpose(-1, -2)) * scale + suffix_mask.float()
        l2 = torch.logsumexp(sc, -1)
        o2 = torch.exp(sc - l2[..., None]) @ value.float()
    else:  # prefill of the suffixes: the kernel, KV heads repeated (the suffixes are short beside the prefix)
        o2, l2 = _flash(query, key.repeat_interleave(g, 1), value.repeat_interleave(g, 1), suffix_mask, scale)
        o2, l2 = o2.reshape(b, hk, g * q, d), l2.reshape(b, hk, g * q)
    lse = torch.logaddexp(l1, l2)
    out = o1.float() * torch.exp(l1 - lse)[..., None] + o2.float() * torch.exp(l2 - lse)[..., None]
    return out.to(query.dtype).reshape(b, hq, q, d).transpose(1, 2)


def attention(module, query, key, value, attention_mask, dropout: float = 0.0, scaling=None,
              shared_prefix=None, **kwargs):
    """transformers attention function: split attention when ``shared_prefix`` (a batch-1 cache) is given."""
    if shared_prefix is None:
        from transformers.integrations.sdpa_attention import sdpa_attention_forward
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout,
                                      scaling=scaling, **kwargs)
    layer = shared_prefix.layers[module.layer_idx]
    return split_attention(query, key, value, layer.keys, layer.values, attention_mask, scaling), None


def register() -> str:
    """Register :func:`attention` (and sdpa's mask maker) under :data:`NAME`; returns the name."""
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, sdpa_mask
    AttentionInterface.register(NAME, attention)
    ALL_MASK_ATTENTION_FUNCTIONS.register(NAME, sdpa_mask)
    return NAME


def additive(ok: torch.Tensor, dtype) -> torch.Tensor:
    """0 where ``ok`` (bool), −inf elsewhere, in ``dtype`` (the CPU flash kernel takes the query's dtype)."""
    return torch.zeros(ok.shape, dtype=dtype).masked_fill(~ok, float("-inf"))


def suffix_mask(lens: list[int], start: int, stop: int, dtype) -> torch.Tensor:
    """Additive mask [rows, 1, stop − start, stop] for suffix positions start..stop−1 (right-padded rows of
    lengths ``lens``): a position sees the row's real tokens up to itself, never padding.

        >>> m = suffix_mask([2, 3], 0, 3, torch.float32)
        >>> (m[0, 0] == 0).int().tolist(), (m[1, 0] == 0).int().tolist()
        ([[1, 0, 0], [1, 1, 0], [1, 1, 0]], [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    """
    j = torch.arange(stop)
    real = j[None, :] < torch.tensor(lens)[:, None]  # [rows, stop]; every row has a real first token
    ok = (j[None, :] <= torch.arange(start, stop)[:, None])[None] & real[:, None, :]
    return additive(ok, dtype)[:, None]
