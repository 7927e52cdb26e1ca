"""TRACEBench construction, step by step: toolset, simulator, preprocessing, anchors, queries, build."""
import json
from datetime import datetime

import jsonschema
import pandas as pd
import pytest

from pfc import paths
from pfc.data.anchors import candidates
from pfc.data.anchors_review import export_review, import_review, screen
from pfc.data.build import build_tracebench
from pfc.data.preprocess import preprocess, scrub_text
from pfc.data.querygen import check, generate, plan_levels
from pfc.render import render_json
from pfc.schema import Call, SchemaError, load_examples
from pfc.eval.scoring import score
from pfc.data.simulate import simulate, simulate_users
from pfc.data.simulate_world import APP_CONTEXTS, SHOP_CONTEXT
from pfc.data.toolset import load_tools, log_vocabulary, table3

pytestmark = pytest.mark.slow  # default-size TRACEBench builds: not in make test-fast


# ---------------------------------------------------------------- toolset
def _printed(x: float, like) -> float:
    """Round ``x`` to the precision the paper printed ``like`` with (9 -> 0 decimals, 6.38 -> 2)."""
    s = repr(like)
    return round(x, len(s.split(".")[1]) if "." in s else 0)


def test_toolset_matches_paper_table3_to_its_printed_precision():
    paper = json.loads((paths.PAPER_RESULTS / "tracebench.json").read_text())["table3"]
    tools = load_tools()
    for row in paper:  # recomputed here from the tools, not through table3()
        ts = [t for t in tools if t.domain == row["scenario"]]
        assert len({t.app for t in ts}) == row["apps"] and len(ts) == row["functions"], row["scenario"]
        avg_p = sum(len(t.param_names) for t in ts) / len(ts)
        avg_r = sum(len(t.required) for t in ts) / len(ts)
        assert (_printed(avg_p, row["avg_params"]), _printed(avg_r, row["avg_required"])) == \
            (row["avg_params"], row["avg_required"]), row["scenario"]
    # trap: Meituan is in two scenarios, so per-scenario app counts sum to 39 while the toolset has 38 apps
    assert len(tools) == 55 and len({t.app for t in tools}) == 38
    assert sum(len(t.param_names) for t in tools) == 312 and sum(len(t.required) for t in tools) == 94
    assert {r["scenario"]: (r["avg_params"], r["avg_required"]) for r in table3()} == \
        {r["scenario"]: (r["avg_params"], r["avg_required"]) for r in paper}


def test_every_tool_schema_is_valid_json_schema_with_known_required():
    for t in load_tools():
        jsonschema.Draft202012Validator.check_schema(t.parameters)
        assert set(t.required) <= set(t.param_names)


def test_each_app_log_vocabulary_is_reversible():
    for app in {t.app for t in load_tools()}:
        v = log_vocabulary(app)
        assert len(set(v["fields"].values())) == len(v["fields"])  # trap: two params logged under one name
        assert len(set(v["actions"].values())) == len(v["actions"])


# ---------------------------------------------------------------- simulator
def test_same_seed_gives_byte_identical_logs_for_any_worker_count(tmp_path):
    a = simulate(6, 3, tmp_path / "a", records=120, progress=False)
    b = simulate(6, 3, tmp_path / "b", records=120, workers=2, progress=False)
    c = simulate(6, 4, tmp_path / "c", records=120, progress=False)
    assert (a / "events.jsonl").read_bytes() == (b / "events.jsonl").read_bytes()
    assert (a / "events.jsonl").read_bytes() != (c / "events.jsonl").read_bytes()


def test_every_user_has_the_requested_records_in_time_order():
    users, _, _ = simulate_users(4, seed=2, records=150)
    for u in users:
        times = [r["time"] for r in u["records"]]
        assert len(times) == 150 and times == sorted(times)


def test_temporal_chains_are_present():
    users, _, _ = simulate_users(10, seed=0, records=300)
    recs = [r for u in users for r in u["records"]]
    # a flight or train to a city is followed by a hotel in that city
    trips = [(i, r) for i, r in enumerate(recs) if r["function"] in ("book_flight", "book_train")]
    assert trips and all(recs[i + 1]["function"] == "book_hotel" and recs[i + 1]["arguments"]["city"] == r["arguments"]["to_city"]
                         for i, r in trips if i + 1 < len(recs) and recs[i + 1]["function"] == "book_hotel")
    # a movie ticket is followed by a taxi to that cinema
    tickets = [(i, r) for i, r in enumerate(recs) if r["function"] == "book_movie_ticket"]
    assert any(recs[i + 1]["function"] == "call_taxi" and recs[i + 1]["arguments"]["destination"] == r["arguments"]["cinema"]
               for i, r in tickets)


