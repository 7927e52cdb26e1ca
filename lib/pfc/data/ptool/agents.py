"""Queries and solutions (PTBench §4.3): user agent, assistant agent, validation, annotation.

- *User agent*: role-plays the user to write a request for APIs of the scenario on a chosen platform. Usually that is
  the user's preferred platform and the request names no platform; sometimes the request states a need that only another
  platform's characteristics meet (the platform then follows from the query). Profile values are never written into the
  request (profile-dependent queries). Offline: the catalogue's templates; with an LLM: a rewrite of the template
  request, kept only if it still states every query value and leaks no profile value.
- *Assistant agent*: writes the solution ``[platform, [{function: {param: [values]}}]]`` from the full profile (implicit
  preferences included). Offline: exact; with an LLM: its answer in PTBench's bracket format, kept when it passes
  :func:`validate`.
- :func:`validate`: rule-based checks (format round trip, hallucinated platforms, tools or parameters, missing required
  parameters, types and enumerations).
- :func:`verify`: model-based verification (LLM only): profile, query and solution in, yes/no out.
- :func:`annotate`: each argument query- or profile-dependent (PTBench App. B.2).

    >>> validate(["P", [{"f": {"x": [1]}}]], {"f": {"x": {"type": "integer"}}}, ["P"])
    []
"""
from __future__ import annotations

import json
import random
import re

from pfc.benchmarks.ptbench.official import OfficialFormatError, official_parse
from pfc.render import render_ptbench
from pfc.schema import Call
from pfc.data.ptool.catalogue import TYPES


def _has(text: str, v) -> bool:
    s = str(v).lower()
    return re.search(r"(?<![\w-])" + re.escape(s) + r"(?![\w-])", text.lower()) is not None


def user_agent(rng: random.Random, cat, scenario, user, fns: list, hint_rate: float = 0.2, chat=None):
    """(query, platform, query values per function, platform_from_query)."""
    pref = user.platform[scenario.name]
    platform, hint = pref, None
    if rng.random() < hint_rate:
        other = rng.choice([p for p in scenario.platforms if p["name"] != pref])
        platform, hint = other["name"], other["hint"]
    parts, values = [], []
    for fn in fns:
        vals = {p.name: rng.choice(cat.pools[p.pool]) for p in fn.params if p.source == "query"}
        parts.append(rng.choice(fn.templates).format(**vals))
        values.append(vals)
    query = " Then ".join([parts[0]] + [p if p.startswith("I ") else p[0].lower() + p[1:] for p in parts[1:]])
    if hint:
        query = query.rstrip(".?!") + f", {hint}."
    if chat is not None:
        query = _llm_rewrite(chat, query, values, user, fns)
    return query, platform, values, hint is not None


REWRITE = ("Rewrite this request the way {name} ({occupation}) would say it to an assistant, in one or two "
           "sentences. Keep every detail it states; do not add personal details. Request: {query}\nAnswer with "
           "the request only.")


def _llm_rewrite(chat, query, values, user, fns):
    text = " ".join(chat([{"role": "user", "content": REWRITE.format(query=query, **user.basic)}]).split())
    profile_vals = [user.value(p.name, None) if p.enum is not None else None for fn in fns for p in fn.params
                    if p.source == "profile"]
    ok = (text and len(text) < 600 and all(_has(text, v) for vs in values for v in vs.values())
          and not any(isinstance(v, str) and len(v) > 3 and _has(text, v) for v in profile_vals)
          and not any(_has(text, user.basic[k]) for k in ("address", "email", "name")))
    return text if ok else query


def assistant_agent(user, fns: list, platform: str, values: list, basic_keys: dict) -> list:
    """The exact solution from the full profile: ``[platform, [{fn: {param: [value]}}]]``."""
    calls = []
    for fn, vals in zip(fns, values):
        args = {}
        for p in fn.params:
            args[p.name] = [vals[p.name] if p.source == "query" else user.value(p.name, basic_keys.get(p.name))]
        calls.append({fn.name: args})
    return [platform, calls]


SOLVE = ("You are the assistant of this user. Full profile (hidden preferences included): {profile}\n"
         "Preferred platforms: {platforms}\nPlatforms: {choices}\nAPIs: {tools}\nRequest: {query}\n"
         "Answer only in the format platform:[func1(param1=value1, ...), func2(...)] with every parameter filled.")


