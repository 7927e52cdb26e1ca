"""ToolSpectrum prompts: the release's own templates filled at run time, or our own wording.

Paper-faithful mode (a release directory is given): the subset's template
(``prompts/prompt_call_api{_persona,_environment,}.txt``) is read at run time — never copied into this repository — and
its placeholders are replaced: the instruction as is; persona, environment and toolset (the subset's raw
``API_description*.json``) as ``json.dumps(value, ensure_ascii=False, indent=4)``. The template is used exactly as
published, including the stray file name in the persona template (``clean=True`` removes it; ``pfc run`` always cleans
it: real models copy it into their answers). Without a release, an own-worded template with the same sections is used,
and the toolset is rebuilt from :class:`~pfc.schema.Tool` objects in the release's structure.

Layouts (``pfc.run.prompts.LAYOUTS``): ``paper`` fills the template as published; ``prefix`` moves the template's ``##
Toolset`` section to the start of ``### Input`` and puts the user instruction last (toolset, persona, environment,
instruction), so every prompt of a subset shares the instructions and the toolset (~13k tokens) as a prefix. Nothing
else changes.

Strategies (``pfc.run.prompts.STRATEGIES``): zero_shot, few_shot (k demonstrations from other samples of the subset,
seeded; never the sample itself or one with the same instruction), cot, hierarchical (step 1 predicts the domain, step 2
shows only that domain's apps — App. B.3, Fig. 5) and flat (step-by-step over the full toolset).

    >>> OWN_TEMPLATE.count("PLACEHOLDER>") > 0
    True
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from pfc.benchmarks.toolspectrum import load_tools_release, release_dir
from pfc.errors import UserError
from pfc.schema import Example, GoldCall, Tool
from pfc.run.prompts import Prompt, check_layout, match_domain, pick_demonstrations, template_sha

FILES = {"profile": ("prompt_call_api_persona.txt", "API_description_persona.json"),
         "environment": ("prompt_call_api_environment.txt", "API_description_environment.json"),
         "both": ("prompt_call_api.txt", "API_description.json")}
TYPE_NAMES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list",
              "object": "dict"}
ROLE_GROUPS = {"required": "required_arguments", "personalized": "personalized_arguments",
               "environmental": "environmental_arguments"}
STRAY = "prompt_call_api_persona.txt"

OWN_TEMPLATE = """You are an assistant that calls tools on a user's behalf, taking the user into account.
You receive the user's request, what is known about the user and their situation, and a set of apps.
Choose the single most suitable app and API and fill in its parameters, including the optional
parameters that the user's profile or situation implies. If an app policy forbids the request for
this user, answer with APP, API and params all set to null.
Answer with one JSON object {"APP": ..., "API": ..., "params": {...}} and nothing else.

### Input
## User Instruction
<INSTRUCTION_PLACEHOLDER>
<PERSONA_SECTION><ENVIRONMENT_SECTION>
## Toolset
<TOOLSET_PLACEHOLDER>

### Output
"""
COT_NOTE = ("Additional requirement: before the dictionary, think step by step — which domain and app fit the "
            "instruction, which parameters the persona and environment imply, and whether an app policy forbids "
            "the request — then end your answer with the dictionary.\n\n")


SECTION_RANK = {"## Toolset": 0, "## User Persona": 1, "## Environment": 2, "## User Instruction": 3}


def prefix_layout(template: str) -> str:
    r"""The template with its ``### Input`` sections reordered: toolset, persona, environment, instruction.

        >>> prefix_layout("Do it.\n### Input\n## User Instruction\n<I>\n\n## Toolset\n<T>\n\n### Output\n")
        'Do it.\n### Input\n## Toolset\n<T>\n\n## User Instruction\n<I>\n\n### Output\n'
    """
    i, o = template.find("### Input"), template.find("### Output")
    if i < 0 or o < i:
        raise UserError("the ToolSpectrum template has no '### Input' ... '### Output' block to reorder")
    body = template[i + len("### Input"):o]
    sections = [p for p in re.split(r"(?m)^(?=## )", body) if p.strip()]
    rank = lambda sec: next((r for head, r in SECTION_RANK.items() if sec.startswith(head)), 9)  # noqa: E731
    ordered = sorted(sections, key=rank)
    return template[:i] + "### Input\n" + "".join(sec.rstrip("\n") + "\n\n" for sec in ordered) + template[o:]


def dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=4)


def toolset_from_tools(tools: list[Tool]) -> dict:
    """The release's ``API_description`` structure rebuilt from tool specs."""
    out: dict = {}
    for t in tools:
        app = out.setdefault(t.app, {"desc": t.app_description, **({"policy": t.policies} if t.policies else {}),
                                     "APIs": {}})
        api = {"desc": t.description}
        for name, spec in t.parameters.get("properties", {}).items():
            group = ROLE_GROUPS.get(t.roles.get(name, "required"), "required_arguments")
            api.setdefault(group, {})[f"{name} ({TYPE_NAMES.get(spec.get('type'), 'str')})"] = spec.get("description", "")
        app["APIs"][t.function] = api
    return out


