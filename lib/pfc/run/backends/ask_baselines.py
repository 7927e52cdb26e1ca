"""Ask-or-infer baselines with known answers (issue 64): ``always-call``, ``always-ask``, ``ask-threshold``.

All three are ``history-prior`` (``pfc.run.backends.builtin``) underneath; they differ only in when they ask:

- ``always-call`` never asks: history-prior's call on every item (over-ask 0, guess rate 1, tool hallucination 1: it has
  no way to refuse);
- ``always-ask`` asks on every item (over-ask 1, guess rate 0), about its weakest slot;
- ``ask-threshold`` (backend option ``tau``, default :data:`TAU`) asks when the evidence for its weakest slot is below
  τ, else calls. Swept over τ (``pfc.eval.ask.risk_coverage`` over an ``always-call`` run and :func:`evidence`) it draws
  the risk–coverage curve; a run at one τ is a point on it.

**Evidence** (:func:`evidence`): a *slot* is a parameter of history-prior's chosen tool that the request does not state
(``pfc.run.backends.query_values.stated_values``) and that the call fills or the tool requires; its evidence is how many
of the example's last :data:`WINDOW` history records (what the ask runs show a model) support the value the call gives
it (``pfc.data.counterfactual_ask.supports``, the rule that made the ask items), 0 when unfilled. The weakest slot has
the least (ties: by name); with no slot the evidence is infinite and no policy but always-ask asks. A question is
``{"ask": "Which <slot words> would you like?"}`` (read by ``pfc.eval.action``).

Each class declares its ``ask_policy`` (``call`` | ``ask`` | ``threshold``); notebook 10 and the pipeline pick a
baseline by it (:data:`BY_POLICY`), never by position. It calls no model.

    >>> BY_POLICY
    {'call': 'always-call', 'ask': 'always-ask', 'threshold': 'ask-threshold'}
"""
from __future__ import annotations

import json
import math
import sys

from pfc.data.counterfactual_ask import supports
from pfc.errors import UserError
from pfc.provenance import source_version
from pfc.run.backends import Response
from pfc.run.backends.builtin import HistoryPrior
from pfc.run.backends.query_values import stated_values

TAU = 1.0  # ask-threshold's default: ask when no record supports the weakest slot's value
WINDOW = 20  # the records evidence is counted in: the ask runs' window (pfc.plans.evidence.EVIDENCE_WINDOW)


def question(slot: str | None) -> str:
    what = slot.replace("_", " ") if slot else "exactly"
    return json.dumps({"ask": f"Which {what} would you like?" if slot else "What exactly would you like?"})


class AlwaysCall(HistoryPrior):
    name, ask_policy = "always-call", "call"

    def __init__(self, model: str = "", tools=None, seed: int = 0, tau=None, **kw):
        super().__init__(model, tools, seed, **kw)
        if tau is not None and (isinstance(tau, bool) or not isinstance(tau, (int, float)) or tau != tau):
            raise UserError(f"expected a number, got {tau!r}", field="backend_options.tau")
        self.tau = TAU if tau is None else float(tau)
        self.version = f"{self.version}+{source_version(sys.modules[__name__])}"
        self._calls: dict = {}  # history-prior's call per example id: the evidence and the answer share it

    def predict(self, ex):
        if ex.id not in self._calls:
            self._calls[ex.id] = super().predict(ex)
        return self._calls[ex.id]

    def evidence(self, ex, call=None) -> tuple[float, str | None]:
        """(evidence of the weakest slot, that slot) of history-prior's call on ``ex`` (module doc), or of
        ``call`` when given (the call an ``always-call`` run made: no need to predict it again)."""
        call = call or self.predict(ex)[0]
        tool = self.by_key.get(f"{call.app}.{call.function}" if call.app else call.function)
        if tool is None:
            return math.inf, None
        hist = list(ex.history or [])
        stated = stated_values(ex.query, tool, hist)
        hist = hist[len(hist) - WINDOW:]  # what the ask runs show a model
        slots = sorted(p for p in tool.param_names if p not in stated and (p in call.arguments or p in tool.required))
        counts = {p: sum(supports(h, call.function, p, [call.arguments[p]]) for h in hist)
                  if p in call.arguments else 0 for p in slots}
        if not counts:
            return math.inf, None
        weakest = min(slots, key=lambda p: (counts[p], p))
        return float(counts[weakest]), weakest

    def asks(self, ex) -> tuple[bool, str | None]:
        """(whether this policy asks on ``ex``, the slot it asks about)."""
        return False, None

    def answer(self, requests, examples):
        out = super().answer(requests, examples)
        for i, ex in enumerate(examples):
            try:
                ask, slot = self.asks(ex)
            except Exception as e:  # as history-prior: one example failing is a failed request, not a crash
                out[i] = Response(error=f"{type(e).__name__}: {e}")
                continue
            if ask:
                out[i] = Response(text=question(slot))
        return out


class AlwaysAsk(AlwaysCall):
    name, ask_policy = "always-ask", "ask"

    def asks(self, ex):
        return True, self.evidence(ex)[1]


class AskThreshold(AlwaysCall):
    name, ask_policy = "ask-threshold", "threshold"

    def asks(self, ex):
        n, slot = self.evidence(ex)
        return n < self.tau, slot


BY_POLICY = {c.ask_policy: c.name for c in (AlwaysCall, AlwaysAsk, AskThreshold)}
