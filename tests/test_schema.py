"""The unified example schema: round trip, and errors that name file, line and field."""
import json

import pytest

from pfc.schema import Example, SchemaError, load_examples, load_tools, write_examples

GOOD = {"id": "e1", "benchmark": "tracebench", "user_id": "u1", "query": "taxi home",
        "profile": {"home": "Elm St"}, "environment": None,
        "history": [{"time": "2025-01-01T08:00", "app": "Didi", "function": "call_taxi",
                     "arguments": {"destination": "Office"}}],
        "tools": ["Didi.call_taxi"],
        "gold": [{"app": "Didi", "function": "call_taxi", "arguments": {"destination": "Elm St"},
                  "alternatives": {"destination": ["Elm Street"]},
                  "roles": {"destination": {"source": "long_term_history", "required": True}}}],
        "meta": {"vagueness": "most_vague", "history_length": 1, "trained": None}}


def _write(tmp_path, records):
    p = tmp_path / "examples.jsonl"
    p.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return p


def test_example_round_trips_through_jsonl(tmp_path):
    ex = Example.from_dict(GOOD)
    write_examples([ex], tmp_path / "x.jsonl")
    (back,) = load_examples(tmp_path / "x.jsonl")
    assert back.to_dict() == ex.to_dict()
    assert back.gold[0].acceptable("destination") == ["Elm St", "Elm Street"]
    assert back.gold[0].role("destination").source == "long_term_history"


def test_null_gold_means_refusal():
    assert Example.from_dict({**GOOD, "gold": None}).is_refusal


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("query"), "query"),
    (lambda d: d.update(benchmark="bfcl"), "benchmark"),
    (lambda d: d.pop("gold"), "gold"),
    (lambda d: d["gold"][0].update(function=""), "gold[0].function"),
    (lambda d: d["gold"][0]["roles"]["destination"].update(source="gut_feeling"), "gold[0].roles.destination.source"),
    (lambda d: d["gold"][0]["alternatives"].update(city=["x"]), "gold[0].alternatives.city"),
    (lambda d: d["history"][0].update(arguments=[1]), "history[0].arguments"),
    (lambda d: d["meta"].update(trained="yes"), "meta.trained"),
])
def test_bad_record_error_names_file_line_and_field(tmp_path, mutate, field):
    bad = json.loads(json.dumps(GOOD))
    bad["id"] = "e2"
    mutate(bad)
    p = _write(tmp_path, [GOOD, bad])
    with pytest.raises(SchemaError) as e:
        load_examples(p)
    assert e.value.file == str(p) and e.value.line == 2 and e.value.field == field
    assert f"{p}:2: field '{field}'" in str(e.value)


def test_invalid_json_line_is_reported_with_its_line(tmp_path):
    p = _write(tmp_path, [GOOD, "{not json"])
    with pytest.raises(SchemaError, match=r":2: invalid JSON"):
        load_examples(p)


def test_duplicate_ids_are_rejected(tmp_path):
    p = _write(tmp_path, [GOOD, GOOD])
    with pytest.raises(SchemaError, match="duplicate id"):
        load_examples(p)


def test_tool_file_requires_known_required_names(tmp_path):
    p = tmp_path / "tools.json"
    p.write_text(json.dumps([{"app": "A", "function": "f", "parameters": {
        "type": "object", "properties": {"x": {"type": "string"}}, "required": ["y"]}}]))
    with pytest.raises(SchemaError, match=r"field '\[0\].parameters.required'"):
        load_tools(p)
