"""Chat-format SFT records from PTBench-shape data: the evaluation prompt + the gold answer.

The prompt is exactly what ``pfc run`` sends for the same example (``pfc.run.prompts.ptbench``),
so a model trained on these records is evaluated on the inputs it was trained on (PTBench
Table 2: "the input in evaluation remains consistent with the training input"). The
answer is the gold solution in PTBench's bracket format, first acceptable value of each
parameter.

    >>> from pfc.data.ptool.sft import answer_text
    >>> answer_text(["Shop", [{"buy": {"n": [2, 3]}}]])
    'Shop:[buy(n=2)]'
"""
from __future__ import annotations

from pfc.benchmarks.ptbench import load_official
from pfc.run.prompts.ptbench import build
from pfc.data.ptool.agents import render_answer


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
