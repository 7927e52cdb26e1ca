"""A lower bound on seconds per example for one model on one benchmark sample, from this machine's measured rates.

The floor of a sample of ``n`` prompts answered together after a warm-up (as ``bench_engines.py`` times them, and
as a long run meets them once its shared prefix is cached) is

- **prefill** of only what a perfect prefix cache cannot reuse: the prompts in token order, each costing the tokens
  after its longest common prefix with any prompt before it (the warm-up's prompt counts as cached: the shared
  prefix — a ToolSpectrum toolset, a TRACEBench user's history — is prefilled once per run, and a long run of
  hundreds of examples amortizes that once to almost nothing per example); each new token costs the weight
  matmuls at the measured prefill matmul rate plus its attention over the context before it at the measured
  flash-attention rate; the vocabulary projection once per prompt (the last position);
- **decode** of every answer's tokens with all ``n`` rows in one batch: per token the weight matmuls and the
  vocabulary projection at the matmul rate measured for ``n`` rows with every layer's weights streamed from
  memory, and its attention over the prompt and the answer so far at the measured decode-attention rate.

Everything else an engine does (norms, rotary, sampling, scheduling, tokenizing) comes on top, so a measured engine
can approach the floor but not beat it (with the same kernels). :func:`rates` measures the kernels with random
tensors of the model's shapes (:class:`Shapes`, from its ``config.json``); :func:`prefill_plan` and :func:`floor`
are pure. It runs no model and times no engine.

    >>> s = Shapes(hidden=4, inter=8, layers=2, heads=2, kv_heads=1, head_dim=2, vocab=10)
    >>> round(s.linear_gflop * 1e9), round(s.head_gflop * 1e9), s.attn_flop_per_key  # 2·2·(2·16 + 2·4·2 + 3·4·8); 2·4·10; 2·2·2·4
    (576, 80, 32)
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling scripts, wherever it is loaded from
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from bench_attention import best as _best  # noqa: E402  # fastest of `repeat` timings after one untimed call


@dataclass(frozen=True)
class Shapes:
    hidden: int
    inter: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int

    @classmethod
    def from_config(cls, model_dir) -> "Shapes":
        c = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))
        heads = c["num_attention_heads"]
        return cls(c["hidden_size"], c["intermediate_size"], c["num_hidden_layers"], heads,
                   c.get("num_key_value_heads", heads), c.get("head_dim") or c["hidden_size"] // heads, c["vocab_size"])

    @property
    def linear_gflop(self) -> float:
        """Weight matmuls per token, all layers (q, o: hidden²; k, v: hidden × kv dims; the MLP: 3 × hidden × inter)."""
        h, kv = self.hidden, self.kv_heads * self.head_dim
        return 2 * self.layers * (2 * h * h + 2 * h * kv + 3 * h * self.inter) / 1e9

    @property
    def head_gflop(self) -> float:
        """The vocabulary projection of one position."""
        return 2 * self.hidden * self.vocab / 1e9

    @property
    def attn_flop_per_key(self) -> int:
        """Attention FLOPs of one query token against one cached key, all layers (QK and PV, multiply-add = 2)."""
        return self.layers * self.heads * self.head_dim * 4


def _common(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def prefill_plan(prompts: list[list[int]], warm: list[int] | None = None) -> list[tuple[int, int]]:
    """Per prompt, in token order: (new tokens to prefill, cached context before them) under a perfect prefix cache
    holding ``warm`` and every prompt before it (in sorted order the longest common prefix with any earlier prompt is
    the one with its predecessor, or with ``warm``). At least one token is always prefilled (the last position's
    logits are needed).

    >>> prefill_plan([[1, 2, 3, 9], [1, 2, 3, 4], [7, 7]], warm=[1, 2, 5])
    [(2, 2), (1, 3), (2, 0)]
    """
    out, prev = [], None
    for p in sorted(prompts):
        cached = max(_common(p, warm) if warm else 0, _common(p, prev) if prev is not None else 0)
        cached = min(cached, len(p) - 1)
        out.append((len(p) - cached, cached))
        prev = p
    return out


def floor(shapes: Shapes, rates: dict, plan: list[tuple[int, int]], prompt_lens: list[int],
          completion_tokens: float) -> dict:
    """Seconds per example at the floor: ``plan`` from :func:`prefill_plan`, ``prompt_lens`` each prompt's length,
    ``completion_tokens`` the mean answer length, ``rates`` GFLOP/s from :func:`rates` (``matmul_prefill``,
    ``matmul_decode``, ``attn_prefill``, ``attn_decode``).

    One prompt of 100 new tokens after 0 cached, a 10-token answer, every rate 1 GFLOP/s:

    >>> s = Shapes(hidden=4, inter=8, layers=2, heads=2, kv_heads=1, head_dim=2, vocab=10)
    >>> f = floor(s, dict.fromkeys(["matmul_prefill", "matmul_decode", "attn_prefill", "attn_decode"], 1.0),
    ...           [(100, 0)], [100], 10)
    >>> round(f["prefill_s"] * 1e9), round(f["decode_s"] * 1e9)  # 100·576 + 80 + 100·50·32; 10·656 + 32·(10·100 + 45)
    (217680, 40000)
    """
    n = len(plan)
    k = shapes.attn_flop_per_key / 1e9
    pre = sum(new * shapes.linear_gflop / rates["matmul_prefill"] + shapes.head_gflop / rates["matmul_prefill"]
              + new * (ctx + new / 2) * k / rates["attn_prefill"] for new, ctx in plan)
    t = completion_tokens
    dec = sum(t * (shapes.linear_gflop + shapes.head_gflop) / rates["matmul_decode"]
              + (t * length + t * (t - 1) / 2) * k / rates["attn_decode"] for length in prompt_lens)
    return {"prefill_s": pre / n, "decode_s": dec / n, "s_per_example": (pre + dec) / n,
            "new_prompt_tokens_per_example": sum(new for new, _ in plan) / n,
            "prompt_tokens_per_example": sum(prompt_lens) / n, "completion_tokens_per_example": t}


def rates(shapes: Shapes, context: int, rows: int, repeat: int = 3) -> dict:
    """GFLOP/s of this machine's kernels on the model's shapes, bf16, fastest of ``repeat``: the MLP matmul on a
    1,024-token prefill chunk; the same on ``rows`` decode rows with every layer's own weight (streamed from memory,
    as a decode step reads them); torch's CPU flash attention for a 1,024-token chunk after ``context`` cached
    tokens (query heads, KV heads repeated, as the engines call it); and ``rows`` decode rows against ``context``
    keys with their query heads folded per KV head (the shared-prefix call)."""
    import torch
    torch.manual_seed(0)
    bf, s = torch.bfloat16, shapes
    flash = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
    ws = [torch.randn(s.hidden, s.inter, dtype=bf) for _ in range(s.layers)]
    x = torch.randn(1024, s.hidden, dtype=bf)
    pre = _best(lambda: x @ ws[0], repeat * 3)
    xd = torch.randn(rows, s.hidden, dtype=bf)
    dec = _best(lambda: [xd @ w for w in ws], repeat)
    scale = s.head_dim ** -0.5
    q = torch.randn(1, s.heads, 1024, s.head_dim, dtype=bf)
    kv = [torch.randn(1, s.heads, context + 1024, s.head_dim, dtype=bf) for _ in range(2)]
    a_pre = _best(lambda: flash(q, kv[0], kv[1], 0.0, True, scale=scale), repeat)
    group = s.heads // s.kv_heads
    qd = torch.randn(1, s.kv_heads, rows * group, s.head_dim, dtype=bf)
    kd = [torch.randn(1, s.kv_heads, context, s.head_dim, dtype=bf) for _ in range(2)]
    a_dec = _best(lambda: flash(qd, kd[0], kd[1], 0.0, False, scale=scale), repeat * 3)
    mm = 2 * s.hidden * s.inter
    # causal chunk after `context` keys: each of the 1,024 queries sees context + its own position
    pre_keys = 1024 * context + 1024 * 1025 / 2
    return {"matmul_prefill": round(1024 * mm / pre / 1e9, 1),
            "matmul_decode": round(rows * mm * s.layers / dec / 1e9, 1),
            "attn_prefill": round(pre_keys * s.heads * s.head_dim * 4 / a_pre / 1e9, 1),
            "attn_decode": round(rows * group * s.kv_heads * context * s.head_dim * 4 / a_dec / 1e9, 1),
            "context": context, "rows": rows}
