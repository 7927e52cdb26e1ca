"""Build TRACEBench end to end: raw logs (or simulated ones) -> histories -> anchors -> queries -> export.

Writes a benchmark directory in the unified schema (``examples.jsonl``, ``tools.json``)
plus ``stats.json`` (the paper's Table 2 and distributions per vagueness level, history
length bin and personalization type), the anchor review sheet, and the intermediate
tables under ``interim/``. Every gold call is validated against its tool's JSON schema
and every example's history ends before its anchor.

    python -m pfc build tracebench --out data/benchmarks/tracebench          # simulate 10 users
    python -m pfc build tracebench --raw my_logs/ --out my_bench/            # your own logs
"""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from . import anchors as anchor_mod
from .preprocess import load_histories, preprocess
from .querygen import LEVELS, generate
from .schema import Example, GoldCall, HistoryEntry, Role, write_examples, write_tools
from .scoring import HISTORY_BINS, history_bin
from .simulate import simulate
from .toolset import load_tools, spec


def _validate_gold(call: GoldCall, tool) -> None:
    import jsonschema
    jsonschema.validate(call.arguments, tool.parameters)


def make_examples(histories, anchors: list[dict], seed: int = 0, chat=None, distractors: int = 4):
    """Unified-schema examples, one per anchor and vagueness level; and the count of skipped levels."""
    tools = load_tools()
    index = {(t.app, t.function): t for t in tools}
    by_user = {u: part.sort_values("seq").to_dict("records") for u, part in histories.groupby("user_id")}
    examples, skipped = [], Counter()
    for a in anchors:
        rows = by_user[a["user_id"]]
        history = [HistoryEntry(r["time"], r["app"], r["function"], r["arguments"]) for r in rows[: a["seq"]]]
        rng = random.Random(f"{seed}:tools:{a['anchor_id']}")
        same = [t.key for t in tools if t.domain == a["scenario"]]
        others = [t.key for t in tools if t.domain != a["scenario"]]
        candidates = sorted(same + rng.sample(others, distractors))
        tool = index[(a["app"], a["function"])]
        queries = generate(a, seed, chat)
        skipped.update(set(LEVELS) - {q["level"] for q in queries})
        for q in queries:
            roles = {n: Role("query" if n in q["stated"] else a["sources"][n] or "query", n in tool.required)
                     for n in a["arguments"]}
            gold = GoldCall(a["app"], a["function"], a["arguments"], {}, roles)
            _validate_gold(gold, tool)
            examples.append(Example(
                id=f"{a['anchor_id']}-{q['level']}", benchmark="tracebench", query=q["query"], gold=[gold],
                user_id=a["user_id"], history=history, tools=candidates,
                meta={"vagueness": q["level"], "history_length": len(history), "domain": a["scenario"],
                      "personalization": a["types"], "anchor_id": a["anchor_id"], "policies": a["reasons"],
                      "stated": q["stated"], "function_stated": q["function_stated"], "generator": q["generator"],
                      "anchor_time": a["time"], "llm_verdict": a.get("llm_verdict")}))
    return examples, dict(skipped)


def stats(examples: list[Example], histories) -> dict:
    tools = load_tools()
    def count(f, order=None):
        c = Counter(f(e) for e in examples)
        return {k: c[k] for k in order if k in c} if order else dict(sorted(c.items()))

    return {
        "table2": {"scenarios": len(spec()["scenarios"]), "apps": len({t.app for t in tools}),
                   "functions": len(tools), "users": int(histories["user_id"].nunique()), "queries": len(examples)},
        "by_vagueness": count(lambda e: e.meta["vagueness"], LEVELS),
        "by_history_bin": count(lambda e: history_bin(e.meta["history_length"]), HISTORY_BINS),
        "by_personalization": dict(sorted(Counter(t for e in examples for t in e.meta["personalization"]).items())),
        "by_scenario": count(lambda e: e.meta["domain"]),
        "parameters": sum(len(t.param_names) for t in tools), "required_parameters": sum(len(t.required) for t in tools),
    }


def build_tracebench(out_dir, raw_dir=None, users: int = 10, seed: int = 0, records: int = 300,
                     per_user: int = 60, workers: int = 1, review_sheet=None, chat=None, judge=None,
                     progress: bool = True) -> dict:
    """The whole chain; returns the stats. ``review_sheet``: a re-imported reviewed CSV."""
    out = Path(out_dir)
    interim = out / "interim"
    if raw_dir is None:
        raw_dir = simulate(users, seed, out / "raw", records=records, workers=workers, progress=progress)
    report = preprocess(raw_dir, interim, progress=progress)
    histories = load_histories(interim)
    anchors = anchor_mod.select(histories, per_user=per_user, seed=seed)
    if judge is not None:
        by_user = {u: p.sort_values("seq").to_dict("records") for u, p in histories.groupby("user_id")}
        anchors = anchor_mod.screen(anchors, judge, lambda a: by_user[a["user_id"]][: a["seq"]])
    anchor_mod.export_review(anchors, interim / "anchors_review.csv")
    if review_sheet is not None:
        anchors = anchor_mod.import_review(review_sheet, anchors)
    examples, skipped = make_examples(histories, anchors, seed, chat)
    return export_benchmark(out, examples, histories, len(anchors), skipped, report, seed,
                            "simulated" if raw_dir == out / "raw" else "raw logs")


def export_benchmark(out, examples, histories, n_anchors: int, skipped: dict, report: dict, seed: int,
                     source: str) -> dict:
    """Write ``examples.jsonl``, ``tools.json`` and ``stats.json`` into ``out``; return the stats."""
    out = Path(out)
    write_examples(examples, out / "examples.jsonl")
    write_tools(load_tools(), out / "tools.json")
    st = {**stats(examples, histories), "anchors": n_anchors, "levels_skipped": skipped, "preprocess": report,
          "seed": seed, "source": source}
    (out / "stats.json").write_text(json.dumps(st, indent=1) + "\n")  # insertion order: deterministic
    return st
