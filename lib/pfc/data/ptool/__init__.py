"""PTool: the PTBench data synthesis framework (PTBench §4, App. A-C), offline by default.

Stages, one module each: ``catalogue`` (tool generation: scenario -> platforms -> APIs), ``features`` (bottom-up feature
tree, basic features vs implicit preferences), ``profiles`` (top-down assignment of N = prod k_l profiles, behaviour
histories), ``agents`` (user and assistant agents, rule-based validation, model-based verification, query/profile
annotation), ``phrasing`` (v2's request grammar), ``queries`` (requests and solutions), ``synthesis`` (the pipeline, its
versions and the trained/untrained/unseen split) and ``build`` (official files, Table 5 statistics; the SFT chat file is
``pfc.train.sft``). With an LLM (``chat(messages) -> text``) the agents, tool expansion and feature summaries go through
it; without one, templates do the work. Every random choice comes from ``random.Random`` seeded by strings: same seed,
same bytes, whatever PYTHONHASHSEED.

    >>> from pfc.data.ptool import build  # python -m pfc build ptbench --out DIR
"""
