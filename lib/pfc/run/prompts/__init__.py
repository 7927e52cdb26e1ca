"""Prompt building: one :class:`Prompt` type and the named prompt strategies.

Benchmark-specific builders live beside this file (``pfc.run.prompts.toolspectrum``). This
module holds what they share; it does not call models.

    >>> "hierarchical" in STRATEGIES
    True
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

# zero_shot: the paper's prompt as is. few_shot: k demonstrations from other samples.
# cot: reason step by step, then answer. hierarchical: predict the domain, then answer with
# only that domain's tools (ToolSpectrum App. B.3, Fig. 5). flat: the single-step
# counterpart of hierarchical — step-by-step reasoning over the full toolset.
STRATEGIES = ("zero_shot", "few_shot", "cot", "hierarchical", "flat")


@dataclass
class Prompt:
    """Chat messages for one request, with how they were made."""
    messages: list[dict]
    strategy: str
    step: str = "answer"                      # "domain" for the first hierarchical step
    meta: dict = field(default_factory=dict)  # e.g. demonstration ids, toolset apps

    @property
    def text(self) -> str:
        return "\n\n".join(m["content"] for m in self.messages)


def pick_demonstrations(pool: list, example_id: str, k: int, seed: int, exclude=lambda ex: False) -> list:
    """k examples from ``pool``, seeded per example, never the example itself nor ``exclude``d ones.

    ``random.Random`` seeded with a string is stable across processes and PYTHONHASHSEED.
    """
    candidates = [e for e in pool if e.id != example_id and not exclude(e)]
    rng = random.Random(f"{seed}:{example_id}")
    return rng.sample(candidates, min(k, len(candidates)))
