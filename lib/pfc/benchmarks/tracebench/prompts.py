"""TRACEBench prompts: the user's history, the current time and the request, with the
candidate tools as native function-calling specs (names ``App__function``) or, in prompt format, as JSON in the user
message with a JSON answer format.

Layout (prefix reuse): system = instructions + the user's history (records written ``<time> App__function(...)``, the
same name form as the tools); then the template's tool block (native) or, in prompt format, the tools at the start of
the user message; then the current time and the request. A user's consecutive requests therefore share the system text
up to the end of the shorter history. This order already puts the invariant parts first, so both layouts
(``pfc.run.prompts.LAYOUTS``: ``paper``, ``prefix``) give the same bytes here: the candidate tools differ per anchor and
the chat template places them after the system text.

Prompt variants (``--prompt-variant``; :data:`VARIANTS`): the axes of ``pfc.benchmarks.tracebench.formats`` (how history
records are written and ordered, the answer format); ``all`` is the prompt above, byte for byte.

    >>> SYSTEM.startswith("You are")
    True
"""
from __future__ import annotations

import json

from pfc.benchmarks.tracebench import formats
from pfc.run.history import record_text, select_history
from pfc.render import tool_name
from pfc.run.prompts import Prompt, check_layout, pick_demonstrations, template_sha
from pfc.schema import Example, GoldCall, HistoryEntry, Tool

SYSTEM = ("You are an assistant on the user's phone. Fulfil the user's request with exactly one function call. "
          "Several apps offer similar functions: choose the app this user would choose. Fill in every "
          "parameter the user would want, inferring values the request leaves unsaid from the user's "
          "interaction history (long-term habits and what they did recently).")
PROMPT_FORMAT = ("\n\nAvailable tools (JSON):\n{tools}\n\nAnswer with one JSON object and nothing else: "
                 '{{"name": "<App>__<function>", "arguments": {{...}}}}')
# the ask-allowed variants (issue 64) are another part of the package: variant -> that part, whose request() and
# template_identity(variant) serve them; every other variant is a setting of the prompt axes (formats, issue 65)
VARIANT_PROMPTS = {"ask": "ask_prompts", "ask-followup": "ask_prompts"}
PYTHON_FORMAT = ("\n\nAvailable tools (JSON):\n{tools}\n\nAnswer with one Python function call on one line and "
                 'nothing else: <App>.<function>(<parameter>=<value>, ...), the tool "<App>__<function>" written '
                 "<App>.<function>, strings in double quotes")
COT = " Think step by step about the user's habits and recent context before you answer."


def __getattr__(attr: str):
    """``VARIANTS``: every registered combination of the prompt axes (read when asked: an axis registered later
    counts), then the ask-allowed variants."""
    if attr == "VARIANTS":
        return (*formats.VARIANTS, *VARIANT_PROMPTS)
    raise AttributeError(attr)


def check_variant(variant: str, native: bool) -> None:
    """``RunConfig.check``'s hook: refuse a variant that cannot work with the run's tool format (the ask-allowed
    variants work with both)."""
    if variant not in VARIANT_PROMPTS:
        formats.check(variant, native)


def tool_specs(tools) -> list[dict]:
    return [{"type": "function", "function": {
        "name": tool_name(t.app, t.function),
        "description": f"[{t.app}] {t.description}" + (f" ({t.app_description})" if t.app_description else ""),
        "parameters": t.parameters}} for t in tools]


def domain_prompt(example, tools_by_key: dict) -> Prompt:
    """Hierarchical step 1: which scenario does the request belong to (given the candidate apps)?"""
    keys = example.tools or sorted(tools_by_key)
    scen: dict[str, dict[str, str]] = {}
    for key in keys:
        t = tools_by_key.get(key)
        if t is not None:
            scen.setdefault(t.domain or "Other", {}).setdefault(t.app, t.app_description or "")
    lines = ["Which scenario does the user's request belong to? Scenarios and their apps:"]
    lines += [f"- {d}: {', '.join(apps)}" for d, apps in scen.items()]
    lines += ["", f"Request: {example.query}", "", "Answer with the scenario name only."]
    # meta["domains"]: what step 1 showed, {scenario: {app: description}}, for pfc.run.prompts.match_domain
    return Prompt([{"role": "user", "content": "\n".join(lines)}], "hierarchical", "domain", {"domains": scen})


def demonstrations(example, pool, k: int, seed: int, python: bool = False) -> list[dict]:
    """Few-shot turns from other anchors of the pool (never this anchor): request -> the gold call (a JSON call, or
    with ``python`` the ``answer=python`` variant's call line)."""
    anchor = example.meta.get("anchor_id")
    demos = pick_demonstrations(pool, example.id, k, seed, exclude=lambda d: d.meta.get("anchor_id") == anchor
                                or d.gold is None)
    turns = []
    for d in demos:
        g = d.gold[0]
        answer = formats.python_call(g.app, g.function, g.arguments) if python else \
            json.dumps({"name": tool_name(g.app, g.function), "arguments": g.arguments}, ensure_ascii=False)
        turns += [{"role": "user", "content": f"Request: {d.query}"}, {"role": "assistant", "content": answer}]
    return turns


