"""The pure matching core: compare one parsed prediction with one example's gold calls.

:func:`compare` aligns predicted calls with gold calls and classifies every argument as
correct, wrong, missing or excess, with the gold argument's provenance role attached.
Benchmarks turn a :class:`Comparison` into their metrics (``pfc.benchmarks``) and error
classes (``pfc.eval.taxonomy``); this module knows no benchmark and does no I/O.

Alignment: each gold call takes the first unused predicted call with the same function name (preferring the same app).
With ``pair_leftovers`` (single-call benchmarks scored per level, like ToolSpectrum) leftover calls are then paired in
order. A parse marked ``exact`` (strict scoring, set by ``pfc.eval.scoring``) is compared with app names as written and
values exactly equal; otherwise app names and values are normalized.

    >>> from pfc.eval.parsing import parse; from pfc.schema import Example
    >>> ex = Example.from_dict({"id": "1", "benchmark": "ptbench", "query": "q",
    ...      "gold": [{"app": "A", "function": "f", "arguments": {"x": 1}}]})
    >>> compare(ex, parse("A:[f(x=1)]")).overall
    True
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pfc.eval.matching import norm_app, same_app, value_matches, values_identical
from pfc.eval.parsing import ParseResult
from pfc.schema import Call, Example, GoldCall, Role

_DEFAULT_ROLE = Role()


@dataclass(slots=True)
class ArgResult:
    function: str
    argument: str
    status: str                   # correct | wrong | missing | excess
    gold: list | None = None      # acceptable values (None for excess arguments)
    pred: object = None
    role: Role | None = None      # provenance of the gold argument (None for excess)
    function_matched: bool = True  # False when the argument's call has no same-named partner


@dataclass(slots=True)
class Comparison:
    parsed: bool
    parse_error: str | None
    gold_refusal: bool
    pred_refusal: bool
    app_ok: bool = False
    functions_ok: bool = False
    param_names_ok: bool = False
    values_ok: bool = False
    missing_functions: list[str] = field(default_factory=list)
    excess_functions: list[str] = field(default_factory=list)
    args: list[ArgResult] = field(default_factory=list)
    pred_calls: list[Call] = field(default_factory=list)
    gold_calls: list[GoldCall] = field(default_factory=list)

    @property
    def overall(self) -> bool:
        return self.parsed and self.app_ok and self.functions_ok and self.param_names_ok and self.values_ok


def align(gold: list[GoldCall], pred: list[Call], pair_leftovers: bool = False):
    """[(gold, pred | None)], [unmatched pred]; see the module docstring."""
    if len(gold) == 1 and len(pred) == 1 and gold[0].function == pred[0].function:
        return [(gold[0], pred[0])], []  # the common case
    used: set[int] = set()
    pairs: list[tuple[GoldCall, Call | None]] = []
    for g in gold:
        same = [i for i, p in enumerate(pred) if i not in used and p.function == g.function]
        best = next((i for i in same if same_app(pred[i].app, g.app)), same[0] if same else None)
        if best is not None:
            used.add(best)
        pairs.append((g, pred[best] if best is not None else None))
    left = [p for i, p in enumerate(pred) if i not in used]
    if pair_leftovers:
        for k, (g, p) in enumerate(pairs):
            if p is None and left:
                pairs[k] = (g, left.pop(0))
    return pairs, left


def _all_missing(g) -> list[ArgResult]:
    """Every argument of gold call ``g`` as missing (no predicted call was paired with it)."""
    return [ArgResult(g.function, n, "missing", g.acceptable(n), None, g.role(n), False) for n in g.arguments]


def _all_excess(p) -> list[ArgResult]:
    """Every argument of predicted call ``p`` as excess (no gold call was paired with it)."""
    return [ArgResult(p.function, n, "excess", None, v, None, False) for n, v in p.arguments.items()]


def compare(example: Example, result: ParseResult, pair_leftovers: bool = False) -> Comparison:
    gold = example.gold
    cmp = Comparison(result.ok, None if result.ok else (result.error or "format:unparseable"),
                     gold is None, result.refusal, pred_calls=list(result.calls),
                     gold_calls=list(gold or []))
    if not result.ok:
        for g in gold or []:
            cmp.args += _all_missing(g)
        return cmp
    if gold is None or result.refusal:
        agree = gold is None and result.refusal
        cmp.app_ok = cmp.functions_ok = cmp.param_names_ok = cmp.values_ok = agree
        for g in gold or []:
            cmp.missing_functions.append(g.function)
            cmp.args += _all_missing(g)
        for p in result.calls:
            cmp.excess_functions.append(p.function)
            cmp.args += _all_excess(p)
        return cmp

    pairs, left = align(gold, result.calls, pair_leftovers)
    exact = result.exact  # strict scoring (pfc.eval.scoring): app names as written, values exactly equal
    if exact:
        cmp.app_ok = {g.app for g in gold} == {p.app for p in result.calls}
    else:
        cmp.app_ok = {norm_app(g.app) for g in gold} == {norm_app(p.app) for p in result.calls}
    names_ok, any_wrong, out = True, False, cmp.args
    for g, p in pairs:
        matched = p is not None and p.function == g.function
        if not matched:
            cmp.missing_functions.append(g.function)
            if p is not None:
                cmp.excess_functions.append(p.function)
        pargs = p.arguments if p is not None else {}
        alts, roles = g.alternatives, g.roles
        for n, v in g.arguments.items():
            extra = alts.get(n)
            acc = [v, *extra] if extra else [v]
            role = roles.get(n) or _DEFAULT_ROLE
            if n not in pargs:
                out.append(ArgResult(g.function, n, "missing", acc, None, role, matched))
                names_ok = False
            else:
                pv = pargs[n]
                ok = any(values_identical(pv, a) for a in acc) if exact else value_matches(pv, acc)
                any_wrong |= not ok
                out.append(ArgResult(g.function, n, "correct" if ok else "wrong", acc, pv, role, matched))
        for n, v in pargs.items():
            if n not in g.arguments:
                out.append(ArgResult(p.function, n, "excess", None, v, None, matched))
                names_ok = False
    for p in left:
        cmp.excess_functions.append(p.function)
        out += _all_excess(p)
    cmp.functions_ok = not cmp.missing_functions and not cmp.excess_functions
    cmp.param_names_ok = cmp.functions_ok and names_ok
    cmp.values_ok = cmp.param_names_ok and not any_wrong
    return cmp
