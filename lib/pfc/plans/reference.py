"""Full-scale reference runs of a real model: ordinary ``pfc run`` directories under ``reports/reference_runs/``.

The plan (:func:`plan`: each step one ``RunConfig``, run by the one executor, ``pfc.plans.executor``; each run
resumable: the same command skips finished rows). The history-selecting benchmark's runs are planned here; every other
benchmark's come from its package (``plans.reference``, ``LAYOUT_ABLATION``, ``LORA_RUNS``):

- ``tracebench-last_k``, ``tracebench-retrieved``: 400 examples of the embedded TRACEBench, 25 per vagueness level and
  history bin (100 per level), drawn anchor by anchor (seeded) so that an anchor's vagueness variants run together and
  share their prompt prefix (``pfc.plans.sampling.tracebench_sample``); k = 10;
- ``ptbench-trained``, ``ptbench-untrained``: both test splits of our PTool synthesis (seed 0), zero-shot;
- ``toolspectrum``: every example of the public release (its three subsets in one run, so Table 3 gets one row across
  them), zero-shot, ``--layout prefix`` (toolset first: the ~13k-token prefix is shared by the whole subset, and a
  prefix run is ordered by prompt text);
- ``counterfactual/tracebench-swap-user``: the swap-user variants (``pfc perturb``, seed 0) of ``tracebench-last_k``'s
  examples, same settings, for notebook 08's real-model row (context following); in a subdirectory, so it never joins
  the accuracy tables;
- ``counterfactual/tracebench-dose``, ``…-contradict-stated(-originals)``, ``ask/…``: ``pfc.plans.evidence``;
  ``format/tracebench-<cell>``: the prompt-format grid, 7 cells on 200 of the 400 (``pfc.plans.format_grid``);
- ``lora-adapter``: a LoRA adapter (``pfc.train.lora``, the paper's settings but lr ``LORA["lr"]``, as
  ``benchmarks/bench_finetune.py``) trained on ``LORA["train_n"]`` seeded records of the synthesized training split;
  checkpoints go to ``data/interim/reference_lora`` (resumed by the same command), the finished adapter, its
  configuration, summary and loss log to ``reports/reference_runs/lora-adapter``;
- ``ptbench-trained-lora``, ``ptbench-untrained-lora``: both test splits again, with that adapter merged into the same
  model (the model name carries the adapter's hash), beside the base model's rows;
- ``layout/<run>-<layout>``: the prompt-layout ablation (issue 18, item 2): 100 seeded examples of a run above under the
  other layout (each package's ``LAYOUT_ABLATION``, :func:`layout_ablation`), paired with the run's own rows by
  ``pfc.report.reference.pairs``. TRACEBench has none: both layouts build the same bytes there.

Each run keeps the plan's :func:`record` of it in its ``run.json``, all the reports read of the plan. It plans and runs;
scoring and tables are the report stage's. It does not commit anything.

    python -m pfc.plans.reference [--only tracebench-last_k ...] [--model qwen2.5-coder-0.5b] [--backend hf]
    python -m pfc.plans.reference --model qwen2.5-coder-1.5b --backend openvino   # -> reference_runs/<model>-openvino/
    python -m pfc.plans.reference --model qwen2.5-coder-0.5b --backend openvino --only format/tracebench-default

The first reference runs (Qwen2.5-Coder-0.5B, ``hf``) sit directly under ``reports/reference_runs/``; every other model
or backend has a folder ``<model>-<backend>/`` there, same run names inside (:func:`out_root`): they pair.
"""
from __future__ import annotations

import random
import re
import sys
from dataclasses import replace
from pathlib import Path

from pfc import benchmarks, paths
from pfc.data.counterfactual import build_variants
from pfc.errors import UserError, entry
from pfc.plans import LONG_RUN_ENGINE, Planned
from pfc.plans.evidence import (DOSE_ANCHORS, DOSE_RUN, EVIDENCE_BENCHMARK, EVIDENCE_SETS, EVIDENCE_WINDOW,  # noqa: F401
                                STATED_ANCHORS, STATED_ORIGINALS_RUN, STATED_RUN, build_evidence,
                                evidence_dir, evidence_runs)  # the plan's evidence runs (issue 40)
