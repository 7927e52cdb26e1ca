"""PTBench synthesis end to end: users, queries, solutions, the split, files and Table 5 statistics.

``synthesize`` returns records in the official ``data.json`` shape (``user_profile``,
``platforms``, ``tools``, ``query``, ``answer`` = ``[platform, [{function: {param: [values]}}]]``,
``query_params``, ``profile_params``; plus ``id``, ``user_id``, ``scenario``) for four
splits: ``train``, ``test_trained_user`` (about 6% of the queries of users seen in
training), ``test_untrained_user`` (every query of the held-out users) and ``unseen``
(new users on the unseen scenarios finance, lifestyle, knowledge) — PTBench §5.1, Table 5.
``write`` puts them on disk with the unified schema (``unified/<split>/examples.jsonl``),
the feature tree and ``stats.json``; ``train.jsonl`` (chat messages for SFT, built with the
run stage's prompts) is ``pfc.train.sft``.

    >>> r = synthesize(seed=0, ks=(2, 2, 2), per_user=5, unseen_ks=(1, 2, 1), unseen_per_user=3, held_out=2)
    >>> sorted(r["splits"])
    ['test_trained_user', 'test_untrained_user', 'train', 'unseen']
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from pfc.data.ptool import agents, catalogue, features, profiles
from pfc.io import atomic

SPLITS = ("train", "test_trained_user", "test_untrained_user", "unseen")


def _queries(cat, tree, users, scenarios, per_user, seed, multi_rate, hint_rate, chat, llm_verify, counts):
    basic_keys = {lf.name: lf.basic_key for f in tree.basic for lf in f.leaves}
    out = []
    for u in users:
        rng = random.Random(f"ptool-queries:{seed}:{u.user_id}")
        seen_q, attempts = set(), 0
        while len(seen_q) < per_user and attempts < per_user * 5:
            attempts += 1
            sc = cat.scenarios[rng.choice(scenarios)]
            n = 2 if rng.random() < multi_rate and len(sc.functions) > 1 else 1
            fns = rng.sample(sc.functions, n)
            query, platform, values, from_query = agents.user_agent(rng, cat, sc, u, fns, hint_rate, chat)
            if query in seen_q:
                counts["duplicates"] += 1
                continue
            tools = [f.spec() for f in sc.functions]
            specs = {f.name: {p.name: {"type": p.type, **({"enum": p.enum} if p.enum else {})} for p in f.params}
                     for f in sc.functions}
            answer = agents.assistant_agent(u, fns, platform, values, basic_keys)
            if chat is not None:
                answer = agents.llm_or_exact(chat, u, query, sc, tools, specs, fns, answer, counts)
            problems = agents.validate(answer, specs, sc.platform_names)
            qp, pp, ann = agents.annotate(query, answer, values)
            if problems or ann:
                counts["rejected_rules"] += 1
                counts.setdefault("rejections", {})
                for msg in (problems + ann)[:1]:
                    kind = msg.split(" ")[0] + " " + msg.split(" ")[1]
                    counts["rejections"][kind] = counts["rejections"].get(kind, 0) + 1
                continue
            if chat is not None and llm_verify and not agents.verify(chat, u, query, answer):
                counts["rejected_model"] += 1
                continue
            seen_q.add(query)
            out.append({"id": f"{u.user_id}-{len(seen_q) - 1:03d}", "user_id": u.user_id, "scenario": sc.name,
                        "query": query, "user_profile": u.visible_profile(sc.name),
                        "platforms": [{"name": p["name"], "profile": p["profile"]} for p in sc.platforms],
                        "tools": tools, "answer": answer, "query_params": qp, "profile_params": pp,
                        "platform_from_query": from_query})
    return out


VERSIONS = {1: "ptool-v1", 2: "ptool-v2"}
DEFAULT_VERSION = 2
# per version: (queries per seen user, share of a trained user's queries in the test set); Table 5 for v2:
# 80 users x 101 = 8,080 queries, 6 held out (606 vs the paper's 609), 6.4 % of the rest (~478 vs 474)
SCALE = {1: (100, 0.06), 2: (101, 0.064)}


def _people(cat, seed, ks, unseen_ks, chat):
    """(seen scenarios, unseen scenarios, feature trees, seen users, unseen-scenario users) of a catalogue."""
    seen = sorted(s for s, sc in cat.scenarios.items() if sc.seen)
    unseen = sorted(s for s, sc in cat.scenarios.items() if not sc.seen)
    tree, tree_u = features.build_tree(cat, True), features.build_tree(cat, False)
    if chat is not None:
        features.summarize(tree, chat)
        features.summarize(tree_u, chat)
    users = profiles.assign(cat, tree, tuple(ks), seed, "u", seen)
    users_u = profiles.assign(cat, tree_u, tuple(unseen_ks), seed, "n", unseen)
    return seen, unseen, tree, tree_u, users, users_u


def synthesize(seed: int = 0, ks=(4, 4, 5), per_user: int | None = None, unseen_ks=(3, 5, 1), unseen_per_user: int = 15,
               held_out: int = 6, trained_rate: float | None = None, multi_rate: float = 0.2, hint_rate: float = 0.2,
               chat=None, llm_verify: bool = False, expand_tools: int = 0, catalogue_path=None,
               version: int = DEFAULT_VERSION, n_tools: int = 6) -> dict:
    """Every split as official-shape records, plus the feature trees and counts.

    ``version`` 2 (default): the Table 5-scale catalogue and split paraphrase families
    (:mod:`pfc.data.ptool.synth2`); 1: the first synthesis (templates, 4-5 APIs per scenario), kept so the
    reference runs made on it still re-score."""
    if version not in VERSIONS:
        from pfc.errors import UserError
        raise UserError(f"unknown synthesis version {version!r}; expected one of {sorted(VERSIONS)}")
    per_user = SCALE[version][0] if per_user is None else per_user
    trained_rate = SCALE[version][1] if trained_rate is None else trained_rate
    if version == 2:
        return _synthesize2(seed, ks, per_user, unseen_ks, unseen_per_user, held_out, trained_rate, multi_rate,
                            hint_rate, chat, llm_verify, expand_tools, catalogue_path, n_tools)
    cat = catalogue.load(catalogue_path)
    counts = {"duplicates": 0, "rejected_rules": 0, "rejected_model": 0, "llm_solutions": 0, "llm_tools": 0}
    if chat is not None and expand_tools:
        counts["llm_tools"] = sum(catalogue.expand(cat, chat, expand_tools).values())
    seen, unseen, tree, tree_u, users, users_u = _people(cat, seed, ks, unseen_ks, chat)
    recs = _queries(cat, tree, users, seen, per_user, seed, multi_rate, hint_rate, chat, llm_verify, counts)
    recs_u = _queries(cat, tree_u, users_u, unseen, unseen_per_user, seed, multi_rate, hint_rate, chat, llm_verify,
                      counts)
    order = [u.user_id for u in users]
    random.Random(f"ptool-split:{seed}").shuffle(order)
    untrained = set(order[:held_out])
    splits = {s: [] for s in SPLITS}
    for r in recs:
        if r["user_id"] in untrained:
            splits["test_untrained_user"].append(r)
        elif random.Random(f"ptool-split:{seed}:{r['id']}").random() < trained_rate:
            splits["test_trained_user"].append(r)
        else:
            splits["train"].append(r)
    splits["unseen"] = recs_u
    return {"seed": seed, "splits": splits, "tree": tree.to_json(), "tree_unseen": tree_u.to_json(),
            "counts": counts, "users": len(users) + len(users_u), "synthesis": VERSIONS[1]}


def _synthesize2(seed, ks, per_user, unseen_ks, unseen_per_user, held_out, trained_rate, multi_rate, hint_rate,
                 chat, llm_verify, expand_tools, catalogue_path, n_tools) -> dict:
    from pfc.data.ptool import catalogue2, synth2
    from pfc.errors import UserError
    if expand_tools:
        raise UserError("LLM tool expansion (--llm-tools) works on the v1 catalogue only: add --synthesis 1")
    cat = catalogue2.load(catalogue_path)
    counts = {"duplicates": 0, "rejected_rules": 0, "rejected_model": 0, "llm_solutions": 0, "llm_tools": 0}
    seen, unseen, tree, tree_u, users, users_u = _people(cat, seed, ks, unseen_ks, chat)
    for u in users:
        u.history = synth2.history(cat, u, seen, seed)
    for u in users_u:
        u.history = synth2.history(cat, u, unseen, seed)
    order = [u.user_id for u in users]
    random.Random(f"ptool-split:{seed}").shuffle(order)
    untrained = set(order[:held_out])

    def trained_test(uid: str, rid: str) -> bool:
        return uid in untrained or random.Random(f"ptool-split:{seed}:{rid}").random() < trained_rate

    recs = synth2.queries(cat, tree, users, seen, per_user, seed, trained_test, multi_rate, hint_rate, n_tools,
                          counts, chat, llm_verify)
    recs_u = synth2.queries(cat, tree_u, users_u, unseen, unseen_per_user, seed, lambda uid, rid: True,
                            multi_rate, hint_rate, n_tools, counts, chat, llm_verify)
    splits = {s: [] for s in SPLITS}
    for r in recs:
        split = ("test_untrained_user" if r["user_id"] in untrained else
                 "test_trained_user" if trained_test(r["user_id"], r["id"]) else "train")
        splits[split].append(r)
    splits["unseen"] = recs_u
    return {"seed": seed, "splits": splits, "tree": tree.to_json(), "tree_unseen": tree_u.to_json(),
            "counts": counts, "users": len(users) + len(users_u), "synthesis": VERSIONS[2]}


def split_stats(recs: list[dict]) -> dict:
    scen = {r["scenario"] for r in recs}
    plats = {(r["scenario"], p["name"]) for r in recs for p in r["platforms"]}
    apis = {(r["scenario"], p["name"], t["function"]["name"]) for r in recs for p in r["platforms"] for t in r["tools"]}
    n_q = sum(len(r["query_params"]) for r in recs)
    n_p = sum(len(r["profile_params"]) for r in recs)
    return {"scenarios": len(scen), "platforms": len(plats), "apis": len(apis), "users": len({r["user_id"] for r in recs}),
            "queries": len(recs), "query_params": n_q, "profile_params": n_p,
            "platform_from_query": sum(bool(r.get("platform_from_query")) for r in recs),
            "multi_call": sum(len(r["answer"][1]) > 1 for r in recs)}


def stats(result: dict) -> dict:
    """Table 5 rows (ours): Train, Test (all three test sets), Trained, Untrained, Unseen, Total."""
    sp = result["splits"]
    test = sp["test_trained_user"] + sp["test_untrained_user"] + sp["unseen"]
    rows = {"Train": split_stats(sp["train"]), "Test": split_stats(test),
            "Trained": split_stats(sp["test_trained_user"]), "Untrained": split_stats(sp["test_untrained_user"]),
            "Unseen": split_stats(sp["unseen"]), "Total": split_stats(sp["train"] + test)}
    return {"seed": result["seed"], "synthesis": result.get("synthesis", VERSIONS[1]), "table5": rows,
            "counts": result["counts"]}


def _dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=1) + "\n"


def write(result: dict, out) -> dict:
    """Official files per split, unified schema, feature trees, ``stats.json`` (``train.jsonl``, the SFT chat
    records, needs the run stage's prompts: ``pfc.train.sft.write_train``)."""
    from pfc.benchmarks.ptbench import load_official
    from pfc.schema import write_examples
    out = Path(out)
    for split, recs in result["splits"].items():
        d = out / split
        d.mkdir(parents=True, exist_ok=True)
        atomic.write_text(d / "data.json", _dump(recs))
        u = out / "unified" / split
        u.mkdir(parents=True, exist_ok=True)
        write_examples(load_official(d / "data.json"), u / "examples.jsonl")
    atomic.write_text(out / "feature_tree.json", _dump({"seen": result["tree"], "unseen": result["tree_unseen"]}))
    st = stats(result)
    from pfc.data.ptool.overlap import audits as overlap_audits
    st["overlap"] = overlap_audits(result["splits"])
    from pfc.data.audits import audit
    from pfc.schema import load_examples
    unified = {s: load_examples(out / "unified" / s / "examples.jsonl") for s in result["splits"]}
    st["audits"] = {s: audit(unified[s], unified.get("train")) for s in sorted(unified) if s != "train"}
    atomic.write_text(out / "stats.json", _dump(st))
    return st


# the fields ``write`` puts in stats.json: a build whose stats.json lacks one was written by older code
STATS_FIELDS = ("seed", "synthesis", "table5", "counts", "overlap", "audits")


def build_once(out, seed: int = 0, version: int = DEFAULT_VERSION) -> Path:
    """``pfc build ptbench --seed SEED --synthesis VERSION --out OUT`` unless ``OUT/stats.json`` already
    exists and records that synthesis and seed (same seed, same bytes, so an existing build is that build);
    returns ``OUT``. Used by ``make reproduce`` and the real reference runs so both score the same synthesized
    data. A build of another synthesis version or seed in ``OUT`` is refused (one line), never mixed or
    overwritten; one whose stats.json lacks a field of :data:`STATS_FIELDS` (written by older code, before that
    field) is built again in place, stats.json last, saying so on stderr."""
    out = Path(out)
    st = out / "stats.json"
    if st.exists():
        from pfc import paths
        from pfc.errors import UserError, read_json
        have = read_json(st)  # an empty or broken stats.json: one line naming it
        if not isinstance(have, dict):
            raise UserError(f"{paths.relative(st)}: not a stats.json object; remove that directory or build into another")
        synth = have.get("synthesis", VERSIONS[1])
        if synth != VERSIONS[version]:
            raise UserError(f"{paths.relative(st)}: field synthesis: {synth!r} is built there, not "
                            f"{VERSIONS[version]!r}; remove that directory or build into another")
        if have.get("seed", seed) != seed:
            raise UserError(f"{paths.relative(st)}: field seed: {have['seed']!r} is built there, not {seed!r}; "
                            f"remove that directory or build into another")
        missing = [f for f in STATS_FIELDS if f not in have]
        if not missing:
            return out
        import sys
        print(f"{paths.relative(st)}: no field {', '.join(missing)} (built by older code): building "
              f"{VERSIONS[version]} seed {seed} again in place", file=sys.stderr)
    write(synthesize(seed=seed, version=version), out)
    return out
