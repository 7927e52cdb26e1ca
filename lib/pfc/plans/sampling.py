"""The run plans' one TRACEBench sampler (:func:`tracebench_sample`) and seeded subsets of ids (:func:`subset`).

TRACEBench is sampled over the grid of its two report axes, vagueness level × history bin (Fig. 3 and Fig. 4;
``pfc.groups.HISTORY_BINS``). The sampler visits the grid's cells in rounds, each round in Latin-diagonal order (cell
(level i, bin (i + j) mod 4) for j = 0, 1, …: the first four visits already cover every level and every bin), and takes
one example of the cell at each visit, ``per_cell`` rounds in all; ``n`` stops it at ``n`` examples and fills any
shortfall with seeded random others. Which example a visit takes is the plan's draw:

- a seeded random choice (``random.Random(seed)``): the real-model report's plan and the pipeline's sample run
  (``pfc.plans.real_models``, ``pfc.plans.sample_run``), a few examples spread over the grid;
- ``whole_anchors``: the first of the cell in a seeded anchor order (``random.Random("reference:<seed>")``), so an
  anchor's vagueness variants are taken together and share their prompt prefix: the reference plan
  (``pfc.plans.reference``, 25 per cell).

Both draws are the ones the committed and recorded runs were planned with: the same examples, id for id. It reads
examples' metadata only; it writes and runs nothing.

    >>> subset([f"x{i}" for i in range(5)], 3, "k") == subset([f"x{i}" for i in range(5)], 3, "k")
    True
    >>> subset(["b", "a"], 3, "k")
    ['a', 'b']
"""
from __future__ import annotations

import random

from pfc.groups import HISTORY_BINS, history_bin


def _cell(e) -> tuple:
    return e.meta.get("vagueness"), history_bin(int(e.meta.get("history_length", len(e.history))))


def _anchor(e) -> str:
    return str(e.meta.get("anchor_id", e.id))


def tracebench_sample(examples, seed: int = 0, *, n: int | None = None, per_cell: int = 1,
                      whole_anchors: bool = False) -> list[str]:
    """Sorted ids of TRACEBench ``examples`` spread over the level × history-bin grid (see the module)."""
    levels = sorted({e.meta.get("vagueness") for e in examples}, key=str)
    order = [(lv, HISTORY_BINS[(i + j) % len(HISTORY_BINS)]) for j in range(len(HISTORY_BINS))
             for i, lv in enumerate(levels)]
    cells: dict[tuple, list] = {}
    for e in sorted(examples, key=lambda e: e.id):
        cells.setdefault(_cell(e), []).append(e)
    rng = random.Random(seed)
    if whole_anchors:
        anchors = sorted({_anchor(e) for e in examples})
        random.Random(f"reference:{seed}").shuffle(anchors)
        rank = {a: i for i, a in enumerate(anchors)}
        for members in cells.values():
            members.sort(key=lambda e: (rank[_anchor(e)], e.id))
    chosen: list[str] = []
    for _ in range(per_cell):
        for cell in order:
            if n is not None and len(chosen) >= n:
                break
            left = cells.get(cell)
            if left:
                pick = left[0] if whole_anchors else rng.choice(left)
                left.remove(pick)
                chosen.append(pick.id)
    if n is not None:
        rest = sorted({e.id for e in examples} - set(chosen))
        chosen += rng.sample(rest, max(0, min(n - len(chosen), len(rest))))
    return sorted(chosen)


def subset(ids, n: int, key: str) -> list[str]:
    """``n`` of ``ids`` (all of them when fewer), drawn with ``random.Random(key)`` (a string: the same draw in
    every process), sorted."""
    pool = sorted(ids)
    return sorted(random.Random(key).sample(pool, min(n, len(pool))))


def level_user_subset(examples, ids, per_level: int, key: str) -> list[str]:
    """``per_level`` of ``ids`` at each vagueness level, every user represented: the level's ids in a seeded
    order (``random.Random(f"{key}:{level}")`` shuffles them sorted), then taken user by user in turn (users sorted,
    each user's next id in that order) until ``per_level`` are taken or the level runs out; sorted. The format grid's
    draw (``pfc.plans.format_grid``): 50 per level of the reference sample's 400."""
    wanted = set(ids)
    by_level: dict = {}
    for e in examples:
        if e.id in wanted:
            by_level.setdefault(str(e.meta.get("vagueness")), []).append(e)
    chosen: list[str] = []
    for level in sorted(by_level):
        members = sorted(by_level[level], key=lambda e: e.id)
        random.Random(f"{key}:{level}").shuffle(members)
        queues: dict = {}
        for e in members:
            queues.setdefault(str(e.user_id), []).append(e.id)
        taken: list[str] = []
        while len(taken) < per_level and any(queues.values()):
            for user in sorted(queues):
                if queues[user] and len(taken) < per_level:
                    taken.append(queues[user].pop(0))
        chosen += taken
    return sorted(chosen)
