"""``make reproduce``'s real-model run: the real small model on a small stratified sample of TRACEBench.

:func:`stratified_sample` writes the sample (``pfc.plans.sampling.tracebench_sample``'s seeded draw over the
level × history-bin grid, plus the examples ``00_walkthrough`` shows, :func:`walkthrough_examples`, so the
walkthrough reads the model's answers from the response cache); :data:`SETTINGS` are the run's settings
beside the benchmark, examples, backend and model; :func:`real_model_dir` finds the model. The pipeline
(``pfc.report.pipeline.planning``) makes it a step of notebook 03; this module runs nothing.
"""
from __future__ import annotations

from pathlib import Path

from pfc.io import atomic
from pfc.plans.sampling import tracebench_sample
from pfc.data.querygen import LEVELS
from pfc.models import registry
from pfc.schema import load_examples, write_examples

REAL_MODEL_NAME = "qwen2.5-coder-0.5b"
BACKEND = "hf"
SETTINGS = {"history": "last_k", "k": 5}  # the run's settings beside its benchmark, examples, backend and model


def walkthrough_examples(examples) -> tuple[str, list, dict]:
    """What ``00_walkthrough`` shows: the first user (sorted ids), the vagueness levels of that user's
    first anchor that has all four (in the paper's order; an anchor whose level could not be generated lacks it — with
    none complete, the anchor with the most levels), and one ``relevant_vague`` example per personalization type.
    Returns ``(user, levels, {type: example})``."""
    user = sorted({e.user_id for e in examples})[0]
    mine = [e for e in examples if e.user_id == user]
    picked: dict = {}
    for e in mine:
        for t in e.meta.get("personalization") or []:
            if t not in picked and e.meta["vagueness"] == "relevant_vague":
                picked[t] = e
    by_anchor: dict = {}
    for e in mine:
        by_anchor.setdefault(e.meta["anchor_id"], []).append(e)
    anchor = max(by_anchor, key=lambda a: len({e.meta["vagueness"] for e in by_anchor[a]}))  # the first of the most
    levels = sorted(by_anchor[anchor], key=lambda e: LEVELS.index(e.meta["vagueness"]))
    return user, levels, picked


def stratified_sample(examples_path, out_path, n: int, seed: int = 0, walkthrough: bool = False) -> Path:
    """Write ``n`` TRACEBench examples covering every vagueness level and every history bin (the axes
    of Fig. 3 and Fig. 4) with as few examples as possible (``pfc.plans.sampling.tracebench_sample``: 4 examples already
    give every level and every bin one point). ``walkthrough=True`` adds the examples ``00_walkthrough`` shows
    (:func:`walkthrough_examples`), so the walkthrough reads the real model's answers from the response cache instead of
    generating them again. Deterministic for a seed."""
    p = Path(examples_path)
    examples = load_examples(p / "examples.jsonl" if p.is_dir() else p)
    ids = set(tracebench_sample(examples, seed, n=n))
    if walkthrough:
        _, levels, picked = walkthrough_examples(examples)
        ids |= {e.id for e in levels + list(picked.values())}
    picked = [e for e in examples if e.id in ids]
    out = Path(out_path)
    out.mkdir(parents=True, exist_ok=True)
    write_examples(sorted(picked, key=lambda e: e.id), out / "examples.jsonl")
    tools = (p if p.is_dir() else p.parent) / "tools.json"
    if tools.exists():
        atomic.write_bytes(out / "tools.json", tools.read_bytes())
    return out


def real_model_dir(spec: str = "auto") -> Path | None:
    """The packaged real small model: a directory, or ``auto`` = the registry's installed
    ``qwen2.5-coder-0.5b`` (``make models``); None when it is not installed or ``none``."""
    if spec in ("", "none"):
        return None
    if spec != "auto":
        return Path(spec)
    return registry.model_dir(REAL_MODEL_NAME) if registry.installed(REAL_MODEL_NAME) else None
