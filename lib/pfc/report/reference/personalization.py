"""Paired personalization of the reference runs: does the larger model follow a swapped user's context more?

A side is one model on one engine, read as two committed runs in its folder under ``reports/reference_runs/``:
``tracebench-last_k`` on the originals and ``counterfactual/tracebench-swap-user`` on their swap-user variants. Two
sides answer the same variants, so their personalization is paired per variant:

- the per-variant columns of ``pfc.eval.personalization`` (through ``pfc.report.counterfactual.personalization``, the
  path of notebook 08 and ``pfc personalize``) for each side, on the variants that all four runs answered (the variant
  and its original, for both sides: a run in progress is never counted wrong on the rest);
- A − B of ``context_following``, ``request_faithfulness`` and ``sensitivity`` with ``pfc.eval.paired.paired_table``:
  the same users resampled for both sides, the unpaired interval beside it, and McNemar on ``sensitivity`` (the one 0/1
  column: did the answer change under the other user's context?).

The sides: each model pair of ``pfc.plans.reference.MODEL_PAIRS`` (the larger − the smaller, one engine) and each engine
pair of ``ENGINE_PAIRS`` (one model, two engines). Entries have the shape of ``pfc.report.reference.pairs.pair``'s
(question ``personalization``), pending while a run is missing. It reads runs and returns data; it runs no model and
writes no file (``pfc.report.reference.pairs`` writes).
"""
from __future__ import annotations

from pathlib import Path

from pfc.eval.bootstrap import N_BOOT
from pfc.eval.paired import paired_table, records
from pfc.plans.reference import ENGINE_PAIRS, HISTORY_RUNS, MODEL_PAIRS, SWAP_RUN, folder
from pfc.report.counterfactual import PERSONALIZATION, personalization
from pfc.report.reference.run import examples_hash, has_rows, present

ORIGINALS_RUN = HISTORY_RUNS["last_k"]  # the run the swap-user variants were made from (same examples, same k)


def sides() -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """``((model, engine) of A, (model, engine) of B)``: A − B is reported; model pairs first, then engines."""
    return ([((a, eng), (b, eng)) for a, b, eng in MODEL_PAIRS]
            + [((m, ea), (m, eb)) for m, ea, eb in ENGINE_PAIRS])


def _run_path(side: tuple[str, str], run: str) -> str:
    return f"{folder(*side)}/{run}".lstrip("/")


def pair(root: Path, a: tuple[str, str], b: tuple[str, str], n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """Side ``a`` against side ``b`` (each ``(model, engine)``) on the variants all four runs answered."""
    root = Path(root)
    entry = {"question": "personalization", "a": _run_path(a, SWAP_RUN), "b": _run_path(b, SWAP_RUN),
             "a_side": f"{a[0]} on {a[1]}", "b_side": f"{b[0]} on {b[1]}",
             "originals": [_run_path(s, ORIGINALS_RUN) for s in (a, b)]}
    dirs = [(root / _run_path(s, ORIGINALS_RUN), root / _run_path(s, SWAP_RUN)) for s in (a, b)]
    if not all(has_rows(d) for pr in dirs for d in pr):
        return {**entry, "pending": True}
    if any(examples_hash(dirs[0][i]) != examples_hash(dirs[1][i]) for i in (0, 1)):
        return {**entry, "pending": False, "other_data": True}
    (_, orig_a, out_oa, _, _, _), (config, var_a, out_va, _, planned, _) = (present(d) for d in dirs[0])
    (_, _, out_ob, _, _, _), (_, _, out_vb, _, _, _) = (present(d) for d in dirs[1])
    variants = [v for v in var_a if v.id in out_vb
                and all(v.meta["counterfactual"]["original_id"] in o for o in (out_oa, out_ob))]
    entry["planned"] = planned
    if not variants:
        return {**entry, "pending": True}
    kept = {v.meta["counterfactual"]["original_id"] for v in variants}
    originals = [e for e in orig_a if e.id in kept]
    frames = [personalization(config["benchmark"], originals, variants, out_o, out_v)
              for out_o, out_v in ((out_oa, out_va), (out_ob, out_vb))]
    table = paired_table(frames[0], frames[1], {m: m for m in PERSONALIZATION}, "user_id", n_boot, seed)
    return {**entry, "pending": False, "n": len(variants), "partial": len(variants) < planned, "metrics": records(table)}


def compute(root: Path, n_boot: int = N_BOOT, seed: int = 0) -> list[dict]:
    """Every planned side pair (:func:`sides`), in order."""
    return [pair(root, a, b, n_boot, seed) for a, b in sides()]
