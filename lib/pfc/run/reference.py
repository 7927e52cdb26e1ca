"""Full-scale reference runs of a real model: ordinary ``pfc run`` directories under ``reports/reference_runs/``.

The plan (each run resumable: the same command skips finished rows, ``pfc.run.runner``):

- ``tracebench-last_k``, ``tracebench-retrieved``: 400 examples of the embedded TRACEBench,
  25 per vagueness level and history bin (100 per level), drawn anchor by anchor (seeded) so
  that an anchor's vagueness variants run together and share their prompt prefix; k = 10;
- ``ptbench-trained``, ``ptbench-untrained``: every record of both test splits of our PTool
  synthesis (``pfc build ptbench --seed 0``), zero-shot, base model;
- ``toolspectrum``: every example of the public release (its three subsets in one run, so Table 3
  gets one row across them), zero-shot, ``--layout prefix`` (toolset first: the ~13k-token prefix
  is shared by the whole subset, and a prefix run is ordered by prompt text);
- ``counterfactual/tracebench-swap-user``: the swap-user variants (``pfc perturb``, seed 0) of
  ``tracebench-last_k``'s examples, same settings, for notebook 08's real-model row (context
  following); in a subdirectory, so it never joins the accuracy tables;
- ``counterfactual/tracebench-dose``: the ``dose`` variants (K = 0, 1, 2, 4, 8, 16; seed 0) of
  ``DOSE_ANCHORS`` requests, one per anchor in a seeded anchor order (``pfc.data.counterfactual.sample``),
  every K of the same requests, same settings, for notebook 09's dose-response curve; the dose metrics
  read this run alone (the switch rate compares each K with the same request's K = 0 variant);
- ``counterfactual/tracebench-contradict-stated`` and ``…-contradict-stated-originals``: the
  ``contradict-stated`` variants (K = 8, seed 0) of ``STATED_ANCHORS`` requests drawn the same way, and
  those requests' originals (stated-wins needs the answer on the original; ``tracebench-last_k`` holds
  too few of them), for notebook 09's override table;
- ``lora-adapter``: a LoRA adapter (``pfc.run.train``, the paper's settings but lr ``LORA["lr"]``, as
  ``benchmarks/bench_finetune.py``) trained on ``LORA["train_n"]`` seeded records of the synthesized
  training split; checkpoints go to ``data/interim/reference_lora`` (resumed by the same command), the
  finished adapter, its configuration, summary and loss log to ``reports/reference_runs/lora-adapter``;
- ``ptbench-trained-lora``, ``ptbench-untrained-lora``: both test splits again, with that adapter merged
  into the same model (the model name carries the adapter's hash), beside the base model's rows;
- ``layout/<run>-<layout>``: the prompt-layout ablation (issue 18, item 2): 100 seeded examples of a
  run above under the other layout (``LAYOUT_ABLATION``), paired with the run's own rows on the
  same ids by ``pfc.report.reference_pairs``. TRACEBench has none: both layouts give the same bytes
  there (the report checks it on every planned example).

It plans and runs; scoring and tables are the report stage's. It does not commit anything.

    python -m pfc.run.reference [--only tracebench-last_k ...] [--model qwen2.5-coder-0.5b]
    python -m pfc.run.reference --model qwen2.5-coder-1.5b --backend openvino   # -> reference_runs/<model>-openvino/
    python -m pfc.run.reference --model qwen2.5-coder-0.5b --backend openvino --only counterfactual/tracebench-dose

The first reference runs (Qwen2.5-Coder-0.5B, ``hf``) sit directly under ``reports/reference_runs/``;
every other model or backend gets its own folder ``reports/reference_runs/<model>-<backend>/`` with the
same run names inside (:func:`out_root`), so two models' runs of one plan pair id for id.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

from pfc import benchmarks, paths
from pfc.data.counterfactual import build_variants
from pfc.errors import UserError
from pfc.groups import HISTORY_BINS, history_bin
from pfc.run.reference_evidence import (DOSE_ANCHORS, DOSE_RUN, EVIDENCE_BENCHMARK, EVIDENCE_SETS,  # noqa: F401
                                        STATED_ANCHORS, STATED_ORIGINALS_RUN, STATED_RUN, build_evidence,
                                        evidence_dir, evidence_runs)  # the plan's evidence runs (issue 40)

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


# folders inside a reference-run root whose runs never join the accuracy tables (the layout ablation, the variants)
SIDE_FOLDERS = ("layout", SWAP_RUN.split("/")[0])
# the runs every model folder repeats, so two models' folders pair run for run (pfc.report.reference_pairs)
HISTORY_RUNS = {h: f"tracebench-{h}" for h in ("last_k", "retrieved")}  # TRACEBench's runs, one per history mode
PAIRED_RUNS = (*HISTORY_RUNS.values(), SWAP_RUN, *LAYOUT_ABLATION)
# model comparisons (A, B, engine): A − B on the runs both folders hold, same engine and settings
MODEL_PAIRS = (("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "openvino"),)
# engine comparisons (model, A engine, B engine) on the same data: the 0.5B's openvino rows against its hf rows
ENGINE_PAIRS = (("qwen2.5-coder-0.5b", "openvino", "hf"),)


def folder(model: str, backend: str) -> str:
    """A model's folder under the reference-run root: ``""`` for the original 0.5B ``hf`` runs (at the top),
    ``<model>-<backend>`` for any other pair.

    >>> folder("qwen2.5-coder-0.5b", "hf"), folder("qwen2.5-coder-1.5b", "openvino")
    ('', 'qwen2.5-coder-1.5b-openvino')
    """
    return "" if (model, backend) == ("qwen2.5-coder-0.5b", "hf") else f"{model}-{backend}"


def out_root(model: str, backend: str) -> Path:
    """Where a model's reference runs live (:func:`folder` under ``OUT``).

    >>> out_root("qwen2.5-coder-0.5b", "hf") == OUT
    True
    >>> out_root("qwen2.5-coder-1.5b", "openvino").name
    'qwen2.5-coder-1.5b-openvino'
    """
    return OUT / folder(model, backend) if folder(model, backend) else OUT


def tracebench_ids(examples, per_cell: int = 25, seed: int = 0) -> list[str]:
    """``per_cell`` ids per (vagueness level, history bin), whole anchors first, in a seeded anchor order."""
    by_anchor: dict[str, list] = {}
    for e in sorted(examples, key=lambda e: e.id):
        by_anchor.setdefault(str(e.meta.get("anchor_id", e.id)), []).append(e)
    anchors = sorted(by_anchor)
    random.Random(f"reference:{seed}").shuffle(anchors)
    need: dict[tuple, int] = {}
    chosen: list[str] = []
    for a in anchors:
        for e in by_anchor[a]:
            cell = (e.meta.get("vagueness"), history_bin(int(e.meta.get("history_length", len(e.history)))))
            if cell[1] in HISTORY_BINS and need.get(cell, 0) < per_cell:
                need[cell] = need.get(cell, 0) + 1
                chosen.append(e.id)
    return sorted(chosen)


def ablation_ids(ids: list[str], n: int = ABLATION_N, seed: int = 0) -> list[str]:
    """``n`` ids drawn from ``ids`` (seeded by a string: the same in every process), sorted.

    >>> ablation_ids([f"x{i}" for i in range(5)], 3) == ablation_ids([f"x{i}" for i in range(5)], 3)
    True
    >>> ablation_ids(["a", "b"], 3)
    ['a', 'b']
    """
    pool = sorted(ids)
    return sorted(random.Random(f"layout-ablation:{seed}").sample(pool, min(n, len(pool))))


def layout_run(base: dict) -> dict:
    """The ablation run of ``base``: its settings under the other layout, on ``ABLATION_N`` of its examples."""
    other = LAYOUT_ABLATION[base["name"]]
    ids = base["ids"] or [e.id for e in benchmarks.get(base["benchmark"]).load(base["examples"], None)[0]]
    return {**base, "name": f"layout/{base['name']}-{other}", "layout": other, "ids": ablation_ids(ids), "base": base["name"]}


def plan(tracebench: Path, ptbench: Path, toolspectrum: Path | None) -> list[dict]:
    exs, _ = benchmarks.get("tracebench").load(tracebench, None)
    ids = tracebench_ids(exs)
    runs = [{"name": name, "benchmark": "tracebench", "examples": tracebench, "ids": ids,
             "history": h, "k": 10, "layout": "paper"} for h, name in HISTORY_RUNS.items()]
    variants = tracebench.parent / f"{tracebench.name}_swap-user"  # what make reproduce builds for notebook 08
    runs.insert(1, {"name": SWAP_RUN, "benchmark": "tracebench", "examples": variants,
                    "ids": [f"{i}~swap-user" for i in ids], "history": "last_k", "k": 10, "layout": "paper",
                    "build": lambda: build_variants(tracebench, variants, "swap-user", seed=0)})
    runs[2:2] = evidence_runs(tracebench, exs)
    runs += [{"name": f"ptbench-{s.split('_')[1]}", "benchmark": "ptbench", "examples": ptbench / s / "data.json",
              "ids": None, "history": "full", "k": 50, "layout": "paper"}
             for s in ("test_trained_user", "test_untrained_user")]
    runs += [{"name": "lora-adapter", "train": ptbench / "train" / "data.json"}]
    runs += [{**r, "name": f"{r['name']}-lora", "adapter": ADAPTER} for r in runs if r["name"].startswith("ptbench-")]
    if toolspectrum is not None and (toolspectrum / "data").is_dir():
        runs += [{"name": "toolspectrum", "benchmark": "toolspectrum", "examples": toolspectrum,
                  "ids": None, "history": "full", "k": 50, "layout": "prefix"}]
    return runs


def train_adapter(model: str, train_json: Path, out: Path = ADAPTER, work: Path | None = None) -> Path:
    """Train (or resume) the reference LoRA adapter; copy the finished one to ``out`` in one rename."""
    import shutil
    from pfc.run.models import resolve
    from pfc.run.sft import chat_records
    from pfc.run.train import train_lora
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


def with_ablation(runs: list[dict]) -> list[dict]:
    """``runs`` followed by the layout-ablation runs of those named in ``LAYOUT_ABLATION``."""
    return runs + [layout_run(r) for r in runs if r["name"] in LAYOUT_ABLATION]


def main(argv=None) -> int:
    from pfc.run.checks import RunInterrupted
    from pfc.run.realruns import ptbench_data
    from pfc.run.config import RunConfig
    from pfc.run.runner import execute
    ap = argparse.ArgumentParser(prog="python -m pfc.run.reference", description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    ap.add_argument("--backend", default="hf", choices=["hf", "openvino"],
                    help="hf (the first reference runs) or openvino (OpenVINO GenAI; needs `make models-openvino`)")
    ap.add_argument("--batch", type=int, default=BATCH,
                    help=f"requests handed to the engine at once (default {BATCH}); openvino writes a call's rows when "
                         "the whole call ends, so a smaller batch loses less to a stop")
    ap.add_argument("--only", nargs="+", help="run names (default: every run, in plan order)")
    args = ap.parse_args(argv)
    os.chdir(paths.ROOT)  # the adapter is named relative to the repository root in each run's config
    tb = paths.BENCHMARKS / "tracebench"
    if not (tb / "examples.jsonl").exists():
        print(f"error: {paths.relative(tb)}: no embedded TRACEBench; build it first (make reproduce, or "
              "python -m pfc.report.real_models, which builds it)", file=sys.stderr)
        return 2
    try:
        runs = with_ablation(plan(tb, ptbench_data(0), paths.toolspectrum_dir()))
    except UserError as e:  # e.g. a PTBench build of another synthesis where the plan builds ours
        print(f"error: {e}", file=sys.stderr)
        return 2
    root = out_root(args.model, args.backend)
    adapter = root / "lora-adapter"  # each model trains its own adapter, never another model's
    runs = [{**r, "adapter": adapter} if "adapter" in r else r for r in runs]
    unknown = set(args.only or ()) - {r["name"] for r in runs}
    if unknown:
        print(f"error: unknown run {sorted(unknown)[0]!r}; expected one of {[r['name'] for r in runs]}", file=sys.stderr)
        return 2
    for r in runs:
        if args.only and r["name"] not in args.only:
            continue
        if "train" in r:
            print(f"[reference] {r['name']}: LoRA on {LORA['train_n']} training records", file=sys.stderr, flush=True)
            try:
                train_adapter(args.model, r["train"], out=adapter,
                              work=None if root == OUT else paths.INTERIM / f"reference_lora-{root.name}")
            except UserError as e:
                print(f"error: {r['name']}: {e}", file=sys.stderr)
                return 2
            except KeyboardInterrupt:
                print(f"{r['name']}: interrupted; the same command resumes from the last checkpoint "
                      f"(every {LORA['checkpoint_every']} steps)", file=sys.stderr)
                return 130
            continue
        if "adapter" in r and not (r["adapter"] / "adapter_config.json").exists():
            print(f"error: {r['name']}: no adapter in {paths.relative(r['adapter'])}; run --only lora-adapter first",
                  file=sys.stderr)
            return 2
        try:
            if "build" in r:
                if not (Path(r["examples"]) / "perturb.json").exists():  # its manifest, written last: a finished set
                    r["build"]()
                known = {e.id for e in benchmarks.get("tracebench").load(r["examples"], None)[0]}
                r["ids"] = [i for i in r["ids"] if i in known]  # an original without a donor has no variant
            print(f"[reference] {r['name']}: {len(r['ids']) if r['ids'] else 'all'} examples", file=sys.stderr,
                  flush=True)
            options = {"adapter": str(paths.relative(r["adapter"]))} if "adapter" in r else {}
            execute(RunConfig(r["benchmark"], r["examples"], args.backend, out_root(args.model, args.backend) / r["name"],
                              model=args.model, history=r["history"], k=r["k"], ids=r["ids"], layout=r["layout"],
                              backend_options=options, batch_size=args.batch))
        except RunInterrupted as e:
            print(f"{e}; the same command resumes every run", file=sys.stderr)
            return 130
        except KeyboardInterrupt:  # before the run started writing (loading the model, building variants)
            print(f"{r['name']}: interrupted before its first row; the same command resumes every run",
                  file=sys.stderr)
            return 130
        except UserError as e:
            print(f"error: {r['name']}: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
