"""Does the model personalize, or guess well? Per-variant columns for the personalization metrics.

A counterfactual variant (``pfc.data.counterfactual``) pairs with its original example; a run on the originals and a run
on the variants give two answers to the same request. One row per variant (``rows``), with the columns that the metrics
``context_following``, ``request_faithfulness`` and ``sensitivity`` (``pfc.eval.metrics``) aggregate:

- ``follow_hit`` / ``follow_total``: over the *discriminating* context items of the variant (an app choice or a
  history/profile-sourced argument whose counterfactual value is known and differs from the original gold), how many the
  answer on the variant gives with the counterfactual value **while the answer on the original did not**: the answer
  moved to what the new context implies. A model that ignores the context (``no-history``, the original gold ``oracle``)
  never moves, so it scores 0 whatever it guesses.
- ``faithful_kept`` / ``faithful_base``: over the values stated in the request that the answer on the original got
  right, how many the answer on the variant still gets right.
- ``changed``: 1 when the variant's answer differs from the original's (calls compared after parsing, app names
  normalised; an unparsable answer is compared by its raw text).

Values are compared with ``pfc.eval.matching`` (the scorer's rules); an argument is read from the predicted call aligned
with its gold call (``pfc.eval.checker.align``). It reads answers only; it does not run models or resample
(``pfc.eval.bootstrap``).
"""
from __future__ import annotations

import json

import pandas as pd

from pfc.errors import UserError
from pfc.eval.checker import align
from pfc.eval.matching import norm_app, same_app, value_matches
from pfc.eval.parsing import parse
from pfc.schema import Example

COLUMNS = ("follow_hit", "follow_total", "faithful_kept", "faithful_base", "changed")


def answer_calls(result) -> list:
    return list(result.calls) if result.ok and not result.refusal else []


def _answer_key(output, result) -> str:
    if not result.ok:
        return "unparsed:" + str(output)
    calls = sorted((norm_app(c.app) or "", c.function, json.dumps(c.arguments, sort_keys=True, ensure_ascii=False,
                                                                  default=str)) for c in result.calls)
    return json.dumps([result.refusal, calls])


def pred_value(example: Example, calls: list, call: int, argument):
    """(present, value) of the gold call ``call``'s app (argument None) or argument in the aligned predicted call."""
    pairs, _ = align(example.gold, calls)
    pred = pairs[call][1] if call < len(pairs) else None
    if pred is None:
        return False, None
    if argument is None:
        return True, pred.app
    return (argument in pred.arguments), pred.arguments.get(argument)


def matches(present: bool, value, target, argument) -> bool:
    if not present:
        return False
    return same_app(value, target) if argument is None else value_matches(value, [target])


def variant_row(original: Example, variant: Example, out_orig, out_var, style: str = "auto") -> dict:
    """The personalization columns of one variant (see the module docstring)."""
    r_orig, r_var = parse(out_orig, style), parse(out_var, style)
    c_orig, c_var = answer_calls(r_orig), answer_calls(r_var)
    info = variant.meta.get("counterfactual", {})
    row = dict.fromkeys(COLUMNS, 0)
    row["changed"] = int(_answer_key(out_orig, r_orig) != _answer_key(out_var, r_var))
    if not original.gold:
        return row
    for it in info.get("items", []):
        call, arg = it["call"], it["argument"]
        if it["known"] and it["source"] != "query" and it["counterfactual"] != it["original"]:
            row["follow_total"] += 1
            now = matches(*pred_value(variant, c_var, call, arg), it["counterfactual"], arg)
            before = matches(*pred_value(original, c_orig, call, arg), it["counterfactual"], arg)
            row["follow_hit"] += int(now and not before)
    stated = [(i, a, g.arguments[a]) for i, g in enumerate(original.gold) for a in g.arguments
              if g.role(a).source == "query"
              and variant.gold and i < len(variant.gold) and variant.gold[i].role(a).source == "query"]
    for i, a, gold in stated:
        if matches(*pred_value(original, c_orig, i, a), gold, a):
            row["faithful_base"] += 1
            row["faithful_kept"] += int(matches(*pred_value(variant, c_var, i, a), gold, a))
    return row


def rows(originals: list[Example], variants: list[Example], outputs_orig: dict, outputs_var: dict,
         style: str = "auto") -> pd.DataFrame:
    """One row per variant: id, original_id, user_id, kind and the columns above.

    ``outputs_*``: {example id: raw output}; a missing answer counts as an unparsable one.
    """
    by_id = {e.id: e for e in originals}
    out = []
    for v in variants:
        info = v.meta.get("counterfactual") or {}
        orig = by_id.get(info.get("original_id"))
        if orig is None:
            raise UserError(f"variant {v.id}: its original {info.get('original_id')!r} is not among the originals")
        out.append({"id": v.id, "original_id": orig.id, "user_id": orig.user_id, "kind": info.get("kind"),
                    **variant_row(orig, v, outputs_orig.get(orig.id), outputs_var.get(v.id), style)})
    return pd.DataFrame(out, columns=["id", "original_id", "user_id", "kind", *COLUMNS])
