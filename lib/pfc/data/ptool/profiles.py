"""User profiles (PTBench §4.2): top-down assignment of N = prod_l k_l profiles, and behaviour histories.

Levels of the assignment, top-down over the feature tree:

- level 0: the explicit basic features (home city/address, language, occupation, age, gender), ``k[0]`` distinct
  combinations;
- level 1: the implicit preferences (a tier per implicit feature), ``k[1]`` distinct combinations under each level-0
  value;
- level 2: the preferred platform per scenario, ``k[2]`` distinct combinations under each level-1 value.

Siblings never share their level's value, so the ``N = k0*k1*k2`` profiles are distinct (PTBench: "for a user feature
tree with depth L we obtain N = prod k_l distinct profiles"). Behaviour histories are generated from the implicit
preferences and the platform preferences, which are then hidden: the model sees only ``basic_features`` and
``user_history`` (PTBench App. C, Fig. 7).

    >>> from pfc.data.ptool.catalogue import load
    >>> from pfc.data.ptool.features import build_tree
    >>> us = assign(load(), build_tree(load()), (2, 2, 2), seed=0); len(us), len({u.key for u in us})
    (8, 8)
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from pfc.errors import UserError


@dataclass
class User:
    user_id: str
    basic: dict
    tiers: dict[str, int]             # implicit feature id -> tier
    implicit: dict[str, object]       # parameter name -> preferred value (hidden from the model)
    platform: dict[str, str]          # scenario -> preferred platform (hidden)
    history: dict[str, list] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return repr((sorted(self.basic.items()), sorted(self.tiers.items()), sorted(self.platform.items())))

    def value(self, param: str, basic_key: str | None):
        """The user's value for a profile parameter."""
        return self.basic[basic_key] if basic_key else self.implicit[param]

    def visible_profile(self, scenario: str | None = None) -> dict:
        """What the model sees (PTBench Fig. 7): basic features and the history of ``scenario`` (all if None)."""
        hist = {s: list(v) for s, v in self.history.items() if scenario is None or s == scenario}
        return {"basic_features": dict(self.basic), "user_history": hist}


def _distinct(rng: random.Random, sizes: list[int], k: int) -> list[tuple]:
    """k distinct points of the product space ``prod(range(s) for s in sizes)`` (mixed radix)."""
    total = 1
    for s in sizes:
        total *= s
    if k > total:
        raise UserError(f"cannot draw {k} distinct values from {total} combinations")
    out = []
    for idx in rng.sample(range(total), k):
        digits = []
        for s in reversed(sizes):
            idx, d = divmod(idx, s)
            digits.append(d)
        out.append(tuple(reversed(digits)))
    return out


def _basic(cat, digits: tuple, name: str) -> dict:
    bp = cat.basic_pools
    home, lang, occ, age, gender = digits
    return {"name": name, "gender": bp["gender"][gender], "age": bp["age"][age], "occupation": bp["occupation"][occ],
            "city": bp["city"][home], "address": bp["address"][home], "language": bp["language"][lang],
            "email": name.lower().replace(" ", ".") + "@example.com"}


def assign(cat, tree, ks: tuple[int, int, int], seed: int, prefix: str = "u", scenarios: list[str] | None = None) -> list[User]:
    """N = k0*k1*k2 distinct users, top-down (their histories: :func:`history`)."""
    rng = random.Random(f"ptool-profiles:{seed}:{prefix}")
    scen = scenarios or sorted(s for s, sc in cat.scenarios.items() if sc.seen)
    bp = cat.basic_pools
    firsts = [n.split()[0] for n in bp["name"]]
    lasts = [n.split()[1] for n in bp["name"]]
    names = [f"{firsts[a]} {lasts[b]}" for a, b in _distinct(rng, [len(firsts), len(lasts)], ks[0] * ks[1] * ks[2])]
    basic_sizes = [len(bp["city"]), len(bp["language"]), len(bp["occupation"]), len(bp["age"]), len(bp["gender"])]
    tier_sizes = [f.tiers for f in tree.implicit]
    plat_sizes = [len(cat.scenarios[s].platforms) for s in scen]
    users = []
    for b in _distinct(rng, basic_sizes, ks[0]):
        for t in _distinct(rng, tier_sizes, ks[1]):
            for p in _distinct(rng, plat_sizes, ks[2]):
                uid = f"{prefix}{len(users):03d}"
                tiers = {f.id: tier for f, tier in zip(tree.implicit, t)}
                implicit = {lf.name: lf.enum[min(tiers[f.id], len(lf.enum) - 1)]
                            for f in tree.implicit for lf in f.leaves}
                platform = {s: cat.scenarios[s].platform_names[i] for s, i in zip(scen, p)}
                users.append(User(uid, _basic(cat, b, names[len(users)]), tiers, implicit, platform))
    return users


def _say(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v).replace("_", " ")


def _every_api(rng, sc, user) -> list[str]:
    """v1: one record per API with enumerated profile parameters, naming all of them."""
    acts = []
    for fn in sc.functions:
        shown = [p for p in fn.params if p.source == "profile" and p.enum is not None]
        if shown:
            detail = ", ".join(f"{p.name.replace('_', ' ')}: {_say(user.implicit[p.name])}" for p in shown)
            acts.append(f"{fn.description.rstrip('.')} ({detail})")
    return acts


def _each_preference(rng, sc, user) -> list[str]:
    """v2: one or two records per implicit preference of the scenario, each on a seeded API that takes it."""
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
            acts.append(f"{fn.description.rstrip('.')} ({name.replace('_', ' ')}: {value})")
    return acts


# per synthesis version: the seed tag of its histories and how it shows the implicit preferences
HISTORIES = {1: ("ptool-history", _every_api), 2: ("ptool2-history", _each_preference)}


def history(cat, user: User, scenarios: list[str], seed: int, version: int) -> dict[str, list]:
    """Behaviour records per scenario, shuffled: the implicit preferences shown on the preferred platform (as
    synthesis ``version`` shows them), a browse there and a stray visit to another platform."""
    tag, preferences = HISTORIES[version]
    rng = random.Random(f"{tag}:{seed}:{user.user_id}")
    out = {}
    for s in scenarios:
        sc = cat.scenarios[s]
        pref = user.platform[s]
        others = [p for p in sc.platform_names if p != pref]
        acts = [{"platform": pref, "action": a} for a in preferences(rng, sc, user)]
        acts.append({"platform": pref, "action": f"Browsed {pref} for a while"})
        acts.append({"platform": rng.choice(others), "action": "Opened the app and left without doing anything"})
        rng.shuffle(acts)
        out[s] = acts
    return out
