"""Issue 64's runs end to end without a model: the plan's ask steps (TRACEBench's ``plans.ask_runs`` on ``pfc.plans.ask``'s sets) on the tiny TRACEBench
with a scripted backend — first turns, the follow-up set from their answers (``pfc.data.followup``), the second
turn — resumable, with identities apart from the standard prompt's; and the replayable user's fixed replies."""
import hashlib
import json
from dataclasses import replace

import pytest

from pfc import benchmarks
from pfc.data import followup
from pfc.errors import UserError
from pfc.benchmarks.tracebench import plans as TP
from pfc.plans import ask as A
from pfc.plans.reference import RunConfig, tracebench_ids
from pfc.run.backends import Backend, Response
from pfc.run.runner import execute


class Scripted(Backend):
    """Asks "Which <first required parameter>?" on every other first turn (by prompt hash), else calls the first
    tool offered; a second turn (an assistant message in the prompt) always calls."""
    name, model, version = "scripted", "scripted", "1"

    def generate(self, requests):
        out = []
        for r in requests:
            spec = r.tools[0]["function"]
            if r.tools[-1]["function"]["name"] != "ask_user":
                out.append(Response(text=json.dumps({"name": spec["name"], "arguments": {}})))
                continue
            h = hashlib.sha256(json.dumps(r.messages).encode()).digest()[0]
            first = not any(m["role"] == "assistant" for m in r.messages)
            if first and h % 2:
                q = "Which " + (spec["parameters"].get("required") or ["value"])[0].replace("_", " ") + "?"
                out.append(Response(text=json.dumps({"name": "ask_user", "arguments": {"question": q}})))
            else:
                out.append(Response(text=json.dumps({"name": spec["name"], "arguments": {}})))
        return out


def _runs(tb, tmp_path, n=6, cannot=3, monkeypatch=None):
    exs, tools = benchmarks.get("tracebench").scoring.load(tb, None)
    monkeypatch.setattr(A, "ORIGINALS_N", n)
    monkeypatch.setattr(A, "CANNOT_N", cannot)
    like = RunConfig("tracebench", tb, Scripted(), tmp_path / "root" / "tracebench-last_k", history="last_k", k=10,
                     progress=False, use_cache=False)
    steps = TP.ask_runs(tb, exs, tools, tracebench_ids(exs, per_cell=2), like, 20)
    return exs, {p.name: p for p in steps}


def test_originals_are_an_equal_share_per_level_with_ask_variants(tiny_tracebench, monkeypatch):
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    ids = A.originals(exs, tools, tracebench_ids(exs, per_cell=2), 20, n=6)
    by = {e.id: e for e in exs}
    levels = [by[i].meta["vagueness"] for i in ids]
    assert len(ids) == 6 and "most_clear" not in levels and max(levels.count(x) for x in set(levels)) == 6 // len(set(levels))
    assert A.originals(exs, tools, tracebench_ids(exs, per_cell=2), 20, n=6) == ids


