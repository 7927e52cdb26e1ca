"""Chat-format SFT records from PTBench-shape data: the evaluation prompt + the gold answer.

The prompt is exactly what ``pfc run`` sends for the same example (``pfc.benchmarks.ptbench.prompts``),
so a model trained on these records is evaluated on the inputs it was trained on (PTBench
Table 2: "the input in evaluation remains consistent with the training input"). The
answer is the gold solution in PTBench's bracket format, first acceptable value of each
parameter. :func:`write_train` puts them beside a synthesized PTBench as ``train.jsonl``;
:func:`build_ptbench` is the synthesis (``pfc.data.ptool.build.build_once``) plus that file.
This module does not train (``pfc.train.lora``) nor synthesize data (``pfc.data.ptool``).

    >>> answer_text(["Shop", [{"buy": {"n": [2, 3]}}]])
    'Shop:[buy(n=2)]'
"""
from __future__ import annotations

import json
from pathlib import Path

from pfc.benchmarks.ptbench import load_official
from pfc.data.ptool.agents import render_answer
from pfc.benchmarks.ptbench.prompts import build
from pfc.io import atomic
from pfc.data.ptool.build import DEFAULT_VERSION, build_once


def answer_text(answer) -> str:
    return render_answer(answer)


def chat_records(data_json, variant: str = "all", wording: str = "own") -> list[dict]:
    """``[{"id", "messages": [system, user, assistant]}]`` for every record of an official data.json."""
    out = []
    for ex in load_official(data_json, gold=False):
        p = build(ex, variant=variant, wording=wording)
        out.append({"id": ex.id, "messages": p.messages + [
            {"role": "assistant", "content": answer_text(ex.meta["official_answer"])}]})
    return out


def write_train(out) -> Path:
    """``<out>/train.jsonl``: the chat records of ``<out>/train/data.json`` (a ``pfc build ptbench`` directory)."""
    out = Path(out)
    with atomic.open_text(out / "train.jsonl") as fh:
        for rec in chat_records(out / "train" / "data.json"):
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return out / "train.jsonl"


def build_ptbench(out, seed: int = 0, version: int | None = None) -> Path:
    """``pfc build ptbench --seed SEED --synthesis VERSION --out OUT`` unless already built (``build_once``;
    default: the current synthesis), with ``train.jsonl``."""
    out = build_once(out, seed, DEFAULT_VERSION if version is None else version)
    if not (out / "train.jsonl").exists():
        write_train(out)
    return out
