"""TRACEBench's prompt axes (issue 65, ``pfc.benchmarks.tracebench.formats``): every rendering shows exactly the
record's values, deterministic bytes, the default byte-identical to the prompt runs recorded before variants."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from pfc.benchmarks.tracebench import formats, prompts
from pfc.errors import UserError
from pfc.eval.parsing import parse
from pfc.run.history import record_text
from pfc.schema import HistoryEntry

# the hash every committed TRACEBench reference run recorded (reports/reference_runs/*/tracebench-*/run.json)
COMMITTED_SHA = "6b6db12008ff51475708889a481533c9405e4af946e46b4759428d5ceaec7746"

RECORDS = [HistoryEntry("2025-03-15T16:33:56", "Pinduoduo", "buy_product",
                        {"address": "Road 6 | Chengdu", "coupon": True, "quantity": 2, "note": 'say "hi"\nthen'}),
           HistoryEntry("2025-03-16T08:12:00", "Luckin", "order_coffee", {"drink": "Americano", "sugar": None}),
           HistoryEntry("2025-03-17T09:00:00", "Maps", "route", {})]
CALLS = formats.defaults()


def record_values(h) -> list:
    """What a record says, read from the record itself: its time, app, function and every argument value."""
    return [h.time, h.app, h.function, *h.arguments.values()]


def shown_json(text):
    out = []
    for line in text.splitlines():
        d = json.loads(line)
        assert set(d) == {"time", "app", "function", "arguments"}
        out.append([d["time"], d["app"], d["function"], *d["arguments"].values()])
    return out


def _cells(row):
    cells = re.split(r"(?<!\\)\|", row)[1:-1]
    return [c.strip().replace("\\|", "|") for c in cells]


def shown_table(text):
    rows = text.splitlines()
    assert rows[:2] == ["| time | app | function | arguments |", "|---|---|---|---|"]
    out = []
    for row in rows[2:]:
        t, app, fn, args = _cells(row)
        vals = [json.loads(part.split(" = ", 1)[1]) for part in args.split("; ")] if args else []
        out.append([t, app, fn, *vals])
    return out


def shown_sentences(text):
    out = []
    for line in text.splitlines():
        m = re.fullmatch(r"At (\S+) the user called (\S+) in (\S+) with (.*)\.", line, re.S)
        assert m, line
        args = [] if m[4] == "no arguments" else [json.loads(p.split(" = ", 1)[1]) for p in m[4].split(" and ")]
        out.append([m[1], m[3], m[2], *args])
    return out


def shown_calls(text):
    out = []
    for line in text.splitlines():
        t, call = line.split(" ", 1)
        c = parse(call).calls[0]  # the robust reader, an independent route back to the values
        out.append([t, c.app, c.function, *c.arguments.values()])
    return out


READ_BACK = {"calls": shown_calls, "json": shown_json, "table": shown_table, "sentences": shown_sentences}


@pytest.mark.parametrize("how", formats.AXES["history"])
@pytest.mark.parametrize("order", formats.AXES["order"])
def test_every_rendering_shows_exactly_the_records_values(how, order):
    records = RECORDS[:2] if how == "calls" else RECORDS  # a call line of no arguments reads back as no values too
    text = "\n".join(formats.lines(records, {**CALLS, "history": how, "order": order}, record_text))
    expected = [record_values(h) for h in (records[::-1] if order == "newest" else records)]
    assert READ_BACK[how](text) == expected  # each value there, and nothing that is not in the record
    for h in records:  # and each value's text appears as the record has it
        for v in record_values(h):
            if isinstance(v, str) and "|" not in v and "\n" not in v and '"' not in v:
                assert v in text


def test_the_default_variant_is_todays_prompt_byte_for_byte():
    assert prompts.template_identity()["sha256"] == COMMITTED_SHA
    assert prompts.template_identity("all") == prompts.template_identity()


def test_each_variant_has_its_own_template_identity_and_the_same_bytes_in_another_process():
    shas = {v: prompts.template_identity(v)["sha256"] for v in formats.VARIANTS}
    assert len(set(shas.values())) == len(formats.VARIANTS) == 4 * 2 * 2
    code = ("from pfc.benchmarks.tracebench import prompts, formats; import json; "
            "print(json.dumps({v: prompts.template_identity(v)['sha256'] for v in formats.VARIANTS}))")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "7", "PATH": "", **_env()})
    assert json.loads(other.stdout) == shas


def _env():
    import os
    return {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "HOME", "PFC_OUTPUT_ROOT")}


def test_variant_names_are_canonical_and_unknown_ones_refused():
    assert formats.settings("all") == {"history": "calls", "order": "oldest", "answer": "json"}
    assert formats.name(formats.settings("history=table,order=newest")) == "history=table,order=newest"
    for bad, why in (("history=xml", "not one of"), ("order=newest,history=table", "write it as"),
                     ("order=oldest", "write it as")):
        with pytest.raises(UserError, match=why):
            formats.settings(bad)


def test_python_answers_need_the_tools_in_the_prompt_and_read_as_calls():
    from pfc.run.config import RunConfig
    with pytest.raises(UserError, match="--prompt-format"):
        RunConfig("tracebench", "x", "oracle", "o", prompt_variant="answer=python").check()
    RunConfig("tracebench", "x", "oracle", "o", prompt_variant="answer=python", native=False).check()
    (ex,), tools, _ = prompts._canonical()
    prompt, specs = prompts.build(ex, tools, native=False, variant="answer=python")
    assert specs is None and "<App>.<function>(<parameter>=<value>, ...)" in prompt.messages[-1]["content"]
    r = parse('Maps.route(city="Chengdu", n=2)')
    assert r.ok and (r.calls[0].app, r.calls[0].function, r.calls[0].arguments) == ("Maps", "route",
                                                                                    {"city": "Chengdu", "n": 2})
    r = parse('Tencent_Video.search_video(time="08:00", url="https://x.cn/a:b", n=-1.5)')  # colons in values
    assert (r.calls[0].app, r.calls[0].function) == ("Tencent_Video", "search_video")
    assert r.calls[0].arguments == {"time": "08:00", "url": "https://x.cn/a:b", "n": -1.5}
    # known limit of the bracket reader: ":[" inside a string reads as PTBench's "Platform:[" (a typed failure)
    assert parse('Maps.route(q="a:[b")').error == "format:unbalanced_brackets"
    args = {"s": 'a "b"\nc', "b": True, "none": None, "n": 2.5, "xs": ["x", 1], "d": {"k": False}}
    back = parse(formats.python_call("Shop", "buy", args))  # the few-shot turns' answers read back whole
    assert back.ok and (back.calls[0].app, back.calls[0].function, back.calls[0].arguments) == ("Shop", "buy", args)
    demo = prompts.build(ex, tools, native=False, strategy="few_shot", pool=prompts._canonical()[2], shots=1,
                         variant="answer=python")[0].messages[2]["content"]
    assert demo == 'Taxi.order(city="Xi\'an")'
    for code in ("__import__('os').system('x')", "open('f')"):  # an expression is kept as its text, never run
        assert parse(f"Maps.route(city={code})").calls[0].arguments == {"city": code}
    for bad in ("Maps.route(", "import os", "Maps.route(**{'a': 1})", "x = 1"):
        r = parse(bad)
        assert not r.ok and r.error.startswith(("format:", "value:", "unsafe:")) and not r.calls, (bad, r)


def test_a_registered_axis_composes_with_the_others(monkeypatch):
    monkeypatch.setattr(formats, "AXES", dict(formats.AXES))
    monkeypatch.setattr(formats, "VARIANTS", formats.VARIANTS)
    formats.register("ask", ("none", "ask"))
    assert len(formats.VARIANTS) == 4 * 2 * 2 * 2 and "order=newest,ask=ask" in prompts.VARIANTS
    assert prompts.VARIANTS == (*formats.VARIANTS, "ask", "ask-followup")  # then the ask-allowed prompt's (issue 64)
    assert formats.settings("history=json,ask=ask") == {"history": "json", "order": "oldest", "answer": "json",
                                                       "ask": "ask"}


def test_the_order_and_rendering_are_named_in_the_system_text():
    (ex,), tools, _ = prompts._canonical()
    system = prompts.build(ex, tools, variant="history=json,order=newest")[0].messages[0]["content"]
    assert "history, newest first (one JSON object per record):\n" in system
    shown = system.split("(one JSON object per record):\n", 1)[1].splitlines()
    assert [json.loads(line)["time"][:10] for line in shown] == ["2025-01-03", "2025-01-02", "2025-01-01"]
