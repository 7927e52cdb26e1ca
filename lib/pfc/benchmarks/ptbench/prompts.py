"""PTBench prompts (PTBench §5.1 and App. C, Fig. 7): the user profile, the platforms and
their APIs, and the answer format ``platform:[func1(param1_name=param1_value, ...), func2(...)]``.

Two wordings of the same content:

- ``official``: the published prompt, read at run time from a PTBench checkout (``PFC_PTBENCH_DIR``, file
  ``src/template.py``; its ``prompt`` and ``format`` strings are read with ``ast``, never executed, and never copied
  into this repository). As published, profile, platforms and tools are inserted as Python reprs.
- ``own``: our wording (the fallback when no checkout is configured).

Profile variants (PTBench Table 2, Fig. 3, Table 3), applied to the same examples: ``all`` | ``no_basic`` (basic
features dropped) | ``no_history`` (behaviour history dropped) | ``no_basic_history`` (both) | ``no_personal`` (Table 3:
every piece of personalized information removed from the instruction: no profile section at all).

Layouts (``pfc.run.prompts.LAYOUTS``): ``paper`` as above; ``prefix`` moves the profile after the platforms, the APIs
and the answer format (the official wording: its profile sentence moves to the end), so a scenario's prompts share
everything but the profile and the query, and one user's prompts in a scenario everything but the query.

    >>> FORMAT
    'platform:[func1(param1_name=param1_value, param2_name=param2_value), func2(...)]'
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

from pfc import paths
from pfc.errors import UserError
from pfc.render import render_ptbench
from pfc.run.prompts import Prompt, check_layout, pick_demonstrations, template_sha
from pfc.schema import Call, Example, GoldCall

FORMAT = "platform:[func1(param1_name=param1_value, param2_name=param2_value), func2(...)]"
SYSTEM = ("You act for a user whose profile is given below. Several platforms offer similar APIs: choose the "
          "platform that fits the user's profile or the needs of the request, then call its APIs. Everything "
          "you need is in the profile; do not ask the user for more.\n\nUser profile:\n{profile}\n\n"
          "Platforms:\n{platforms}\n\nAPIs of the platforms:\n{tools}\n\n"
          "Respond only in the format " + FORMAT + " and nothing else.")
SYSTEM_NO_PERSONAL = ("Several platforms offer similar APIs: choose the platform that fits the request, then call "
                      "its APIs.\n\nPlatforms:\n{platforms}\n\nAPIs of the platforms:\n{tools}\n\n"
                      "Respond only in the format " + FORMAT + " and nothing else.")
SYSTEM_PREFIX = ("You act for a user whose profile is given at the end. Several platforms offer similar APIs: choose "
                 "the platform that fits the user's profile or the needs of the request, then call its APIs. "
                 "Everything you need is in the profile; do not ask the user for more.\n\n"
                 "Platforms:\n{platforms}\n\nAPIs of the platforms:\n{tools}\n\n"
                 "Respond only in the format " + FORMAT + " and nothing else.\n\nUser profile:\n{profile}")
OFFICIAL_PROFILE = "You are given a user profile:{profile}. \n"
VARIANTS = ("all", "no_basic", "no_history", "no_basic_history", "no_personal")
WORDINGS = ("auto", "official", "own")


class OfficialPromptError(UserError):
    """The configured PTBench checkout has no readable official prompt."""


def official_template(ptbench_dir) -> tuple[str, str]:
    """(prompt, format) string constants of ``<ptbench_dir>/src/template.py``, read with ``ast``."""
    path = Path(ptbench_dir) / "src" / "template.py"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError) as e:
        raise OfficialPromptError(f"{path}: cannot read the official PTBench prompt ({type(e).__name__})") from None
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id in ("prompt", "format"):
                    found[t.id] = node.value.value
    if set(found) != {"prompt", "format"}:
        raise OfficialPromptError(f"{path}: no string constants 'prompt' and 'format'")
    for field in ("{profile}", "{platforms}", "{tools}", "{format}"):
        if field not in found["prompt"]:
            raise OfficialPromptError(f"{path}: the official prompt lacks {field}")
    return found["prompt"], found["format"]


def profile_variant(profile, variant: str):
    """The profile as shown under an ablation variant (PTBench Table 2)."""
    if variant not in VARIANTS:
        raise UserError(f"unknown PTBench prompt variant {variant!r}; expected one of {VARIANTS}")
    if not isinstance(profile, dict) or variant in ("all", "no_personal"):
        return profile
    drop = {"no_basic": ("basic_features",), "no_history": ("user_history",),
            "no_basic_history": ("basic_features", "user_history")}[variant]
    return {k: v for k, v in profile.items() if k not in drop}


def _wording(wording: str):
    if wording not in WORDINGS:
        raise UserError(f"unknown PTBench prompt wording {wording!r}; expected one of {WORDINGS}")
    d = paths.ptbench_dir()
    if wording == "own" or (wording == "auto" and d is None):
        return None
    if d is None:
        raise OfficialPromptError("the official PTBench prompt needs PFC_PTBENCH_DIR (a hyfshadow/PTBench checkout)")
    return official_template(d)


def system_prompt(example, variant: str = "all", wording: str = "auto", layout: str = "paper") -> str:
    check_layout(layout)
    profile = profile_variant(example.profile, variant)
    platforms, tools = example.meta.get("platforms"), example.meta.get("official_tools")
    official = _wording(wording)
    if official is not None:
        text, fmt = official
        if variant == "no_personal":  # drop the profile sentence and the profile references
            text = text.replace("You are given a user profile:{profile}. \n", "").replace(
                "Based on the profile, try", "Try").replace(
                "The platform you choose should fit the user profile or the needs of the user's query. All the "
                "necessary information are provided in the user profile. ", "")
            profile = {}  # whatever wording is left, no personal information goes in
        elif layout == "prefix":
            if OFFICIAL_PROFILE not in text:
                raise OfficialPromptError("the official PTBench prompt has no profile sentence to move "
                                          "(--layout prefix); use --layout paper")
            text = text.replace(OFFICIAL_PROFILE, "") + "\n" + OFFICIAL_PROFILE.strip()
        return text.replace("{profile}", str(profile)).replace("{platforms}", str(platforms)).replace(
            "{tools}", str(tools)).replace("{format}", fmt)
    dump = lambda v: json.dumps(v, ensure_ascii=False)  # noqa: E731
    if variant == "no_personal":
        return SYSTEM_NO_PERSONAL.format(platforms=dump(platforms), tools=dump(tools))
    return (SYSTEM_PREFIX if layout == "prefix" else SYSTEM).format(profile=dump(profile), platforms=dump(platforms), tools=dump(tools))


def demonstrations(example, pool, k: int, seed: int) -> list[dict]:
    """Few-shot turns from other samples (never this one, nor one with the same query)."""
    demos = pick_demonstrations(pool, example.id, k, seed, exclude=lambda d: d.query == example.query or not d.gold)
    turns = []
    for d in demos:
        turns += [{"role": "user", "content": d.query},
                  {"role": "assistant", "content": render_ptbench([Call(g.app, g.function, g.arguments) for g in d.gold])}]
    return turns


def build(example, strategy: str = "zero_shot", pool=(), seed: int = 0, shots: int = 3, variant: str = "all",
          wording: str = "auto", layout: str = "paper") -> Prompt:
    system = system_prompt(example, variant, wording, layout)
    if strategy == "cot":
        system += " First reason briefly about the profile, then give the answer on the last line."
    demos = demonstrations(example, pool, shots, seed) if strategy == "few_shot" else []
    return Prompt([{"role": "system", "content": system}, *demos, {"role": "user", "content": example.query}],
                  strategy, "answer", {"variant": variant, "wording": "own" if _wording(wording) is None else "official"})


def request(rb, example, domain: str | None = None) -> tuple[list[dict], None]:
    """The run's answer request (``pfc.run.requests.RequestBuilder`` ``rb``); PTBench has no domain step."""
    return build(example, rb.strategy, rb.pool, rb.seed, variant=rb.prompt_variant,
                 layout=getattr(rb, "layout", "paper")).messages, None


