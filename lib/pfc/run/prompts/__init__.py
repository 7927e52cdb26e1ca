"""Prompt building: one :class:`Prompt` type and the named prompt strategies.

Benchmark-specific builders live beside this file (``pfc.benchmarks.toolspectrum.prompts``). This module holds what they
share; it does not call models.

    >>> "hierarchical" in STRATEGIES
    True
"""
from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field

# zero_shot: the paper's prompt as is. few_shot: k demonstrations from other samples.
# cot: reason step by step, then answer. hierarchical: predict the domain, then answer with
# only that domain's tools (ToolSpectrum App. B.3, Fig. 5). flat: the single-step
# counterpart of hierarchical — step-by-step reasoning over the full toolset.
STRATEGIES = ("zero_shot", "few_shot", "cot", "hierarchical", "flat")
# paper: the papers' templates as published (the default, unchanged bytes). prefix: the same content
# with the invariant parts first (instructions and toolset, then the user's profile and history, then
# the request), so consecutive prompts share long prefixes whose KV cache a backend can reuse.
LAYOUTS = ("paper", "prefix")


def check_layout(layout: str) -> None:
    from pfc.errors import UserError
    if layout not in LAYOUTS:
        raise UserError(f"unknown prompt layout {layout!r}; expected one of {LAYOUTS}")


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


def template_sha(*texts: str) -> str:
    """The content hash of a prompt template's texts (``template_identity`` of each prompt module)."""
    return hashlib.sha256("\0".join(texts).encode("utf-8", "surrogatepass")).hexdigest()


def pick_demonstrations(pool: list, example_id: str, k: int, seed: int, exclude=lambda ex: False) -> list:
    """k examples from ``pool``, seeded per example, never the example itself nor ``exclude``d ones.

    ``random.Random`` seeded with a string is stable across processes and PYTHONHASHSEED.
    """
    candidates = [e for e in pool if e.id != example_id and not exclude(e)]
    rng = random.Random(f"{seed}:{example_id}")
    return rng.sample(candidates, min(k, len(candidates)))


_STOP = frozenset("the a an and or of for to in on with is are this that it its as by be domain scenario "
                  "answer user users app apps platform platforms provides providing known can your".split())


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in _STOP}


def match_domain(text, domains: dict[str, dict[str, str]]) -> tuple[str | None, str]:
    """The domain a hierarchical step-1 answer names, and how it was read.

    ``domains`` maps each domain name to the apps the prompt showed under it, ``{app: description}``. In order: (1)
    ``"name"`` — a domain name as a whole word (the earliest wins); (2) ``"app"`` — an app name, read as that app's
    domain; (3) ``"overlap"`` — the one domain whose name, apps and descriptions share the most content words with the
    answer (a small model answers "Fitness" for the Health domain, whose Keep app is "a popular fitness app"). A tie or
    no shared word gives ``(None, "none")``: the caller falls back to the full toolset. Reasoning blocks (``<think>``)
    are dropped first; the answer is only read, never executed.

        >>> match_domain("Fitness", {"Health": {"Keep": "A popular fitness app"}, "News": {"Weibo": ""}})
        ('Health', 'overlap')
    """
    from pfc.textscan import strip_reasoning
    if not isinstance(text, str) or not domains:
        return None, "none"
    bases, _ = strip_reasoning(text[:10_000])
    body = bases[0] if bases else ""

    def first(names_of: dict[str, str]) -> str | None:
        hits = [(m.start(), -len(name), dom) for name, dom in names_of.items()
                for m in [re.search(rf"(?<!\w){re.escape(name)}(?!\w)", body, re.I)] if m]
        return min(hits)[2] if hits else None

    dom = first({d: d for d in domains})
    if dom is not None:
        return dom, "name"
    dom = first({app: d for d, apps in domains.items() for app in apps})
    if dom is not None:
        return dom, "app"
    said = _words(body)
    scores = sorted(((len(said & _words(" ".join([d, *apps, *apps.values()]))), d)
                     for d, apps in domains.items()), reverse=True)
    if scores[0][0] > 0 and (len(scores) == 1 or scores[1][0] < scores[0][0]):
        return scores[0][1], "overlap"
    return None, "none"
