"""Synthetic PTBench-format data with adversarial predictions, for compat tests and speed benchmarks.

Makes records in the official ``data.json`` shape and ``generation.jsonl`` lines whose
outputs cover what real models write and what breaks evaluators: reasoning preambles,
braces, quoted platforms, literal arithmetic, keyword-named parameters (``from=``), list
and boolean values, type mismatches, missing/extra/duplicate calls and parameters, and
garbage. Outputs that would make the published evaluator run code are NOT generated
(there our compat mode deliberately differs). Seeded: same seed, same bytes.

    >>> recs, preds = make(5, seed=1); len(recs), len(preds)
    (5, 5)
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from pfc.io import atomic

PLATFORMS = ["MegaMart", "QuickBuy", "Fresh Go", "EliteStore", "TurboTaxi", "CinemaHub"]
FUNCS = {
    "search_products": {"keyword": "str", "category": "str", "sort_by": "str"},
    "place_order": {"product_id": "str", "quantity": "int", "payment_method": "str", "gift_wrap": "bool"},
    "book_ticket": {"from": "str", "to": "str", "date": "str", "seat_class": "str"},
    "order_food": {"items": "list", "address": "str", "count": "int"},
    "set_reminder": {"time": "str", "content": "str", "priority": "int"},
    "rate_service": {"score": "float", "comment": "str"},
}
WORDS = ["pizza", "cola", "fries", "Beijing", "Shanghai", "economy", "business", "Alipay",
         "WeChat Pay", "price", "rating", "electronics", "books", "tea", "08:00", "2025-05-01"]


def _gold_values(rng: random.Random, typ: str) -> list:
    if typ == "int":
        v = rng.choice([1, 2, 3, 6, 8, 12, -2])
        return [v] if rng.random() < 0.7 else [v, v + 1]
    if typ == "float":
        return [rng.choice([3.5, 4.0, 4.5])]
    if typ == "bool":
        return [rng.choice([True, False])]
    if typ == "list":
        a = rng.sample(WORDS[:4], 2)
        return [a, a + [WORDS[4]]]
    v = rng.choice(WORDS)
    return [v] if rng.random() < 0.6 else [v, rng.choice(WORDS)]


def make_record(rng: random.Random, i: int) -> dict:
    platform = rng.choice(PLATFORMS)
    funcs = []
    for name in rng.sample(sorted(FUNCS), rng.choice([1, 1, 1, 2, 2, 3])):
        params = dict(rng.sample(sorted(FUNCS[name].items()), rng.randint(1, len(FUNCS[name]))))
        funcs.append({name: {p: _gold_values(rng, t) for p, t in params.items()}})
    if rng.random() < 0.05:  # a type mismatch in the gold data: strings where numbers belong
        first = next(iter(funcs[0].values()))
        k = next(iter(first))
        first[k] = [str(v) for v in first[k]] if not isinstance(first[k][0], list) else first[k]
    names = [p for f in funcs for p in next(iter(f.values()))]
    rng.shuffle(names)
    cut = rng.randint(0, len(names))
    query, profile = names[:cut], names[cut:]
    if rng.random() < 0.1:
        query.append("unlisted_param")
    return {"id": i, "query": f"synthetic query {i}", "user_profile": {"name": f"user{i % 7}"},
            "platforms": PLATFORMS, "tools": sorted(FUNCS), "answer": [platform, funcs],
            "query_params": query, "profile_params": profile}


def _lit(v, rng: random.Random, mode: str) -> str:
    if isinstance(v, bool):
        return {"str": repr(str(v).lower()), "Str": repr(str(v))}.get(mode, repr(v))
    if isinstance(v, int):
        return rng.choice([repr(v), f"{v - 1}+1", f"{v}*1", f"2*{v}//2"]) if mode != "py" else repr(v)
    if isinstance(v, str) and mode == "Str":
        return repr(v.upper())
    if isinstance(v, list):
        items = list(reversed(v)) if mode != "py" else v
        return "[" + ", ".join(_lit(x, rng, mode) for x in items) + "]"
    return repr(v)


def _call(name: str, args: dict, rng: random.Random, mode: str = "py") -> str:
    return f"{name}(" + ", ".join(f"{k}={_lit(v, rng, mode)}" for k, v in args.items()) + ")"


GARBAGE = ["", "None", "[]", "{}", "I cannot help with that.", "MegaMart:", "MegaMart:[]",
           "[" * 300 + "]" * 300, "MegaMart:[f(x=lambda: 1)]", "MegaMart:[f(x=[i for i in 'ab'])]",
           "MegaMart:[f(x=f'{1}')]", "MegaMart:[f(x={1, 2})]", "MegaMart:[f(x=1 < 2)]",
           "MegaMart:[f(x=a.b)]", "MegaMart:[f(**{'a': 1})]", "MegaMart:[f(x=-y)]",
           "MegaMart:[f(x=not True)]", "MegaMart:[f(x=1/0)]", "MegaMart:[f(x='a' - 1)]",
           '{"platform": "MegaMart", "functions": []}', "a.b:[f()]", "MegaMart:[f(), 3]",
           "MegaMart:'text'", "MegaMart:[f(x=1)], Other:[g()]", "\x00MegaMart:[f()]"]


def _changed_calls(rng: random.Random, kind: int, head: str, calls: list, body) -> str:
    """Kinds 11-18 of :func:`make_prediction`: the gold calls with a parameter, a function or a value changed."""
    if kind == 11:  # drop one parameter
        n, a = calls[0]
        return f"{head}:{body([(n, dict(list(a.items())[1:]))] + calls[1:])}"
    if kind == 12:  # extra parameter
        n, a = calls[0]
        return f"{head}:{body([(n, {**a, 'note': 'extra'})] + calls[1:])}"
    if kind == 13:  # drop a function (or all)
        return f"{head}:{body(calls[1:])}"
    if kind == 14:  # extra function
        return f"{head}:{body(calls + [('cancel_order', {'order_id': 'x1'})])}"
    if kind == 15:  # wrong function name
        return f"{head}:{body([(calls[0][0] + '_v2', calls[0][1])] + calls[1:])}"
    if kind == 16:  # duplicate call
        return f"{head}:{body(calls + calls[:1])}"
    if kind == 17:  # unusual value forms
        n, a = calls[0]
        forms = ["+3", "-2", "g(1)", "g(a=1)", "items[0]", "('a', 'b')", "pizza", "{'k': 'v'}",
                 "...", "2**10", "7/2", "True + 1", "'ab' * 2", "None", "3.50", "'3'", "[1, 2]"]
        key = next(iter(a), "x")
        return f"{head}:[{n}({key}={rng.choice(forms)})]"
    n, a = calls[0]  # kind 18: positional argument and a single call without brackets
    return f"{head}: {n}('positional', " + ", ".join(f"{p}={v!r}" for p, v in a.items()) + ")"


def make_prediction(rng: random.Random, rec: dict, k: int):
    """One adversarial output for ``rec``; ``k`` picks the kind (cycled by :func:`make`)."""
    platform, funcs = rec["answer"]
    calls = [(next(iter(f)), {p: v[0] for p, v in next(iter(f.values())).items()}) for f in funcs]
    alt = [(n, {p: v[-1] for p, v in next(iter(f.values())).items()}) for f, (n, _) in zip(funcs, calls)]
    head = platform if " " not in platform else repr(platform)

    def body(cs, mode="py"):
        return "[" + ", ".join(_call(n, a, rng, mode) for n, a in cs) + "]"

    kind = k % 24
    if kind in (0, 1):
        return f"{head}:{body(calls)}"
    if kind == 2:
        return f"{head}:{body(alt)}"
    if kind == 3:
        return f"{head}:{body(calls, 'Str')}"
    if kind == 4:
        return f"{rng.choice(PLATFORMS).lower()}:{body(calls)}"
    if kind == 5:
        return f"{platform!r}:{body(calls)}" if rng.random() < 0.5 else f'"{platform}":{body(calls)}'
    if kind == 6:
        return "{" + f"{head}:{body(calls)}" + "}"
    if kind == 7:
        return f"<think>The user likes {platform}. Let me call it.</think>\n{head}:{body(calls)}"
    if kind == 8:
        return f"```python\n{head}:{body(calls)}\n```"
    if kind == 9:
        return f"{head}:{body(calls, 'arith')}"
    if kind == 10:
        return f"{head}:{body(calls, 'str')}"
    if 11 <= kind <= 18:
        return _changed_calls(rng, kind, head, calls, body)
    if kind == 19:
        return rng.choice(GARBAGE)
    if kind == 20:
        return None  # a null prediction in generation.jsonl
    if kind == 21:  # prose around the call
        return f"Here is the call: {head}:{body(calls)}"
    if kind == 22:  # keyword-named parameter, and string gold vs number prediction
        return f"{head}:[book_ticket(from='Beijing', to='Shanghai')]" if rng.random() < 0.5 else \
            f"{head}:[{calls[0][0]}(" + ", ".join(f"{p}=7" for p in calls[0][1]) + ")]"
    return f"{head}:{body(calls)}"


def make(n: int, seed: int = 0, start: int = 0) -> tuple[list[dict], list]:
    rng = random.Random(seed)
    recs = [make_record(rng, start + i) for i in range(n)]
    preds = [make_prediction(rng, r, k) for k, r in enumerate(recs)]
    return recs, preds


def write_split(out_dir, split: str, recs: list[dict], preds: list, drop_last: int = 0) -> None:
    """``out_dir/split/data.json`` and ``out_dir/split/generation.jsonl`` (official layout)."""
    d = Path(out_dir) / split
    d.mkdir(parents=True, exist_ok=True)
    atomic.write_text(d / "data.json", json.dumps(recs, ensure_ascii=False, indent=0))
    with atomic.open_text(d / "generation.jsonl") as fh:
        for r, p in list(zip(recs, preds))[: len(preds) - drop_last]:
            fh.write(json.dumps({"query": r["query"], "label": r["answer"], "predict": p}, ensure_ascii=False) + "\n")
