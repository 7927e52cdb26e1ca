"""``--compat official``: the published PTBench evaluator's numbers, quirks included, run safely.

Reimplements the rules of hyfshadow/PTBench ``src/parse.py``, ``src/test_acc.py`` and ``src/test_error.py`` (commit
9678ecc), read from its source; no code is shared with it. It gives the published evaluator's numbers on every input
that evaluator handles without running code. The default (robust) PTBench scorer is ``pfc.benchmarks.ptbench``.

Quirks reproduced (each differs from the robust mode):

1. Parsing wraps the output in braces and reads it as a Python dict: only the first key counts; a key that is neither a
   name nor a constant, braces around the output, a ``<think>`` preamble, prose or code fences make it a format error.
2. Keyword-named parameters (``from=``, ``class=``) are a syntax error: format error.
3. Arithmetic in arguments is evaluated (``count=2*3`` -> 6). We fold literal arithmetic only (bounded); where the
   original would run other code (names, calls, attributes in arithmetic) we record a format error. String
   ``%``-formatting is not evaluated either.
4. Any unary operator on a constant negates it (``+5`` -> -5); on anything else: format error.
5. A call with keyword arguments inside a value becomes ``{name: {...}}``; without keywords, its source text. Bare names
   become strings; subscripts become text; tuples stay tuples; lambdas, comprehensions, f-strings, sets, comparisons:
   format error. Positional arguments are dropped.
6. Integers are compared with the FIRST acceptable value only, with tolerance 0.01.
7. Strings compare case-insensitively with no whitespace normalisation; ``'true'``/``'false'`` strings become booleans;
   booleans use Python ``in`` (so ``True`` matches 1).
8. List values compare as sets of lower-cased strings against each acceptable list; a non-string element anywhere raises
   -> format error. Floats, None and dicts use ``in``.
9. ANY exception while scoring a sample (e.g. a string prediction against integer gold values) counts the sample as a
   format error and credits nothing.
10. Platform comparison is exact (case-sensitive).
11. query/profile parameter credit is given per predicted parameter, so a function called twice can be credited twice
    (the ratio can exceed 1).
12. Error columns swap names: ``func_missing_error`` counts samples with an EXTRA predicted function (and no gold
    function absent); ``func_excessive_error`` counts samples where a gold function is absent; ``param_missing_error``
    counts extra predicted parameters and ``param_excessive_error`` gold parameters absent from the prediction.
13. ``query_params`` / ``profile_params`` denominators are the listed names, even those the answer does not contain; a
    zero denominator crashes the original (we give NaN).
14. The overall file over both splits is a sample-weighted mean of each split's ratios (the original hard-codes 609
    untrained and 474 trained samples); see :func:`combine`.

Inputs over ``MAX_EXPR_CHARS`` (100,000 characters) are format errors here; the original would parse them (or exhaust
memory).

    >>> official_parse("Shop:[buy(n=2*3)]")
    ('Shop', [{'buy': {'n': 6}}])
"""
from __future__ import annotations

import ast

from pfc.eval.literals import Unsafe, official_call
from pfc.eval.parse_base import MAX_EXPR_CHARS

ACC_KEYS = ("format", "platforms", "tool_names", "tool_param_names", "tool_param_values",
            "query_params", "profile_params", "overall")
ERROR_KEYS = ("func_wrong_error", "func_missing_error", "func_excessive_error",
              "param_missing_error", "param_excessive_error", "value_error")


class OfficialFormatError(Exception):
    """The published evaluator would have counted this sample as a format error."""


