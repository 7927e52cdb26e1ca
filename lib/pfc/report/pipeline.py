"""``make reproduce``: the notebooks in order under papermill, each step skipped when its inputs are unchanged.

Steps: preprocess (01) → build TRACEBench (02) → model runs (03: the built-in baselines;
the real small model on a stratified sample when one is available; ``BACKEND``/``MODEL``
add that model's run on each benchmark: TRACEBench, the ToolSpectrum release when configured,
PTBench on the official test data when ``PFC_PTBENCH_DIR`` is set, else on our PTool build) →
evaluate (04: Table 4 with CIs beside the paper) → error taxonomy (05) → figures (06: Fig. 3/4)
→ counterfactual contexts (swap-user variants, the baselines on them, 08: personalization
metrics) → evidence dose (dose and contradict-stated variants of the reference plan's sampled
requests, history-prior / no-history / always-habit on them, 09: dose-response curves, overrides) → the ToolSpectrum release when configured (toolspectrum.ipynb, and its runs in 04-06)
→ ``reports/index.{md,html}``. Executed notebooks go to
``reports/notebooks/`` with an HTML copy.

A step's key is the SHA-256 of its notebook, its parameters, the library source and its
input files; a step whose key and outputs are unchanged is skipped (``reports/pipeline.json``
holds the keys). Every step says whether it ran or was skipped and how long it took.

    python -m pfc.report.pipeline [--backend vllm --model Qwen/Qwen2.5-7B-Instruct] [--real-model auto|DIR|none]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from pfc import paths
from pfc.errors import EXIT_RUN_FAILED, UserError, entry
from pfc.io import atomic
from pfc.io.lock import writer_lock
from pfc.provenance import sha256_path

REAL_MODEL_NAME = "qwen2.5-coder-0.5b"


# ------------------------------------------------------------------ helpers the notebooks use
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
    from pfc.run.runner import run
    root = Path(root)
    bench = root / "tracebench"
    if not (bench / "examples.jsonl").exists():
        build_tracebench(bench, users=users, seed=seed, records=records, progress=False)
    dirs = []
    for b in backends:
        d = root / "runs" / b
        run("tracebench", bench, b, d, cache_path=root / "cache.sqlite", progress=False)
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


# ------------------------------------------------------------------ the pipeline
class StepFailed(RuntimeError):
    """A step of the pipeline failed: the message names it; the step's own exception is its ``__cause__``."""


@dataclass
class Step:
    name: str
    notebook: str | None                  # notebooks/<notebook>; None: a Python step (fn)
    params: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)   # files or directories whose bytes key the step
    outputs: list = field(default_factory=list)  # must exist for the step to be skipped
    fn: object = None
    copy_name: str = ""                   # executed copy: reports/notebooks/<copy_name>.ipynb


def lib_hash() -> str:
    h = hashlib.sha256()
    for f in sorted(paths.LIB.rglob("*.py")):
        h.update(paths.relative(f).encode() + f.read_bytes())
    return h.hexdigest()


def step_key(step: Step, lib: str) -> str:
    h = hashlib.sha256(lib.encode())
    h.update(json.dumps({"name": step.name, "params": step.params}, sort_keys=True).encode())
    if step.notebook:
        h.update((paths.NOTEBOOKS / step.notebook).read_bytes())
    for p in step.inputs:  # a file's bytes, or a directory's files (names + bytes); absent: None
        h.update(f"{paths.relative(Path(p))}:{sha256_path(p)}\n".encode())
    return h.hexdigest()


def _has_torch() -> bool:
    import importlib.util
    return all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers"))


def _rel(p) -> str:
    """A notebook parameter: under PFC_OUTPUT_ROOT relative to it (how ``paths.output``/``paths.source`` read it,
    whatever the two roots' depths), else relative to the repository."""
    rel = os.path.relpath(os.path.abspath(p), paths.OUTPUT_ROOT)
    return Path(rel).as_posix() if not rel.startswith("..") else paths.relative(Path(p))


def run_step(name: str, run_id: str, inputs: list, **params) -> tuple[Path, Step]:
    """A notebook-03 model run into ``data/runs/<run_id>``: its directory and its pipeline step. The pipeline
    owns these directories: one made by an older plan (another model name, sample, …) moves to ``attic/``
    and the run is redone, its answers coming from the response cache where the requests are unchanged."""
    d = paths.RUNS / run_id
    return d, Step(name, "03_run_model.ipynb", {**params, "run_id": run_id, "replace_changed": True}, inputs,
                   [d / "predictions.jsonl"],
                   copy_name=f"03_run_model-{run_id}")


