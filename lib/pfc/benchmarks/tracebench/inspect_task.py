"""TRACEBench's inspect_ai task (``inspect eval lib/pfc/benchmarks/tracebench/inspect_task.py@tracebench``): the parameters it
takes, handed to ``pfc.integrations.inspect_tasks.make_task`` (prompts, tools and scorer are pfc's)."""
from __future__ import annotations

from inspect_ai import Task, task

from pfc.integrations.inspect_tasks import make_task


@task
def tracebench(examples: str = "", strategy: str = "zero_shot", history: str = "full", k: int = 50, seed: int = 0,
               limit: int = 0) -> Task:
    return make_task("tracebench", examples, "", strategy, history, k, seed, limit)