from pfc.plans.format_grid import GRID_FOLDER, cells, grid_runs, run_name  # the prompt-format grid (issue 65)
from pfc.plans.sample_run import REAL_MODEL_NAME
from pfc.plans.reference_cli import run_plan  # the command line's own module (this one plans)
from pfc.plans.sampling import subset, tracebench_sample
from pfc.run.config import RunConfig

OUT = paths.REPORTS / "reference_runs"
SWAP_RUN = "counterfactual/tracebench-swap-user"
ABLATION_N = 100
# requests handed to the engine at once: the continuous engine keeps 8 rows live across all of them, so only
# the last answers of each batch decode with fewer rows (rows are still written one by one as they finish)
BATCH = 64
ADAPTER = OUT / "lora-adapter"
# 500 records (issue 18's minimum); lr as bench_finetune's CPU setting (the paper's 1e-4 went with 7,096 records)
LORA = {"train_n": 500, "lr": 1e-3, "seed": 0, "checkpoint_every": 5}
BACKENDS = ("hf", "openvino")
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")  # what --model may be here: a name, one folder below OUT


# folders inside a reference-run root whose runs never join the accuracy tables (layout ablation, variants, formats)
SIDE_FOLDERS = ("layout", SWAP_RUN.split("/")[0], "ask", GRID_FOLDER)  # ask: issue 64's runs (pfc.plans.ask)
# the runs every model folder repeats, so two models' folders pair run for run (pfc.report.reference.pairs)
HISTORY_RUNS = {h: f"{EVIDENCE_BENCHMARK}-{h}" for h in ("last_k", "retrieved")}  # TRACEBench's, one per history mode
# model comparisons (A, B, engine): A − B on the runs both folders hold, same engine and settings
MODEL_PAIRS = (("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", LONG_RUN_ENGINE),)
# engine comparisons (model, A engine, B engine) on the same data: the 0.5B's openvino rows against its hf rows
ENGINE_PAIRS = (("qwen2.5-coder-0.5b", "openvino", "hf"),)


def parts() -> list:
    """``(adapter, its plans module)`` of every benchmark whose package plans reference runs (``reference`` in its
    ``plans``; the history-selecting benchmark's runs are this module's own), in registration order."""
    return [(a, m) for a in benchmarks.adapters() if a.has("plans") and hasattr(m := a.part("plans"), "reference")]


def layout_ablation() -> dict:
    """``{run: the other layout}``: the runs with a layout-ablation run, from each package's ``LAYOUT_ABLATION``."""
    return {r: lay for _, m in parts() for r, lay in getattr(m, "LAYOUT_ABLATION", {}).items()}


def lora_pairs() -> list[tuple[str, str]]:
    """``(the LoRA run, the base run)`` of each run a package makes again with the LoRA adapter (its ``LORA_RUNS``)."""
    return [(f"{r}-lora", r) for _, m in parts() for r in getattr(m, "LORA_RUNS", ())]


def run_names() -> set[str]:
    """Every run name the plan can hold, known without reading any data (each package's ``REFERENCE_RUNS``, the
    ask runs' ``ASK_RUNS``; a run planned only when its data is there included): ``--only`` is checked against it before
    the planning work (``pfc.plans.reference_cli``)."""
    own = {n for a in benchmarks.adapters() if a.has("plans") for k in ("REFERENCE_RUNS", "ASK_RUNS")
           for n in getattr(a.part("plans"), k, ())}
    fixed = {*HISTORY_RUNS.values(), SWAP_RUN, DOSE_RUN, STATED_RUN, STATED_ORIGINALS_RUN, "lora-adapter"}
    return {*fixed, *own, *(run_name(c) for c, _, _ in cells()), *(r for r, _ in lora_pairs()),
            *(ablation_run(r) for r in layout_ablation())}


def paired_runs() -> tuple:
    """The runs every model folder repeats, so two models' folders pair run for run (``pfc.report.reference.pairs``)."""
    return (*HISTORY_RUNS.values(), SWAP_RUN, *layout_ablation())