def llm_assistant(chat, user, query, platforms, tools) -> list | None:
    """The LLM's solution as an official answer, or None when it does not parse."""
    text = chat([{"role": "user", "content": SOLVE.format(
        profile=json.dumps({**user.basic, **user.implicit}, ensure_ascii=False), platforms=json.dumps(user.platform),
        choices=[p["name"] for p in platforms], tools=json.dumps(tools, ensure_ascii=False), query=query)}])
    try:
        plat, funcs = official_parse(text.strip())
    except OfficialFormatError:
        return None
    return [str(plat), [{n: {k: [v] for k, v in a.items()}} for f in funcs for n, a in f.items()]]


def llm_or_exact(chat, user, query, scenario, tools, specs: dict, fns: list, exact: list, counts: dict) -> list:
    """The LLM assistant's solution when it passes :func:`validate` and calls ``fns`` in order (counted in
    ``counts["llm_solutions"]``), else the exact one."""
    proposal = llm_assistant(chat, user, query, scenario.platforms, tools)
    if proposal and not validate(proposal, specs, scenario.platform_names) and \
            [next(iter(f)) for f in proposal[1]] == [f.name for f in fns]:
        counts["llm_solutions"] += 1
        return proposal
    return exact


VERIFY = ("User profile: {profile}\nRequest: {query}\nProposed tool call: {answer}\nAre the platform, the "
          "functions and every parameter value correct for this user and request, with nothing invented? "
          "Answer yes or no.")


def verify(chat, user, query, answer) -> bool:
    """Model-based verification: True unless the LLM says no."""
    text = chat([{"role": "user", "content": VERIFY.format(
        profile=json.dumps({**user.basic, **user.implicit, "platforms": user.platform}, ensure_ascii=False),
        query=query, answer=render_answer(answer))}])
    return not text.strip().lower().startswith("no")


def render_answer(answer) -> str:
    platform, funcs = answer
    return render_ptbench([Call(platform, n, {k: v[0] for k, v in a.items()}) for f in funcs for n, a in f.items()],
                          platform)


def validate(answer, specs: dict, platforms: list[str]) -> list[str]:
    """Rule-based validation; ``specs`` = {function: {param: json-schema}}. Returns the problems found."""
    problems = []
    try:
        platform, funcs = answer
        parsed = official_parse(render_answer(answer))
    except (ValueError, TypeError, OfficialFormatError) as e:
        return [f"format: {type(e).__name__}"]
    if platform not in platforms:
        problems.append(f"hallucinated platform {platform!r}")
    if [next(iter(f)) for f in parsed[1]] != [next(iter(f)) for f in funcs]:
        problems.append("format: round trip changed the calls")
    for f in funcs:
        name, args = next(iter(f.items()))
        if name not in specs:
            problems.append(f"hallucinated tool {name!r}")
            continue
        for p in specs[name]:
            if p not in args:
                problems.append(f"{name}: missing parameter {p!r}")
        for p, vals in args.items():
            if p not in specs[name]:
                problems.append(f"{name}: hallucinated parameter {p!r}")
                continue
            spec = specs[name][p]
            for v in vals:
                want = TYPES[spec["type"]]
                if not isinstance(v, want) or (want is int and isinstance(v, bool)):
                    problems.append(f"{name}.{p}: {v!r} is not {spec['type']}")
                elif "enum" in spec and v not in spec["enum"]:
                    problems.append(f"{name}.{p}: {v!r} not in {spec['enum']}")
    return problems


def annotate(query: str, answer, query_values: list[dict]) -> tuple[list[str], list[str], list[str]]:
    """(query_params, profile_params, problems): query-dependent when the query states the value.

    Names are listed once per occurrence, so oracle answers score exactly 1.0 under the published evaluator's
    per-parameter counting."""
    qp, pp, problems = [], [], []
    for f, stated in zip(answer[1], query_values):
        for p, vals in next(iter(f.values())).items():
            in_query = _has(query, vals[0])
            if p in stated and not in_query:
                problems.append(f"query value {vals[0]!r} of {p!r} not in the query")
            elif p not in stated and in_query and isinstance(vals[0], str) and len(vals[0]) > 3:
                problems.append(f"profile value {vals[0]!r} of {p!r} leaked into the query")
            # one entry per occurrence: the published evaluator credits each predicted parameter,
            # so a name used by two calls counts twice in its denominator too (ptbench_official quirk 11)
            (qp if p in stated else pp).append(p)
    return qp, pp, problems
