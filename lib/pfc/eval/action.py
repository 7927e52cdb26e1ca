"""Read any model reply as one action: ``call`` | ``ask`` | ``cannot`` | ``invalid`` (issue 64).

:func:`classify` never raises and never runs the reply: it reads it with ``pfc.eval.parsing.parse``
(JSON, ``<tool_call>`` tags, fences, native ``tool_calls``), then as plain text. In order:

1. calls parsed: only ``ask_user`` (any app prefix) -> ``ask`` with its ``question`` (else its first string argument);
   only real tools -> ``call``; both -> ``invalid`` (``mixed``);
2. a parsed ``null`` / ``[]`` (no call chosen) -> ``cannot``;
3. one JSON object keyed ``ask``/``question`` -> ``ask``, ``cannot``/``refuse``/``refusal`` -> ``cannot`` (the
   prompt-format answers of ``pfc.benchmarks.tracebench.ask_prompts``);
4. plain text: a sentence ending in ``?`` that is not an offer of more help ("anything else?") -> ``ask`` (that sentence
   is the question); else a refusal phrase ("cannot", "can't", "unable", "no tool", "not supported", "sorry") ->
   ``cannot``;
5. anything else (empty, prose, broken JSON) -> ``invalid`` with the parser's error as the reason.

:func:`names_slot` says whether a question names a slot (the replayable user's rule, ``pfc.data.followup``;
slot precision, ``pfc.eval.ask``).

    >>> classify('{"name": "ask_user", "arguments": {"question": "Which city?"}}').question
    'Which city?'
    >>> classify("Sorry, I cannot do that with the tools I have.").kind
    'cannot'
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from pfc.eval.parsing import MAX_INPUT_CHARS, parse
from pfc.textscan import fenced_blocks, strip_reasoning

KINDS = ("call", "ask", "cannot", "invalid")
ASK_TOOL = "ask_user"
ASK_KEYS = ("ask", "question", "ask_user")
CANNOT_KEYS = ("cannot", "refuse", "refusal", "cannot_help")
_REFUSAL = re.compile(r"\b(cannot|can ?not|can't|can’t|unable|not able|no (?:available |suitable |such )?"
                      r"(?:tool|function|api)s?\b|not (?:supported|possible|available)|don't have (?:a |any )?"
                      r"(?:tool|function|way)|sorry)", re.I)
_OFFER = re.compile(r"\b(anything else|something else|else (?:i|can)|help (?:you )?with (?:anything|something))",
                    re.I)
_SENTENCE = re.compile(r"[^.!?\n]*\?")
_SLOT_STOP = frozenset("the and for with from what which when where who how you your this that are was were have has "
                       "will would like want please name type value number default optional user users".split())


def _slot_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 3 and w not in _SLOT_STOP}




@dataclass
class Action:
    kind: str                              # call | ask | cannot | invalid
    question: str | None = None            # the question of an ask
    calls: list = field(default_factory=list)  # the parsed calls of a call (pfc.schema.Call)
    reason: str | None = None              # why invalid

    def to_json(self) -> dict:
        return {"kind": self.kind, "question": self.question, "calls": [c.to_dict() for c in self.calls],
                "reason": self.reason}


def _is_ask(call) -> bool:
    return call.function.lower() == ASK_TOOL


def _question_of(call) -> str:
    q = call.arguments.get("question")
    if isinstance(q, str):
        return q.strip()
    return next((v.strip() for v in call.arguments.values() if isinstance(v, str)), "")


def _keyed(text: str) -> Action | None:
    """A one-object JSON answer keyed ask/question or cannot/refuse (bare or in a fence)."""
    for cand in [text, *fenced_blocks(text)]:
        try:
            obj = json.loads(cand.strip())
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        keys = {k.lower(): v for k, v in obj.items() if isinstance(k, str)}
        for k in ASK_KEYS:
            if isinstance(keys.get(k), str) and keys[k].strip():
                return Action("ask", question=keys[k].strip())
        if any(k in keys for k in CANNOT_KEYS):
            return Action("cannot")
    return None


def _prose(text: str) -> Action | None:
    questions = [m.group(0).strip() for m in _SENTENCE.finditer(text) if not _OFFER.search(m.group(0))]
    if questions:
        return Action("ask", question=questions[0])
    if _REFUSAL.search(text):
        return Action("cannot")
    return None


def classify(output) -> Action:
    """The action of one reply (text, or an assistant message dict with ``tool_calls``); never raises."""
    try:
        return _classify(output)
    except Exception as e:  # a classifier never raises: anything unforeseen is a typed invalid row
        return Action("invalid", reason=f"internal: {type(e).__name__}")


def _classify(output) -> Action:
    r = parse(output)
    if r.ok and r.calls:
        asks = [c for c in r.calls if _is_ask(c)]
        if asks and len(asks) < len(r.calls):
            return Action("invalid", reason="mixed: a question and a tool call")
        if asks:
            return Action("ask", question=_question_of(asks[0]))
        return Action("call", calls=list(r.calls))
    if r.ok:
        return Action("cannot")
    text = output.get("content") or "" if isinstance(output, dict) else output
    if not isinstance(text, str) or len(text) > MAX_INPUT_CHARS or "\x00" in text:
        return Action("invalid", reason=r.error)
    bases, err = strip_reasoning(text)
    body = "\n".join(b.strip() for b in bases if b.strip()) if not err else ""
    if not body:
        return Action("invalid", reason=r.error)
    return _keyed(body) or _prose(body) or Action("invalid", reason=r.error)


def names_slot(question: str, slot: str, param: dict | None = None) -> bool:
    """Whether ``question`` names ``slot`` (its name, a word of its name or description, an enum value).

    >>> names_slot("Which car type would you like?", "car_type"), names_slot("Where to?", "car_type")
    (True, False)
    """
    q = question.lower()
    if slot.lower() in q or slot.replace("_", " ").lower() in q:
        return True
    qw = _slot_words(q)
    param = param or {}
    enum = [str(e).lower() for e in param.get("enum", []) if str(e).strip()]
    return bool(qw & (_slot_words(slot.replace("_", " ")) | _slot_words(str(param.get("description", ""))))) \
        or any(e in q for e in enum)