def test_context_dependent_app_preferences():
    users, _, _ = simulate_users(10, seed=0, records=300)
    differs = 0
    for u in users:
        prefs = u["person"]["apps"]
        # shopping: the app depends on the category; most purchases of a category use its app (noise aside)
        by_cat = {}
        for r in u["records"]:
            if r["function"] == "buy_product":
                by_cat.setdefault(r["arguments"]["category"], []).append(r["app"])
        for cat, apps in by_cat.items():
            ctx = SHOP_CONTEXT[cat]
            assert sum(a == prefs["buy_product"][ctx] for a in apps) >= len(apps) / 2, (cat, apps)
        differs += sum(len(set(p.values())) > 1 for p in prefs.values())
    assert differs >= 10 * len(APP_CONTEXTS) * 0.8  # nearly every user prefers different apps in different contexts


def test_every_simulated_call_fits_its_tool_and_every_tool_is_used():
    users, _, _ = simulate_users(10, seed=0, records=500)
    tools = {(t.app, t.function): t for t in load_tools()}
    used = set()
    for u in users:
        for r in u["records"]:
            jsonschema.validate(r["arguments"], tools[(r["app"], r["function"])].parameters)
            used.add((r["app"], r["function"]))
    assert used == set(tools)


# ---------------------------------------------------------------- preprocessing
def _event(sid, ts, app="Luckin", action=None, payload=None, event="submit"):
    v = log_vocabulary(app if app in {t.app for t in load_tools()} else "Luckin")
    ev = {"device": "dev-1", "account": {"name": "Li Na", "phone": "13812345678"}, "app": app,
          "action": action or v["actions"].get("order_coffee", "x"), "session": sid, "event": event,
          "payload": payload if payload is not None else {v["fields"]["drink"]: "Latte", v["fields"]["size"]: "large"}}
    if ts:
        ev["ts"] = ts
    return json.dumps(ev)


def test_each_broken_session_kind_is_dropped_and_counted(tmp_path):
    # hand-made raw log: one good session and one of each defect (expected counts by construction)
    f = log_vocabulary("Luckin")["fields"]
    lines = [_event("s1", "2025-03-03T08:00:00"),
             _event("s2", "2025-03-03T09:00:00")[:30],                                   # truncated line
             _event("s3", None),                                                         # no timestamp
             _event("s4", "2025-03-03T10:00:00", event="view"), _event("s4", "2025-03-03T09:00:00"),  # time travel
             _event("s5", "2025-03-03T11:00:00", app="com.unknown.app"),
             _event("s6", "2025-03-03T12:00:00", payload={f["size"]: "large"}),          # required 'drink' missing
             _event("s7", "2025-03-03T13:00:00", payload={f["drink"]: "Latte", f["size"]: "gigantic"}),  # enum
             _event("s8", "2025-03-03T14:00:00"), _event("s8", "2025-03-03T14:00:00"),  # duplicated upload
             _event("s9", "2025-03-03T15:00:00"), _event("s9", "2025-03-03T15:01:00", event="cancel")]
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "log.jsonl").write_text("\n".join(lines) + "\n")
    rep = preprocess(tmp_path / "raw", tmp_path / "out", progress=False)
    assert rep["calls_kept"] == 2  # s1 and s8
    for reason in ("missing_or_bad_timestamp", "temporal_inconsistency", "unknown_app", "missing_required_field",
                   "invalid_value", "cancelled_by_user"):
        assert rep[f"dropped_sessions:{reason}"] == 1, reason
    assert rep["dropped_lines:malformed_json"] == 1 and rep["duplicate_events_removed"] == 1


def test_no_planted_personal_data_survives_preprocessing(tmp_path):
    users, lines, pii = simulate_users(10, seed=5, records=200)
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "events.jsonl").write_text("\n".join(lines) + "\n")
    preprocess(tmp_path / "raw", tmp_path / "out", progress=False)
    text = pd.read_parquet(tmp_path / "out" / "histories.parquet").to_csv()
    blob = (tmp_path / "out" / "histories.parquet").read_bytes()
    assert len(pii) >= 55  # distinct strings of 10 users x 6 fields (two users may share a name)
    leaked = [s for s in pii if s in text or s.encode() in blob]
    assert leaked == []
    devices = {u["person"]["device"] for u in users}
    assert not any(d in text for d in devices)  # device ids are identifiers too