class ToolSpectrumPrompter:
    """Builds the prompts of one subset (profile, environment or both)."""

    def __init__(self, subset: str, tools: list[Tool], release_dir=None, pool: list[Example] = (),
                 k: int = 3, seed: int = 0, clean: bool = False, layout: str = "paper"):
        if subset not in FILES:
            raise UserError(f"unknown subset {subset!r}; expected one of {sorted(FILES)}")
        self.subset, self.k, self.seed, self.pool = subset, k, seed, list(pool)
        self.faithful = release_dir is not None
        if self.faithful:
            tpl, api = FILES[subset]
            self.template = (Path(release_dir) / "prompts" / tpl).read_text(encoding="utf-8")
            self.toolset = json.loads((Path(release_dir) / "api" / api).read_text(encoding="utf-8"))
            if clean:
                self.template = self.template.replace(STRAY, "")
        else:
            self.template = OWN_TEMPLATE
            self.toolset = toolset_from_tools(tools)
        check_layout(layout)
        self.layout = layout
        self._dumped: dict[tuple, str] = {}  # serialised toolsets, by app set
        self.domains: dict[str, list[str]] = {}
        for t in tools:
            apps = self.domains.setdefault(t.domain or "Other", [])
            if t.app not in apps:
                apps.append(t.app)

    @classmethod
    def from_release(cls, release_dir, subset: str, pool: list[Example] = (), k: int = 3, seed: int = 0,
                     clean: bool = False) -> "ToolSpectrumPrompter":
        """The paper-faithful prompter of ``subset``, with that subset's own tool file."""
        tools = load_tools_release(Path(release_dir) / "api" / FILES[subset][1])
        return cls(subset, tools, release_dir, pool, k, seed, clean)

    # ---------------------------------------------------------------- pieces
    def _sections(self, ex: Example) -> dict[str, str]:
        return {"<INSTRUCTION_PLACEHOLDER>": ex.query, "<PERSONA_PLACEHOLDER>": dumps(ex.profile),
                "<ENVIRONMENT_PLACEHOLDER>": dumps(ex.environment)}

    def fill(self, ex: Example, toolset: dict | None = None) -> str:
        """The template with this sample's instruction, persona, environment and toolset."""
        text = self.template
        if not self.faithful:
            text = text.replace("<PERSONA_SECTION>", "\n## User Persona\n<PERSONA_PLACEHOLDER>\n"
                                if self.subset != "environment" else "")
            text = text.replace("<ENVIRONMENT_SECTION>", "\n## Environment\n<ENVIRONMENT_PLACEHOLDER>\n"
                                if self.subset != "profile" else "")
        if self.layout == "prefix":
            text = prefix_layout(text)
        for key, value in self._sections(ex).items():
            text = text.replace(key, value)
        toolset = self.toolset if toolset is None else toolset
        key = tuple(toolset)
        if key not in self._dumped:
            self._dumped[key] = dumps(toolset)
        return text.replace("<TOOLSET_PLACEHOLDER>", self._dumped[key])

    def toolset_for(self, domain: str | None) -> dict:
        apps = set(self.domains.get(domain, [])) if domain else set(self.toolset)
        return {a: v for a, v in self.toolset.items() if a in apps}

    def _demo(self, i: int, ex: Example) -> str:
        parts = [f"### Example {i}", "## User Instruction", ex.query]
        if self.subset != "environment":
            parts += ["## User Persona", dumps(ex.profile)]
        if self.subset != "profile":
            parts += ["## Environment", dumps(ex.environment)]
        gold = None if ex.gold is None else {"APP": ex.gold[0].app, "API": ex.gold[0].function,
                                             "params": ex.gold[0].arguments}
        return "\n".join(parts + ["### Output", json.dumps(gold, ensure_ascii=False)]) + "\n\n"

    @staticmethod
    def _before_input(text: str, insert: str) -> str:
        i = text.find("### Input")
        return insert + text if i < 0 else text[:i] + insert + text[i:]

    # ---------------------------------------------------------------- strategies
    def build(self, ex: Example, strategy: str = "zero_shot", domain: str | None = None) -> Prompt:
        """The answer prompt; for ``hierarchical`` pass the domain predicted in step 1."""
        meta: dict = {"subset": self.subset, "faithful": self.faithful}
        toolset = None
        if strategy == "hierarchical":
            toolset = self.toolset_for(domain)
            meta.update(domain=domain, apps=sorted(toolset))
        text = self.fill(ex, toolset)
        if strategy == "few_shot":
            demos = pick_demonstrations(self.pool, ex.id, self.k, self.seed,
                                        exclude=lambda d: d.query.strip() == ex.query.strip())
            meta["demonstrations"] = [d.id for d in demos]
            text = self._before_input(text, "".join(self._demo(i + 1, d) for i, d in enumerate(demos)))
        elif strategy in ("cot", "flat"):
            text = self._before_input(text, COT_NOTE)
        elif strategy not in ("zero_shot", "hierarchical"):
            raise UserError(f"unknown strategy {strategy!r}")
        return Prompt([{"role": "user", "content": text}], strategy, "answer", meta)

    def domain_prompt(self, ex: Example) -> Prompt:
        """Hierarchical step 1: which domain does the instruction belong to?"""
        lines = ["You are a personalized tool assistant. Decide which domain the user's instruction belongs to.",
                 "", "Domains and their apps:"]
        for dom, apps in self.domains.items():
            descs = "; ".join(f"{a}: {self.toolset.get(a, {}).get('desc', '')}".strip().rstrip(":") for a in apps)
            lines.append(f"- {dom} — {descs}")
        lines += ["", "## User Instruction", ex.query, "", "Answer with the domain name only."]
        return Prompt([{"role": "user", "content": "\n".join(lines)}], "hierarchical", "domain",
                      {"subset": self.subset, "domains": self.shown_domains()})

    def shown_domains(self) -> dict[str, dict[str, str]]:
        """What step 1 shows: ``{domain: {app: description}}``."""
        return {d: {a: self.toolset.get(a, {}).get("desc", "") for a in apps} for d, apps in self.domains.items()}

    def parse_domain(self, text) -> str | None:
        """The domain read from a step-1 answer (``pfc.run.prompts.match_domain``); None if none is."""
        return match_domain(text, self.shown_domains())[0]