def test_first_turns_then_followups_run_and_resume(tiny_tracebench, tmp_path, monkeypatch):
    tb = tmp_path / "data" / "tracebench"
    tb.mkdir(parents=True)
    for f in ("examples.jsonl", "tools.json"):
        (tb / f).write_bytes((tiny_tracebench / f).read_bytes())
    exs, steps = _runs(tb, tmp_path, monkeypatch=monkeypatch)
    assert list(steps) == [TP.ORIGINALS_RUN, TP.ASK_RUN, TP.CANNOT_RUN, TP.STANDARD_RUN, TP.FOLLOWUP_RUN]
    fu = steps[TP.FOLLOWUP_RUN]
    with pytest.raises(UserError, match="run it first"):
        fu.build()  # the first turns have not run
    for name in (TP.ORIGINALS_RUN, TP.ASK_RUN, TP.CANNOT_RUN, TP.STANDARD_RUN):
        p = steps[name]
        if p.build is not None and not (p.config.examples / "perturb.json").exists():
            p.build()
        assert execute(p.config)["done"] == len(p.config.ids)
    idents = {n: json.loads((steps[n].config.out_dir / "run.json").read_text())["identity"] for n in steps if n != fu.name}
    assert idents[TP.ORIGINALS_RUN]["prompt_template"] != idents[TP.STANDARD_RUN]["prompt_template"]
    assert (idents[TP.ORIGINALS_RUN]["prompt_variant"], idents[TP.STANDARD_RUN]["prompt_variant"]) == ("ask", "all")
    fu.build()
    made = benchmarks.get("tracebench").scoring.load(fu.config.examples, None)[0]
    assert made and all(e.id.endswith("~followup") and e.meta["followup"]["user_version"] == followup.USER_VERSION
                        for e in made)
    ask_made = [e for e in made if e.meta["followup"]["first_action"] == "ask"]
    assert all(e.action == "call" and e.gold for e in ask_made)
    known = {e.id for e in made}
    cfg = replace(fu.config, ids=tuple(i for i in fu.config.ids if i in known))
    assert execute(cfg)["done"] == len(known)
    ident = json.loads((cfg.out_dir / "run.json").read_text())["identity"]
    assert ident["prompt_template"]["user_simulator"] == followup.USER_VERSION
    before = (cfg.out_dir / "predictions.jsonl").read_bytes()
    fu.build()  # same answers: the set is kept, the finished run does nothing
    assert execute(cfg)["written"] == 0 and (cfg.out_dir / "predictions.jsonl").read_bytes() == before


def test_followup_prompt_appends_the_first_reply_and_the_users_answer(tiny_tracebench):
    from pfc.benchmarks.tracebench import ask_prompts as tracebench_ask
    exs, tools = benchmarks.get("tracebench").scoring.load(tiny_tracebench, None)
    ex = exs[0]
    first, specs = tracebench_ask.build(ex, {t.key: t for t in tools}, "ask", history="last_k", k=20)
    ex2 = replace(ex, meta={**ex.meta, "followup": {"assistant": "Which city?", "user": "City: Chengdu."}})
    second, _ = tracebench_ask.build(ex2, {t.key: t for t in tools}, "ask-followup", history="last_k", k=20)
    assert second == first + [{"role": "assistant", "content": "Which city?"}, {"role": "user", "content": "City: Chengdu."}]
    assert specs[-1]["function"]["name"] == "ask_user"
    with pytest.raises(UserError, match="meta.followup"):
        tracebench_ask.build(ex, {t.key: t for t in tools}, "ask-followup")


def _ask_item():
    from pfc.schema import Example
    return Example.from_dict({
        "id": "x~ask", "benchmark": "tracebench", "user_id": "u", "query": "Get me a ride", "history": [],
        "gold": [{"app": "Didi", "function": "call_taxi", "arguments": {"car_type": "Express", "destination": "Office"},
                  "roles": {"car_type": "long_term_history", "destination": "query"}}],
        "meta": {"action": "ask", "ask_slots": [{"call": 0, "argument": "car_type"}]}})


@pytest.mark.parametrize("question,reply,answered", [
    ("Which car type would you like?", "Car type: Express.", ["car_type"]),
    ("Which car_type?", "Car type: Express.", ["car_type"]),
    ("Do you want Premier or Express?", "Car type: Express.", ["car_type"]),      # an enum value
    ("What vehicle class suits you?", "Car type: Express.", ["car_type"]),        # a word of the description
    ("Where are you going?", followup.NAG, []),                                    # not the removed slot
    ("", followup.NAG, []),
])
def test_the_user_answers_the_removed_slot_only_when_named(question, reply, answered):
    from pfc.schema import Tool
    tool = Tool("Didi", "call_taxi", "", "Transport", {"type": "object", "properties": {
        "car_type": {"type": "string", "description": "Vehicle class", "enum": ["Express", "Premier"]},
        "destination": {"type": "string"}}})
    assert followup.reply(question, _ask_item(), {tool.key: tool}) == (reply, answered)
