"""Issue 64's paired items (``pfc perturb --kind ask[@W]`` / ``cannot``, ``pfc.data.counterfactual_ask``) and
the gold action in the schema (``pfc.actions``): hand-checked on a small hand-made set, properties on the tiny
TRACEBench, determinism across processes, and the one-line refusals."""
import json
import os
import subprocess
import sys

import pytest

from pfc import benchmarks
from pfc.data.counterfactual import perturb
from pfc.data.counterfactual_ask import supports
from pfc.jsonl import SchemaError
from pfc.schema import Example, Tool, load_examples, write_examples, write_tools

P = {"type": "object", "properties": {"restaurant": {"type": "string"}, "people": {"type": "integer"}},
     "required": ["restaurant"]}
TOOLS = [Tool("Meituan", "book_restaurant", "Book a table", "Food", P), Tool("Dianping", "book_restaurant", "", "Food", P),
         Tool("Meituan", "order_takeout", "Order food", "Food", P), Tool("Didi", "call_taxi", "Taxi", "Transport", P),
         Tool("QQMusic", "play_music", "Music", "Entertainment", P)]


def _h(day, app, fn, **args):
    return {"time": f"2025-03-{day:02d}T19:00:00", "app": app, "function": fn, "arguments": args}


HIST = [_h(1, "Meituan", "book_restaurant", restaurant="Haidilao", people=2), _h(2, "Didi", "call_taxi", to="Office"),
        _h(3, "QQMusic", "play_music", song="Blue"), _h(4, "Didi", "call_taxi", to="Haidilao Chunxi Road"),
        _h(5, "QQMusic", "play_music", song="Red"), _h(6, "Meituan", "book_restaurant", restaurant="Haidilao", people=4)]
OTHER = [_h(d, "QQMusic", "play_music", song=s) for d, s in ((1, "Green"), (2, "Gold"), (3, "Grey"), (4, "Pink"))]


def _ex(i, user, hist, roles):
    return Example.from_dict({
        "id": i, "benchmark": "tracebench", "user_id": user, "query": "Book me a table for 4", "history": hist,
        "tools": ["Meituan.book_restaurant", "Dianping.book_restaurant", "Meituan.order_takeout", "Didi.call_taxi",
                  "QQMusic.play_music"],
        "gold": [{"app": "Meituan", "function": "book_restaurant", "arguments": {"restaurant": "Haidilao", "people": 4},
                  "roles": roles}],
        "meta": {"anchor_time": "2025-03-07T19:00:00", "vagueness": "relevant_vague"}})


def _set():
    roles = {"restaurant": "long_term_history", "people": "query"}
    return [_ex("a", "u", HIST, roles), _ex("b", "v", OTHER, {"restaurant": "query", "people": "query"})]


def test_ask_replaces_every_supporting_record_in_place_and_keeps_the_gold():
    (v,), skipped = perturb(_set(), "ask", 0)
    a = _set()[0]
    assert skipped == {"no required history-sourced argument unstated in the request": 1}  # b: everything stated
    assert v.id == "a~ask" and v.action == "ask" and v.meta["ask_slots"] == [{"call": 0, "argument": "restaurant"}]
    assert [g.to_dict() for g in v.gold] == [g.to_dict() for g in a.gold]  # kept for the follow-up turn
    # records 1, 4 and 6 name Haidilao (4 inside a longer string): replaced, times kept, by the other user's records
    assert [h.time for h in v.history] == [h.time for h in a.history]
    changed = [j for j, (x, y) in enumerate(zip(v.history, a.history)) if x != y]
    assert changed == [0, 3, 5] and all(v.history[j].function == "play_music" for j in changed)
    assert {v.history[j].arguments["song"] for j in changed} <= {"Green", "Gold", "Grey", "Pink"}
    assert not any(supports(h, "book_restaurant", "restaurant", ["Haidilao"]) for h in v.history)
    assert v.meta["counterfactual"]["replaced"] == 3 and v.meta["counterfactual"]["value"] == "Haidilao"


def test_ask_window_admits_only_a_request_whose_last_w_records_support_the_value():
    exs = _set()
    exs[0].history = exs[0].history[:5]  # days 1-5: the last record (day 5) plays music
    assert perturb(exs, "ask@1", 0)[0] == []  # the last record (day 5, music) supports nothing
    assert [v.id for v in perturb(exs, "ask@2", 0)[0]] == ["a~ask"]  # day 4's taxi to "Haidilao Chunxi Road"


def test_cannot_removes_the_gold_function_and_its_scenario_and_nulls_the_gold():
    (v, w), skipped = perturb(_set(), "cannot", 0, TOOLS)
    assert skipped == {} and v.id == "a~cannot" and v.gold is None and v.action == "cannot"
    assert v.tools == ["Didi.call_taxi", "QQMusic.play_music"]
    assert v.meta["counterfactual"]["removed_tools"] == ["Meituan.book_restaurant", "Dianping.book_restaurant",
                                                        "Meituan.order_takeout"]
    assert v.history == _set()[0].history


