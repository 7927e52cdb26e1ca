"""Build TRACEBench end to end: raw logs (or simulated ones) -> histories -> anchors -> queries -> export.

Writes a benchmark directory in the unified schema (``examples.jsonl``, ``tools.json``) plus ``stats.json`` (the paper's
Table 2 and distributions per vagueness level, history length bin and personalization type), the anchor review sheet,
and the intermediate tables under ``interim/``. Every gold call is validated against its tool's JSON schema and every
example's history ends before its anchor.

    python -m pfc build tracebench --out data/benchmarks/tracebench          # simulate 10 users
    python -m pfc build tracebench --raw my_logs/ --out my_bench/            # your own logs
"""
from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
import jsonschema

from pfc.benchmarks.tracebench import ADAPTER as TRACEBENCH  # the benchmark this builds
from pfc.data import anchors as anchor_mod
from pfc.data.anchors_review import export_review, import_review, screen
from pfc.groups import HISTORY_BINS, history_bin
from pfc.data.context import most_frequent
from pfc.data.preprocess import load_histories, preprocess
from pfc.data.querygen import LEVELS, generate
from pfc.schema import Example, GoldCall, HistoryEntry, Role, write_examples, write_tools
from pfc.data.simulate import simulate
from pfc.data.toolset import load_tools, spec, table3
from pfc.io import atomic
from pfc.data.audits import audit

PERSONALIZATION = ("tool", "parameter", "temporal")


def labels(roles: dict, app_stated: bool, apps_offering: int) -> list[str]:
    """Personalization types of one query, from its own provenance (TRACEBench §3.2–3.4).

    tool: the query does not name the app and more than one candidate app offers the function; parameter: some value
    comes from long-term history; temporal: some value comes from recent context.
    """
    sources = {r.source for r in roles.values()}
    return [k for k, ok in (("tool", not app_stated and apps_offering >= 2),
                            ("parameter", "long_term_history" in sources),
                            ("temporal", "recent_context" in sources)) if ok]


_VALIDATORS: dict = {}


def _validate_gold(call: GoldCall, tool) -> None:
    """Validate against the tool's JSON schema (one compiled validator per tool)."""
    v = _VALIDATORS.get(tool.key)
    if v is None:
        jsonschema.Draft202012Validator.check_schema(tool.parameters)
        v = _VALIDATORS[tool.key] = jsonschema.Draft202012Validator(tool.parameters)
    v.validate(call.arguments)


def make_examples(histories, anchors: list[dict], seed: int = 0, chat=None, distractors: int = 4):
    """Unified-schema examples, one per anchor and vagueness level; and the count of skipped levels."""
    tools = load_tools()
    index = {(t.app, t.function): t for t in tools}
    by_key = {t.key: t for t in tools}
    by_user = {u: part.sort_values("seq").to_dict("records") for u, part in histories.groupby("user_id")}
    examples, skipped = [], Counter()
    for a in anchors:
        rows = by_user[a["user_id"]]
        history = [HistoryEntry(r["time"], r["app"], r["function"], r["arguments"]) for r in rows[: a["seq"]]]
        rng = random.Random(f"{seed}:tools:{a['anchor_id']}")
        same = [t.key for t in tools if t.domain == a["scenario"]]
        others = [t.key for t in tools if t.domain != a["scenario"]]
        candidates = sorted(same + rng.sample(others, distractors))
        offering = sum(1 for k in candidates if by_key[k].function == a["function"])
        tool = index[(a["app"], a["function"])]
        queries = generate(a, seed, chat)
        skipped.update(lv for lv in LEVELS if lv not in {q["level"] for q in queries})
        for q in queries:
            roles = {n: Role("query" if n in q["stated"] else a["sources"][n] or "query", n in tool.required)
                     for n in a["arguments"]}
            gold = GoldCall(a["app"], a["function"], a["arguments"], {}, roles)
            _validate_gold(gold, tool)
            examples.append(Example(
                id=f"{a['anchor_id']}-{q['level']}", benchmark=TRACEBENCH.name, query=q["query"], gold=[gold],
                user_id=a["user_id"], history=history, tools=candidates,
                meta={"vagueness": q["level"], "history_length": len(history), "domain": a["scenario"],
                      "personalization": labels(roles, q["app_stated"], offering), "anchor_id": a["anchor_id"],
                      "policies": a["reasons"], "stated": q["stated"], "function_stated": q["function_stated"],
                      "app_stated": q["app_stated"], "app_context": a.get("context"),
                      "most_frequent_app": a.get("most_frequent_app"), "app_evidence": a.get("app_evidence"),
                      "generator": q["generator"], "anchor_time": a["time"], "llm_verdict": a.get("llm_verdict")}))
    return examples, {lv: skipped[lv] for lv in LEVELS if lv in skipped}


def most_frequent_app(example: Example) -> str | None:
    """The "most frequent app" rule: the user's most used app for the gold function in the history."""
    fn = example.gold[0].function
    return most_frequent([h.app for h in example.history if h.function == fn])


