"""The ask-or-infer study's items and sets (issue 64): which requests, their ask/cannot variants, the follow-up set.

Items: :data:`ORIGINALS_N` requests of the benchmark admitting ask items (:data:`ASK_BENCHMARK`, its adapter's
``building.action_kinds``) that admit ``ask@W`` (W = the evidence window, 20 records,
``pfc.plans.evidence.EVIDENCE_WINDOW``; :func:`originals`: an equal share per vagueness level that has such requests —
``most_clear`` states every value, so it has none —, the reference sample's requests first, then the rest, each level's
requests dealt round-robin over the users in a seeded order), their ``ask`` variants and the ``cannot`` variants of
:data:`CANNOT_N` of them (seeded): :func:`chosen`, written by :func:`build_sets` (``pfc.data.counterfactual_ask``: an
ask variant keeps its length and times). The follow-up set (:func:`build_followup`) holds the second turn of every
first-turn row read as a question (``pfc.data.followup``; rebuilt when the first turns' answers change).

The reference plan's runs on them are the benchmark's own entries (its package's ``plans.ask_runs``:
TRACEBench's ``ask/…`` runs), which ``pfc.plans.evidence`` adds to the plan; :func:`study_sets` and
:func:`run_baselines` are ``make reproduce``'s and the demo's (``pfc.report.pipeline.ask``, ``pfc.plans.demo``):
the same sets, answered by the baselines of ``pfc.run.backends.ask_baselines``. It runs nothing itself (a
``run`` callback does) and scores nothing.
"""
from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from pfc import benchmarks
from pfc.data import followup
from pfc.data.counterfactual import MANIFEST, VariantSet, _only_ours, perturb, write
from pfc.errors import UserError
from pfc.io import atomic
from pfc.io.dirset import replace_dir
from pfc.plans.evidence import EVIDENCE_WINDOW
from pfc.plans.reference import tracebench_ids
from pfc.run.backends.ask_baselines import BY_POLICY
from pfc.run.config import RunConfig
from pfc.schema import write_examples, write_tools

ORIGINALS_N, CANNOT_N = 200, 100
LEVELS = ("most_clear", "relevant_clear", "relevant_vague", "most_vague")
FOLLOWUP_MANIFEST = "followup.json"
SETS = ("originals", "ask", "cannot", "followup")   # an answerer's runs, in this order
ASK_BENCHMARK = next(n for n in benchmarks.NAMES if "ask" in benchmarks.get(n).building.action_kinds)  # admits asks


def originals(exs, tools, reference_ids, window: int, n: int = ORIGINALS_N, seed: int = 0, ask=None) -> list[str]:
    """``n`` ids of requests admitting ``ask@W`` (W = ``window``; module doc), sorted."""
    ask = perturb(exs, f"ask@{window}", seed, tools)[0] if ask is None else ask  # given: made already
    admitted = {v.meta["counterfactual"]["original_id"] for v in ask}
    by_id, ref = {e.id: e for e in exs}, set(reference_ids)
    levels = [lv for lv in LEVELS if any(by_id[i].meta.get("vagueness") == lv for i in admitted)]
    rng = random.Random(f"ask-originals:{seed}")
    chosen: list[str] = []
    for pos, lv in enumerate(levels):
        quota = n // len(levels) + (pos < n % len(levels))
        ids = sorted(i for i in admitted if by_id[i].meta.get("vagueness") == lv)
        got = _deal([i for i in ids if i in ref], by_id, rng, quota)
        chosen += got + _deal([i for i in ids if i not in ref], by_id, rng, quota - len(got))
    return sorted(chosen)


def _deal(ids: list[str], by_id: dict, rng: random.Random, quota: int) -> list[str]:
    """Up to ``quota`` of ``ids``, one user at a time (users and each user's requests in a seeded order)."""
    by_user: dict = {}
    for i in ids:
        by_user.setdefault(by_id[i].user_id or "", []).append(i)
    users = sorted(by_user)
    rng.shuffle(users)
    for u in users:
        rng.shuffle(by_user[u])
    out, turn = [], 0
    while len(out) < quota and any(by_user.values()):
        u = users[turn % len(users)]
        if by_user[u]:
            out.append(by_user[u].pop())
        turn += 1
    return out


def chosen(exs, tools, reference_ids, window: int, n: int | None = None, ask=None) -> tuple[list[str], list[str]]:
    """(the originals' ids, those of the :data:`CANNOT_N` of them given cannot variants, seeded), both sorted."""
    ids = originals(exs, tools, reference_ids, window, ORIGINALS_N if n is None else n, ask=ask)
    return ids, sorted(random.Random("ask-cannot:0").sample(ids, min(CANNOT_N, len(ids))))


def set_dir(tracebench: Path, name: str) -> Path:
    """A variant set beside TRACEBench: ``tracebench_ask``, ``tracebench_cannot``, ``tracebench_ask-followup``."""
    return tracebench.parent / f"{tracebench.name}_{name}"


