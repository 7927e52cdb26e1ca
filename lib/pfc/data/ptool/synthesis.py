"""PTool's synthesis as one pipeline with versions: catalogue -> users -> histories -> requests -> splits.

A :class:`Synthesis` holds every option of one synthesis (the ``pfc build ptbench`` flags) and
:meth:`Synthesis.run` returns records in the official ``data.json`` shape for four splits:
``train``, ``test_trained_user`` (a seeded ``trained_rate`` share of the queries of users seen in
training), ``test_untrained_user`` (every query of the ``held_out`` users) and ``unseen`` (new
users on the unseen scenarios) — PTBench §5.1, Table 5. A :class:`Version` fixes what differs
between the syntheses (:data:`SPECS`): 2, the default, is Table 5's scale (its catalogue, split
paraphrase families, histories showing each preference once or twice); 1, the first (templates,
4-5 APIs per scenario), is kept so the reference runs made on it still re-score.
:func:`data_version` says which synthesis a run or a record answered (the reports ask it, never a
benchmark's name or a path). This module does not write
files or compute statistics (:mod:`pfc.data.ptool.build`).

    >>> r = Synthesis(seed=0, ks=(2, 2, 2), per_user=5, unseen_ks=(1, 2, 1), unseen_per_user=3, held_out=2).run()
    >>> sorted(r["splits"]), r["synthesis"]
    (['test_trained_user', 'test_untrained_user', 'train', 'unseen'], 'ptool-v2')
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from pfc.data.ptool import catalogue, features, profiles, queries
from pfc.errors import UserError

SPLITS = ("train", "test_trained_user", "test_untrained_user", "unseen")


@dataclass(frozen=True)
class Version:
    """What one synthesis version fixes (its catalogue and histories are ``catalogue.CATALOGUES`` and
    ``profiles.HISTORIES`` under the same number)."""
    name: str             # recorded in stats.json, v2's records and a run's config.json
    suffix: str           # of its build folder beside the current one's (data/benchmarks/ptbench-v1)
    per_user: int         # default queries per seen user
    trained_rate: float   # default share of a trained user's queries in the test set
    queries: Callable     # the request generator (pfc.data.ptool.queries)
    tool_expansion: bool  # whether an LLM may add APIs to its catalogue (--llm-tools)


# v2 at Table 5's scale: 80 users x 101 = 8,080 queries, 6 held out (606 vs the paper's 609), 6.4 % of the rest
# (~478 vs 474)
SPECS = {1: Version("ptool-v1", "-v1", 100, 0.06, queries.first, True),
         2: Version("ptool-v2", "", 101, 0.064, queries.split_families, False)}
VERSIONS = {n: v.name for n, v in SPECS.items()}
DEFAULT_VERSION = 2


class DataVersion(NamedTuple):
    """Which synthesis a PTBench run (or record) answered, and where make reproduce builds it."""
    name: str              # as recorded: "ptool-v1", "ptool-v2"
    number: int | None     # its ``--synthesis`` number; None for a name no version has
    suffix: str | None     # of its build folder beside the current build's (``Version.suffix``)
    current: bool          # the synthesis today's build makes (only runs on it join the accuracy tables)


def data_version(record: dict) -> DataVersion:
    """The synthesis a PTBench run's ``config.json`` or an example's meta records; none recorded: the first
    (v1 recorded none).

    >>> data_version({})
    DataVersion(name='ptool-v1', number=1, suffix='-v1', current=False)
    >>> data_version({"synthesis": "ptool-v2"}).current
    True
    """
    name = record.get("synthesis", VERSIONS[1])
    n = next((n for n, v in SPECS.items() if v.name == name), None)
    return DataVersion(name, n, SPECS[n].suffix if n else None, n == DEFAULT_VERSION)


@dataclass(frozen=True)
class Synthesis:
    """The options of one synthesis; ``per_user`` and ``trained_rate`` default to the version's. With an LLM
    (``chat(messages) -> text``) the agents, feature summaries and (v1, ``expand_tools``) tool expansion go through it;
    ``llm_verify`` adds model-based verification."""
    seed: int = 0
    ks: tuple = (4, 4, 5)
    per_user: int | None = None
    unseen_ks: tuple = (3, 5, 1)
    unseen_per_user: int = 15
    held_out: int = 6
    trained_rate: float | None = None
    multi_rate: float = 0.2
    hint_rate: float = 0.2
    chat: Callable | None = None
    llm_verify: bool = False
    expand_tools: int = 0
    catalogue_path: str | None = None
    n_tools: int = 6  # v2: candidate APIs per record, as the official records
    version: int = DEFAULT_VERSION

    def __post_init__(self):
        if self.version not in SPECS:
            raise UserError(f"unknown synthesis version {self.version!r}; expected one of {sorted(SPECS)}")
        if self.expand_tools and not SPECS[self.version].tool_expansion:
            raise UserError("LLM tool expansion (--llm-tools) works on the v1 catalogue only: add --synthesis 1")

    @property
    def name(self) -> str:
        return VERSIONS[self.version]

    def _users(self, cat, scenarios: list[str], ks, seen: bool):
        """The feature tree of the seen (or unseen) scenarios and their users, histories included."""
        tree = features.build_tree(cat, seen)
        users = profiles.assign(cat, tree, tuple(ks), self.seed, "u" if seen else "n", scenarios)
        for u in users:
            u.history = profiles.history(cat, u, scenarios, self.seed, self.version)
        return tree, users

    def run(self) -> dict:
        """Every split as official-shape records, plus the feature trees and counts."""
        spec = SPECS[self.version]
        cat = catalogue.load(self.catalogue_path, self.version)
        counts = {"duplicates": 0, "rejected_rules": 0, "rejected_model": 0, "llm_solutions": 0, "llm_tools": 0}
        if self.chat is not None and self.expand_tools:
            counts["llm_tools"] = sum(catalogue.expand(cat, self.chat, self.expand_tools).values())
        seen = sorted(s for s, sc in cat.scenarios.items() if sc.seen)
        unseen = sorted(s for s, sc in cat.scenarios.items() if not sc.seen)
        tree, users = self._users(cat, seen, self.ks, True)
        tree_u, users_u = self._users(cat, unseen, self.unseen_ks, False)
        if self.chat is not None:
            features.summarize(tree, self.chat)
            features.summarize(tree_u, self.chat)
        order = [u.user_id for u in users]
        random.Random(f"ptool-split:{self.seed}").shuffle(order)
        untrained = set(order[:self.held_out])
        rate = spec.trained_rate if self.trained_rate is None else self.trained_rate

        def trained_test(uid: str, rid: str) -> bool:
            return uid in untrained or random.Random(f"ptool-split:{self.seed}:{rid}").random() < rate

        per_user = spec.per_user if self.per_user is None else self.per_user
        recs = spec.queries(self, cat, tree, users, seen, per_user, trained_test, counts)
        splits = {s: [] for s in SPLITS}
        for r in recs:
            split = ("test_untrained_user" if r["user_id"] in untrained else
                     "test_trained_user" if trained_test(r["user_id"], r["id"]) else "train")
            splits[split].append(r)
        splits["unseen"] = spec.queries(self, cat, tree_u, users_u, unseen, self.unseen_per_user,
                                        lambda uid, rid: True, counts)
        return {"seed": self.seed, "splits": splits, "tree": tree.to_json(), "tree_unseen": tree_u.to_json(),
                "counts": counts, "users": len(users) + len(users_u), "synthesis": self.name}
