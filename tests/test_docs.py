"""docs/metrics.md lists every metric as pfc.eval.metrics defines it (the definition stays in one place: the code)."""
import pytest

from pfc import paths
from pfc.eval.metrics import METRICS

DOC = (paths.ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_metric_is_listed_with_the_definition_in_the_code(name):
    m = METRICS[name]
    assert f"| `{m.name}` | {m.aggregation} | {'higher' if m.higher_is_better else 'lower'} | {m.description} |" in DOC