def test_pseudonymous_user_ids_are_stable_and_salted(tmp_path, monkeypatch):
    _, lines, _ = simulate_users(3, seed=1, records=100)
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "e.jsonl").write_text("\n".join(lines) + "\n")
    ids = lambda d: sorted(pd.read_parquet(d / "histories.parquet")["user_id"].unique())  # noqa: E731
    preprocess(tmp_path / "raw", tmp_path / "a", progress=False)
    preprocess(tmp_path / "raw", tmp_path / "b", progress=False)
    monkeypatch.setenv("PFC_ANON_SALT", "another-salt")
    preprocess(tmp_path / "raw", tmp_path / "c", progress=False)
    assert ids(tmp_path / "a") == ids(tmp_path / "b") != ids(tmp_path / "c")


def test_scrub_keeps_district_of_exact_addresses():
    out = scrub_text("No. 12 Elm Road, Building 3, Room 1203, Xuhui District, Shanghai; mail li.na@x.com, ID 11010119900307123X")
    assert "Elm" not in out and "(Xuhui District, Shanghai)" in out and "[EMAIL]" in out and "[ID]" in out


# ---------------------------------------------------------------- anchors
def _rows(spec):
    return [{"user_id": "u1", "seq": i, "time": t, "app": app, "function": fn, "arguments": args, "scenario": "Food"}
            for i, (t, app, fn, args) in enumerate(spec)]


SINGLE_APP = {"order_coffee": 1, "call_taxi": 1}  # the app question does not arise in these hand-built cases


def _habit_then_deviation():
    spec = [(f"2025-03-{d:02d}T08:00:00", "Luckin", "order_coffee", {"drink": "Latte", "size": "large",
             "store": "Luckin (Xuhui, Shanghai)"}) for d in range(3, 15)]
    spec.append(("2025-03-15T17:00:00", "Didi", "call_taxi", {"origin": "A", "destination": "IFC Mall (Pudong, Shanghai)"}))
    spec.append(("2025-03-15T18:00:00", "Luckin", "order_coffee", {"drink": "Latte", "size": "large",
                 "store": "Luckin @ IFC Mall (Pudong, Shanghai)"}))
    return _rows(spec)


def test_anomalous_value_tied_to_a_recent_other_tool_is_a_temporal_anchor():
    # hand-built: 12 habitual coffees, a taxi to a mall, then a coffee picked up at that mall
    last = candidates(_habit_then_deviation(), SINGLE_APP, min_history=10)[-1]
    # hand: the store deviates from a 12-time habit (P3) and equals-in-part the taxi's destination (P2): P1
    assert last["function"] == "order_coffee" and last["reasons"] == [
        "P1_anomalous_and_recent", "P2_tied_to_recent_other_tool", "P3_anomalous_vs_history"]
    assert last["sources"] == {"drink": "long_term_history", "size": "long_term_history", "store": "recent_context"}
    assert set(last["types"]) == {"parameter", "temporal"}


def test_review_sheet_round_trip_and_errors(tmp_path):
    anchors = [dict(a, anchor_id=f"a{i}") for i, a in enumerate(candidates(_habit_then_deviation(), SINGLE_APP, min_history=10))]
    sheet = export_review(anchors, tmp_path / "review.csv")
    rows = sheet.read_text().splitlines()
    rows[1] = rows[1].replace(",yes,", ",no,")
    sheet.write_text("\n".join(rows) + "\n")
    kept = import_review(sheet, anchors)
    assert [a["anchor_id"] for a in kept] == [a["anchor_id"] for a in anchors[1:]]
    rows[2] = rows[2].replace(",yes,", ",maybe,")
    sheet.write_text("\n".join(rows) + "\n")
    with pytest.raises(SchemaError) as e:
        import_review(sheet, anchors)
    assert e.value.line == 3 and e.value.field == "keep" and str(sheet) in str(e.value)


def test_llm_screening_stores_verdicts_and_drops_rejected():
    anchors = [dict(a, anchor_id=f"a{i}") for i, a in enumerate(candidates(_habit_then_deviation(), SINGLE_APP, min_history=10))]
    judge = lambda messages: "DROP" if "call_taxi" in messages[0]["content"] else "KEEP, clear temporal link"  # noqa: E731
    kept = screen(anchors, judge, lambda a: [])
    assert all(a["llm_verdict"] == "keep" for a in kept) and len(kept) == len(anchors)