def official_parse(text) -> tuple:
    """(platform, [{function: {param: value}}]) or OfficialFormatError."""
    if not isinstance(text, str) or len(text) > MAX_EXPR_CHARS:
        raise OfficialFormatError("not a string or too long")
    try:
        tree = ast.parse("{" + text + "}", mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as e:
        raise OfficialFormatError(type(e).__name__) from None
    if not isinstance(tree, ast.Dict) or not tree.keys:
        raise OfficialFormatError("not a platform: [...] mapping")
    key = tree.keys[0]
    if isinstance(key, ast.Name):
        platform = key.id
    elif isinstance(key, ast.Constant):
        platform = key.value
    else:
        raise OfficialFormatError("platform is not a name or constant")
    body = tree.values[0]
    if isinstance(body, ast.Call):
        nodes = [body]
    elif isinstance(body, (ast.List, ast.Tuple, ast.Set)):
        nodes = body.elts
    else:
        raise OfficialFormatError("body is not a call or a list of calls")
    try:
        if not all(isinstance(n, ast.Call) for n in nodes):
            raise OfficialFormatError("list element is not a call")
        return platform, [official_call(n) for n in nodes]
    except (Unsafe, RecursionError) as e:
        raise OfficialFormatError(str(e)) from None


def official_include(x, y) -> bool:
    """The published value test (quirks 6-8). Exceptions propagate (quirk 9)."""
    if x == "true" or x == "false":
        return (x == "true") in y
    if isinstance(x, bool):
        return x in y
    if isinstance(x, str):
        return x.lower() in [v.lower() for v in y]
    if isinstance(x, list):
        want = {v.lower() for v in x}
        return want in [{v.lower() for v in option} for option in y]
    if isinstance(x, int):
        first = y[0]
        return x <= first + 0.01 and x >= first - 0.01
    return x in y


def _first_key(d: dict):
    return list(d.keys())[0]


def official_sample(answer, pred, params) -> dict:
    """Accuracy credits and raw error flags of one parsed sample (may raise: quirk 9)."""
    gold_platform, gold_funcs = answer
    pred_platform, pred_funcs = pred
    acc = dict(overall=1, platforms=1, tool_names=1, tool_param_names=1, tool_param_values=1,
               query=0, profile=0)
    flags = dict(pred_func_not_gold=0, gold_func_not_pred=0, pred_param_not_gold=0,
                 gold_param_not_pred=0, value=0)

    def fail(*keys):
        for k in keys:
            acc[k] = 0

    if gold_platform != pred_platform:
        fail("platforms", "overall")
    gold_names = [_first_key(f) for f in gold_funcs]
    pred_names = [_first_key(f) for f in pred_funcs]
    for pf in pred_funcs:                       # every predicted call against the gold ones
        name = _first_key(pf)
        if name not in gold_names:
            fail("tool_names", "tool_param_names", "tool_param_values", "overall")
            flags["pred_func_not_gold"] = 1
            continue
        gold_args = gold_funcs[gold_names.index(name)][name]
        for pname, pval in list(pf.values())[0].items():
            if pname not in list(gold_args.keys()):
                fail("tool_param_names", "tool_param_values", "overall")
                flags["pred_param_not_gold"] = 1
            elif official_include(pval, gold_args[pname]):
                if pname in params["query_params"]:
                    acc["query"] += 1
                elif pname in params["profile_params"]:
                    acc["profile"] += 1
            else:
                fail("tool_param_values", "overall")
    for gf in gold_funcs:                       # every gold call against the predicted ones
        name = _first_key(gf)
        if name not in pred_names:
            fail("tool_names", "tool_param_names", "tool_param_values", "overall")
            flags["gold_func_not_pred"] = 1
            continue
        pred_args = pred_funcs[pred_names.index(name)][name]
        for gname, gval in list(gf.values())[0].items():
            if gname not in list(pred_args.keys()):
                fail("tool_param_names", "tool_param_values", "overall")
                flags["gold_param_not_pred"] = 1
            elif not official_include(pred_args[gname], gval):
                fail("tool_param_values", "overall")
                flags["value"] = 1
    return {**acc, **flags}


def error_columns(f: dict) -> dict:
    """The published error columns from raw flags, names swapped as published (quirk 12)."""
    lack, excess = f["pred_func_not_gold"], f["gold_func_not_pred"]
    func_err = lack or excess
    plack, pexcess = f["pred_param_not_gold"], f["gold_param_not_pred"]
    return {"func_wrong_error": int(bool(lack and excess)),
            "func_missing_error": int(bool(lack and not excess)),
            "func_excessive_error": int(bool(excess and not lack)),
            "param_missing_error": int(bool(plack and not func_err)),
            "param_excessive_error": int(bool(pexcess and not func_err)),
            "value_error": int(bool(f["value"] and not func_err and not (plack or pexcess)))}


def score_sample(answer, output, params) -> dict:
    """One per-example row: format, accuracy credits, query/profile credits, error columns."""
    zero = {k: 0 for k in ("platforms", "tool_names", "tool_param_names", "tool_param_values",
                           "overall", "query", "profile")}
    try:
        s = official_sample(answer, official_parse(output), params)
    except Exception as e:  # quirk 9: any exception is a format error
        return {"format": 0, **zero, **dict.fromkeys(ERROR_KEYS, 0), "detail": f"{type(e).__name__}: {e}"[:200]}
    return {"format": 1, **{k: s[k] for k in zero}, **error_columns(s), "detail": ""}


def aggregate(rows: list[dict], n_query: int, n_profile: int) -> dict:
    """The published acc_results + error_results rows as one flat dict."""
    n = len(rows)
    out = {k: sum(r[k] for r in rows) / n if n else float("nan")
           for k in ("format", "platforms", "tool_names", "tool_param_names", "tool_param_values", "overall")}
    out["query_params"] = sum(r["query"] for r in rows) / n_query if n_query else float("nan")
    out["profile_params"] = sum(r["profile"] for r in rows) / n_profile if n_profile else float("nan")
    out = {k: out[k] for k in ACC_KEYS}
    out.update({k: float(sum(r[k] for r in rows)) for k in ERROR_KEYS})
    return out


def combine(untrained: dict, trained: dict, n_untrained: int, n_trained: int) -> dict:
    """The published overall file (quirk 14): sample-weighted means; error counts added."""
    n = n_untrained + n_trained
    out = {k: (untrained[k] * n_untrained + trained[k] * n_trained) / n for k in ACC_KEYS}
    out.update({k: untrained[k] + trained[k] for k in ERROR_KEYS})
    return out
