"""TRACEBench construction, step by step: toolset, simulator, preprocessing, anchors, queries, build."""
import json
from datetime import datetime

import jsonschema
import pandas as pd
import pytest

from pfc import paths
from pfc.anchors import candidates, export_review, import_review, screen
from pfc.build import build_tracebench
from pfc.preprocess import preprocess, scrub_text
from pfc.querygen import check, generate, plan_levels
from pfc.render import render_json
from pfc.schema import Call, SchemaError, load_examples
from pfc.scoring import score
from pfc.simulate import simulate, simulate_users
from pfc.toolset import load_tools, log_vocabulary, table3


# ---------------------------------------------------------------- toolset
def test_toolset_matches_paper_table3_counts():
    paper = json.loads((paths.PAPER_RESULTS / "tracebench.json").read_text())["table3"]
    ours = {r["scenario"]: r for r in table3()}
    for row in paper:
        assert (ours[row["scenario"]]["apps"], ours[row["scenario"]]["functions"]) == (row["apps"], row["functions"])
    tools = load_tools()
    assert len(tools) == 55 and len({t.app for t in tools}) == 38


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
    for u in users:
        shop = [r for r in u["records"] if r["function"] == "buy_product" and r["arguments"]["category"] == "electronics"]
        if shop:  # electronics from JD, except the planted noise
            assert sum(r["app"] == "JD" for r in shop) >= len(shop) / 2


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
    assert len(pii) == 60
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


def _habit_then_deviation():
    spec = [(f"2025-03-{d:02d}T08:00:00", "Luckin", "order_coffee", {"drink": "Latte", "size": "large",
             "store": "Luckin (Xuhui, Shanghai)"}) for d in range(3, 15)]
    spec.append(("2025-03-15T17:00:00", "Didi", "call_taxi", {"origin": "A", "destination": "IFC Mall (Pudong, Shanghai)"}))
    spec.append(("2025-03-15T18:00:00", "Luckin", "order_coffee", {"drink": "Latte", "size": "large",
                 "store": "Luckin @ IFC Mall (Pudong, Shanghai)"}))
    return _rows(spec)


def test_anomalous_value_tied_to_a_recent_other_tool_is_a_temporal_anchor():
    # hand-built: 12 habitual coffees, a taxi to a mall, then a coffee picked up at that mall
    last = candidates(_habit_then_deviation())[-1]
    # hand: the store deviates from a 12-time habit (P3) and equals-in-part the taxi's destination (P2): P1
    assert last["function"] == "order_coffee" and last["reasons"] == [
        "P1_anomalous_and_recent", "P2_tied_to_recent_other_tool", "P3_anomalous_vs_history"]
    assert last["sources"] == {"drink": "long_term_history", "size": "long_term_history", "store": "recent_context"}
    assert set(last["types"]) == {"parameter", "temporal"}


def test_review_sheet_round_trip_and_errors(tmp_path):
    anchors = [dict(a, anchor_id=f"a{i}") for i, a in enumerate(candidates(_habit_then_deviation()))]
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
    anchors = [dict(a, anchor_id=f"a{i}") for i, a in enumerate(candidates(_habit_then_deviation()))]
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
    build_tracebench(a, users=3, seed=9, records=120, progress=False)
    build_tracebench(b, users=3, seed=9, records=120, progress=False)
    for name in ("raw/events.jsonl", "examples.jsonl", "tools.json", "stats.json", "interim/anchors_review.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
