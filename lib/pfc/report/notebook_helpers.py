"""What the notebooks call beside the report modules: an output-directory parameter (:func:`out_dir`), a
list of run directories (:func:`split_dirs`), demo runs for a notebook's defaults (:func:`demo_runs`), the
walkthrough's examples (:func:`walkthrough_examples`), the real small model's stratified sample
(:func:`stratified_sample`) and where that model is installed (:func:`real_model_dir`).

Does not plan or run ``make reproduce`` (:mod:`pfc.report.pipeline`); the notebooks reach these names
through ``pfc.report.pipeline``, which re-exports them.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from pfc import paths
from pfc.io import atomic

REAL_MODEL_NAME = "qwen2.5-coder-0.5b"


def out_dir(value: str, prefix: str = "pfc-") -> Path:
    """A notebook's output directory parameter (relative: under ``PFC_OUTPUT_ROOT``); empty: a fresh temporary one."""
    return paths.output(value) if value else Path(tempfile.mkdtemp(prefix=prefix))


def split_dirs(value: str) -> list[Path]:
    """Comma-separated directories, each read where ``pfc.paths.source`` finds it."""
    return [paths.source(p.strip()) for p in str(value).split(",") if p.strip()]


def demo_runs(root, backends=("oracle", "history-prior", "no-history"), users: int = 2, records: int = 150,
              seed: int = 1) -> list[Path]:
    """A tiny TRACEBench (2 simulated users) and baseline runs on it, under ``root`` (for defaults and tests)."""
    from pfc.data.build import build_tracebench
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute
    root = Path(root)
    bench = root / "tracebench"
    if not (bench / "examples.jsonl").exists():
        build_tracebench(bench, users=users, seed=seed, records=records, progress=False)
    dirs = []
    for b in backends:
        d = root / "runs" / b
        execute(RunConfig("tracebench", bench, b, d, cache_path=root / "cache.sqlite", progress=False))
        dirs.append(d)
    return dirs


def walkthrough_examples(examples) -> tuple[str, list, dict]:
    """What ``00_walkthrough`` shows: the first user (sorted ids), the vagueness levels of that user's
    first anchor that has all four (in the paper's order; an anchor whose level could not be generated
    lacks it — with none complete, the anchor with the most levels), and one ``relevant_vague`` example
    per personalization type. Returns ``(user, levels, {type: example})``."""
    from pfc.data.querygen import LEVELS
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
    of Fig. 3 and Fig. 4) with as few examples as possible — the real reference runs' sampler
    (``pfc.run.realruns.tracebench_sample``: Latin diagonals of the level × bin grid), so 4 examples
    already give every level and every bin one point. ``walkthrough=True`` adds the examples
    ``00_walkthrough`` shows (:func:`walkthrough_examples`), so the walkthrough reads the real
    model's answers from the response cache instead of generating them again. Deterministic for a seed."""
    from pfc.run.realruns import tracebench_sample
    from pfc.schema import load_examples, write_examples
    p = Path(examples_path)
    examples = load_examples(p / "examples.jsonl" if p.is_dir() else p)
    ids = set(tracebench_sample(examples, n, seed))
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
    from pfc.run import models
    return models.model_dir(REAL_MODEL_NAME) if models.installed(REAL_MODEL_NAME) else None
