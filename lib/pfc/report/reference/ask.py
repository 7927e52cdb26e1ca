"""The reference plan's ask-or-infer runs (issue 64) in ``metrics.json`` and ``paired.{json,md}``.

Each model folder's ask runs (its benchmark package's ``plans``: the originals, their ask and cannot variants and the
follow-up turns, all with the ask-allowed prompt; the originals again with the standard prompt) are scored with the
action columns (``pfc.eval.scoring.score(actions=True)``) on the rows each holds, and the first three and the follow-up
turns are pooled as one answerer (``pfc.eval.ask.pairs``):

- :func:`entries`: ``{"<folder>/ask": entry}`` for ``metrics.json``: every action metric of ``pfc.eval.ask`` with its
  user-clustered 95% interval, items and direction, and each set's rows and planned n (``partial`` when a set is missing
  or unfinished, ``missing`` naming those runs; complete first turns without a question leave no follow-up turn due: its
  set has 0 rows planned). A folder whose first turns have no row has no entry.
- :func:`pairs`: two paired questions, entries of ``paired.json`` in the layout of ``pfc.report.reference.pairs`` —
  **ask-model**: the larger model − the smaller on the pooled sets (``pfc.plans.reference.MODEL_PAIRS``, one engine);
  **ask-prompt**: ask-allowed − standard prompt on the same originals, in each folder (what allowing a question costs in
  accuracy). A pair whose runs lack rows is ``pending`` and carries the commands that make them.

A follow-up run is read on the set it answered, which is built from its model's committed first turns
(``pfc.plans.ask.build_followup``; ``pfc.report.pipeline.ask.followup_sets`` builds it before this reads it). It runs
nothing and draws nothing (notebook 10 draws: ``pfc.report.ask_study``).
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from pfc import benchmarks
from pfc.eval import ask
from pfc.eval.paired import paired_table, records
from pfc.eval.scoring import score
from pfc.plans.ask import ASK_BENCHMARK, SETS
from pfc.plans.reference import MODEL_PAIRS, command, folder
from pfc.report.reference.run import has_rows, present

PAIRED = ("overall", *ask.ACTION_METRICS, *ask.CURVE_METRICS)  # what a pair compares


def run_names() -> tuple[dict[str, str], str]:
    """``({set: run name}, the standard-prompt run's name)``: the ask benchmark package's ask runs."""
    p = benchmarks.get(ASK_BENCHMARK).part("plans")
    return dict(zip(SETS, (p.ORIGINALS_RUN, p.ASK_RUN, p.CANNOT_RUN, p.FOLLOWUP_RUN))), p.STANDARD_RUN


def sides() -> list[tuple[str, str]]:
    """Every (model, engine) of the model-size pairs, the smaller model first, each once."""
    return list(dict.fromkeys((m, eng) for a, b, eng in MODEL_PAIRS for m in (b, a)))


def runs() -> list[str]:
    """Every ask run this report reads, by its path under the root (each side's sets, then its standard run)."""
    names, standard = run_names()
    return [_at(m, e, r) for m, e in sides() for r in (*names.values(), standard)]


def _at(model: str, backend: str, run: str) -> str:
    return f"{folder(model, backend)}/{run}".lstrip("/")


def _rows(root: Path, run: str):
    """``(rows with the action columns, planned n)`` of one run, None when it has no finished row."""
    d = Path(root) / run
    if not has_rows(d):
        return None
    config, exs, outputs, tools, planned, _ = present(d)
    return score(exs, outputs, config["benchmark"], tools, actions=True).per_example, planned


def _pooled(root: Path, model: str, backend: str) -> tuple[pd.DataFrame | None, dict, list[str]]:
    """``(the pooled rows or None, {set: {"run", "n", "planned"} | None}, runs without rows)`` of one folder."""
    names, _ = run_names()
    got = {s: _rows(root, _at(model, backend, n)) for s, n in names.items()}
    runs = {s: None if r is None else {"run": _at(model, backend, names[s]), "n": len(r[0]), "planned": r[1]}
            for s, r in got.items()}
    if all(got[s] is None for s in SETS[:3]):  # no first turn answered: nothing to pool
        return None, runs, [_at(model, backend, names[s]) for s in SETS]
    follow = SETS[3]
    if got[follow] is None and all(runs[s] and runs[s]["n"] == runs[s]["planned"] for s in SETS[:3]) \
            and not any((got[s][0]["pred_action"] == "ask").any() for s in SETS[:3]):
        runs[follow] = {"run": _at(model, backend, names[follow]), "n": 0, "planned": 0}  # no question: none due
    missing = [_at(model, backend, names[s]) for s in SETS if runs[s] is None]
    frame = pd.concat([r[0] for r in got.values() if r is not None], ignore_index=True).drop_duplicates("id")
    return frame, runs, missing


def _num(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def entries(root: Path, n_boot: int = 1000, seed: int = 0) -> dict:
    """``{"<folder>/ask": entry}`` of every folder of :func:`sides` with a first-turn row (module doc)."""
    out = {}
    for model, backend in sides():
        frame, runs, missing = _pooled(root, model, backend)
        if frame is None:
            continue
        rows = ask.table(frame, n_boot, seed, followed=runs[SETS[3]] is not None)
        partial = bool(missing) or any(r["n"] < r["planned"] for r in runs.values() if r)
        out[_at(model, backend, "ask")] = {
            "kind": "ask-or-infer", "model": model, "backend": backend, "partial": partial, "missing": missing,
            "runs": runs, "n": int(len(frame)),
            "action": {r["metric"]: {"value": _num(r["value"]), "lo": _num(r["lo"]), "hi": _num(r["hi"]),
                                     "items": int(r["items"]), "higher_is_better": r["higher_is_better"]}
                       for r in rows}}
    return out


def paired(a: pd.DataFrame, b: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """A − B for accuracy (``overall``, with the exact McNemar p) and every action metric on the items both
    answered (pooled rows, :func:`pfc.eval.ask.pairs` applied, paired by id; user-clustered paired intervals,
    ``pfc.eval.paired``)."""
    ids = sorted(set(a["id"]) & set(b["id"]))
    a, b = (x.set_index("id").loc[ids].reset_index() for x in (a, b))
    return paired_table(a, b, {m: m for m in PAIRED}, "user_id", n_boot, seed)


def _pair(question: str, a: str, b: str, sides_: tuple, got: tuple, commands: list[str], n_boot: int,
          seed: int, what: str, planned: int, unfinished: bool, followed=(None, None)) -> dict:
    """One pair's entry: pending when a side has no row (``commands``: the runs still to make or resume), else the
    paired table on the ids both answered (partial when a run is still to come or ``unfinished``); ``followed``: each
    side's follow-up turns are in (``pfc.eval.ask.pairs``)."""
    entry = {"question": question, "a": a, "b": b, f"a_{what}": sides_[0], f"b_{what}": sides_[1],
             "commands": commands}
    if any(g is None for g in got):
        return {**entry, "pending": True}
    fa, fb = (ask.pairs(g, f) for g, f in zip(got, followed))
    common = set(fa["id"]) & set(fb["id"])
    if not common:
        return {**entry, "pending": True}
    table = paired(fa, fb, n_boot, seed)
    n = len(common & set(fa.loc[fa["first_turn"] == 1, "id"]))  # items (a follow-up turn is not one)
    return {**entry, "pending": False, "benchmark": ASK_BENCHMARK, "n": n, "planned": planned,
            "partial": unfinished or bool(commands), "metrics": records(table)}


def pairs(root: Path, n_boot: int = 1000, seed: int = 0) -> list[dict]:
    """The ask-model and ask-prompt entries of ``paired.json`` (module doc), in that order."""
    names, standard = run_names()
    pooled = {s: _pooled(root, *s) for s in sides()}
    out = []
    for big, small, eng in MODEL_PAIRS:
        (fa, ra, _), (fb, rb, _) = pooled[(big, eng)], pooled[(small, eng)]
        planned = max(sum(r["planned"] for s, r in runs.items() if r and s != SETS[3]) for runs in (ra, rb))
        cmds = [command(names[s], m, eng) for m, runs in ((big, ra), (small, rb)) for s in SETS
                if runs[s] is None or runs[s]["n"] < runs[s]["planned"]]  # missing or unfinished: run (resume) it
        unfinished = any(r["n"] < r["planned"] for runs in (ra, rb) for r in runs.values() if r)
        out.append(_pair("ask-model", _at(big, eng, "ask"), _at(small, eng, "ask"), (big, small), (fa, fb), cmds,
                         n_boot, seed, "model", planned, unfinished,
                         tuple(runs[SETS[3]] is not None for runs in (ra, rb))))
    for model, eng in sides():
        a, b = (_at(model, eng, n) for n in (names["originals"], standard))
        got = {r: _rows(root, r) for r in (a, b)}
        cmds = [command(n, model, eng) for n, r in ((names["originals"], a), (standard, b))
                if got[r] is None or len(got[r][0]) < got[r][1]]
        planned = max((g[1] for g in got.values() if g), default=0)
        out.append(_pair("ask-prompt", a, b, ("ask-allowed", "standard"),
                         tuple(None if g is None else g[0] for g in got.values()), cmds, n_boot, seed, "prompt",
                         planned, any(len(g[0]) < g[1] for g in got.values() if g)))
    return out
