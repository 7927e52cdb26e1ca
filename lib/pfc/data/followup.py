"""The replayable user of issue 64's follow-up turn, and the follow-up set built from a first-turn run.

**The user** (:func:`reply`, version :data:`USER_VERSION`) is deterministic and calls no model. Shown the model's
question and the item, it answers every slot the question *names* — a slot is named when the question holds its name
(``car_type`` or "car type"), a word of 3+ letters of its name or of its tool parameter's description (stop words
aside), or one of its enum values — with the gold value in a fixed template (:data:`ANSWER`: "{Slot}: {value}."); when
it names none, it says :data:`NAG`. Which slots the user knows: an ``ask`` item's ``meta.ask_slots`` (the value the
history no longer supports); a ``call`` item's every gold argument (the user knows what they want: an unneeded question
still gets its answer); a ``cannot`` item none.

**The follow-up set** (:func:`build`): for every first-turn row (``predictions.jsonl`` of an ask-prompt run) that
``pfc.eval.action.classify`` reads as ``ask``, a copy of the item with id ``<id>~followup``, ``meta.followup`` = the
first reply (``assistant``), the user's answer (``user``), the question, the slots answered and the user version; its
gold and action: the first item's, except that an ``ask`` item becomes a ``call`` item (the second turn is scored as a
call against the kept gold). ``pfc.benchmarks.tracebench.ask_prompts`` (variant ``ask-followup``) renders it; the second
turn is an ordinary resumable run on this set. Same inputs, same bytes. It scores nothing.

    >>> answer_text({"car_type": "Express"})
    'Car type: Express.'
"""
from __future__ import annotations

import copy

from pfc.eval.action import classify, names_slot

USER_VERSION = "replay-user-1"
ANSWER = "{slot}: {value}."
NAG = "Please just do what I asked."
TEMPLATES = (USER_VERSION, ANSWER, NAG)
def _value_text(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return " and ".join(_value_text(v) for v in value)
    return str(value)


def answer_text(slots: dict) -> str:
    """The user's answer naming ``{slot: value}`` in :data:`ANSWER`'s template (slots in the order given)."""
    return " ".join(ANSWER.format(slot=s.replace("_", " ").capitalize(), value=_value_text(v)) for s, v in slots.items())


def known_slots(example) -> list[tuple[int, str]]:
    """The (call, argument) slots the user answers for this item (module doc)."""
    if example.action == "ask":
        return [(s["call"], s["argument"]) for s in example.meta["ask_slots"]]
    if example.action == "cannot" or not example.gold:
        return []
    return [(i, a) for i, g in enumerate(example.gold) for a in g.arguments]


def reply(question: str, example, tools_by_key: dict) -> tuple[str, list[str]]:
    """The user's answer to ``question`` about ``example`` and the slots it answered."""
    answered = {}
    for i, a in known_slots(example):
        g = example.gold[i]
        tool = tools_by_key.get(f"{g.app}.{g.function}" if g.app else g.function)
        param = tool.parameters.get("properties", {}).get(a) if tool is not None else None
        if names_slot(question or "", a, param if isinstance(param, dict) else None) and a not in answered:
            answered[a] = g.arguments[a]
    return (answer_text(answered) if answered else NAG), list(answered)


def followup(example, output, tools_by_key: dict, run: str):
    """The follow-up item of one first-turn reply, or None when the reply is not a question."""
    act = classify(output)
    if act.kind != "ask":
        return None
    text, answered = reply(act.question or "", example, tools_by_key)
    v = copy.deepcopy(example)
    v.id = f"{example.id}~followup"
    v.meta["followup"] = {"first_id": example.id, "first_action": example.action, "run": run,
                          "assistant": output if isinstance(output, str) else str(output.get("content") or ""),
                          "question": act.question, "user": text, "answered": answered, "user_version": USER_VERSION}
    if example.action == "ask":
        v.meta["action"] = "call"
        v.meta.pop("ask_slots", None)
    return v


def build(first_turns, tools) -> tuple[list, dict]:
    """Follow-up items of ``first_turns`` — ``(run name, examples, {id: output})`` each, in the order given,
    each run's rows in its examples' order — and the counts per run (rows read, questions)."""
    tools_by_key = {t.key: t for t in tools}
    out, counts = [], {}
    for run, examples, outputs in first_turns:
        made = [f for e in examples if e.id in outputs
                if (f := followup(e, outputs[e.id], tools_by_key, run)) is not None]
        counts[run] = {"rows": sum(1 for e in examples if e.id in outputs), "questions": len(made)}
        out += made
    return out, counts
