"""The reference plan's prompt-format grid (issue 65): one run per cell of TRACEBench's prompt axes.

The cells (``pfc.benchmarks.tracebench.formats.grid_cells``): the default prompt, then one axis moved at a time: history
written as JSON records, a Markdown table or sentences; newest record first; the answer as the JSON object in the prompt
(``--prompt-format``) or a Python call line: 1 + 3 + 1 + 2 = 7 runs, named ``format/<benchmark>-<cell>``
(:func:`run_name`) under each model's reference root, in a side folder (they never join the accuracy tables). Every cell
answers the same :data:`PER_LEVEL` x 4 = 200 requests, drawn from the reference sample's 400 (``tracebench-last_k``'s
ids) by :func:`grid_ids`: per vagueness level, users in turn over a seeded order
(``pfc.plans.sampling.level_user_subset``, key ``format-grid:<seed>``), so every user is in, with
``tracebench-last_k``'s other settings (``last_k``, k = 10, its model, engine, sampling). The same command resumes a
run; a cell's run is an ordinary ``pfc run`` directory. It plans; it runs nothing.

    python -m pfc.plans.reference --model qwen2.5-coder-1.5b --backend openvino --only format/tracebench-history-json
"""
from __future__ import annotations

from dataclasses import replace
from itertools import product
from pathlib import Path

from pfc import benchmarks
from pfc.plans import Planned
from pfc.plans.evidence import EVIDENCE_BENCHMARK
from pfc.plans.sampling import level_user_subset
from pfc.run.backends.chat_template import prompt_ids
from pfc.run.config import RunConfig
from pfc.run.requests import RequestBuilder

GRID_FOLDER = "format"
GRID_BENCHMARK = EVIDENCE_BENCHMARK  # the benchmark whose prompt module has the axes (TRACEBench)
PER_LEVEL = 50
SEED = 0


def run_name(cell: str) -> str:
    """``format/<benchmark>-<cell>``."""
    return f"{GRID_FOLDER}/{GRID_BENCHMARK}-{cell}"


def grid_ids(exs: list, reference_ids, per_level: int = PER_LEVEL, seed: int = SEED) -> list[str]:
    """The grid's requests: ``per_level`` per vagueness level of ``reference_ids``, every user in (sorted)."""
    return level_user_subset(exs, reference_ids, per_level, f"format-grid:{seed}")


def cells() -> list[tuple[str, str, bool]]:
    """``(cell, prompt variant, native tools)`` of every cell, the default first."""
    formats = benchmarks.get(GRID_BENCHMARK).prompts().formats
    return formats.grid_cells()


def grid_runs(exs: list, reference_ids, like: RunConfig) -> list[Planned]:
    """One planned run per cell: ``like``'s settings (the plan's ``tracebench-last_k``) on :func:`grid_ids`, with
    the cell's prompt variant and tool format, in ``<like's root>/format/``."""
    ids = tuple(grid_ids(exs, reference_ids))
    root = Path(like.out_dir).parent
    return [Planned(run_name(cell), replace(like, ids=ids, prompt_variant=variant, native=native,
                                            out_dir=root / run_name(cell)))
            for cell, variant, native in cells()]


def factorial() -> list[tuple[str, str, bool]]:
    """``(cell, variant, native)`` of every cell of the full factorial over the grid's axes (24)."""
    formats = benchmarks.get(GRID_BENCHMARK).prompts().formats
    out = []
    for h, o, a in product(formats.AXES["history"], formats.AXES["order"], formats.ANSWER_LEVELS):
        variant = formats.name({"history": h, "order": o, "answer": "python" if a == "python" else "json"})
        out.append((formats.cell_name(variant, a == "native"), variant, a == "native"))
    return out


def prompt_tokens(exs: list, tools: list, ids, tokenizer_dir: Path, grid=None) -> dict[str, float]:
    """Mean prompt tokens per request of each cell (``grid``: :func:`cells` by default) on the requests ``ids`` of
    ``exs`` (the grid's: :func:`grid_ids`), counted with the model's own tokenizer and chat template
    (``pfc.run.backends.chat_template``): what the engine prefills. Loads a tokenizer only, never a model."""
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    chosen = [e for e in exs if e.id in set(ids)]
    out = {}
    for cell, variant, native in grid or cells():
        rb = RequestBuilder(GRID_BENCHMARK, tools, "zero_shot", "last_k", 10, native, prompt_variant=variant)
        n = [len(prompt_ids(tok, r.messages, r.tools)) for r in (rb.answer(e) for e in chosen)]
        out[cell] = sum(n) / len(n)
    return out