def build(example, tools_by_key: dict, native: bool = True, history: str = "full", k: int = 50,
          strategy: str = "zero_shot", pool=(), shots: int = 3, seed: int = 0,
          domain: str | None = None, layout: str = "paper", variant: str = formats.DEFAULT_NAME,
          system: str | None = None, prompt_format: str | None = None) -> tuple[Prompt, list[dict] | None]:
    """(prompt, tool specs or None). ``tools_by_key``: tool key -> Tool; ``pool``: few-shot sources;
    ``domain``: hierarchical step 2 keeps only that scenario's tools (all of them when None); ``variant``: a prompt
    variant (``pfc.benchmarks.tracebench.formats``); ``system``, ``prompt_format``: another instruction's wording
    (``pfc.benchmarks.tracebench.ask_prompts``)."""
    check_layout(layout)
    chosen = formats.settings(variant)
    formats.check(variant, native)
    keys = example.tools or sorted(tools_by_key)
    if domain is not None:
        keys = [key for key in keys if key in tools_by_key and tools_by_key[key].domain == domain] or keys
    specs = tool_specs([tools_by_key[key] for key in keys if key in tools_by_key])
    hist = select_history(example, history, k)
    now = example.meta.get("anchor_time", "")
    lines = formats.lines(hist, chosen, record_text)
    # History first, in the system message: chat templates (Qwen/Hermes) append the tool block after the
    # system text, and each example has its own candidate tools, so only text before the tools can be a
    # prefix shared by a user's consecutive requests (pfc.run.backends.hf reuses it; vLLM caches it).
    system = ((SYSTEM if system is None else system) + (COT if strategy == "cot" else "")
              + f"\n\nThe user's interaction history, {formats.order_words(chosen)}:\n" + "\n".join(lines))
    user = f"({len(hist)} of {len(example.history)} history records shown)\nCurrent time: {now}\nRequest: {example.query}"
    if not native:
        answer = PYTHON_FORMAT if chosen["answer"] == "python" else (prompt_format or PROMPT_FORMAT)
        user = answer.format(tools=json.dumps([s["function"] for s in specs], ensure_ascii=False)).strip() \
            + "\n\n" + user
    demos = demonstrations(example, pool, shots, seed, chosen["answer"] == "python") if strategy == "few_shot" else []
    messages = [{"role": "system", "content": system}, *demos, {"role": "user", "content": user}]
    meta = {"history_mode": history, "history_records": len(hist), "native_tools": native}
    return Prompt(messages, strategy, "answer", meta), (specs if native else None)


def request(rb, example, domain: str | None = None) -> tuple[list[dict], list[dict] | None]:
    """The run's answer request (``pfc.run.requests.RequestBuilder`` ``rb``): messages and tool specs."""
    prompt, specs = build(example, rb.tools_by_key, native=rb.native, history=rb.history, k=rb.k,
                          strategy=rb.strategy, pool=rb.pool, seed=rb.seed, domain=domain,
                          layout=getattr(rb, "layout", "paper"), variant=getattr(rb, "prompt_variant", "all"))
    return prompt.messages, specs


def domain_request(rb, example) -> Prompt:
    """The hierarchical strategy's step 1 (``meta["domains"]``: the names it may answer with)."""
    return domain_prompt(example, rb.tools_by_key)


def _canonical() -> tuple[list, dict, list]:
    """A tiny fixed example (two tools, three history records) and a few-shot pool of one: what
    :func:`template_identity` renders."""
    params = {"type": "object", "properties": {"city": {"type": "string", "description": "City"}}, "required": ["city"]}
    tools = {t.key: t for t in (Tool("Maps", "route", "Plan a route", "Travel", params, app_description="maps"),
                                Tool("Taxi", "order", "Order a car", "Travel", params))}
    hist = [HistoryEntry(f"2025-01-0{i}T08:00:00", app, "route" if app == "Maps" else "order", {"city": c})
            for i, (app, c) in enumerate((("Maps", "Chengdu"), ("Taxi", "Xi'an"), ("Maps", "Chengdu")), 1)]
    ex = Example("c-1", "tracebench", "Take me to the airport", [GoldCall("Maps", "route", {"city": "Chengdu"})],
                 "u", history=hist, meta={"anchor_id": "c", "anchor_time": "2025-01-04T08:00:00"})
    demo = Example("d-1", "tracebench", "Book a ride", [GoldCall("Taxi", "order", {"city": "Xi'an"})], "u",
                   meta={"anchor_id": "d"})
    return [ex], tools, [demo]


def template_identity(variant: str = formats.DEFAULT_NAME) -> dict:
    """Our TRACEBench wording, by content hash of what it renders: a fixed example's prompts in every
    history mode (k=2), both tool formats, each strategy and hierarchical step 1. Any change to the wording, the history
    record form or the tool names changes it; moving code does not (a run's identity must not change when no request
    does). A prompt ``variant`` other than ``all`` renders the same prompts under it (tools in the prompt where it needs
    them) and hashes them with its name: the default's hash is the one runs recorded before variants existed."""
    (ex,), tools, pool = _canonical()
    out = [domain_prompt(ex, tools).messages]
    python = formats.settings(variant)["answer"] == "python"
    for history, native, strategy in (("full", True, "zero_shot"), ("last_k", False, "cot"),
                                      ("retrieved", True, "few_shot")):
        prompt, specs = build(ex, tools, native=native and not python, history=history, k=2, strategy=strategy,
                              pool=pool, shots=1, variant=variant)
        out.append([prompt.messages, specs])
    if variant != formats.DEFAULT_NAME:
        out = [variant, out]
    return {"source": "own", "sha256": template_sha(json.dumps(out, ensure_ascii=False, sort_keys=True))}