def counterfactual_steps(bench: Path, baselines) -> tuple[list[Step], dict, Path]:
    """Notebook 08's inputs: the swap-user variants of TRACEBench and the baselines' runs on them.

    Returns (steps, {baseline: (run on the originals, run on the variants | None)}, variants dir); the gold
    oracle gets no variants run (the original's gold ignores the context by construction)."""
    from pfc.data.counterfactual import build_variants
    var = paths.BENCHMARKS / "tracebench_swap-user"
    steps = [Step("counterfactual variants (swap-user, seed 0)", None, {"kind": "swap-user", "seed": 0},
                  [bench / "examples.jsonl"], [var / "examples.jsonl", var / "perturb.json"],  # manifest: finished
                  # read and written like the notebooks' paths (pfc.paths.source / output)
                  fn=lambda: build_variants(paths.source(_rel(bench)), paths.output(_rel(var)), "swap-user", seed=0))]
    pairs = {}
    for b in baselines:
        if b == "oracle":
            pairs[b] = (paths.RUNS / f"tb-{b}", None)
            continue
        d, st = run_step(f"run {b} on the swap-user variants", f"tb-swap-user-{b}", [var / "examples.jsonl"],
                         benchmark="tracebench", examples=_rel(var), backend=b)
        steps.append(st)
        pairs[b] = (paths.RUNS / f"tb-{b}", d)
    return steps, pairs, var


EVIDENCE_KINDS = ("dose", "contradict-stated")


def _run_replacing(examples, backend: str, out: Path, ids=None) -> None:
    """A baseline run into a pipeline-owned directory, as notebook 03 with ``replace_changed``: a run made by an older
    plan moves to ``attic/`` and is redone (cached answers reused); failed requests stop the step."""
    from pfc.run.checks import raise_if_failed
    from pfc.run.identity import RunIdentityError
    from pfc.run.reference_evidence import EVIDENCE_BENCHMARK
    from pfc.run.runner import run
    try:
        usage = run(EVIDENCE_BENCHMARK, examples, backend, out, ids=ids, progress=False)
    except RunIdentityError:
        usage = run(EVIDENCE_BENCHMARK, examples, backend, out, ids=ids, progress=False, force=True)
    raise_if_failed(usage, paths.relative(out))


def evidence_steps(bench: Path) -> tuple[list[Step], dict, list[Path]]:
    """Notebook 09's inputs: the dose and contradict-stated variants of the reference plan's sampled requests
    (``pfc.run.reference_evidence.build_evidence``: the very sets the real models' reference runs answer, 600 and 200
    variants) and the three baselines' runs on them, in one Python step (seven runner calls; through notebook 03
    each would pay a kernel start). The originals runs of the override pairs are the pipeline's ``tb-<baseline>``
    runs, and for ``always-habit`` (not one of the table's baselines) a run on the sampled originals only.

    Returns (steps, notebook 09's run parameters, the prediction files they read)."""
    from pfc.report.evidence_dose import BASELINES as EVIDENCE_BASELINES
    from pfc.run.backends.builtin import BASELINES
    from pfc.run.reference_evidence import build_evidence, evidence_dir
    sets = {k: evidence_dir(bench, k) for k in EVIDENCE_KINDS}
    dose_runs = {b: paths.RUNS / f"tb-dose-{b}" for b in EVIDENCE_BASELINES}
    stated = {b: (paths.RUNS / (f"tb-{b}" if b in BASELINES else f"tb-contradict-stated-originals-{b}"),
                  paths.RUNS / f"tb-contradict-stated-{b}") for b in EVIDENCE_BASELINES}

    def build_and_run():
        from pfc.schema import load_examples
        build_evidence(bench, tuple(sets))  # each set replaced whole: the same bytes for the same TRACEBench
        originals = sorted({v.meta["counterfactual"]["original_id"]
                            for v in load_examples(sets["contradict-stated"] / "examples.jsonl")})
        for b in EVIDENCE_BASELINES:
            _run_replacing(sets["dose"], b, dose_runs[b])
            _run_replacing(sets["contradict-stated"], b, stated[b][1])
            if b not in BASELINES:  # the table's baselines have their run on every original already
                _run_replacing(bench, b, stated[b][0], ids=originals)

    runs = [*dose_runs.values(), *(d for pair in stated.values() for d in pair)]
    step = Step("evidence dose: variants (100 requests x 6 K, 200 contradict-stated) and the baselines' runs", None,
                {"kinds": list(EVIDENCE_KINDS), "baselines": list(EVIDENCE_BASELINES), "seed": 0},
                [bench / "examples.jsonl"], [*(d / "perturb.json" for d in sets.values()),
                                             *(d / "predictions.jsonl" for d in runs)], fn=build_and_run)
    params = {"originals": _rel(bench), "dose_variants": _rel(sets["dose"]),
              "stated_variants": _rel(sets["contradict-stated"]),
              "dose_runs": ",".join(f"{b}={_rel(d)}" for b, d in dose_runs.items()),
              "override_runs": ",".join(f"{b}={_rel(o)}:{_rel(v)}" for b, (o, v) in stated.items())}
    return [step], params, [d / "predictions.jsonl" for d in runs]


