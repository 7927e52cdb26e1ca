"""PTBench prompts (PTBench §5.1 and App. C, Fig. 7): the user profile, the platforms and
their APIs, and the answer format ``platform:[func1(param1_name=param1_value, ...), func2(...)]``.

The wording is ours; the content and the answer format follow the paper. Reads the official
record fields kept in ``meta`` (``platforms``, ``official_tools``) and the profile.

    >>> FORMAT
    'platform:[func1(param1_name=param1_value, param2_name=param2_value), func2(...)]'
"""
from __future__ import annotations

import json

from . import Prompt

FORMAT = "platform:[func1(param1_name=param1_value, param2_name=param2_value), func2(...)]"
SYSTEM = ("You act for a user whose profile is given below. Several platforms offer similar APIs: choose the "
          "platform that fits the user's profile or the needs of the request, then call its APIs. Everything "
          "you need is in the profile; do not ask the user for more.\n\nUser profile:\n{profile}\n\n"
          "Platforms:\n{platforms}\n\nAPIs of the platforms:\n{tools}\n\n"
          "Respond only in the format " + FORMAT + " and nothing else.")


def demonstrations(example, pool, k: int, seed: int) -> list[dict]:
    """Few-shot turns from other samples (never this one, nor one with the same query)."""
    from ..render import render_ptbench
    from ..schema import Call
    from . import pick_demonstrations
    demos = pick_demonstrations(pool, example.id, k, seed, exclude=lambda d: d.query == example.query or not d.gold)
    turns = []
    for d in demos:
        turns += [{"role": "user", "content": d.query},
                  {"role": "assistant", "content": render_ptbench([Call(g.app, g.function, g.arguments) for g in d.gold])}]
    return turns


def build(example, strategy: str = "zero_shot", pool=(), seed: int = 0, shots: int = 3) -> Prompt:
    dump = lambda v: json.dumps(v, ensure_ascii=False)  # noqa: E731
    system = SYSTEM.format(profile=dump(example.profile), platforms=dump(example.meta.get("platforms")),
                           tools=dump(example.meta.get("official_tools")))
    if strategy == "cot":
        system += " First reason briefly about the profile, then give the answer on the last line."
    demos = demonstrations(example, pool, shots, seed) if strategy == "few_shot" else []
    return Prompt([{"role": "system", "content": system}, *demos, {"role": "user", "content": example.query}],
                  strategy, "answer", {})
