"""Fault suite, the inspect tasks: they refuse what ``pfc run`` refuses (another benchmark's examples, k < 1)."""
import pytest

from pfc.errors import UserError

inspect_tasks = pytest.importorskip("pfc.integrations.inspect_tasks", exc_type=ImportError)  # needs inspect_ai

pytestmark = pytest.mark.slow  # reads the tiny TRACEBench


def test_the_ptbench_task_refuses_tracebench_examples(bench):
    with pytest.raises(UserError, match="holds tracebench examples, not ptbench"):
        inspect_tasks.make_task("ptbench", str(bench))


@pytest.mark.parametrize("k", [0, -1, "5", True])
def test_a_history_window_below_one_is_refused(bench, k):
    with pytest.raises(UserError, match="field 'k': expected an integer >= 1"):
        inspect_tasks.make_task("tracebench", str(bench), history="last_k", k=k)


def test_an_unknown_history_mode_is_refused(bench):
    with pytest.raises(UserError, match="field 'history'"):
        inspect_tasks.make_task("tracebench", str(bench), history="everything")