def _evidence_real_runs(root: Path | None = None) -> tuple[str, str, list[Path]]:
    """Notebook 09's ``real_dose_runs`` and ``real_override_runs``: each reference-run root's (the top one, each
    ``<model>-<backend>/`` folder of ``root``, default the committed runs) dose run and contradict-stated pair,
    committed or not (the notebook names those not committed yet and leaves them out), and the run directories
    named; a root with no run config to name its model by is left out."""
    from pfc.report import reference
    from pfc.run.reference import HISTORY_RUNS
    from pfc.run.reference_evidence import DOSE_RUN, STATED_ORIGINALS_RUN, STATED_RUN
    root = Path(root or reference.ROOT)
    dose, override, dirs = [], [], []
    for base in (root, *reference.model_folders(root)):
        cfg = next((base / r / "config.json" for r in (DOSE_RUN, STATED_RUN, HISTORY_RUNS["last_k"])
                    if (base / r / "config.json").is_file()), None)
        if cfg is None:
            continue
        c = json.loads(cfg.read_text())
        name = f"{c.get('model')} · {c.get('backend')} (reference runs)".replace(",", " ")
        dose.append(f"{name}={_rel(base / DOSE_RUN)}")
        override.append(f"{name}={_rel(base / STATED_ORIGINALS_RUN)}:{_rel(base / STATED_RUN)}")
        dirs += [base / DOSE_RUN, base / STATED_ORIGINALS_RUN, base / STATED_RUN]
    return ",".join(dose), ",".join(override), dirs


def _reference_pairs() -> list[tuple[Path, Path]]:
    """The committed real-model runs on TRACEBench's originals and on their swap-user variants, for the top-level
    runs and each model folder (``<model>-<backend>/``) holding both."""
    from pfc.report import reference
    from pfc.run.reference import SWAP_RUN
    pairs = [(base / "tracebench-last_k", base / SWAP_RUN) for base in (reference.ROOT, *reference.model_folders(reference.ROOT))]
    return [p for p in pairs if all((d / "predictions.jsonl").is_file() for d in p)]


def _real_pair(real_run) -> str:
    """Notebook 08's ``real_run``: ``NAME=ORIGINALS:VARIANTS,…`` (the reference pairs, one per model and engine),
    or the sample run alone."""
    from pfc.report.reference_run import shown
    from pfc.report.tables import run_label
    found = [f"{run_label(shown(json.loads((o / 'config.json').read_text()), o), 'real model')} (reference runs)"
             f"={_rel(o)}:{_rel(v)}" for o, v in _reference_pairs()]
    if found:
        return ",".join(found)
    return f"{real_run[0]}={_rel(real_run[1])}:" if real_run else ""


def _reference_usable(run_dir: Path, planned: set[str]) -> bool:
    """A reference run joins the tables when its benchmark's data is part of this plan (``planned``: the
    benchmarks the plan's own runs read)."""
    return json.loads((run_dir / "config.json").read_text()).get("benchmark") in planned