# ---------------------------------------------------------------- queries
ANCHOR = {"anchor_id": "t1", "app": "Luckin", "function": "order_coffee", "scenario": "Food",
          "arguments": {"drink": "Latte", "size": "large", "store": "Luckin @ IFC Mall (Pudong, Shanghai)", "pickup": True},
          "sources": {"drink": "long_term_history", "size": "long_term_history", "store": "recent_context",
                      "pickup": "long_term_history"}}


def test_four_levels_state_the_intended_number_of_elements():
    qs = {q["level"]: q for q in generate(ANCHOR, seed=3)}
    assert set(qs) == {"most_clear", "relevant_clear", "relevant_vague", "most_vague"}
    assert set(qs["most_clear"]["stated"]) == set(ANCHOR["arguments"]) and qs["most_clear"]["function_stated"]
    assert qs["most_vague"]["stated"] == [] and not qs["most_vague"]["function_stated"]
    n = len(ANCHOR["arguments"]) + 1  # elements: the function and each argument
    rc = n - len(qs["relevant_clear"]["stated"]) - qs["relevant_clear"]["function_stated"]
    rv = n - len(qs["relevant_vague"]["stated"]) - qs["relevant_vague"]["function_stated"]
    assert 1 <= rc <= 2 and rv >= n / 2 and rv > rc


def test_values_that_must_be_stated_are_never_omitted():
    anchor = dict(ANCHOR, sources={**ANCHOR["sources"], "store": None})  # store not recoverable from history
    for plan in plan_levels(anchor, __import__("random").Random(0)).values():
        assert "store" not in plan
    assert "most_vague" not in plan_levels(anchor, __import__("random").Random(0))


def test_query_check_catches_a_missing_stated_value():
    with pytest.raises(ValueError, match="store"):
        check("Order a coffee, a Latte, large size, for pickup.", ANCHOR, set())


def test_llm_roleplay_is_checked_and_falls_back_to_templates():
    bad = lambda messages: "Just get me something nice."  # noqa: E731  states nothing: fails the check
    qs = generate(ANCHOR, seed=1, chat=bad)
    assert {q["generator"] for q in qs if q["level"] != "most_vague"} == {"template-fallback"}


# ---------------------------------------------------------------- the whole build
@pytest.fixture(scope="module")
def default_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("tracebench")
    stats = build_tracebench(out, progress=False)
    return out, stats


def test_default_build_meets_the_targets(default_build):
    out, st = default_build
    assert st["table2"] == {**st["table2"], "scenarios": 8, "apps": 38, "functions": 55, "users": 10}
    assert st["table2"]["queries"] >= 1500 and set(st["by_vagueness"]) == {"most_clear", "relevant_clear",
                                                                           "relevant_vague", "most_vague"}
    assert sum(st["by_vagueness"].values()) == sum(st["by_history_bin"].values()) == st["table2"]["queries"]
    assert st["preprocess"]["calls_kept"] > 0 and any(k.startswith("dropped_sessions:") for k in st["preprocess"])


def test_every_gold_call_is_valid_and_every_history_precedes_its_anchor(default_build):
    out, _ = default_build
    tools = {(t["app"], t["function"]): t for t in json.loads((out / "tools.json").read_text())}
    examples = load_examples(out / "examples.jsonl")
    for e in examples:
        g = e.gold[0]
        jsonschema.validate(g.arguments, tools[(g.app, g.function)]["parameters"])
        anchor = datetime.fromisoformat(e.meta["anchor_time"])
        assert all(datetime.fromisoformat(h.time) < anchor for h in e.history)
        assert e.meta["history_length"] == len(e.history)
        assert all(g.role(a).source != "query" for a in g.arguments if a not in e.meta["stated"])


def test_oracle_scores_perfectly_on_the_built_benchmark(default_build):
    out, _ = default_build
    examples = load_examples(out / "examples.jsonl")
    outputs = {e.id: render_json([Call(g.app, g.function, g.arguments) for g in e.gold]) for e in examples}
    m = score(examples, outputs, "tracebench").metrics
    assert m["overall"] == 1.0 and m["value_acc_recent_context"] == 1.0


