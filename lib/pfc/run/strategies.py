"""Prompting strategies as objects, registered by name: how a batch of examples becomes answers.

A strategy turns a batch of examples into one answer each, through a request builder (``pfc.run.requests``) and a cached
backend (``pfc.run.cached``). ``zero_shot``, ``few_shot``, ``cot`` and ``flat`` send one request per example (the prompt
module words them differently); ``hierarchical`` first asks for the domain (step 1), reads it by name, app name or
shared words (``pfc.run.prompts.match_domain``), then asks for the call with only that domain's tools, or with all of
them when step 1 named none — the row records step 1 either way. Which strategies a benchmark supports is its adapter's
(``Running.strategies``). This module writes nothing.

    >>> get("hierarchical").steps, get("cot").steps
    (2, 1)
"""
from __future__ import annotations

from pfc.errors import UserError
from pfc.run.cached import generation
from pfc.run.prompts import STRATEGIES as PROMPT_STRATEGIES, match_domain


class OneStep:
    """One request per example."""
    steps = 1

    def __init__(self, name: str):
        self.name = name

    def answer(self, batch: list, requests, backend, on_answer) -> None:
        """``on_answer(i, response, domain_step)`` for each example of ``batch`` as its answer arrives."""
        backend.call([requests.answer(e) for e in batch], batch, lambda i, resp: on_answer(i, resp, None))


class Hierarchical(OneStep):
    """Step 1 the domain, step 2 the call among that domain's tools (both through the same cache)."""
    steps = 2

    def answer(self, batch: list, requests, backend, on_answer) -> None:
        firsts = [requests.domain(e) for e in batch]
        steps: list = [None] * len(batch)

        def step1(i, resp):
            domain, how = match_domain(resp.text, firsts[i][1]) if resp.error is None else (None, "none")
            steps[i] = {"answer": resp.text if resp.error is None else None, "error": resp.error,
                        "domain": domain, "matched_by": how, "fallback": domain is None}
            if generation(resp):
                steps[i]["generation"] = generation(resp)
        backend.call([r for r, _ in firsts], batch, step1)
        backend.call([requests.answer(e, st["domain"] if st else None) for e, st in zip(batch, steps)], batch,
                     lambda i, resp: on_answer(i, resp, steps[i]))


# every named strategy (the names and their wording: pfc.run.prompts.STRATEGIES) -> its object
STRATEGIES = {name: (Hierarchical if name == "hierarchical" else OneStep)(name) for name in PROMPT_STRATEGIES}


def get(name: str):
    if name not in STRATEGIES:
        raise UserError(f"unknown strategy {name!r}; expected one of {sorted(STRATEGIES)}")
    return STRATEGIES[name]