def _reading_once(*fns) -> None:
    """Call each function in one ``pfc.io.reuse.reading_once`` block (they read the same builds)."""
    from pfc.io.reuse import reading_once
    with reading_once():
        for fn in fns:
            fn()


def plan(backend: str = "", model: str = "", real_model: str = "auto", sample: int = 4, toolspectrum: bool = True,
         n_boot: int = 1000, ptbench: bool = True) -> list[Step]:
    """The steps of ``make reproduce`` in order (see the module docstring)."""
    bench = paths.BENCHMARKS / "tracebench"
    interim = paths.INTERIM / "tracebench"
    nb = paths.REPORTS / "notebooks"
    steps = [
        Step("preprocess", "01_preprocess.ipynb", {"out_dir": _rel(interim), "figures_dir": _rel(paths.FIGURES / "tracebench")},
             [], [interim / "histories.parquet"], copy_name="01_preprocess"),
        Step("build TRACEBench", "02_build_benchmark.ipynb",
             {"histories_dir": _rel(interim), "out_dir": _rel(bench), "figures_dir": _rel(paths.FIGURES / "tracebench")},
             [interim / "histories.parquet"], [bench / "examples.jsonl"], copy_name="02_build_benchmark"),
    ]
    runs: list[Path] = []
    from pfc.run.backends.builtin import BASELINES, BUILTINS
    for b in BASELINES:  # every built-in baseline on TRACEBench
        d, st = run_step(f"run {b}", f"tb-{b}", [bench / "examples.jsonl"], benchmark="tracebench",
                         examples=_rel(bench), backend=b)
        runs.append(d)
        steps.append(st)
    cf_steps, cf_pairs, var = counterfactual_steps(bench, BASELINES)
    steps += cf_steps
    real = real_model_dir(real_model)
    real_run = None
    if real is not None and not _has_torch():
        print(f"reproduce: a real model is at {real} but torch/transformers are missing "
              "(make venv-models); its run is left out", file=sys.stderr)
        real = None
    if real is not None:
        # the registry name when it is the registry's model (runs, tables and reports never carry a home path)
        real_name = REAL_MODEL_NAME if real_model == "auto" else str(real)
        sample_dir = paths.PROCESSED / f"tracebench_sample{sample}"
        steps.append(Step(f"stratified sample ({sample} + the walkthrough's)", None,
                          {"n": sample, "seed": 0, "walkthrough": True}, [bench / "examples.jsonl"],
                          [sample_dir / "examples.jsonl"],
                          fn=lambda: stratified_sample(bench, sample_dir, sample, seed=0, walkthrough=True)))
        d, st = run_step(f"run real model {real.name} (hf, {sample} + the walkthrough's examples)",
                         f"tb-hf-{real.name}-sample{sample}", [sample_dir / "examples.jsonl", real / "config.json"],
                         benchmark="tracebench", examples=_rel(sample_dir), backend="hf", model=real_name,
                         history="last_k", k=5)
        runs.append(d)
        steps.append(st)
        real_run = (real_name, d)
    own = f"{backend}-{Path(model).name or 'default'}".replace("/", "_")  # BACKEND=/MODEL=: one run per benchmark
    if backend:
        d, st = run_step(f"run {backend} {model}", f"tb-{own}", [bench / "examples.jsonl"], benchmark="tracebench",
                         examples=_rel(bench), backend=backend, model=model)
        runs.append(d)
        steps.append(st)
    release = paths.toolspectrum_dir()
    if toolspectrum and release is not None and (release / "data" / "dataset_persona.json").exists():
        ts_runs = []
        for b in BASELINES[:3]:  # the release is large: the oracle and the two history baselines only
            d, st = run_step(f"ToolSpectrum run {b}", f"ts-{b}", [release / "data"], benchmark="toolspectrum",
                             examples=_rel(release), backend=b)
            ts_runs.append(d)
            steps.append(st)
        if backend:
            d, st = run_step(f"ToolSpectrum run {backend} {model}", f"ts-{own}", [release / "data"],
                             benchmark="toolspectrum", examples=_rel(release), backend=backend, model=model)
            ts_runs.append(d)
            steps.append(st)
        steps.append(Step("ToolSpectrum release views", "toolspectrum.ipynb",
                          {"release_dir": _rel(release), "runs": ",".join(_rel(d) for d in ts_runs),
                           "figures_dir": _rel(paths.REPORTS / "toolspectrum")},
                          [release / "data", *[d / "predictions.jsonl" for d in ts_runs]],
                          [paths.REPORTS / "toolspectrum"], copy_name="toolspectrum"))
        runs += ts_runs
    elif backend:
        print(f"reproduce: no ToolSpectrum release at {release} (PFC_TOOLSPECTRUM_DIR); the {backend} run on it "
              "is left out", file=sys.stderr)
    if ptbench:
        from pfc.benchmarks.ptbench import SPLITS as PT_SPLITS
        from pfc.run.sft import build_ptbench
        pt = paths.BENCHMARKS / "ptbench"
        from pfc.data.ptool.build import DEFAULT_VERSION  # in the key: a build of another synthesis is rebuilt (or refused)
        steps.append(Step("build PTBench (PTool synthesis, seed 0)", None, {"seed": 0, "synthesis": DEFAULT_VERSION},
                          [], [pt / "stats.json"],
                          fn=lambda: build_ptbench(pt, 0)))
        for b in [b for b in BASELINES if BUILTINS[b].supports("ptbench")]:
            d, st = run_step(f"PTBench run {b}", f"pt-{b}", [pt / "stats.json"], benchmark="ptbench",
                             examples=_rel(pt), backend=b)
            runs.append(d)
            steps.append(st)
        # the memorization baseline: the answer of the most similar request of our build's training split
        d, st = run_step("PTBench run nearest-train", "pt-nearest-train", [pt / "stats.json"], benchmark="ptbench",
                         examples=_rel(pt), backend="nearest-train")
        runs.append(d)
        steps.append(st)
        if backend:  # the official test data when PFC_PTBENCH_DIR is set (and its prompt, read by the runner), else ours
            official = paths.ptbench_dir()
            data = official or pt
            inputs = [official / s / "data.json" for s in PT_SPLITS] if official else [pt / "stats.json"]
            d, st = run_step(f"PTBench run {backend} {model}" + (" (official data)" if official else ""),
                             f"pt-{'official-' if official else ''}{own}", inputs, benchmark="ptbench",
                             examples=_rel(data), backend=backend, model=model)
            runs.append(d)
            steps.append(st)
        ft = paths.REPORTS / "ptbench_finetune.json"
        steps.append(Step("PTBench synthesis, baselines, tables", "ptbench.ipynb",
                          {"out_dir": _rel(paths.INTERIM / "ptbench" / "pipeline"), "finetune_report": _rel(ft)},
                          [ft], [], copy_name="ptbench"))
    from pfc.report import reference, reference_pairs  # committed reference runs (reports/reference_runs/): re-scored, never run here
    planned = {st.params["benchmark"] for st in steps if st.params.get("benchmark")}
    refs = [d for d in reference.run_dirs() if _reference_usable(d, planned)]
    history = [d for d in refs if reference.is_history(d)]  # PTBench runs on an earlier synthesis
    if history:
        from pfc.run.sft import build_ptbench
        old = paths.BENCHMARKS / reference.PTBENCH_HISTORY["ptool-v1"]
        steps.append(Step("build PTBench v1 (the earlier synthesis the history reference runs answered)", None,
                          {"seed": 0, "synthesis": 1}, [], [old / "stats.json"], fn=lambda: build_ptbench(old, 0, 1)))
    if refs:
        ablations = [d for d in (reference.ROOT / "layout").glob("*/") if (d / "predictions.jsonl").is_file()]
        abl = f", {len(ablations)} layout ablation{'s' * (len(ablations) != 1)}" if ablations else ""
        steps.append(Step(f"reference runs: metrics.json, paired comparisons ({len(refs)} run{'s' * (len(refs) != 1)}{abl})", None, {},
                          [p for d in refs + ablations for p in (d / "predictions.jsonl", d / "config.json")],
                          [paths.REPORTS / "reference_runs" / n
                           for n in ("metrics.json", "paired.json", "paired.md")],
                          fn=lambda: _reading_once(reference.write, reference_pairs.write)))
        runs += [d for d in refs if d not in history]  # history: metrics.json and paired.md only, never the tables
    run_inputs = [p for d in runs for p in (d / "predictions.jsonl", d / "config.json")]
    common = {"run_dirs": ",".join(_rel(d) for d in runs), "n_boot": n_boot, "seed": 0}
    for name, notebook, sub in (("evaluate", "04_evaluate.ipynb", "evaluate"),
                                ("error taxonomy", "05_error_taxonomy.ipynb", "taxonomy"),
                                ("figures", "06_figures.ipynb", "figures")):
        out = paths.REPORTS / sub
        steps.append(Step(name, notebook, {**common, "out_dir": _rel(out)}, run_inputs, [out / "report.md"],
                          copy_name=notebook[:-6]))
    cf_out = paths.REPORTS / "counterfactuals"
    steps.append(Step("counterfactual contexts", "08_counterfactuals.ipynb",
                      {"originals": _rel(bench), "variants": _rel(var),
                       "run_pairs": ",".join(f"{n}={_rel(o)}:{_rel(v) if v else '-'}" for n, (o, v) in cf_pairs.items()),
                       # the real model on the variants is never run here (CPU): the committed reference pair
                       # (pfc.run.reference) when there is one, else the sample run, which the notebook says lacks them
                       "real_run": _real_pair(real_run),
                       "out_dir": _rel(cf_out), "n_boot": n_boot, "seed": 0},
                      [var / "examples.jsonl", *[p / "predictions.jsonl" for o, v in cf_pairs.values() for p in (o, v) if p],
                       *[p / "predictions.jsonl" for pair in _reference_pairs() for p in pair]],
                      [cf_out / "personalization.csv"], copy_name="08_counterfactuals"))
    ev_steps, ev_params, ev_inputs = evidence_steps(bench)
    steps += ev_steps
    real_dose, real_override, real_dirs = _evidence_real_runs()  # committed reference runs, never run here (CPU)
    ev_out = paths.REPORTS / "evidence_dose"
    steps.append(Step("evidence dose and overrides", "09_evidence_dose.ipynb",
                      {**ev_params, "real_dose_runs": real_dose, "real_override_runs": real_override,
                       "out_dir": _rel(ev_out), "n_boot": n_boot, "seed": 0},
                      [*ev_inputs, *(d / "predictions.jsonl" for d in real_dirs)],  # absent ones too: None
                      [ev_out / "evidence_dose.csv"], copy_name="09_evidence_dose"))
    walk = {"examples": _rel(bench), "out_dir": _rel(paths.REPORTS / "walkthrough"), "backend": "history-prior"}
    if real is not None:
        walk.update(backend="hf", model=real_name, k=5)
    steps.append(Step("walkthrough", "00_walkthrough.ipynb", walk, [bench / "examples.jsonl"],
                      [paths.REPORTS / "walkthrough" / "run" / "predictions.jsonl"], copy_name="00_walkthrough"))
    for s in steps:
        s.outputs.append(nb / f"{s.copy_name}.ipynb") if s.notebook else None
    return steps