def test_variants_load_back_through_the_schema(tmp_path):
    ask, _ = perturb(_set(), "ask", 0)
    cannot, _ = perturb(_set(), "cannot", 0, TOOLS)
    write_examples(ask + cannot, tmp_path / "examples.jsonl")
    back = load_examples(tmp_path / "examples.jsonl")
    assert [(e.id, e.action) for e in back] == [("a~ask", "ask"), ("a~cannot", "cannot"), ("b~cannot", "cannot")]


@pytest.mark.parametrize("meta,gold,field", [
    ({"action": "maybe"}, "call", "meta.action"),
    ({"action": "cannot"}, "call", "gold"),
    ({"action": "ask"}, "call", "meta.ask_slots"),
    ({"action": "ask", "ask_slots": [{"call": 0, "argument": "nope"}]}, "call", "meta.ask_slots[0]"),
    ({"action": "ask", "ask_slots": [{"call": 1, "argument": "restaurant"}]}, "call", "meta.ask_slots[0]"),
    ({"action": "ask", "ask_slots": [{"call": 0, "argument": "restaurant"}]}, None, "gold"),
    ({"ask_slots": [{"call": 0, "argument": "restaurant"}]}, "call", "meta.ask_slots"),
])
def test_a_bad_action_or_slot_is_a_schema_error_naming_the_field(meta, gold, field):
    d = _set()[0].to_dict()
    d["meta"] = {**d["meta"], **meta}
    d["gold"] = d["gold"] if gold else None
    with pytest.raises(SchemaError) as e:
        Example.from_dict(d)
    assert e.value.field == field


def test_every_existing_examples_file_loads_unchanged_as_call_items(tiny_tracebench, golden, release):
    """The committed inputs (PTBench's official test data, the ToolSpectrum sample release) and a TRACEBench
    build: every example is a call item, and writes back to the very record it was read from."""
    for name, path in (("tracebench", tiny_tracebench), ("ptbench", golden / "ptbench_official" / "test_trained_user"
                                                          / "data.json"), ("toolspectrum", release)):
        exs, _ = benchmarks.get(name).scoring.load(path, None)
        assert exs and {e.action for e in exs} == {"call"} and not any("ask_slots" in e.meta for e in exs)
    rows = [json.loads(x) for x in (tiny_tracebench / "examples.jsonl").read_text().splitlines()]
    assert [Example.from_dict(r).to_dict() for r in rows] == rows


def _cli(args, hashseed="0"):
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    return subprocess.run([sys.executable, "-m", "pfc", "perturb", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def _write_set(d):
    d = d / "in"
    write_examples(_set(), d / "examples.jsonl")
    write_tools(TOOLS, d / "tools.json")
    return d


@pytest.mark.parametrize("kind", ["ask", "ask@2", "cannot"])
def test_same_seed_same_bytes_in_two_processes(tmp_path, kind):
    src = _write_set(tmp_path)
    outs = []
    for i, hs in enumerate(("1", "2")):
        r = _cli(["--benchmark", "tracebench", "--examples", str(src), "--kind", kind, "--out", str(tmp_path / f"o{i}")], hs)
        assert r.returncode == 0, r.stderr
        outs.append((tmp_path / f"o{i}" / "examples.jsonl").read_bytes())
    assert outs[0] == outs[1] and outs[0]


@pytest.mark.parametrize("kind,expect", [("ask:3", "unknown kind"), ("asks", "unknown kind"), ("cannot@5", "bad window")])
def test_a_bad_kind_is_one_line_and_exit_2(tmp_path, kind, expect):
    r = _cli(["--benchmark", "tracebench", "--examples", str(_write_set(tmp_path)), "--kind", kind,
              "--out", str(tmp_path / "o")])
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and expect in r.stderr


def test_a_set_without_a_history_sourced_argument_is_refused_in_one_line(tmp_path):
    write_examples(_set()[1:], tmp_path / "in" / "examples.jsonl")
    r = _cli(["--benchmark", "tracebench", "--examples", str(tmp_path / "in"), "--kind", "ask", "--out", str(tmp_path / "o")])
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "sourced from the history" in r.stderr
    assert not (tmp_path / "o").exists()


def test_a_benchmark_whose_adapter_does_not_admit_the_kind_is_refused(tmp_path, golden):
    r = _cli(["--benchmark", "ptbench", "--examples", str(golden / "ptbench_official" / "test_trained_user" / "data.json"),
              "--kind", "cannot", "--out", str(tmp_path / "o")])
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "tracebench, not ptbench" in r.stderr


def test_tiny_tracebench_ask_variants_hold_no_support_and_keep_length(tiny_tracebench):
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    by = {e.id: e for e in exs}
    ask, _ = perturb(exs, "ask@20", 0, tools)
    assert ask
    for v in ask:
        o, c = by[v.meta["counterfactual"]["original_id"]], v.meta["counterfactual"]
        g = v.gold[c["call"]]
        assert len(v.history) == len(o.history) and [h.time for h in v.history] == [h.time for h in o.history]
        assert not any(supports(h, g.function, c["argument"], g.acceptable(c["argument"])) for h in v.history)
        assert any(supports(h, g.function, c["argument"], g.acceptable(c["argument"])) for h in o.history[-20:])
        assert g.role(c["argument"]).source in ("long_term_history", "recent_context") and g.role(c["argument"]).required