def _canonical():
    """A tiny fixed example (a profile with basic features and history, two platforms, one API) and a
    few-shot pool of one: what :func:`template_identity` renders."""
    meta = {"platforms": [{"name": "A", "profile": {"focus": "teams"}}, {"name": "B", "profile": {"focus": "solo"}}],
            "official_tools": [{"type": "function", "function": {"name": "f", "description": "Do f.", "parameters": {
                "type": "object", "properties": {"x": {"type": "string", "description": "X."}}}}}]}
    profile = {"basic_features": {"city": "Berlin"}, "user_history": {"work": [{"platform": "A", "action": "f"}]}}
    ex = Example("c", "ptbench", "Do f with x", [GoldCall("A", "f", {"x": "1"})], "u", profile=profile, meta=meta)
    demo = Example("d", "ptbench", "Do f", [GoldCall("B", "f", {"x": "2"})], "v", profile=profile, meta=meta)
    return ex, [demo]


def template_identity() -> dict:
    """PTBench's official prompt (``PFC_PTBENCH_DIR``) or our wording, by content hash of what it renders: a
    fixed example's prompts under every profile variant and layout and each strategy. A changed word (in a template or
    in code) is a new run; moved code is not."""
    source = "own" if _wording("auto") is None else "official"
    ex, pool = _canonical()

    def render(**kw):
        try:
            return build(ex, pool=pool, shots=1, **kw).messages
        except OfficialPromptError as e:  # an official prompt without the sentence --layout prefix moves
            return str(e)
    out = [render(variant=v, layout=lay) for v in VARIANTS for lay in ("paper", "prefix")]
    out += [render(strategy=st) for st in ("cot", "few_shot")]
    return {"source": source, "sha256": template_sha(json.dumps(out, ensure_ascii=False, sort_keys=True))}
