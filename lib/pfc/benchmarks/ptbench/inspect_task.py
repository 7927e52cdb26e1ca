"""PTBench's inspect_ai task (``inspect eval lib/pfc/benchmarks/ptbench/inspect_task.py@ptbench``): the parameters it
takes, handed to ``pfc.integrations.inspect_tasks.make_task`` (prompts, tools and scorer are pfc's)."""
from __future__ import annotations

from inspect_ai import Task, task

from pfc.integrations.inspect_tasks import make_task


@task
def ptbench(examples: str = "", strategy: str = "zero_shot", seed: int = 0, limit: int = 0) -> Task:
    return make_task("ptbench", examples, "", strategy, "full", 50, seed, limit)
