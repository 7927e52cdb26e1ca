"""TRACEBench's ask-allowed prompt (issue 64): call a tool, ask the user one question, or say it cannot help.

The same prompt as its package's ``prompts`` (history in the system text, then the tools, the current time and the
request) with another instruction: infer what the history supports, but when a required value is neither in the request
nor supported by the history, ask one short question instead of guessing, and when no offered tool can do the job, say
so instead of calling one. Both answer routes:

- native tools (``--native``, the default): the candidate tools plus a pseudo-tool ``ask_user(question)``; "cannot" is a
  plain-text reply;
- prompt format: one JSON object, a call ``{"name", "arguments"}``, ``{"ask": "<question>"}`` or ``{"cannot":
  "<reason>"}``.

Variants (``RunConfig.prompt_variant``): ``ask`` (first turn) and ``ask-followup`` (second turn: the first turn's
messages, the model's own first reply as the assistant turn, then the replayable user's answer, ``pfc.data.followup``;
the example carries both in ``meta.followup``). Each has its own template identity (:func:`template_identity`; the
follow-up's names the user simulator's version), so their runs never share an identity with the standard prompt's.
Replies are read by ``pfc.eval.action``. It calls no model.

    >>> ASK_TOOL["function"]["name"]
    'ask_user'
"""
from __future__ import annotations

import json

from pfc.benchmarks.tracebench import prompts as tb
from pfc.data import followup
from pfc.errors import UserError
from pfc.run.prompts import template_sha


ASK_SYSTEM = ("You are an assistant on the user's phone. Several apps offer similar functions: choose the app this "
              "user would choose. Fill in every parameter the user would want, inferring values the request leaves "
              "unsaid from the user's interaction history (long-term habits and what they did recently). Reply in "
              "exactly one of three ways: call one tool when the request and the history give every required "
              "value; if a required value is neither in the request nor supported by the history, do not guess: "
              "ask the user one short question about it with ask_user; if none of the available tools can do what "
              "the user asks, call no tool and reply in one sentence that you cannot help with this request.")
ASK_FORMAT = ("\n\nAvailable tools (JSON):\n{tools}\n\nAnswer with one JSON object and nothing else: "
              '{{"name": "<App>__<function>", "arguments": {{...}}}} to call a tool, '
              '{{"ask": "<one short question>"}} to ask the user for a value you cannot infer, or '
              '{{"cannot": "<one sentence>"}} if no available tool can do it.')
ASK_TOOL = {"type": "function", "function": {
    "name": "ask_user",
    "description": "Ask the user one short question, only when a required value is neither in the request nor "
                   "supported by the user's history.",
    "parameters": {"type": "object", "properties": {"question": {"type": "string", "description": "The question"}},
                   "required": ["question"]}}}
VARIANTS = ("ask", "ask-followup")


def build(example, tools_by_key: dict, variant: str = "ask", native: bool = True, history: str = "full",
          k: int = 50, strategy: str = "zero_shot", pool=(), seed: int = 0, domain: str | None = None):
    """(messages, tool specs or None) of ``variant`` for ``example``."""
    if variant not in VARIANTS:
        raise UserError(f"unknown TRACEBench prompt variant {variant!r}; expected all or one of {VARIANTS}")
    prompt, specs = tb.build(example, tools_by_key, native=native, history=history, k=k, strategy=strategy,
                             pool=pool, seed=seed, domain=domain, system=ASK_SYSTEM, prompt_format=ASK_FORMAT)
    messages = list(prompt.messages)
    if variant == "ask-followup":
        turn = example.meta.get("followup")
        if not (isinstance(turn, dict) and isinstance(turn.get("assistant"), str) and isinstance(turn.get("user"), str)):
            raise UserError(f"example {example.id!r}: the follow-up prompt needs meta.followup {{assistant, user}} "
                            "(pfc.data.followup)", field="meta.followup")
        messages += [{"role": "assistant", "content": turn["assistant"]}, {"role": "user", "content": turn["user"]}]
    return messages, (specs + [ASK_TOOL] if native else None)


def request(rb, example, domain: str | None = None):
    """The run's request under its ask variant (``pfc.run.requests.RequestBuilder`` ``rb``)."""
    return build(example, rb.tools_by_key, rb.prompt_variant, native=rb.native, history=rb.history, k=rb.k,
                 strategy=rb.strategy, pool=rb.pool, seed=rb.seed, domain=domain)


def domain_request(rb, example):
    """The hierarchical strategy's step 1: the standard prompt's."""
    return tb.domain_request(rb, example)


def template_identity(variant: str) -> dict:
    """``{"source", "sha256"[, "user_simulator"]}`` of ``variant``: what a fixed example renders in both tool
    formats (and, for the follow-up, the user simulator's version and reply templates)."""
    (ex,), tools, _ = tb._canonical()
    ex.meta["followup"] = {"assistant": '{"ask": "Which city?"}', "user": followup.answer_text({"city": "Chengdu"})}
    out = [build(ex, tools, variant, native=n, history="last_k", k=2) for n in (True, False)]
    ident = {"source": f"own ({variant})", "sha256": template_sha(json.dumps(out, ensure_ascii=False, sort_keys=True))}
    if variant == "ask-followup":
        ident["user_simulator"] = followup.USER_VERSION
        ident["sha256"] = template_sha(ident["sha256"], *followup.TEMPLATES)
    return ident