def execute(step: Step) -> None:
    import papermill as pm
    from jupyter_client.manager import KernelManager
    from pfc.report import executed
    nb = paths.REPORTS / "notebooks"
    nb.mkdir(parents=True, exist_ok=True)
    target = nb / f"{step.copy_name}.ipynb"
    # the kernel talks over local sockets in a private temporary folder, not over TCP (ipykernel warns that
    # TCP is unencrypted, once per step); the kernel is ours, so we shut it down
    # (pfc.report.executed: progress bars to the terminal, then no absolute path in the saved copy)
    with tempfile.TemporaryDirectory(prefix="pfc-kernel-") as sock, executed.kernel_env():
        km = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(sock) / "k"))
        try:
            pm.execute_notebook(str(paths.NOTEBOOKS / step.notebook), str(target), parameters=step.params,
                                kernel_name="python3", language="python", cwd=str(paths.ROOT), progress_bar=False,
                                log_output=False, km=km)
        finally:
            if km.has_kernel:
                km.shutdown_kernel(now=True)
            if target.exists():  # a failed step's copy too: it is where the user looks
                executed.tidy(target, paths.NOTEBOOKS / step.notebook)
    to_html(target)


def to_html(notebook: Path) -> Path:
    from nbconvert import HTMLExporter
    # sanitized: Markdown cells and text/markdown or text/html outputs (report.md shown by a notebook, names from
    # configs) lose scripts, event handlers and other active content on their way to HTML
    body, _ = HTMLExporter(sanitize_html=True).from_filename(str(notebook))
    return atomic.write_text(notebook.with_suffix(".html"), body)