def tool_choice(examples: list[Example]) -> dict:
    """Tool-personalization queries: how often the gold app is not the user's most frequent app for
    the function, with evidence (earlier same-context calls with that app), and the app accuracy of the "most frequent
    app" rule and of the oracle on them."""
    tq = [e for e in examples if "tool" in e.meta["personalization"]]
    rule = [most_frequent_app(e) == e.gold[0].app for e in tq]
    not_top = [e for e, ok in zip(tq, rule) if not ok]
    n = len(tq)
    return {"queries": n, "gold_app_not_most_frequent": len(not_top),
            "share_not_most_frequent": round(len(not_top) / n, 4) if n else None,
            "not_most_frequent_with_evidence": sum(1 for e in not_top if (e.meta.get("app_evidence") or 0) >= 2),
            "app_accuracy": {"most_frequent_app_rule": round(sum(rule) / n, 4) if n else None,
                             "oracle": 1.0 if n else None}}


def stats(examples: list[Example], histories) -> dict:
    tools = load_tools()
    n = len(examples)

    def count(f, order=None):
        c = Counter(f(e) for e in examples)
        return {k: c[k] for k in order if k in c} if order else dict(sorted(c.items()))

    def share(d):
        return {k: round(v / n, 4) for k, v in d.items()} if n else {}

    lengths = [e.meta["history_length"] for e in examples]
    by_vagueness, by_bin = count(lambda e: e.meta["vagueness"], LEVELS), \
        count(lambda e: history_bin(e.meta["history_length"]), ("<100",) + HISTORY_BINS)
    by_scenario = count(lambda e: e.meta["domain"])
    by_tool = count(lambda e: f"{e.gold[0].app}.{e.gold[0].function}")
    return {
        "table2": {"scenarios": len(spec()["scenarios"]), "apps": len({t.app for t in tools}),
                   "functions": len(tools), "users": int(histories["user_id"].nunique()), "queries": n},
        "table3": table3(tools),
        "parameters": sum(len(t.param_names) for t in tools), "required_parameters": sum(len(t.required) for t in tools),
        "by_vagueness": by_vagueness, "share_by_vagueness": share(by_vagueness),
        "history_bins": {"unit": "records in the history before the anchor", "bins": list(HISTORY_BINS),
                         "edges": [100, 200, 300, 400], "min": min(lengths, default=None),
                         "max": max(lengths, default=None)},
        "by_history_bin": by_bin, "share_by_history_bin": share(by_bin),
        "by_personalization": {k: sum(k in e.meta["personalization"] for e in examples) for k in PERSONALIZATION},
        "personalization_mix": count(lambda e: "+".join(e.meta["personalization"]) or "none"),
        "by_scenario": by_scenario, "share_by_scenario": share(by_scenario),
        "by_gold_tool": by_tool,
        "by_gold_app": count(lambda e: e.gold[0].app),
        "tools_never_gold": [t.key for t in tools if f"{t.app}.{t.function}" not in by_tool],
        "tool_choice": tool_choice(examples),
    }


@dataclass(frozen=True)
class BuildOptions:
    """The options of one TRACEBench build (``pfc build tracebench``'s flags)."""
    raw_dir: object = None      # real logs; None: simulate ``users`` users with ``records`` records each
    users: int = 10
    seed: int = 0
    records: int = 500
    queries: int | None = None  # target number of queries (default 181.5 per user: the paper's 1,815 for 10)
    workers: int = 1
    review_sheet: object = None  # a re-imported reviewed anchor CSV
    chat: object = None          # an LLM writing the queries (``chat(messages) -> text``); None: templates
    judge: object = None         # an LLM screening the anchors
    progress: bool = True
    min_history: int = anchor_mod.MIN_HISTORY


def build_tracebench(out_dir, **options) -> dict:
    """The whole chain with :class:`BuildOptions` ``options``; returns the stats."""
    o = BuildOptions(**options)
    out = Path(out_dir)
    interim = out / "interim"
    raw_dir = o.raw_dir
    if raw_dir is None:
        raw_dir = simulate(o.users, o.seed, out / "raw", records=o.records, workers=o.workers, progress=o.progress)
    report = preprocess(raw_dir, interim, progress=o.progress)
    histories = load_histories(interim)
    anchors = anchor_mod.select(histories, queries=o.queries, seed=o.seed, min_history=o.min_history)
    if o.judge is not None:
        by_user = {u: p.sort_values("seq").to_dict("records") for u, p in histories.groupby("user_id")}
        anchors = screen(anchors, o.judge, lambda a: by_user[a["user_id"]][: a["seq"]])
    export_review(anchors, interim / "anchors_review.csv")
    if o.review_sheet is not None:
        anchors = import_review(o.review_sheet, anchors)
    examples, skipped = make_examples(histories, anchors, o.seed, o.chat)
    return export_benchmark(out, examples, histories, len(anchors), skipped, report, o.seed,
                            "simulated" if raw_dir == out / "raw" else "raw logs")


def export_benchmark(out, examples, histories, n_anchors: int, skipped: dict, report: dict, seed: int,
                     source: str) -> dict:
    """Write ``examples.jsonl``, ``tools.json`` and ``stats.json`` into ``out``; return the stats."""
    out = Path(out)
    write_examples(examples, out / "examples.jsonl")
    write_tools(load_tools(), out / "tools.json")
    st = {**stats(examples, histories), "anchors": n_anchors, "levels_skipped": skipped, "preprocess": report,
          "seed": seed, "source": source, "audits": audit(examples)}
    atomic.write_text(out / "stats.json", json.dumps(st, indent=1) + "\n")  # insertion order: deterministic
    return st
