"""The notebooks' demo runs, made when a notebook is run without its parameters (and by tests): a tiny
TRACEBench built by its package's builder and built-in baselines' runs on it (:func:`runs`; notebooks 04–06), with its
swap-user variants (:func:`swap_user`; notebook 08), its dose and contradict-stated variants (:func:`evidence`; notebook
09), its ask and cannot sets (:func:`ask`; notebook 10) or its runs in every prompt-format cell (:func:`format_grid`;
notebook 11). Plans and runs only: the report modules read the run directories they return.
"""
from __future__ import annotations

from pathlib import Path

from pfc import benchmarks
from pfc.data.counterfactual import MANIFEST, build_variants
from pfc.plans import Planned, executor
from pfc.plans.ask import ASK_BENCHMARK, run_baselines, study_sets
from pfc.plans.evidence import EVIDENCE_BASELINES, windowed
from pfc.plans.evidence import EVIDENCE_BENCHMARK as TB  # prompts that select history records
from pfc.plans.format_grid import cells
from pfc.run.config import RunConfig

def _run(benchmark: str, examples, backend: str, out: Path, root: Path) -> Path:
    executor.run(Planned(out.name, RunConfig(benchmark, examples, backend, out, cache_path=root / "cache.sqlite",
                                             progress=False)))
    return out


def _tiny(bench: Path, users: int, seed: int, records: int) -> Path:
    if not (bench / "examples.jsonl").exists():
        benchmarks.get(TB).builder().build(bench, users=users, seed=seed, records=records)
    return bench


def runs(root, backends=("oracle", "history-prior", "no-history"), users: int = 2, records: int = 150,
         seed: int = 1) -> list[Path]:
    """A tiny TRACEBench (2 simulated users) and baseline runs on it, under ``root``."""
    root = Path(root)
    bench = _tiny(root / TB, users, seed, records)
    return [_run(TB, bench, b, root / "runs" / b, root) for b in backends]


def swap_user(root, users: int = 3, records: int = 150, seed: int = 1,
              backends=("history-prior", "no-history", "query-oracle", "oracle")) -> tuple[Path, Path, dict]:
    """A tiny TRACEBench, its swap-user variants and baseline runs on both, under ``root``. Returns (originals dir,
    variants dir, {backend: (originals run, variants run | None)}); the oracle's variants run is None (the original's
    gold: see ``pfc.report.counterfactual.evaluate_pairs``)."""
    root = Path(root)
    bench, var = _tiny(root / TB, users, seed, records), root / f"{TB}_swap-user"
    if not (var / "perturb.json").is_file():  # the manifest, written last: a set without it is not finished
        build_variants(bench, var, "swap-user", seed=0)
    return bench, var, {b: (_run(TB, bench, b, root / "runs" / f"orig-{b}", root),
                            None if b == "oracle" else _run(TB, var, b, root / "runs" / f"swap-{b}", root))
                        for b in backends}


def evidence(root, users: int = 3, records: int = 150, seed: int = 1, backends=EVIDENCE_BASELINES):
    """A tiny TRACEBench, its dose and contradict-stated variants (every request, in the reference plan's window
    of records) and the baselines' runs on all three, under ``root``. Returns (originals, dose variants,
    contradict-stated variants, {backend: dose run}, {backend: (originals run, contradict-stated run)})."""
    root = Path(root)
    bench = _tiny(root / "originals", users, seed, records)
    sets = {kind: root / kind for kind in ("dose", "contradict-stated")}
    for kind, d in sets.items():
        if not (d / MANIFEST).is_file():  # written last: a set without it is not finished
            build_variants(bench, d, windowed(kind), seed=0, benchmark=TB)  # the reference plan's window
    dose_runs, override_runs = {}, {}
    for b in backends:
        made = {tag: _run(TB, ex, b, root / "runs" / f"{tag}-{b}", root) for tag, ex in (("orig", bench), *sets.items())}
        dose_runs[b] = made["dose"]
        override_runs[b] = (made["orig"], made["contradict-stated"])
    return bench, sets["dose"], sets["contradict-stated"], dose_runs, override_runs


def ask(root, users: int = 3, records: int = 150, seed: int = 1, n: int = 24) -> tuple[Path, dict]:
    """A tiny build of the benchmark admitting ask items (``pfc.plans.ask.ASK_BENCHMARK``), its ask and cannot
    sets (``n`` originals) and the three ask baselines' runs on them (the ask-allowed prompt), under ``root``:
    (originals, ``{baseline: {set: run dir}}``)."""
    root = Path(root)
    bench = root / "originals"
    if not (bench / "examples.jsonl").exists():
        benchmarks.get(ASK_BENCHMARK).builder().build(bench, users=users, seed=seed, records=records)
    ids = study_sets(bench, n=n)

    def run(examples, backend, out, run_ids):
        executor.run(Planned(out.name, RunConfig(ASK_BENCHMARK, examples, backend, out, ids=run_ids and tuple(run_ids),
                                                 progress=False, cache_path=root / "cache.sqlite", prompt_variant="ask")))
    return bench, run_baselines(bench, ids, root / "runs", run)


def format_grid(root, users: int = 2, records: int = 150, seed: int = 1,
                backends=("history-prior", "no-history")) -> list[Path]:
    """A tiny TRACEBench and each baseline's run in every cell of the prompt-format grid
    (``pfc.plans.format_grid.cells``; ``last_k``, k = 10, as the grid), under ``root``: notebook 11's demo."""
    root = Path(root)
    bench = _tiny(root / TB, users, seed, records)
    out = []
    for b in backends:
        for cell, variant, native in cells():
            d = root / "runs" / f"grid-{b}" / cell
            executor.run(Planned(cell, RunConfig(TB, bench, b, d, history="last_k", k=10, prompt_variant=variant,
                                                 native=native, cache_path=root / "cache.sqlite", progress=False)))
            out.append(d)
    return out
