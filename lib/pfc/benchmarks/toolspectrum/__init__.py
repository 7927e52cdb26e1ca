"""ToolSpectrum adapter: the public release (read in place, never copied) into the schema; F1 levels.

Release files: ``data/dataset_{persona,environment,persona_environment}.json`` (subsets profile, environment, both) and
``api/API_description*.json``. Tool specs come from the ``"name (type)"`` keys, enumerations from "Available values",
argument roles from ``required_arguments`` (RP), ``personalized_arguments`` and ``environmental_arguments`` (OP); app
policies are attached to their app's tools; ``toolCall: null`` is a refusal.

F1 definition (the paper, §4.1, says only "F1 at APP, API, RP and OP levels"; ours): for each example and level, a gold
item set G and a predicted item set P:

- APP: {app} (names compared case-insensitively, ``_``/space equivalent); API: {API name};
- RP: the required arguments, OP: the personalized + environmental arguments, as (name, value) items; a predicted
  argument counts at the level of its role in the tool spec (unknown names count at OP); a wrong value is one FP and one
  FN;
- a refusal (gold ``null``, or a predicted ``null``) is the single item ⊥ at every level, so a correct refusal is a true
  positive and a missed one a false negative;
- an unparsable output predicts nothing (only false negatives).

Counts are summed over the examples and F1 = 2·TP / (2·TP + FP + FN) (micro). Levels are independent: a right API under
a wrong app still scores at API, RP and OP.

Paper-compatible mode (keys ``APP_paper`` … ``OP_paper``, always reported beside ours): the AppBench-style micro F1 the
paper cites (§4.1), where a refusal is not an item:

- APP/API: G = {gold app/API} for a sample with a gold call, ∅ for a refusal sample; P = {predicted app/API} for a
  predicted call, ∅ for a predicted refusal or an unparsable output. So a call on a refusal sample is a false positive,
  a refusal on a call sample a false negative, and a correct refusal earns nothing (no TP);
- RP/OP: the same (name, value) items as ours, summed over the samples with a gold call only (refusal samples contribute
  nothing, whatever was predicted);
- F1 from the summed counts; a level with no item at all is 1.0 (``pfc.eval.metrics``).

On the "both" subset (240 of 333 samples expect a refusal) the two modes differ most: "always refuse" scores APP F1 ≈
0.72 ours but 0.0 paper-compatible.

    >>> DOMAINS["Didi_Chuxing"]
    'Travel'
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from pfc import paths
from pfc.errors import UserError, read_json
from pfc.eval.literals import Unsafe, to_value
from pfc.eval.matching import norm_app
from pfc.eval.strict import FAIL, json_object, not_native, text_of
from pfc.schema import Example, GoldCall, Role, SchemaError, Tool
from pfc.eval.taxonomy import toolspectrum_type
from pfc.benchmarks.adapter import Adapter, Building, Reporting, Running, Scoring
from pfc.benchmarks.common import generic_row, load_predictions, load_unified

# Paper Table 7 (domains and apps); the release names Tmall and Pinduoduo where the table
# prints Temu and Amazon, and its "Fravel" is Travel.
DOMAINS = {
    **dict.fromkeys(["Tmall", "Pinduoduo", "Poizon", "Vipshop", "Xianyu"], "Shopping"),
    **dict.fromkeys(["Baidu_Maps", "Didi_Chuxing", "Ctrip"], "Travel"),
    **dict.fromkeys(["Maoyan", "Damai"], "Entertainment"),
    **dict.fromkeys(["Freshippo", "Duoduo Maicai"], "Grocery"),
    "Cainiao Guoguo": "Delivery",
    **dict.fromkeys(["Bank", "Tonghuashun"], "Finance"),
    **dict.fromkeys(["Ping An Health", "Keep"], "Health"),
    **dict.fromkeys(["Xiaohongshu", "Zhihu", "Dedao"], "Knowledge"),
    **dict.fromkeys(["Toutiao", "Weibo", "Hupu"], "News"),
}
SUBSETS = {"dataset_persona": "profile", "dataset_environment": "environment",
           "dataset_persona_environment": "both"}
ROLE_KEYS = {"required_arguments": "required", "personalized_arguments": "personalized",
             "environmental_arguments": "environmental"}
ROLE_SOURCE = {"required": Role("query", True), "personalized": Role("profile", False),
               "environmental": Role("environment", False)}
TYPES = {"str": "string", "syt": "string", "int": "integer", "float": "number", "bool": "boolean",
         "list": "array", "dict": "object"}
METRIC_KEYS = {"APP": "APP", "API": "API", "RP": "RP", "OP": "OP",
               "APP_paper": "APP_paper", "API_paper": "API_paper", "RP_paper": "RP_paper", "OP_paper": "OP_paper",
               "format": "format", "refusal_recall": "refusal_recall", "refusal_precision": "refusal_precision"}
LEVELS = ("APP", "API", "RP", "OP")
REFUSAL = "⊥"
_KEY = re.compile(r"^\s*(.+?)\s*\(\s*(\w+)\s*\)\s*$")
_ENUM = re.compile(r"Available values:\s*(.+?)\s*\.?\s*$", re.S)


DATA_ENV = "PFC_TOOLSPECTRUM_DIR"


def release_dir() -> Path | None:
    """The release directory (``PFC_TOOLSPECTRUM_DIR``, else ``../shared/data/toolspectrum``), read in place."""
    return paths.env_dir(DATA_ENV, paths.SHARED_DATA / "toolspectrum")


def parse_enum(desc: str) -> list | None:
    m = _ENUM.search(desc)
    if not m:
        return None
    text = m.group(1)
    try:
        v = to_value(ast.parse(text, mode="eval").body)
        return v if isinstance(v, list) else [v]
    except (SyntaxError, ValueError, Unsafe, MemoryError, RecursionError):
        return [s.strip(" '\"") for s in text.strip("[]").split(",") if s.strip()]


def load_tools_release(path) -> list[Tool]:
    path = Path(path)
    spec = read_json(path)
    if not isinstance(spec, dict):
        raise SchemaError("expected an API description object {app: {APIs: ...}}", file=str(path))
    tools = []
    for app, a in spec.items():
        for api, s in a.get("APIs", {}).items():
            props, required, roles = {}, [], {}
            for group, role in ROLE_KEYS.items():
                for key, desc in (s.get(group) or {}).items():
                    m = _KEY.match(key)
                    if not m:
                        raise SchemaError("argument key is not 'name (type)'", file=str(path),
                                          field=f"{app}.APIs.{api}.{group}.{key}")
                    name, typ = m.group(1), m.group(2)
                    props[name] = {"type": TYPES.get(typ, "string"), "description": desc}
                    enum = parse_enum(desc)
                    if enum:
                        props[name]["enum"] = enum
                    roles[name] = role
                    if role == "required":
                        required.append(name)
            tools.append(Tool(app, api, s.get("desc", ""), DOMAINS.get(app),
                              {"type": "object", "properties": props, "required": required},
                              roles, list(a.get("policy", []) or []), a.get("desc", "")))
    return tools


def default_tools_path(examples_path: Path) -> Path | None:
    suffix = {"profile": "_persona", "environment": "_environment", "both": ""}.get(
        SUBSETS.get(examples_path.stem, ""), None)
    if suffix is None:
        return None
    cand = examples_path.parent.parent / "api" / f"API_description{suffix}.json"
    return cand if cand.exists() else None


def load_release(examples_path, tools_path=None):
    p = Path(examples_path)
    tools_path = tools_path or default_tools_path(p)
    tools = load_tools_release(tools_path) if tools_path else []
    spec = {(norm_app(t.app), t.function): t.roles for t in tools}
    global_roles = {n: r for t in tools for n, r in t.roles.items()}
    records = read_json(p)
    if not isinstance(records, list):
        raise SchemaError("expected a JSON list of records", file=str(p))
    subset = SUBSETS.get(p.stem, p.stem)
    out = []
    for i, r in enumerate(records):
        where = dict(file=str(p), line=f"record {i}")
        if not isinstance(r, dict) or "instruction" not in r or "toolCall" not in r:
            raise SchemaError("needs 'instruction' and 'toolCall'", field="<record>", **where)
        tc = r["toolCall"]
        gold = None
        if tc is not None:
            if not isinstance(tc, dict) or not isinstance(tc.get("API"), str):
                raise SchemaError("expected {APP, API, params} or null", field="toolCall", **where)
            params = tc.get("params") or {}
            if not isinstance(params, dict):
                raise SchemaError("expected an object", field="toolCall.params", **where)
            roles_here = spec.get((norm_app(tc.get("APP")), tc["API"]), {})
            roles = {n: ROLE_SOURCE.get(roles_here.get(n) or global_roles.get(n), Role("unknown", True))
                     for n in params}
            gold = [GoldCall(tc.get("APP"), tc["API"], params, {}, roles)]
        out.append(Example(
            id=f"{subset}-{i}", benchmark="toolspectrum", query=r["instruction"], gold=gold,
            profile=r.get("persona"), environment=r.get("environment"),
            meta={"subset": subset, "index": i, "domain": DOMAINS.get(tc.get("APP")) if tc else None,
                  "evaluation_result": r.get("evaluation_result")}))
    return out, tools


def load(examples_path, tools_path=None):
    """A release ``dataset_*.json``, a whole release directory (all three subsets), or unified JSONL."""
    p = Path(examples_path)
    if p.suffix == ".json":
        return load_release(p, tools_path)
    if (p / "data" / "dataset_persona.json").exists():
        examples = []
        for name in SUBSETS:
            examples += load_release(p / "data" / f"{name}.json")[0]
        return examples, load_tools_release(tools_path or p / "api" / "API_description.json")
    return load_unified(p, tools_path)


def context(examples, tools) -> dict:
    spec: dict = {}
    for t in tools:
        spec.setdefault(norm_app(t.app), {})[t.function] = dict(t.roles)
    return {"spec": spec, "domains": {norm_app(t.app): t.domain for t in tools},
            "global_roles": {n: r for t in tools for n, r in t.roles.items()}}


def level_counts(cmp, ctx: dict, mode: str = "ours") -> dict:
    """TP/FP/FN per level for one example (see the module docstring); ``mode`` "ours" or "paper".

    Columns are ``APP_tp`` … (ours) or ``paper_APP_tp`` … (paper-compatible).
    """
    if mode not in ("ours", "paper"):
        raise UserError(f"unknown ToolSpectrum scoring mode {mode!r}; expected ours or paper")
    paper = mode == "paper"
    pre = "paper_" if paper else ""
    c = {f"{pre}{lv}_{k}": 0 for lv in LEVELS for k in ("tp", "fp", "fn")}

    def add(level, g: set, p: set):
        c[f"{pre}{level}_tp"] += len(g & p)
        c[f"{pre}{level}_fp"] += len(p - g)
        c[f"{pre}{level}_fn"] += len(g - p)

    refused = cmp.parsed and cmp.pred_refusal
    none = set() if paper else {REFUSAL}
    gold_app = none if cmp.gold_refusal else {norm_app(g.app) for g in cmp.gold_calls}
    gold_api = none if cmp.gold_refusal else {g.function for g in cmp.gold_calls}
    pred = cmp.pred_calls if cmp.parsed else []
    pred_app = none if refused else {norm_app(p.app) for p in pred}
    pred_api = none if refused else {p.function for p in pred}
    add("APP", gold_app, pred_app)
    add("API", gold_api, pred_api)
    if paper and cmp.gold_refusal:
        return c  # RP/OP only over samples with a gold call
    for level in ("RP", "OP"):
        add(level, none if cmp.gold_refusal else set(), none if refused else set())
    roles_of = {(norm_app(p.app), p.function) for p in pred}
    for a in cmp.args:
        if a.role is not None:
            level = "RP" if a.role.required else "OP"
        else:
            spec_roles = next((ctx["spec"].get(k[0], {}).get(k[1], {}) for k in roles_of
                               if k[1] == a.function), {})
            role = spec_roles.get(a.argument) or ctx["global_roles"].get(a.argument)
            level = "RP" if role == "required" else "OP"
        if a.status == "correct":
            c[f"{pre}{level}_tp"] += 1
        elif a.status == "wrong":
            c[f"{pre}{level}_fp"] += 1
            c[f"{pre}{level}_fn"] += 1
        elif a.status == "missing":
            c[f"{pre}{level}_fn"] += 1
        else:
            c[f"{pre}{level}_fp"] += 1
    return c


def row(example, result, ctx):
    r, cmp, etype = generic_row(example, result, pair_leftovers=True)
    r.update(level_counts(cmp, ctx))
    r.update(level_counts(cmp, ctx, "paper"))
    if ctx["spec"]:  # the five-way taxonomy needs the tool specs (domains, known APIs)
        gold_app = example.gold[0].app if example.gold else None
        etype = toolspectrum_type(cmp, gold_app, ctx["domains"], ctx["spec"])
    return r, cmp, etype


_TEMPLATE_KEYS = {"APP", "API", "params", "explanation"}


def strict_template(output) -> str | None:
    """Strict scoring's template (``pfc.eval.strict``): one ``{"APP", "API", "params"}`` object, optionally with the ``"explanation"`` string that the
    release's template asks for; a refusal is ``null`` or that object with APP, API and params all null (requirement 4
    of the release's prompt; our own template asks for the same)."""
    text = text_of(output)
    if text is None:
        return not_native(output)
    obj = json_object(text)
    if obj is None:
        return None
    why = f"{FAIL}: not one {{\"APP\", \"API\", \"params\"[, \"explanation\"]}} object"
    if not isinstance(obj, dict) or not {"APP", "API", "params"} <= set(obj) <= _TEMPLATE_KEYS \
            or not isinstance(obj.get("explanation", ""), str):
        return why
    if obj["APP"] is None and obj["API"] is None and obj["params"] is None:
        return None
    ok = all(isinstance(obj[k], str) and obj[k].strip() for k in ("APP", "API")) and isinstance(obj["params"], dict)
    return None if ok else why


ADAPTER = Adapter(
    "toolspectrum", __name__,
    Scoring(METRIC_KEYS, load, load_predictions, row, context, style="json", group_by=["subset", "domain"],
            strict_template=strict_template),
    Running(strategies=("zero_shot", "few_shot", "cot", "hierarchical", "flat"), render_style="json"),
    Reporting(headline=("format", "APP", "API", "RP", "OP"), groups=("subset",),
              extra=("APP_paper", "API_paper", "RP_paper", "OP_paper"),  # robust mode: Table 3's second F1
              modes=(False, True)),
    Building(default_data=release_dir, data_env=DATA_ENV,  # the public release, read in place
             third_party="the ToolSpectrum release"))
