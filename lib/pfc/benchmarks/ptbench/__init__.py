"""PTBench adapter: the official ``data.json`` (or our unified JSONL) into the schema; metric set.

Official record fields used: ``query``, ``user_profile``, ``platforms``, ``tools``, ``answer`` = ``[platform,
[{function: {param: [acceptable values]}}]]``, ``query_params``, ``profile_params``, and optionally ``user_id`` /
``trained``. A record without ``trained`` takes it from the directory name (``test_trained_user`` /
``test_untrained_user``). The raw answer and parameter lists stay in ``meta`` so ``--compat official`` can score exactly
as the published evaluator (``pfc.benchmarks.ptbench.official``).

Metric keys are the official CSV headers (PTBench App. A.1, eqs. 2–11, and Fig. 4).

    >>> ADAPTER.scoring.metric_keys["tool_param_values"]
    'function_param_values'
"""
from __future__ import annotations

import re
from pathlib import Path

from pfc.eval.coverage import Predictions
from pfc.eval.parsing import parse
from pfc.eval.strict import FAIL, not_native, text_of
from pfc.errors import read_json
from pfc.render import render_ptbench
from pfc.schema import Example, GoldCall, Role, SchemaError
from pfc.benchmarks.adapter import Adapter, Building, Export, OutputStyle, Reporting, Running, Scoring
from pfc.benchmarks.common import generic_row, load_predictions, load_unified

METRIC_KEYS = {
    "format": "format", "platforms": "app", "tool_names": "function_name",
    "tool_param_names": "function_param_names", "tool_param_values": "function_param_values",
    "query_params": "query_param_values", "profile_params": "profile_param_values", "overall": "overall",
    "func_wrong_error": "func_wrong_error", "func_missing_error": "func_missing_error",
    "func_excessive_error": "func_excessive_error", "param_missing_error": "param_missing_error",
    "param_excessive_error": "param_excessive_error", "value_error": "value_error",
}


def _trained_from_path(path: Path) -> bool | None:
    name = str(path.parent.name).lower()
    if "untrained" in name:
        return False
    if "trained" in name:
        return True
    return None


_ROLES = {s: Role(s, True) for s in ("query", "profile", "unknown")}  # shared, never mutated


def gold_from_answer(answer, query_params, profile_params, where: str) -> list[GoldCall]:
    """Official ``[platform, [{function: {param: [values]}}]]`` -> gold calls with roles."""
    if not (isinstance(answer, list) and len(answer) == 2 and isinstance(answer[1], list)):
        raise SchemaError("expected [platform, [{function: {param: [values]}}]]", field=where)
    platform, funcs = answer
    platform = platform if isinstance(platform, str) else str(platform)
    calls = []
    for j, f in enumerate(funcs):
        if not isinstance(f, dict) or not f:
            raise SchemaError("expected {function: {param: [values]}}", field=f"{where}[1][{j}]")
        name, params = next(iter(f.items()))
        if not isinstance(params, dict):
            raise SchemaError("expected {param: [values]}", field=f"{where}[1][{j}].{name}")
        args, alts, roles = {}, {}, {}
        for p, vals in params.items():
            if type(vals) is list:
                if vals:
                    args[p] = vals[0]
                    if len(vals) > 1:
                        alts[p] = vals[1:]
                else:
                    args[p] = None
            else:
                args[p] = vals
            roles[p] = _ROLES["query" if p in query_params else "profile" if p in profile_params else "unknown"]
        calls.append(GoldCall(platform, str(name), args, alts, roles))
    return calls


SPLITS = ("test_untrained_user", "test_trained_user")


