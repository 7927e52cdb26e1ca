"""PTool requests and solutions, per synthesis version: each user's records in the official shape.

Both versions draw a scenario and one or two of its APIs per request, then share the rest (:func:`_solved`): the
assistant agent's solution (or the LLM's, kept when valid), rule-based validation and annotation (a fault is counted and
the record left out, never repaired), the optional model-based verification, and the record. They differ in how a
request is drawn:

- v1 (:func:`first`): the user agent fills an API's templates (:mod:`pfc.data.ptool.agents`), every API of the scenario
  is listed, a repeated request is drawn again;
- v2 (:func:`split_families`): each record's side (train or test) is decided *before* it is phrased, and
  :mod:`pfc.data.ptool.phrasing` uses only that side's paraphrase families, so no test request is a template instance of
  a training one; a record lists ``n_tools`` candidate APIs of its scenario (the called ones plus seeded distractors, in
  catalogue order).

Every random choice comes from ``random.Random`` seeded by strings (same seed, same bytes). This module does not make
users or split records (:mod:`pfc.data.ptool.synthesis`).
"""
from __future__ import annotations

import random
from typing import NamedTuple

from pfc.data.ptool import agents, phrasing


class Draw(NamedTuple):
    """One drawn request: who asks, in which scenario, for which APIs, on which platform, with which values."""
    u: object
    sc: object
    fns: list
    platform: str
    values: list
    query: str


def _solved(syn, draw: Draw, listed, basic_keys, counts) -> tuple | None:
    """``(answer, query params, profile params)`` of a drawn request, or None when rejected (counted)."""
    u, sc, fns, platform, values, query = draw
    specs = {f.name: {p.name: {"type": p.type, **({"enum": p.enum} if p.enum else {})} for p in f.params}
             for f in listed}
    answer = agents.assistant_agent(u, fns, platform, values, basic_keys)
    if syn.chat is not None:
        answer = agents.llm_or_exact(syn.chat, u, query, sc, [f.spec() for f in listed], specs, fns, answer, counts)
    problems = agents.validate(answer, specs, sc.platform_names)
    qp, pp, ann = agents.annotate(query, answer, values)
    if problems or ann:
        counts["rejected_rules"] += 1
        if syn.version == 1:  # v1 also counts the kind of the first fault
            kind = " ".join((problems + ann)[0].split(" ")[:2])
            counts.setdefault("rejections", {})
            counts["rejections"][kind] = counts["rejections"].get(kind, 0) + 1
        return None
    if syn.chat is not None and syn.llm_verify and not agents.verify(syn.chat, u, query, answer):
        counts["rejected_model"] += 1
        return None
    return answer, qp, pp


def _record(rid, draw: Draw, listed, solved, from_query: bool) -> dict:
    answer, qp, pp = solved
    u, sc, query = draw.u, draw.sc, draw.query
    return {"id": rid, "user_id": u.user_id, "scenario": sc.name, "query": query,
            "user_profile": u.visible_profile(sc.name),
            "platforms": [{"name": p["name"], "profile": p["profile"]} for p in sc.platforms],
            "tools": [f.spec() for f in listed], "answer": answer, "query_params": qp, "profile_params": pp,
            "platform_from_query": from_query}


def _basic_keys(tree) -> dict:
    return {lf.name: lf.basic_key for f in tree.basic for lf in f.leaves}


def first(syn, cat, tree, users, scenarios, per_user: int, test_side, counts: dict) -> list[dict]:
    """v1: up to ``per_user`` distinct requests per user (``per_user * 5`` draws at most); ``test_side`` unused
    (v1 splits after phrasing)."""
    basic_keys, out = _basic_keys(tree), []
    for u in users:
        rng = random.Random(f"ptool-queries:{syn.seed}:{u.user_id}")
        seen_q, attempts = set(), 0
        while len(seen_q) < per_user and attempts < per_user * 5:
            attempts += 1
            sc = cat.scenarios[rng.choice(scenarios)]
            n = 2 if rng.random() < syn.multi_rate and len(sc.functions) > 1 else 1
            fns = rng.sample(sc.functions, n)
            query, platform, values, from_query = agents.user_agent(rng, cat, sc, u, fns, syn.hint_rate, syn.chat)
            if query in seen_q:
                counts["duplicates"] += 1
                continue
            draw = Draw(u, sc, fns, platform, values, query)
            solved = _solved(syn, draw, sc.functions, basic_keys, counts)
            if solved is not None:
                seen_q.add(query)
                out.append(_record(f"{u.user_id}-{len(seen_q) - 1:03d}", draw, sc.functions, solved, from_query))
    return out


def _calls(fns, values) -> list:
    calls = []
    for fn, vals in zip(fns, values):
        q = [p for p in fn.params if p.source == "query"]
        extras = [(p.name, vals[p.name]) for p in q[1:]]
        calls.append((fn.action, fn.noun, vals[q[0].name], extras))
    return calls


def split_families(syn, cat, tree, users, scenarios, per_user: int, test_side, counts: dict) -> list[dict]:
    """v2: ``per_user`` drawn records per user (a rejected one is left out); ``test_side(user_id, record_id)
    -> bool`` decides each record's side. With ``chat``, v1's LLM agents rewrite the request (kept only if it states
    every value and leaks no profile value), propose the solution (kept when valid) and, with ``llm_verify``, verify
    it."""
    basic_keys, out = _basic_keys(tree), []
    for u in users:
        rng = random.Random(f"ptool2-queries:{syn.seed}:{u.user_id}")
        for made in range(per_user):
            rid = f"{u.user_id}-{made:03d}"
            side = "test" if test_side(u.user_id, rid) else "train"
            sc = cat.scenarios[rng.choice(scenarios)]
            fns = rng.sample(sc.functions, 2 if rng.random() < syn.multi_rate else 1)
            platform, hint = u.platform[sc.name], None
            if rng.random() < syn.hint_rate:
                other = rng.choice([p for p in sc.platforms if p["name"] != platform])
                platform, hint = other["name"], phrasing.pick(rng, other["hints"], side)
            values = [{p.name: rng.choice(cat.pools[p.pool]) for p in fn.params if p.source == "query"} for fn in fns]
            query = phrasing.request(rng, side, _calls(fns, values), hint)
            if syn.chat is not None:
                query = agents._llm_rewrite(syn.chat, query, values, u, fns)
            names = {f.name for f in fns}
            rest = [f for f in sc.functions if f.name not in names]
            keep = names | {f.name for f in rng.sample(rest, max(0, min(len(rest), syn.n_tools - len(fns))))}
            listed = [f for f in sc.functions if f.name in keep]
            draw = Draw(u, sc, fns, platform, values, query)
            solved = _solved(syn, draw, listed, basic_keys, counts)
            if solved is not None:
                out.append({**_record(rid, draw, listed, solved, hint is not None), "synthesis": syn.name})
    return out
