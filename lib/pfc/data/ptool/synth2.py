"""PTool v2 requests, solutions and histories: the Table 5-scale synthesis with split paraphrase families.

Differences from v1 (``pfc.data.ptool.build._queries``, kept for the old builds):

- the catalogue is :mod:`pfc.data.ptool.catalogue2` (24 APIs per platform, large value pools);
- each record's side (train or test) is decided *before* it is phrased: every request of a
  held-out (untrained) user and of an unseen-scenario user, and a seeded ``trained_rate`` share of
  the trained users' requests, are test requests; :mod:`pfc.data.ptool.phrasing` then uses only
  that side's paraphrase families, so no test request is a template instance of a training one;
- a record carries ``n_tools`` (6, as the official records) candidate APIs of its scenario (the called ones plus seeded
  distractors, in catalogue order), as the official release carries a few per record;
- behaviour histories show each implicit preference of the scenario once or twice, mostly on
  the preferred platform (v1 listed every API).

The assistant agent, validation and annotation are v1's (:mod:`pfc.data.ptool.agents`). Every
random choice comes from ``random.Random`` seeded by strings (same seed, same bytes). This
module does not split records into files or compute statistics (``pfc.data.ptool.build``).
"""
from __future__ import annotations

import random

from pfc.data.ptool import agents, phrasing

VERSION = "ptool-v2"


def history(cat, user, scenarios: list[str], seed: int) -> dict[str, list]:
    """Per scenario: one or two records per implicit preference, a browse and a stray visit."""
    rng = random.Random(f"ptool2-history:{seed}:{user.user_id}")
    out = {}
    for s in scenarios:
        sc = cat.scenarios[s]
        pref = user.platform[s]
        others = [p for p in sc.platform_names if p != pref]
        by_param: dict[str, list] = {}
        for fn in sc.functions:
            for p in fn.params:
                if p.source == "profile" and p.enum is not None:
                    by_param.setdefault(p.name, []).append(fn)
        acts = []
        for name in sorted(by_param):
            for _ in range(rng.choice((1, 2))):
                fn = rng.choice(by_param[name])
                value = str(user.implicit[name]).replace("_", " ")
                acts.append({"platform": pref, "action": f"{fn.description.rstrip('.')} "
                                                          f"({name.replace('_', ' ')}: {value})"})
        acts.append({"platform": pref, "action": f"Browsed {pref} for a while"})
        acts.append({"platform": rng.choice(others), "action": "Opened the app and left without doing anything"})
        rng.shuffle(acts)
        out[s] = acts
    return out


def _calls(fns, values) -> list:
    calls = []
    for fn, vals in zip(fns, values):
        q = [p for p in fn.params if p.source == "query"]
        extras = [(p.name, vals[p.name]) for p in q[1:]]
        calls.append((fn.action, fn.noun, vals[q[0].name], extras))
    return calls


def queries(cat, tree, users, scenarios, per_user: int, seed: int, test_side, multi_rate: float, hint_rate: float,
            n_tools: int, counts: dict, chat=None, llm_verify: bool = False) -> list[dict]:
    """``per_user`` records per user; ``test_side(user_id, record_id) -> bool`` decides each record's side.
    With ``chat``, v1's LLM agents rewrite the request (kept only if it states every value and leaks no
    profile value), propose the solution (kept when valid) and, with ``llm_verify``, verify it."""
    basic_keys = {lf.name: lf.basic_key for f in tree.basic for lf in f.leaves}
    out = []
    for u in users:
        rng = random.Random(f"ptool2-queries:{seed}:{u.user_id}")
        made = 0
        while made < per_user:
            rid = f"{u.user_id}-{made:03d}"
            side = "test" if test_side(u.user_id, rid) else "train"
            sc = cat.scenarios[rng.choice(scenarios)]
            fns = rng.sample(sc.functions, 2 if rng.random() < multi_rate else 1)
            platform, hint = u.platform[sc.name], None
            if rng.random() < hint_rate:
                other = rng.choice([p for p in sc.platforms if p["name"] != platform])
                platform, hint = other["name"], phrasing.pick(rng, other["hints"], side)
            values = [{p.name: rng.choice(cat.pools[p.pool]) for p in fn.params if p.source == "query"} for fn in fns]
            query = phrasing.request(rng, side, _calls(fns, values), hint)
            if chat is not None:
                query = agents._llm_rewrite(chat, query, values, u, fns)
            names = {f.name for f in fns}
            rest = [f for f in sc.functions if f.name not in names]
            keep = names | {f.name for f in rng.sample(rest, max(0, min(len(rest), n_tools - len(fns))))}
            listed = [f for f in sc.functions if f.name in keep]
            specs = {f.name: {p.name: {"type": p.type, **({"enum": p.enum} if p.enum else {})} for p in f.params}
                     for f in listed}
            answer = agents.assistant_agent(u, fns, platform, values, basic_keys)
            if chat is not None:
                answer = agents.llm_or_exact(chat, u, query, sc, [f.spec() for f in listed], specs, fns, answer, counts)
            problems = agents.validate(answer, specs, sc.platform_names)
            qp, pp, ann = agents.annotate(query, answer, values)
            made += 1
            if problems or ann:  # a grammar or catalogue fault: counted and left out, never repaired silently
                counts["rejected_rules"] += 1
                continue
            if chat is not None and llm_verify and not agents.verify(chat, u, query, answer):
                counts["rejected_model"] += 1
                continue
            out.append({"id": rid, "user_id": u.user_id, "scenario": sc.name, "query": query,
                        "user_profile": u.visible_profile(sc.name),
                        "platforms": [{"name": p["name"], "profile": p["profile"]} for p in sc.platforms],
                        "tools": [f.spec() for f in listed], "answer": answer, "query_params": qp,
                        "profile_params": pp, "platform_from_query": hint is not None, "synthesis": VERSION})
    return out