PIPELINE_LOCK = ".pfc-pipeline.lock"


def reproduce(steps: list[Step], force: bool = False, log=print, state_path=None) -> list[dict]:
    """Run (or skip) every step in order; returns one record per step. One pipeline per checkout at a
    time: the state's folder is held (``pfc.io.lock``, lock file ``.pfc-pipeline.lock``) for the whole
    run, so a second ``make reproduce`` is refused naming the first; the state is replaced atomically."""
    state_path = Path(state_path or paths.REPORTS / "pipeline.json")
    with writer_lock(state_path.parent, "checkout's pipeline", "make reproduce", name=PIPELINE_LOCK):
        return _reproduce(steps, force, log, state_path)


def _reproduce(steps, force, log, state_path) -> list[dict]:
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    if not isinstance(state, dict):
        raise UserError("not a pipeline state (expected a JSON object); delete it to run every step",
                        file=_rel(state_path))
    lib = lib_hash()
    records = []
    for i, s in enumerate(steps, 1):
        key = step_key(s, lib)
        fresh = state.get(s.name) == key and all(Path(o).exists() for o in s.outputs)
        t0 = time.perf_counter()
        if fresh and not force:
            status = "skipped (inputs unchanged)"
        else:
            log(f"[{i}/{len(steps)}] {s.name} … running", flush=True)
            try:
                s.fn() if s.fn else execute(s)
            except Exception as e:  # noqa: BLE001 - one line naming the step and the executed copy
                where = f" (see reports/notebooks/{s.copy_name}.ipynb)" if s.notebook else ""
                raise StepFailed(f"step '{s.name}' failed{where}: {type(e).__name__}: "
                                 f"{str(e).strip().splitlines()[-1][:300] if str(e).strip() else ''}") from e
            state[s.name] = key
            atomic.write_json(state_path, state, sort_keys=True)  # a crash keeps finished steps
            status = "ran"
        dt = time.perf_counter() - t0
        log(f"[{i}/{len(steps)}] {s.name}: {status} ({dt:.1f}s)", flush=True)
        records.append({"step": s.name, "status": status, "seconds": round(dt, 1), "notebook": s.notebook,
                        "copy": f"notebooks/{s.copy_name}.ipynb" if s.notebook else None, "params": s.params})
    return records


