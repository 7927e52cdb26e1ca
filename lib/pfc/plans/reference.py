"""Full-scale reference runs of a real model: ordinary ``pfc run`` directories under ``reports/reference_runs/``.

The plan (:func:`plan`: each step one ``RunConfig``; each run resumable: the same command skips finished
rows, ``pfc.run.runner``):

- ``tracebench-last_k``, ``tracebench-retrieved``: 400 examples of the embedded TRACEBench,
  25 per vagueness level and history bin (100 per level), drawn anchor by anchor (seeded) so
  that an anchor's vagueness variants run together and share their prompt prefix
  (``pfc.plans.sampling.tracebench_sample``); k = 10;
- ``ptbench-trained``, ``ptbench-untrained``: every record of both test splits of our PTool
  synthesis (``pfc build ptbench --seed 0``), zero-shot, base model;
- ``toolspectrum``: every example of the public release (its three subsets in one run, so Table 3
  gets one row across them), zero-shot, ``--layout prefix`` (toolset first: the ~13k-token prefix
  is shared by the whole subset, and a prefix run is ordered by prompt text);
- ``counterfactual/tracebench-swap-user``: the swap-user variants (``pfc perturb``, seed 0) of
  ``tracebench-last_k``'s examples, same settings, for notebook 08's real-model row (context
  following); in a subdirectory, so it never joins the accuracy tables;
- ``counterfactual/tracebench-dose``, ``…-contradict-stated(-originals)``: notebook 09's (``pfc.plans.evidence``);
- ``lora-adapter``: a LoRA adapter (``pfc.train.lora``, the paper's settings but lr ``LORA["lr"]``, as
  ``benchmarks/bench_finetune.py``) trained on ``LORA["train_n"]`` seeded records of the synthesized
  training split; checkpoints go to ``data/interim/reference_lora`` (resumed by the same command), the
  finished adapter, its configuration, summary and loss log to ``reports/reference_runs/lora-adapter``;
- ``ptbench-trained-lora``, ``ptbench-untrained-lora``: both test splits again, with that adapter merged
  into the same model (the model name carries the adapter's hash), beside the base model's rows;
- ``layout/<run>-<layout>``: the prompt-layout ablation (issue 18, item 2): 100 seeded examples of a
  run above under the other layout (``LAYOUT_ABLATION``), paired with the run's own rows on the
  same ids by ``pfc.report.reference_pairs``. TRACEBench has none: both layouts build the same bytes
  there (the report checks it on every planned example).

Each run keeps the plan's :func:`record` of it in its ``run.json``, all the reports read of the plan. It plans
and runs; scoring and tables are the report stage's. It does not commit anything.

    python -m pfc.plans.reference [--only tracebench-last_k ...] [--model qwen2.5-coder-0.5b] [--backend hf]
    python -m pfc.plans.reference --model qwen2.5-coder-1.5b --backend openvino   # -> reference_runs/<model>-openvino/
    python -m pfc.plans.reference --model qwen2.5-coder-0.5b --backend openvino --only counterfactual/tracebench-dose

The first reference runs (Qwen2.5-Coder-0.5B, ``hf``) sit directly under ``reports/reference_runs/``;
every other model or backend gets its own folder ``reports/reference_runs/<model>-<backend>/`` with the
same run names inside (:func:`out_root`), so two models' runs of one plan pair id for id.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from dataclasses import replace
from pathlib import Path

from pfc import benchmarks, paths
from pfc.data.counterfactual import build_variants
from pfc.errors import UserError
from pfc.plans import LONG_RUN_ENGINE, Planned
from pfc.plans.evidence import (DOSE_ANCHORS, DOSE_RUN, EVIDENCE_BENCHMARK, EVIDENCE_SETS, EVIDENCE_WINDOW,  # noqa: F401
                                STATED_ANCHORS, STATED_ORIGINALS_RUN, STATED_RUN, build_evidence,
                                evidence_dir, evidence_runs)  # the plan's evidence runs (issue 40)
from pfc.plans.sample_run import REAL_MODEL_NAME
from pfc.plans.sampling import subset, tracebench_sample
from pfc.run.config import RunConfig

OUT = paths.REPORTS / "reference_runs"
SWAP_RUN = "counterfactual/tracebench-swap-user"
LAYOUT_ABLATION = {"ptbench-trained": "prefix", "ptbench-untrained": "prefix", "toolspectrum": "paper"}
ABLATION_N = 100
# requests handed to the engine at once: the continuous engine keeps 8 rows live across all of them, so only
# the last answers of each batch decode with fewer rows (rows are still written one by one as they finish)
BATCH = 64
ADAPTER = OUT / "lora-adapter"
# 500 records (issue 18's minimum); lr as bench_finetune's CPU setting (the paper's 1e-4 went with 7,096 records)
LORA = {"train_n": 500, "lr": 1e-3, "seed": 0, "checkpoint_every": 5}
BACKENDS = ("hf", "openvino")


# folders inside a reference-run root whose runs never join the accuracy tables (the layout ablation, the variants)
SIDE_FOLDERS = ("layout", SWAP_RUN.split("/")[0])
# the runs every model folder repeats, so two models' folders pair run for run (pfc.report.reference_pairs)
HISTORY_RUNS = {h: f"tracebench-{h}" for h in ("last_k", "retrieved")}  # TRACEBench's runs, one per history mode
PAIRED_RUNS = (*HISTORY_RUNS.values(), SWAP_RUN, *LAYOUT_ABLATION)
# model comparisons (A, B, engine): A − B on the runs both folders hold, same engine and settings
MODEL_PAIRS = (("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", LONG_RUN_ENGINE),)
# engine comparisons (model, A engine, B engine) on the same data: the 0.5B's openvino rows against its hf rows
ENGINE_PAIRS = (("qwen2.5-coder-0.5b", "openvino", "hf"),)


def folder(model: str, backend: str) -> str:
    """A model's folder under the reference-run root: ``""`` for the original 0.5B ``hf`` runs (at the top),
    ``<model>-<backend>`` for any other pair.

    >>> folder("qwen2.5-coder-0.5b", "hf"), folder("qwen2.5-coder-1.5b", "openvino")
    ('', 'qwen2.5-coder-1.5b-openvino')
    """
    return "" if (model, backend) == (REAL_MODEL_NAME, "hf") else f"{model}-{backend}"


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
    its name here, whether it joins the accuracy tables (side runs, the layout ablation and the variants, do
    not) and whether its label names the engine (every model folder's runs do: two engines of one model share
    a table).

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
    """The name of ``run``'s layout-ablation run (``LAYOUT_ABLATION``): ``ablation_run("toolspectrum")`` is
    ``'layout/toolspectrum-paper'``."""
    return f"{SIDE_FOLDERS[0]}/{run}-{LAYOUT_ABLATION[run]}"


def _layout_run(base: Planned) -> Planned:
    """The ablation run of ``base``: its settings under the other layout, on ``ABLATION_N`` of its examples."""
    cfg, name = base.config, ablation_run(base.name)
    ids = cfg.ids or [e.id for e in benchmarks.get(cfg.benchmark).scoring.load(cfg.examples, None)[0]]
    return Planned(name, replace(cfg, layout=LAYOUT_ABLATION[base.name], ids=tuple(ablation_ids(ids)),
                                 out_dir=Path(cfg.out_dir).parent / name))


def plan(tracebench: Path, ptbench: Path, toolspectrum: Path | None, model: str = REAL_MODEL_NAME,
         backend: str = "hf", batch: int = BATCH) -> list[Planned]:
    """Every step of the plan, in order, for ``model`` on ``backend`` (runs under :func:`out_root`)."""
    root = out_root(model, backend)
    adapter = {"adapter": str(paths.relative(root / "lora-adapter"))}  # each model trains its own adapter

    def run(name: str, benchmark: str, examples: Path, ids, history: str = "full", k: int = 50,
            layout: str = "paper", options: dict | None = None) -> RunConfig:
        return RunConfig(benchmark, examples, backend, root / name, model=model, history=history, k=k,
                         ids=None if ids is None else tuple(ids), layout=layout, backend_options=options or {},
                         batch_size=batch)
    exs, _ = benchmarks.get(EVIDENCE_BENCHMARK).scoring.load(tracebench, None)
    ids = tracebench_ids(exs)
    tb = {h: Planned(name, run(name, EVIDENCE_BENCHMARK, tracebench, ids, h, 10)) for h, name in HISTORY_RUNS.items()}
    variants = tracebench.parent / f"{tracebench.name}_swap-user"  # what make reproduce builds for notebook 08
    swap = Planned(SWAP_RUN, replace(tb["last_k"].config, examples=variants, out_dir=root / SWAP_RUN,
                                     ids=tuple(f"{i}~swap-user" for i in ids)),
                   build=lambda: build_variants(tracebench, variants, "swap-user", seed=0))
    pt = [Planned(f"ptbench-{s.split('_')[1]}", run(f"ptbench-{s.split('_')[1]}", "ptbench",
                                                    ptbench / s / "data.json", None))
          for s in ("test_trained_user", "test_untrained_user")]
    steps = [tb["last_k"], swap, *evidence_runs(tracebench, exs, tb["last_k"].config), tb["retrieved"], *pt,
             Planned("lora-adapter", None, train=ptbench / "train" / "data.json"),
             *[Planned(f"{p.name}-lora", replace(p.config, out_dir=root / f"{p.name}-lora", backend_options=adapter))
               for p in pt]]
    if toolspectrum is not None and (toolspectrum / "data").is_dir():
        steps.append(Planned("toolspectrum", run("toolspectrum", "toolspectrum", toolspectrum, None, layout="prefix")))
    steps += [_layout_run(p) for p in steps if p.name in LAYOUT_ABLATION]
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


def _say(line: str) -> int:
    print(line, file=sys.stderr)
    return 2


def _arguments(argv) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m pfc.plans.reference", description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=REAL_MODEL_NAME)
    ap.add_argument("--backend", default="hf", choices=BACKENDS,
                    help=f"hf (the first reference runs) or openvino; {LONG_RUN_ENGINE}: the long runs' engine (pfc.plans)")
    ap.add_argument("--batch", type=int, default=BATCH,
                    help=f"requests handed to the engine at once (default {BATCH}); openvino writes a call's rows when "
                         "the whole call ends, so a smaller batch loses less to a stop")
    ap.add_argument("--only", nargs="+", help="run names (default: every run, in plan order)")
    ap.add_argument("--record", action="store_true",
                    help="write the plan's record into each existing run's run.json (what reports read of the plan: "
                         "its name, whether it joins the tables, whether its label names the engine); run nothing")
    return ap.parse_args(argv)


def _train(step: Planned, model: str, root: Path) -> int | None:
    print(f"[reference] {step.name}: LoRA on {LORA['train_n']} training records", file=sys.stderr, flush=True)
    try:
        train_adapter(model, step.train, out=root / "lora-adapter",
                      work=None if root == OUT else paths.INTERIM / f"reference_lora-{root.name}")
    except UserError as e:
        return _say(f"error: {step.name}: {e}")
    except KeyboardInterrupt:
        print(f"{step.name}: interrupted; the same command resumes from the last checkpoint "
              f"(every {LORA['checkpoint_every']} steps)", file=sys.stderr)
        return 130
    return None


def _run(step: Planned) -> int | None:
    """One run of the plan (its variant set built first when it has none); an exit code when it stopped."""
    from pfc.run.checks import RunInterrupted
    from pfc.run.runner import execute
    cfg = step.config
    adapter = cfg.backend_options.get("adapter")
    if adapter and not (Path(adapter) / "adapter_config.json").exists():
        return _say(f"error: {step.name}: no adapter in {adapter}; run --only lora-adapter first")
    try:
        if step.build is not None:
            if not (Path(cfg.examples) / "perturb.json").exists():  # its manifest, written last: a finished set
                step.build()
            known = {e.id for e in benchmarks.get(cfg.benchmark).scoring.load(cfg.examples, None)[0]}
            cfg = replace(cfg, ids=tuple(i for i in cfg.ids if i in known))  # an original without a donor has none
        print(f"[reference] {step.name}: {len(cfg.ids) if cfg.ids else 'all'} examples", file=sys.stderr, flush=True)
        execute(cfg)
    except RunInterrupted as e:
        print(f"{e}; the same command resumes every run", file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # before the run started writing (loading the model, building variants)
        print(f"{step.name}: interrupted before its first row; the same command resumes every run", file=sys.stderr)
        return 130
    except UserError as e:
        return _say(f"error: {step.name}: {e}")
    return None


def main(argv=None) -> int:
    from pfc.benchmarks.ptbench.plans import data as ptbench_data
    from pfc.run.identity import write_plan
    args = _arguments(argv)
    os.chdir(paths.ROOT)  # the adapter is named relative to the repository root in each run's config
    tb = paths.BENCHMARKS / "tracebench"
    if not (tb / "examples.jsonl").exists():
        return _say(f"error: {paths.relative(tb)}: no embedded TRACEBench; build it first (make reproduce, or "
                    "python -m pfc.report.real_models, which builds it)")
    try:  # e.g. a PTBench build of another synthesis where the plan builds ours
        steps = plan(tb, ptbench_data(0), paths.toolspectrum_dir(), args.model, args.backend, args.batch)
    except UserError as e:
        return _say(f"error: {e}")
    unknown = set(args.only or ()) - {s.name for s in steps}
    if unknown:
        return _say(f"error: unknown run {sorted(unknown)[0]!r}; expected one of {[s.name for s in steps]}")
    for step in (s for s in steps if not args.only or s.name in args.only):
        if args.record:
            if step.config and (Path(step.config.out_dir) / "run.json").is_file():
                write_plan(step.config.out_dir, step.config.plan)
            continue
        code = _train(step, args.model, out_root(args.model, args.backend)) if step.config is None else _run(step)
        if code is not None:
            return code
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