def test_rebuild_with_the_same_seed_is_byte_identical(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    build_tracebench(a, users=3, seed=9, records=150, progress=False)
    build_tracebench(b, users=3, seed=9, records=150, progress=False)
    for name in ("raw/events.jsonl", "examples.jsonl", "tools.json", "stats.json", "interim/anchors_review.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


# ---------------------------------------------------------------- issue 9: what the default build must test
def _share(examples, f):
    c = {}
    for e in examples:
        c[f(e)] = c.get(f(e), 0) + 1
    return {k: v / len(examples) for k, v in c.items()}


def test_default_build_size_and_coverage(default_build):
    out, st = default_build
    examples = load_examples(out / "examples.jsonl")
    assert abs(len(examples) - 1815) <= 0.02 * 1815  # the paper's count, +-2%
    assert min(_share(examples, lambda e: e.meta["domain"]).values()) >= 0.04
    assert set(_share(examples, lambda e: e.meta["domain"])) == {t.domain for t in load_tools()}
    per_tool = {}
    for e in examples:
        per_tool[(e.gold[0].app, e.gold[0].function)] = per_tool.get((e.gold[0].app, e.gold[0].function), 0) + 1
    tools = load_tools()
    assert all(per_tool.get((t.app, t.function), 0) >= 5 for t in tools), sorted(per_tool.items(), key=lambda x: x[1])[:5]
    assert {a for a, _ in per_tool} == {t.app for t in tools}  # all 38 apps are gold at least once
    levels = _share(examples, lambda e: e.meta["vagueness"])
    assert set(levels) == {"most_clear", "relevant_clear", "relevant_vague", "most_vague"}
    assert min(levels.values()) >= 0.15


def test_default_build_has_long_histories_in_balanced_bins(default_build):
    out, st = default_build
    examples = load_examples(out / "examples.jsonl")
    assert min(len(e.history) for e in examples) >= 100  # TRACEBench Table 1: long = at least 100
    bins = _share(examples, lambda e: min(len(e.history) // 100, 4))  # 1: 100-199 ... 4: 400+
    assert set(bins) == {1, 2, 3, 4} and min(bins.values()) >= 0.10
    assert st["history_bins"]["bins"] == ["100-199", "200-299", "300-399", "400+"]
    assert json.loads((out / "stats.json").read_text())["history_bins"] == st["history_bins"]


def _ctx(time: str, args: dict):
    # independent of pfc.data.context: weekend flag, part of day (5/11/14/17/22), category or exercise
    t = datetime.fromisoformat(time)
    part = next(name for start, name in ((22, "night"), (17, "evening"), (14, "afternoon"), (11, "midday"),
                                         (5, "morning"), (0, "night")) if t.hour >= start)
    return t.weekday() >= 5, part, args.get("category") or args.get("exercise") or ""


def test_tool_choice_depends_on_context_not_on_frequency(default_build):
    out, st = default_build
    examples = load_examples(out / "examples.jsonl")
    tool_q = [e for e in examples if "tool" in e.meta["personalization"]]
    assert len(tool_q) >= 300
    not_top, rule_hits = 0, 0
    for e in tool_q:
        g = e.gold[0]
        counts = {}
        for h in e.history:
            if h.function == g.function:
                counts[h.app] = counts.get(h.app, 0) + 1
        top = min(counts, key=lambda a: (-counts[a], a))
        rule_hits += top == g.app
        if top != g.app:
            not_top += 1
            here = _ctx(e.meta["anchor_time"], g.arguments)
            evidence = [h for h in e.history if h.function == g.function and h.app == g.app
                        and _ctx(h.time, h.arguments) == here]
            assert len(evidence) >= 2, e.id  # the history holds earlier calls in the same context with that app
    assert not_top / len(tool_q) >= 0.40
    assert rule_hits / len(tool_q) <= 0.60
    assert st["tool_choice"]["app_accuracy"] == {"most_frequent_app_rule": round(rule_hits / len(tool_q), 4),
                                                 "oracle": 1.0}


def test_labels_agree_with_each_querys_own_provenance(default_build):
    out, st = default_build
    examples = load_examples(out / "examples.jsonl")
    offering = {}
    for t in load_tools():
        offering.setdefault(t.function, []).append(t.key)
    disagree = []
    for e in examples:
        g = e.gold[0]
        names_app = g.app.lower() in e.query.lower() or g.app.replace("_", " ").lower() in e.query.lower()
        choice = sum(k in e.tools for k in offering[g.function]) >= 2
        sources = {g.role(a).source for a in g.arguments}
        want = [k for k, ok in (("tool", not names_app and choice), ("parameter", "long_term_history" in sources),
                                ("temporal", "recent_context" in sources)) if ok]
        if e.meta["personalization"] != want:
            disagree.append(e.id)
        if e.meta["vagueness"] == "most_clear":  # states the app and every value: nothing to personalize
            assert want == [], e.id
    assert disagree == []
    mix = {}
    for e in examples:
        k = "+".join(e.meta["personalization"]) or "none"
        mix[k] = mix.get(k, 0) + 1
    assert st["personalization_mix"] == dict(sorted(mix.items()))


# ---------------------------------------------------------------- determinism in any process (issue 8 item 4)
_SMALL = ["--users", "2", "--records", "160", "--seed", "4"]


def _cli(args, hashseed: str, cwd):
    import os
    import subprocess
    import sys
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    r = subprocess.run([sys.executable, "-m", "pfc", *args], env=env, cwd=cwd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]


def _tree(d):
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_build_is_byte_identical_under_any_hash_seed_and_equals_the_library_build(tmp_path):
    # trap: set/dict iteration order over strings changes with PYTHONHASHSEED (random per process by default)
    _cli(["build", "tracebench", *_SMALL, "--out", str(tmp_path / "a")], "1", tmp_path)
    _cli(["build", "tracebench", *_SMALL, "--out", str(tmp_path / "b")], "random", tmp_path)
    build_tracebench(tmp_path / "lib", users=2, records=160, seed=4, progress=False)
    a, b, lib = _tree(tmp_path / "a"), _tree(tmp_path / "b"), _tree(tmp_path / "lib")
    assert "examples.jsonl" in a and a == b
    # the library build writes the same files; preprocess_report/stats name the source the same way
    assert a == lib


def test_simulate_is_byte_identical_under_any_hash_seed(tmp_path):
    _cli(["simulate", *_SMALL, "--out", str(tmp_path / "a")], "0", tmp_path)
    _cli(["simulate", *_SMALL, "--out", str(tmp_path / "b")], "12345", tmp_path)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


# ---------------------------------------------------------------- honest baselines
def _run_builtin(name, examples, tools=None):
    from pfc.run.backends import Request, get
    backend = get(name, tools=tools or load_tools(), seed=0)
    return {e.id: r.text for e, r in zip(examples, backend.answer([Request([]) for _ in examples], examples))}


def test_history_prior_uses_a_stated_value_instead_of_the_habit():
    # trap (issue 9): the habit is "lentil soup"; the request says "veggie wrap" and must win
    from pfc.schema import Example, GoldCall, HistoryEntry
    hist = [HistoryEntry(f"2025-03-{d:02d}T12:00:00", "Eleme", "order_takeout",
                         {"restaurant": "Green Bowl (Xuhui, Shanghai)", "items": ["lentil soup"], "address": "Office"})
            for d in range(3, 13)]
    ex = Example("x", "tracebench", "Order takeout from Green Bowl (Xuhui, Shanghai), veggie wrap, to Office.",
                 [GoldCall("Eleme", "order_takeout", {"restaurant": "Green Bowl (Xuhui, Shanghai)",
                                                      "items": ["veggie wrap"], "address": "Office"})],
                 history=hist, meta={"anchor_time": "2025-03-14T12:10:00"})
    for name in ("history-prior", "no-history"):
        call = json.loads(_run_builtin(name, [ex])["x"])
        assert call["arguments"]["items"] == ["veggie wrap"], name
        assert call["arguments"]["restaurant"] == "Green Bowl (Xuhui, Shanghai)", name


def test_baselines_on_the_default_build(default_build):
    out, _ = default_build
    examples = load_examples(out / "examples.jsonl")
    by_level = {}
    for name in ("query-oracle", "history-prior"):
        m = score(examples, _run_builtin(name, examples), "tracebench").metrics
        by_level[name] = {lv: m[f"vagueness={lv}/overall"] for lv in ("most_clear", "most_vague")}
        assert m["app"] == 1.0 if name == "query-oracle" else m["app"] < 1.0
    assert by_level["query-oracle"]["most_clear"] == 1.0 and by_level["query-oracle"]["most_vague"] == 0.0
    assert by_level["history-prior"]["most_clear"] > by_level["history-prior"]["most_vague"]  # the paper's Fig. 3 trend


def test_query_oracle_predicts_only_the_stated_values(default_build):
    out, _ = default_build
    examples = load_examples(out / "examples.jsonl")[:200]
    preds = _run_builtin("query-oracle", examples)
    for e in examples:
        call = json.loads(preds[e.id])
        assert call["name"] == f"{e.gold[0].app}__{e.gold[0].function}"
        assert sorted(call["arguments"]) == sorted(e.meta["stated"])