def folder(model: str, backend: str) -> str:
    """A model's folder under the reference-run root: ``""`` for the original 0.5B ``hf`` runs (at the top),
    ``<model>-<backend>`` for any other pair. A model is named, never given as a path (:data:`MODEL_NAME`; a UserError):
    the folder stays one level below ``OUT``.

    >>> folder("qwen2.5-coder-0.5b", "hf"), folder("qwen2.5-coder-1.5b", "openvino")
    ('', 'qwen2.5-coder-1.5b-openvino')
    """
    if (model, backend) == (REAL_MODEL_NAME, "hf"):
        return ""
    if not MODEL_NAME.fullmatch(model):  # a path would put the runs beside it, or climb out of OUT
        raise UserError(f"--model {model!r}: the reference plan takes a model's name (a registry name: python -m pfc "
                        f"models), not a path; its runs go to {paths.relative(OUT)}/<model>-<backend>/ (a local "
                        "model directory runs with pfc run or pfc sweep)")
    return f"{model}-{backend}"


def out_root(model: str, backend: str) -> Path:
    """Where a model's reference runs live (:func:`folder` under ``OUT``).

    >>> out_root("qwen2.5-coder-0.5b", "hf") == OUT
    True
    >>> out_root("qwen2.5-coder-1.5b", "openvino").name
    'qwen2.5-coder-1.5b-openvino'
    """
    return OUT / folder(model, backend) if folder(model, backend) else OUT


def command(run: str, model: str = REAL_MODEL_NAME, backend: str = "hf") -> str:
    """The command that makes (or resumes) one run of the plan.

    >>> command("toolspectrum"), command("toolspectrum", "qwen2.5-coder-1.5b", "openvino")
    ('python -m pfc.plans.reference --only toolspectrum', 'python -m pfc.plans.reference --model qwen2.5-coder-1.5b --backend openvino --only toolspectrum')
    """
    which = f" --model {model} --backend {backend}" if folder(model, backend) else ""
    return f"python -m pfc.plans.reference{which} --only {run}"


def record(run: str, model: str, backend: str) -> dict:
    """What a run of this plan records of it in its ``run.json`` (``RunConfig.plan``), all that reports read:
    its name here, whether it joins the accuracy tables (side runs, the layout ablation and the variants, do not) and
    whether its label names the engine (every model folder's runs do: two engines of one model share a table).

    >>> record("tracebench-last_k", "qwen2.5-coder-0.5b", "hf")
    {'plan': 'reference', 'run': 'tracebench-last_k', 'tables': True, 'names_engine': False}
    """
    return {"plan": "reference", "run": run, "tables": run.split("/")[0] not in SIDE_FOLDERS,
            "names_engine": bool(folder(model, backend))}


def tracebench_ids(examples, per_cell: int = 25, seed: int = 0) -> list[str]:
    """``per_cell`` ids per (vagueness level, history bin), whole anchors first, in a seeded anchor order."""
    return tracebench_sample(examples, seed, per_cell=per_cell, whole_anchors=True)


def ablation_ids(ids: list[str], n: int = ABLATION_N, seed: int = 0) -> list[str]:
    """``n`` ids drawn from ``ids`` (seeded by a string: the same in every process), sorted.

    >>> ablation_ids(["a", "b"], 3)
    ['a', 'b']
    """
    return subset(ids, n, f"layout-ablation:{seed}")


def ablation_run(run: str) -> str:
    """The name of ``run``'s layout-ablation run (:func:`layout_ablation`): ``ablation_run("toolspectrum")`` is
    ``'layout/toolspectrum-paper'``."""
    return f"{SIDE_FOLDERS[0]}/{run}-{layout_ablation()[run]}"


def _layout_run(base: Planned) -> Planned:
    """The ablation run of ``base``: its settings under the other layout, on ``ABLATION_N`` of its examples."""
    cfg, name = base.config, ablation_run(base.name)
    ids = cfg.ids or [e.id for e in benchmarks.get(cfg.benchmark).scoring.load(cfg.examples, None)[0]]
    return Planned(name, replace(cfg, layout=layout_ablation()[base.name], ids=tuple(ablation_ids(ids)),
                                 out_dir=Path(cfg.out_dir).parent / name))


