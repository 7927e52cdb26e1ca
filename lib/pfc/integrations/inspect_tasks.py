"""inspect_ai tasks for every registered benchmark: our prompts, inspect's models, our scorer.

A thin adapter (``pip install -e .[inspect]``). Each example becomes a ``Sample`` whose input is the chat our prompter
builds for ``pfc run`` (``pfc.run.runner.build_request``: same strategy, history and seed). Where our prompt offers
native tools (TRACEBench), they are given to the model the inspect way — one ``ToolDef`` per candidate tool, set per
sample — and the model's tool calls are read, never executed (``generate(tool_calls="none")``; the tools' bodies refuse
to run). The scorer turns the model's last message into the raw output ``pfc run`` would have written (text, or an
assistant message with ``tool_calls``), checks it with ``pfc.eval.scoring.check`` per sample, and the ``pfc`` metric
scores all of them at once with ``pfc.eval.scoring.score`` — the numbers ``pfc score`` prints for the same outputs.
Two-step (hierarchical) prompting is ``pfc run``'s only.

    LOCAL_BASE_URL=http://127.0.0.1:8000/v1 LOCAL_API_KEY=local inspect eval \\
        lib/pfc/benchmarks/tracebench/inspect_task.py@tracebench --model openai-api/local/tiny -T examples=data/benchmarks/tracebench

Each benchmark's package holds its task (``inspect_task.py``, a call of :func:`make_task` with the parameters it takes);
:func:`benchmark` runs any registered one by name (``inspect_tasks.py@benchmark -T name=…``).
"""
from __future__ import annotations

import json
import math

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import SampleScore, Score, Target, Value, metric, scorer
from inspect_ai.solver import Generate, TaskState, generate, solver
from inspect_ai.tool import ToolDef, ToolParams

from pfc import benchmarks, paths
from pfc.errors import UserError

HISTORIES = ("full", "last_k", "retrieved")  # pfc run --history
_LOADED: dict[str, tuple[list, list]] = {}  # "benchmark:examples": (examples, tools), for the metric
ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def _default_examples(benchmark: str) -> str:
    d = benchmarks.get(benchmark).data_dir()
    return str(d) if d is not None else ""


def load(benchmark: str, examples: str = "", tools: str = "", limit: int = 0) -> tuple[str, list, list]:
    """Our examples and tools (``examples`` read like ``pfc run --examples``); returns (key, examples, tools)."""
    examples = examples or _default_examples(benchmark)
    exs, tls = benchmarks.get(benchmark).scoring.load(paths.source(examples), paths.source(tools) if tools else None)
    if not exs:
        raise UserError(f"{examples}: no {benchmark} examples")
    kinds = sorted({e.benchmark for e in exs})
    if kinds != [benchmark]:  # as pfc run refuses them (pfc.run.checks.preflight)
        raise UserError(f"holds {'/'.join(kinds)} examples, not {benchmark}", file=str(examples))
    exs = exs[:limit] if limit else exs
    key = f"{benchmark}:{examples}:{tools}:{limit}"
    _LOADED[key] = (exs, tls)
    return key, exs, tls


def samples(benchmark: str, exs: list, tls: list, strategy: str = "zero_shot", history: str = "full", k: int = 50,
            seed: int = 0) -> list[Sample]:
    """One Sample per example: our prompt's messages; the native tool specs (if any) in its metadata."""
    from pfc.run.runner import build_request
    if strategy == "hierarchical":
        raise UserError("strategy 'hierarchical' is two requests per example: use pfc run")
    by_key = {t.key: t for t in tls}
    out = []
    for ex in exs:
        req = build_request(benchmark, ex, by_key, strategy, history, k, True, {"seed": seed}, pool=exs)
        msgs = [ROLES[m["role"]](content=m["content"]) for m in req.messages]
        out.append(Sample(id=ex.id, input=msgs, metadata={"tools": req.tools or []}))
    return out


def _not_executed():
    async def body(**arguments) -> str:  # one function object per tool: inspect attaches each tool's name to it
        raise RuntimeError("pfc reads tool calls and never executes them")
    return body


def tool_defs(specs: list[dict]) -> list[ToolDef]:
    """OpenAI-style function specs as inspect tools (their bodies refuse to run)."""
    return [ToolDef(_not_executed(), name=s["function"]["name"], description=s["function"].get("description", ""),
                    parameters=ToolParams.model_validate(s["function"].get("parameters") or {}))
            for s in specs]