def _run_prompter(rb, example) -> ToolSpectrumPrompter:
    """One prompter per subset and run (``rb.cache``), with the run's pool (few-shot sources) and seed."""
    sub = example.meta.get("subset", "both")
    if sub not in rb.cache:
        same = [e for e in rb.pool if e.meta.get("subset", "both") == sub]
        # clean=True: the release's persona template leaks its own file name into the answer format
        # (`"APP": "APP",prompt_call_api_persona.txt`), which real models copy; runs use the cleaned text
        rb.cache[sub] = ToolSpectrumPrompter(sub, list(rb.tools_by_key.values()), release_dir(),
                                             pool=same, seed=rb.seed, clean=True,
                                             layout=getattr(rb, "layout", "paper"))
    return rb.cache[sub]


def request(rb, example, domain: str | None = None) -> tuple[list[dict], None]:
    """The run's answer request (``pfc.run.requests.RequestBuilder`` ``rb``)."""
    return _run_prompter(rb, example).build(example, rb.strategy, domain=domain).messages, None


def domain_request(rb, example) -> Prompt:
    """The hierarchical strategy's step 1."""
    return _run_prompter(rb, example).domain_prompt(example)


def template_identity() -> dict:
    """The ToolSpectrum release's prompt and API files and what our code renders from them, by content hash:
    a fixed sample's prompts in each subset, layout and strategy (and hierarchical step 1), from the release
    (``release``) or our template (``own``, no release). A changed release file or a changed word in code is a new run;
    moved code is not."""
    d = release_dir()
    texts = [] if d is None else [(Path(d) / sub / name).read_text(encoding="utf-8", errors="surrogateescape")
                                  if (Path(d) / sub / name).exists() else "" for tpl, api in FILES.values()
                                  for sub, name in (("prompts", tpl), ("api", api))]
    tool = Tool("App", "act", "Act.", "Other", {"type": "object", "properties": {"x": {"type": "string"}}},
                app_description="An app.")
    ex = Example("c", "toolspectrum", "Do it", [GoldCall("App", "act", {"x": "1"})], profile={"name": "A"},
                 environment={"time": "9:00"})
    demo = Example("d", "toolspectrum", "Do that", [GoldCall("App", "act", {"x": "2"})], profile={"name": "B"},
                   environment={"time": "10:00"})
    rendered = []
    for subset in FILES:
        for layout in ("paper", "prefix"):
            try:
                pr = ToolSpectrumPrompter(subset, [tool], d, pool=[demo], k=1, clean=d is not None, layout=layout)
                rendered += [pr.build(ex, st, domain="Other" if st == "hierarchical" else None).messages
                             for st in ("zero_shot", "cot", "few_shot", "hierarchical")]
                rendered.append(pr.domain_prompt(ex).messages)
            except (OSError, ValueError, UserError) as e:  # an unreadable release file: a run says so itself
                rendered.append(type(e).__name__)
    return {"source": "own" if d is None else "release",
            "sha256": template_sha(*texts, json.dumps(rendered, ensure_ascii=False, sort_keys=True))}
