"""Report groups that the builder, the runner and the scorer all need: the history-length bins of TRACEBench Fig. 4.

The bins count the records before an example's anchor: ``<100``, ``100-199``, ``200-299``, ``300-399``, ``400+``. The
builder (``pfc.data.anchors``, ``pfc.data.build``) balances queries over them, the run plans' sampler
(``pfc.plans.sampling``) samples by them and the scorer (``pfc.eval.scoring``) reports metrics by them, so the module
sits below the stages, beside ``pfc.schema``. It holds no other grouping (vagueness levels are
``pfc.data.querygen.LEVELS``).

    >>> history_bin(99), history_bin(100), history_bin(1234)
    ('<100', '100-199', '400+')
"""
from __future__ import annotations

HISTORY_BINS = ("100-199", "200-299", "300-399", "400+")  # Fig. 4 bins of the default build (records before the anchor)


def history_bin(n: int) -> str:
    """Fig. 4 bin of a history of ``n`` records: <100, 100-199, 200-299, 300-399, 400+."""
    if n < 100:
        return "<100"
    return HISTORY_BINS[min(n // 100 - 1, len(HISTORY_BINS) - 1)]
