"""The gold action of an example (issue 64): ``call`` (every benchmark item so far), ``ask`` or ``cannot``.

An example's ``meta.action`` names it; absent means ``call``, so every examples file written before actions existed
loads unchanged and keeps its bytes (and its runs' content hashes). ``ask`` items keep the gold call (a follow-up turn
is scored against it) and name the slot(s) a question should ask about in ``meta.ask_slots`` (``[{"call": i, "argument":
name}]``, each a gold argument); ``cannot`` items have ``null`` gold. :func:`check` validates both keys for
``pfc.schema``; the items are made by ``pfc.data.counterfactual_ask``, replies are read by ``pfc.eval.action``. It runs
and scores nothing.

    >>> action_of({}), action_of({"action": "ask"})
    ('call', 'ask')
"""
from __future__ import annotations

from pfc.jsonl import SchemaError

ACTIONS = ("call", "ask", "cannot")


def action_of(meta: dict) -> str:
    return meta.get("action") or "call"


def check(meta: dict, gold) -> None:
    """Raise ``SchemaError`` (field ``meta.action`` / ``meta.ask_slots``) for a bad action or slot list;
    ``gold``: the example's gold calls (``GoldCall`` list) or None."""
    action = meta.get("action", "call")
    if action not in ACTIONS:
        raise SchemaError(f"expected one of {ACTIONS}, got {action!r}", field="meta.action")
    if action == "cannot" and gold is not None:
        raise SchemaError("a cannot item has null gold", field="gold")
    slots = meta.get("ask_slots")
    if action != "ask":
        if slots is not None:
            raise SchemaError("only an ask item names slots", field="meta.ask_slots")
        return
    if not gold:
        raise SchemaError("an ask item keeps the gold call its follow-up turn is scored against", field="gold")
    if not isinstance(slots, list) or not slots:
        raise SchemaError("expected a non-empty list of {call, argument}", field="meta.ask_slots")
    for n, s in enumerate(slots):
        ok = (isinstance(s, dict) and set(s) == {"call", "argument"} and isinstance(s["call"], int)
              and not isinstance(s["call"], bool) and 0 <= s["call"] < len(gold)
              and s["argument"] in gold[s["call"]].arguments)
        if not ok:
            raise SchemaError("expected {call, argument} naming an argument of a gold call",
                              field=f"meta.ask_slots[{n}]")