@solver
def offer_tools():
    """Give the model this sample's candidate tools (TRACEBench's native tools); no change where none."""
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.metadata.get("tools"):
            state.tools = [d.as_tool() for d in tool_defs(state.metadata["tools"])]
            state.tool_choice = "auto"
        return state
    return solve


def raw_output(message) -> str | dict:
    """What ``pfc run`` keeps for this answer: the text, or an assistant message with its tool calls."""
    text = message.text if message is not None else ""
    calls = getattr(message, "tool_calls", None) or []
    if not calls:
        return text
    return {"content": text or None, "tool_calls": [
        {"id": c.id, "type": "function", "function": {"name": c.function,
                                                      "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
        for c in calls]}


@metric
def pfc(key: str):
    """Every headline metric of ``pfc score`` over the samples scored so far: our per-example rows (in the
    examples' order) through ``pfc.eval.scoring.headline``, as ``pfc score`` computes them."""
    def compute(scores: list[SampleScore]) -> Value:
        import pandas as pd
        from pfc.eval.scoring import headline
        exs, _ = _LOADED[key]
        order = {e.id: i for i, e in enumerate(exs)}
        rows = {s.score.metadata["row"]["id"]: s.score.metadata["row"] for s in scores}
        df = pd.DataFrame(sorted(rows.values(), key=lambda r: order[r["id"]]))
        metrics = headline(benchmarks.get(key.split(":", 1)[0]), df)
        return {k: float(v) for k, v in metrics.items() if "/" not in k and v is not None}
    return compute


def pfc_scorer(key: str):
    """Per sample: our checker's row (its ``overall`` is the value inspect shows); the ``pfc`` metric turns the
    rows into the benchmark's numbers. ``key``: the task's loaded examples (:func:`load`)."""
    from pfc.eval.scoring import example_row
    benchmark = key.split(":", 1)[0]
    exs, tls = _LOADED[key]
    by_id = {e.id: e for e in exs}
    adapter = benchmarks.get(benchmark)
    ctx = adapter.scoring.context(exs, tls)

    @scorer(metrics=[pfc(key)], name="pfc")
    def pfc_check():
        async def score(state: TaskState, target: Target) -> Score:
            out = raw_output(state.output.message if state.output else None)
            ex = by_id[str(state.sample_id)]
            row, _, error = example_row(ex, {ex.id: out}, benchmark, adapter, ctx)
            row = plain(row)
            return Score(value=float(row.get("overall") or 0.0), answer=json.dumps(out, ensure_ascii=False)[:2000],
                         explanation=error or "correct", metadata={"output": out, "row": row})
        return score
    return pfc_check()


def plain(row: dict) -> dict:
    """A row with plain Python values (numpy scalars unwrapped, NaN as None) so it travels in inspect's log."""
    out = {}
    for k, v in row.items():
        v = v.item() if hasattr(v, "item") else v
        out[k] = None if isinstance(v, float) and math.isnan(v) else v
    return out


def make_task(benchmark: str, examples: str = "", tools: str = "", strategy: str = "zero_shot",
              history: str = "full", k: int = 50, seed: int = 0, limit: int = 0) -> Task:
    from pfc.run.config import check_strategy
    for name, value, low in (("k", k, 1), ("limit", limit, 0), ("seed", seed, None)):
        if isinstance(value, bool) or not isinstance(value, int) or (low is not None and value < low):
            raise UserError(f"expected an integer{f' >= {low}' if low is not None else ''}, got {value!r}", field=name)
    if history not in HISTORIES:
        raise UserError(f"expected one of {HISTORIES}, got {history!r}", field="history")
    check_strategy(benchmark, strategy)
    key, exs, tls = load(benchmark, examples, tools, limit)
    return Task(dataset=MemoryDataset(samples(benchmark, exs, tls, strategy, history, k, seed), name=benchmark),
                solver=[offer_tools(), generate(tool_calls="none")], scorer=pfc_scorer(key), name=benchmark)


@task
def benchmark(name: str, examples: str = "", tools: str = "", strategy: str = "zero_shot", history: str = "full",
              k: int = 50, seed: int = 0, limit: int = 0) -> Task:
    """Any registered benchmark (``-T name=…``); each benchmark's package also has its own task
    (``lib/pfc/benchmarks/<name>/inspect_task.py@<name>``) with just the parameters it takes."""
    if name not in benchmarks.NAMES:
        raise UserError(f"unknown benchmark {name!r}; expected one of {', '.join(benchmarks.NAMES)}", field="name")
    return make_task(name, examples, tools, strategy, history, k, seed, limit)