def write_index(records: list[dict], seconds: float) -> Path:
    """``reports/index.md`` and ``index.html``: every table, figure, notebook, run and config."""
    import mistune
    rep = paths.REPORTS
    lines = ["# Reproduction index", "",
             "Generated by `make reproduce` (`python -m pfc.report.pipeline`). Every number is computed by this repository "
             "except rows and columns labelled **paper**, which are the papers' printed numbers "
             "(`data/paper_results/papers.csv`, with their source sections; contradictions in "
             "`data/paper_results/notes.csv`).", "",
             f"Last run: {sum(r['status'] == 'ran' for r in records)} steps ran, "
             f"{sum(r['status'] != 'ran' for r in records)} skipped, {seconds:.0f} s.", "",
             "## Pipeline steps", "", "| # | step | status | s | executed notebook |", "|---:|---|---|---:|---|"]
    for i, r in enumerate(records, 1):
        nb = f"[ipynb]({r['copy']}) · [html]({r['copy'][:-6]}.html)" if r["copy"] else "–"
        lines.append(f"| {i} | {r['step']} | {r['status']} | {r['seconds']} | {nb} |")
    for sub, title in (("evaluate", "Tables (TRACEBench Table 4, PTBench Table 1/11/12, ToolSpectrum Table 3/8)"),
                       ("taxonomy", "Error taxonomy"), ("figures", "Figures (TRACEBench Fig. 3/4, ToolSpectrum Fig. 4)")):
        d = rep / sub
        if not d.exists():
            continue
        lines += ["", f"## {title}", "", f"Report: [{sub}/report.md]({sub}/report.md) · runs and configs: "
                  f"[{sub}/runs.json]({sub}/runs.json)", ""]
        for f in sorted(d.glob("*.md")):
            if f.name != "report.md":
                t = f.read_text().splitlines()[0].lstrip("# ")
                lines.append(f"- {t}: [md]({sub}/{f.name}) · [csv]({sub}/{f.stem}.csv) · [json]({sub}/{f.stem}.json)")
        for f in sorted((d / "figures").glob("*.png")) if (d / "figures").exists() else []:
            lines.append(f"- figure `{f.stem}`: [png]({sub}/figures/{f.name}) · [pdf]({sub}/figures/{f.stem}.pdf)")
    if (rep / "figures" / "figures").exists():
        lines += [""] + [f"![{f.stem}](figures/figures/{f.name})" for f in sorted((rep / "figures" / "figures").glob("*.png"))]
    lines += ["", "## Runs", "", "| run directory | benchmark | backend | model | examples | n |", "|---|---|---|---|---|---:|"]
    for d in sorted(paths.RUNS.glob("*/config.json")):
        c = json.loads(d.read_text())
        lines.append(f"| [`{_rel(d.parent)}`](../{_rel(d)}) | {c.get('benchmark')} | {c.get('backend')} | "
                     f"{c.get('model')} | `{c.get('examples')}` | {c.get('n_examples')} |")
    md = rep / "index.md"
    atomic.write_text(md, "\n".join(lines) + "\n")
    from pfc.report import index_html
    index_html.write(records, seconds)  # the page people read: tables, figures, runs (pfc.report.index_html)
    return md


