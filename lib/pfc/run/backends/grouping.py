"""Which requests the ``hf`` throughput engine decodes together: a pure planner on token ids.

It only plans (no torch, no model): :mod:`pfc.run.backends.hf_engine` prefills and decodes the groups it returns.
"""
from __future__ import annotations


def common_prefix(a: list[int], b: list[int]) -> int:
    """Length of the common prefix of two token lists.

        >>> common_prefix([1, 2, 3], [1, 2, 4, 5])
        2
    """
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def plan_groups(ids: list[list[int]], max_batch: int = 8, join_tokens: int = 512,
                max_tokens_kv: int = 160_000, room: int = 512, shared: bool = False) -> list[list[int]]:
    """Consecutive indices grouped while a joining row costs at most ``join_tokens`` more prefill tokens
    than starting a new group would, within ``max_batch`` rows and ``max_tokens_kv`` cached positions (rows × (longest
    prompt + room); with ``shared``, the rows read one copy of the common prefix, so it is counted once: prefix + rows ×
    (longest suffix + room)).

    A group of ``n`` rows with common prefix ``p`` and longest prompt ``L`` prefills ``p`` once and ``n × (L − p)``
    suffix positions (right-padded). Row ``x`` joining makes it ``p' + (n+1)(L' − p')``; starting a new group instead
    costs ``len(x) − p'`` (its prefix up to ``p'`` is reused from the cache). So TRACEBench's vagueness variants of one
    anchor share a group, and the next anchor, whose candidate tools differ after the shared history, starts a new one
    (its tools prefilled once, not once per row); rows that all diverge at the same point (a ToolSpectrum subset after
    its toolset) join at no cost. Tiny prompts (1 token of padding) join freely:

        >>> plan_groups([[1, 2, 3, 4], [1, 2, 3, 5], [9, 9, 9, 9]], max_batch=4)
        [[0, 1, 2]]

    Two variants of one anchor (150 shared tokens, 1 own) then another anchor sharing 100: together 100 + 3 × 51 = 253
    positions, apart 150 + 2 × 1 + 51 = 203, so joining costs 50 tokens more:

        >>> a1, a2, b = [0] * 100 + [1] * 50 + [7], [0] * 100 + [1] * 50 + [8], [0] * 100 + [2] * 50 + [7]
        >>> plan_groups([a1, a2, b], join_tokens=49), plan_groups([a1, a2, b], join_tokens=50)
        ([[0, 1], [2]], [[0, 1, 2]])

    A 1,000-token prefix shared by four rows of 10 own tokens, within 2,500 cached positions (no room): copied per row 4
    × 1,010 = 4,040 positions do not fit, shared 1,000 + 4 × 10 = 1,040 do:

        >>> four = [[0] * 1000 + [i] * 10 for i in range(4)]
        >>> plan_groups(four, max_tokens_kv=2500, room=0), plan_groups(four, max_tokens_kv=2500, room=0, shared=True)
        ([[0, 1], [2, 3]], [[0, 1, 2, 3]])
    """
    groups: list[list[int]] = []
    prefix = longest = 0
    for i, x in enumerate(ids):
        if groups:
            g = groups[-1]
            n = len(g)
            p2 = min(prefix, common_prefix(ids[g[0]], x), len(x) - 1)
            l2 = max(longest, len(x))
            extra = (p2 - prefix) + (n + 1) * (l2 - p2) - n * (longest - prefix) - (len(x) - p2)
            size = (p2 if shared else 0) + (n + 1) * (l2 - (p2 if shared else 0) + room)
            if n < max_batch and extra <= join_tokens and size <= max_tokens_kv:
                g.append(i)
                prefix, longest = p2, l2
                continue
        groups.append([i])
        prefix, longest = len(x) - 1, len(x)
    return groups