def plan(data: dict, model: str = REAL_MODEL_NAME, backend: str = "hf", batch: int = BATCH,
         only: set | None = None) -> list[Planned]:
    """Every step of the plan, in order, for ``model`` on ``backend`` (runs under :func:`out_root`); ``data``:
    ``{benchmark: its data directory}`` (the history-selecting benchmark's, then each package's ``reference_data``).
    ``only`` (run names; None: all): the variant groups none of whose runs is wanted are not drawn
    (:func:`pfc.plans.evidence.evidence_runs`); every other step is planned as always."""
    root = out_root(model, backend)
    adapter = {"adapter": str(paths.relative(root / "lora-adapter"))}  # each model trains its own adapter

    def run(name: str, benchmark: str, examples: Path, ids, history: str = "full", k: int = 50,
            layout: str = "paper") -> RunConfig:
        return RunConfig(benchmark, examples, backend, root / name, model=model, history=history, k=k,
                         ids=None if ids is None else tuple(ids), layout=layout, batch_size=batch)

    def lora(runs: list, train: Path) -> list:  # the LoRA adapter on ``train``, then ``runs`` again with it
        return [Planned("lora-adapter", None, train=train),
                *[Planned(f"{p.name}-lora", replace(p.config, out_dir=root / f"{p.name}-lora", backend_options=adapter))
                  for p in runs]]
    tracebench = data[EVIDENCE_BENCHMARK]
    exs, _ = benchmarks.get(EVIDENCE_BENCHMARK).scoring.load(tracebench, None)
    ids = tracebench_ids(exs)
    tb = {h: Planned(name, run(name, EVIDENCE_BENCHMARK, tracebench, ids, h, 10)) for h, name in HISTORY_RUNS.items()}
    variants = tracebench.parent / f"{tracebench.name}_swap-user"  # what make reproduce builds for notebook 08
    swap = Planned(SWAP_RUN, replace(tb["last_k"].config, examples=variants, out_dir=root / SWAP_RUN,
                                     ids=tuple(f"{i}~swap-user" for i in ids)),
                   build=lambda: build_variants(tracebench, variants, "swap-user", seed=0))
    steps = [tb["last_k"], swap, *evidence_runs(tracebench, exs, tb["last_k"].config, ids, only), tb["retrieved"],
             *grid_runs(exs, ids, tb["last_k"].config)]
    for a, m in parts():
        steps += m.reference(lambda name, examples, _b=a.name, **kw: Planned(name, run(name, _b, examples, None, **kw)),
                             lora, data.get(a.name))
    ablation = layout_ablation()
    steps += [_layout_run(p) for p in steps if p.name in ablation]
    return [replace(p, config=replace(p.config, plan=record(p.name, model, backend))) if p.config else p
            for p in steps]


def train_adapter(model: str, train_json: Path, out: Path = ADAPTER, work: Path | None = None) -> Path:
    """Train (or resume) the reference LoRA adapter; copy the finished one to ``out`` in one rename."""
    import shutil
    from pfc.models.registry import resolve
    from pfc.train.sft import chat_records
    from pfc.train.lora import train_lora
    if (out / "adapter_config.json").exists():
        return out
    work = work or paths.INTERIM / "reference_lora"
    records = chat_records(train_json)
    records = random.Random(f"train:{LORA['seed']}").sample(records, min(LORA["train_n"], len(records)))
    train_lora(resolve(model), records, work, lr=LORA["lr"], seed=LORA["seed"], checkpoint_every=LORA["checkpoint_every"])
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(work / "adapter", tmp)
    for f in ("train_config.json", "train_summary.json", "train_log.jsonl"):
        shutil.copy2(work / f, tmp / f)
    tmp.replace(out)
    return out


def main(argv=None) -> int:
    """The command line, through the one error path (``pfc.errors.entry``): a refused input is one line, exit 2;
    Ctrl-C one line saying the same command resumes, exit 130."""
    return entry("python -m pfc.plans.reference", run_plan, argv, sys.modules[__name__])


if __name__ == "__main__":
    raise SystemExit(main())