def main(argv=None) -> int:
    """``make reproduce``'s command line, through the one error path (``pfc.errors.entry``)."""
    return entry("reproduce", _main, argv, interrupted="interrupted; every step that finished is kept "
                 "(reports/pipeline.json) and is skipped next time: run make reproduce again to resume")


def _main(argv=None) -> int:
    from pfc.errors import positive_int
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default=os.environ.get("BACKEND", ""), help="add a run with this backend (vllm, openai, hf)")
    ap.add_argument("--model", default=os.environ.get("MODEL", ""), help="model for --backend")
    ap.add_argument("--real-model", default=os.environ.get("REAL_MODEL", "auto"),
                    help="the packaged real small model: auto (models cache), a directory, or none")
    ap.add_argument("--sample", type=positive_int, default=os.environ.get("SAMPLE", "4"),
                    help="the real small model: this many examples covering every vagueness level and history bin, plus the walkthrough's")
    ap.add_argument("--n-boot", type=positive_int, default=1000)
    ap.add_argument("--no-toolspectrum", action="store_true")
    ap.add_argument("--force", action="store_true", help="run every step even when its inputs are unchanged")
    args = ap.parse_args(argv)
    from pfc.run.backends.builtin import BASELINES
    if args.backend and not args.model and args.backend not in BASELINES:
        raise UserError(f"BACKEND={args.backend} needs MODEL=<name or path>")
    if args.real_model not in ("", "auto", "none") and not (Path(args.real_model) / "config.json").is_file():
        # refused before step 1, not at step 13
        raise UserError(f"{args.real_model}: not a model directory (no config.json); REAL_MODEL / --real-model is "
                        "auto, none or a model directory")
    t0 = time.perf_counter()
    steps = plan(args.backend, args.model, args.real_model, args.sample, not args.no_toolspectrum, args.n_boot)
    if args.real_model == "none":
        print("reproduce: REAL_MODEL=none: the real small model's sampled run is left out, as asked.", file=sys.stderr)
    elif real_model_dir(args.real_model) is None:
        print("reproduce: no real small model found (REAL_MODEL=auto looks in $PFC_MODELS_DIR or "
              f"~/.cache/pfc/models/{REAL_MODEL_NAME}); its sampled run is left out. Set REAL_MODEL=<model dir>.",
              file=sys.stderr)
    try:
        records = reproduce(steps, force=args.force, log=lambda *a, **k: print(*a, file=sys.stderr, **k))
    except StepFailed as e:  # one line naming the step; PFC_DEBUG=1: the step's own traceback
        if os.environ.get("PFC_DEBUG"):
            raise
        print(f"reproduce: {e}", file=sys.stderr)
        return EXIT_RUN_FAILED
    dt = time.perf_counter() - t0
    md = write_index(records, dt)
    ran = [r["step"] for r in records if r["status"] == "ran"]
    print(f"reproduce: {len(ran)} of {len(records)} steps ran ({', '.join(ran) or 'none'}) in {dt:.0f}s; "
          f"see {_rel(md)} and reports/index.html", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