def build_sets(tracebench: Path, ids: list[str], cannot_ids: list[str], window: int, benchmark: str,
               ask=None) -> None:
    """Write the ``ask@window`` variants of ``ids`` and the cannot variants of ``cannot_ids`` (seed 0) beside
    TRACEBench (``benchmark``: its adapter); ``ask``: ``perturb(every example, "ask@window", 0)``'s ``(variants,
    skipped)`` when made already (:func:`chosen` reads the same), else made here."""
    exs, tools = benchmarks.get(benchmark).scoring.load(tracebench, None)
    for name, k, chosen in (("ask", f"ask@{window}", set(ids)), ("cannot", "cannot", set(cannot_ids))):
        pool = [e for e in exs if e.id in chosen] if name == "cannot" else exs
        variants, skipped = ask if name == "ask" and ask is not None else perturb(pool, k, 0, tools)
        variants = [v for v in variants if v.meta["counterfactual"]["original_id"] in chosen]
        write(set_dir(tracebench, name), tracebench, VariantSet(benchmark, k, 0, variants, skipped, tools, exs))


def _answers_hash(outputs: dict) -> str:
    return hashlib.sha256(json.dumps(sorted(outputs.items()), ensure_ascii=False).encode()).hexdigest()


def build_followup(first: list[tuple[str, RunConfig]], out: Path) -> None:
    """Write the follow-up set of the complete first-turn runs ``first`` (name, config) into ``out`` (unchanged
    answers: kept); a run with a missing row is a one-line error naming it."""
    turns, sources = [], {}
    for name, cfg in first:
        exs, tools = benchmarks.get(cfg.benchmark).scoring.load(cfg.examples, None)
        pred = Path(cfg.out_dir) / "predictions.jsonl"
        got = benchmarks.get(cfg.benchmark).scoring.load_predictions(pred, exs) if pred.is_file() else {}
        want = set(cfg.ids)
        if not want <= set(got):
            raise UserError(f"the follow-up turn reads the first turns: {name} has {len(want & set(got))} of {len(want)} "
                            "rows; run it first")
        outputs = {i: got[i] for i in sorted(want)}
        turns.append((name, [e for e in exs if e.id in want], outputs))
        sources[name] = {"rows": len(outputs), "answers_sha256": _answers_hash(outputs)}
    manifest = {"user_version": followup.USER_VERSION, "sources": sources}
    old = out / FOLLOWUP_MANIFEST
    if old.is_file() and {k: v for k, v in json.loads(old.read_text()).items() if k != "counts"} == manifest:
        return
    items, counts = followup.build(turns, tools)
    manifest["counts"] = counts
    own = ("examples.jsonl", "tools.json", FOLLOWUP_MANIFEST)
    with replace_dir(out, FOLLOWUP_MANIFEST, "follow-up set", made=(*own, MANIFEST),
                     ours=lambda p: _only_ours(p) or all(f.name in own for f in p.iterdir())) as tmp:
        write_examples(items, tmp / "examples.jsonl")
        write_tools(tools, tmp / "tools.json")
        atomic.write_text(tmp / FOLLOWUP_MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")


def study_sets(bench: Path, n: int | None = None) -> list[str]:
    """Write the ask and cannot sets beside ``bench`` (:data:`ASK_BENCHMARK`'s data; ``n`` originals, default
    :data:`ORIGINALS_N`), in the evidence window; returns the originals' ids."""
    exs, tools = benchmarks.get(ASK_BENCHMARK).scoring.load(bench, None)
    made = perturb(exs, f"ask@{EVIDENCE_WINDOW}", 0, tools)  # once: choosing the originals reads it too
    ids, cannot_ids = chosen(exs, tools, tracebench_ids(exs), EVIDENCE_WINDOW, n, made[0])
    build_sets(bench, ids, cannot_ids, EVIDENCE_WINDOW, ASK_BENCHMARK, made)
    return ids


def run_dirs(root: Path) -> dict[str, dict[str, Path]]:
    """``{baseline: {set: root/tb-ask-<baseline>-<set>}}`` for the three baselines (by policy) and sets."""
    return {name: {s: Path(root) / f"tb-ask-{name}-{s}" for s in SETS[:3]} for name in BY_POLICY.values()}


def run_baselines(bench: Path, ids, root: Path, run) -> dict[str, dict[str, Path]]:
    """``run(examples, backend, out_dir, ids)`` for each baseline on the three sets (:func:`run_dirs`); the
    callers run them with the ask-allowed prompt (``prompt_variant="ask"``: the baselines read no prompt, but their runs
    are ask-or-infer runs, scored with the action columns by ``pfc report``)."""
    out = run_dirs(root)
    for name, dirs in out.items():
        for s, d in dirs.items():
            run(bench if s == "originals" else set_dir(bench, s), name, d, ids if s == "originals" else None)
    return out