def load_official(path, id_prefix: str = "", gold: bool = True) -> list[Example]:
    """Records of an official ``data.json``; ``gold=False`` skips building gold calls (compat mode)."""
    path = Path(path)
    records = read_json(path)
    if not isinstance(records, list):
        raise SchemaError("expected a JSON list of records", file=str(path))
    default_trained = _trained_from_path(path)
    out = []
    for i, r in enumerate(records):
        try:
            if not isinstance(r, dict):
                raise SchemaError("expected an object", field="<record>")
            for key in ("query", "answer", "query_params", "profile_params"):
                if key not in r:
                    raise SchemaError("missing", field=key)
            calls = gold_from_answer(r["answer"], r["query_params"], r["profile_params"], "answer") \
                if gold else []
        except SchemaError as e:
            raise SchemaError(e.msg, file=str(path), line=f"record {i}", field=e.field) from None
        trained = r.get("trained", default_trained)
        out.append(Example(
            id=id_prefix + str(r.get("id", i)), benchmark="ptbench", query=str(r["query"]), gold=calls,
            user_id=None if r.get("user_id") is None else str(r.get("user_id")),
            profile=r.get("user_profile"),
            meta={"trained": trained if isinstance(trained, bool) else None,
                  "official_answer": r["answer"], "query_params": r["query_params"],
                  "profile_params": r["profile_params"], "platforms": r.get("platforms"),
                  "official_tools": r.get("tools"),
                  **({"synthesis": r["synthesis"]} if "synthesis" in r else {})}))  # our synthesis' version
    return out


def load(examples_path, tools_path=None, gold: bool = True):
    """An official ``data.json``, an official directory with both splits, or unified JSONL."""
    p = Path(examples_path)
    if p.suffix == ".json":
        return load_official(p, gold=gold), []
    if p.is_dir() and any((p / s / "data.json").exists() for s in SPLITS):
        return [e for s in SPLITS if (p / s / "data.json").exists()
                for e in load_official(p / s / "data.json", id_prefix=f"{s}/", gold=gold)], []
    return load_unified(p, tools_path)


def load_split_predictions(path, examples):
    """A predictions file, or an official output directory (``<split>/generation.jsonl``)."""
    p = Path(path)
    if not p.is_dir():
        return load_predictions(p, examples)
    out = Predictions()
    for s in SPLITS:
        part = [e for e in examples if e.id.startswith(f"{s}/")]
        if part and (p / s / "generation.jsonl").exists():
            out.merge(load_predictions(p / s / "generation.jsonl", part))
    return out


def row(example, result, ctx=None):
    return generic_row(example, result, sources=("query", "profile"))  # PTBench's two value sources


# PTBench's answer format: `pfc parse --style ptbench`, and how the built-in baselines answer
STYLE = OutputStyle("ptbench", render_ptbench, readers=("bracket",))
_TEMPLATE = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*|'[^'\n]+'|\"[^\"\n]+\"):\[.*\]", re.S)


def strict_template(output) -> str | None:
    """Strict scoring's template (``pfc.eval.strict``): ``Platform:[f(a=1), g()]`` with the platform named."""
    text = text_of(output)
    if text is None:
        return not_native(output)
    if not _TEMPLATE.fullmatch(text):
        return f"{FAIL}: not Platform:[calls]"
    result = parse(text, STYLE.name)
    if not result.ok or not result.calls or any(not c.app for c in result.calls):
        return f"{FAIL}: not Platform:[calls]"
    return None




ADAPTER = Adapter(
    "ptbench", __name__,
    Scoring(METRIC_KEYS, load, load_split_predictions, row, style=STYLE.name, group_by=["trained"],
            strict_template=strict_template, official_compat=True, styles=(STYLE,)),
    # query_spans: no query-oracle (its stated values are not annotated per span); its own memorization baseline
    Running(strategies=("zero_shot", "few_shot", "cot"), render_style=STYLE.name, tools_in_examples=True,
            query_spans=False, baselines=("nearest-train",)),
    Reporting(headline=("format", "platforms", "tool_names", "tool_param_values", "overall")),
    Building(export=Export("PTBench", "pfc build ptbench --seed {seed} --out DIR", "synthesized (PTool)",
                           splits=("train", "test_trained_user", "test_untrained_user", "unseen")),
             release=("official_answer", "the official PTBench release")))  # a record in its format
