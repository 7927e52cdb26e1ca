"""ToolSpectrum's inspect_ai task (``inspect eval lib/pfc/benchmarks/toolspectrum/inspect_task.py@toolspectrum``): the parameters it
takes, handed to ``pfc.integrations.inspect_tasks.make_task`` (prompts, tools and scorer are pfc's)."""
from __future__ import annotations

from inspect_ai import Task, task

from pfc.integrations.inspect_tasks import make_task


@task
def toolspectrum(examples: str = "", tools: str = "", strategy: str = "zero_shot", seed: int = 0,
                 limit: int = 0) -> Task:
    return make_task("toolspectrum", examples, tools, strategy, "full", 50, seed, limit)
