"""The real-model reference report: ``reports/real_models.md`` from the runs ``pfc.plans.real_models`` plans.

Scores each planned run directory (``data/runs/real/<run>--<backend>``) on the planned ids with bootstrap 95% intervals
over examples (``pfc.eval.bootstrap.estimates``), beside the built-in baselines that never read the gold, and writes the
report with the configuration, the recorded generation cost per example and the notes (a hand-written ``## Notes``
section at the end is kept when the report is regenerated). This module does not choose samples nor run anything
(``pfc.plans.real_models``); its command line runs what is missing, then reports.

    python -m pfc.report.real_models --model qwen2.5-coder-0.5b          # run what is missing, then report
    python -m pfc.report.real_models --report-only
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from pfc import benchmarks, paths
from pfc.errors import UserError, entry, out_file, positive_int
from pfc.eval.bootstrap import estimates
from pfc.eval.scoring import score
from pfc.io import atomic
from pfc.plans import Planned
from pfc.plans import real_models as plans
from pfc.run.backends.builtin import GOLD_FREE


def tracebench_data() -> Path:
    """The embedded TRACEBench default, built by ``make reproduce``'s first two steps if missing
    (notebooks 01 and 02 through the same pipeline, so ``make reproduce`` then skips them)."""
    from pfc.plans.evidence import EVIDENCE_BENCHMARK  # the benchmark whose prompts select history records
    tb = benchmarks.get(EVIDENCE_BENCHMARK).data_dir()
    if not (tb / "examples.jsonl").exists():
        from pfc.report.pipeline import plan as pipeline_plan, reproduce
        print("building the embedded TRACEBench (make reproduce's steps 1-2) …", file=sys.stderr)
        reproduce(pipeline_plan(real_model="none")[:2], log=lambda *a, **k: print(*a, file=sys.stderr))
    return tb


def _score_run(r: Planned, backend: str):
    out = plans.run_dir(r.name, backend)
    pred = out / "predictions.jsonl"
    if not pred.exists():
        return None
    cfg = r.config
    adapter = benchmarks.get(cfg.benchmark)
    exs, tools = adapter.scoring.load(cfg.examples, None)
    outputs = adapter.scoring.load_predictions(pred, exs)
    exs = [e for e in exs if e.id in set(cfg.ids) and e.id in outputs]
    if not exs:
        return None
    rep = score(exs, outputs, cfg.benchmark, tools)
    usage = json.loads((out / "usage.json").read_text()) if (out / "usage.json").exists() else {}
    config = json.loads((out / "config.json").read_text()) if (out / "config.json").exists() else {}
    keys = {k: adapter.scoring.metric_keys[k] for k in adapter.reporting.headline if k in adapter.scoring.metric_keys}
    return {"n": len(exs), "ci": estimates(rep.per_example, keys), "usage": usage, "config": config,
            "fallbacks": _fallbacks(pred), "generation": _generation(pred, {e.id for e in exs})}


def _generation(pred: Path, ids: set) -> dict | None:
    """Seconds (prefill + decode) and prompt tokens per example, summed over each scored row's recorded
    generation (both steps of a hierarchical run); None when the rows record none (baselines)."""
    secs = toks = n = 0
    for line in pred.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        if row.get("id") not in ids:
            continue
        gens = [g for g in (row.get("generation"), (row.get("domain_step") or {}).get("generation")) if g]
        if not gens:
            return None  # a row from before rows recorded their cost: no partial sums
        n += 1
        secs += sum(g.get("prefill_s", 0) + g.get("decode_s", 0) for g in gens)
        toks += sum(g.get("prompt_tokens", 0) for g in gens)
    return {"s": secs / n, "prompt_tokens": toks / n} if n else None


def _fallbacks(pred: Path):
    rows = [json.loads(x) for x in pred.read_text().splitlines() if x.strip()]
    steps = [x["domain_step"] for x in rows if "domain_step" in x]
    return (sum(s["fallback"] for s in steps), len(steps)) if steps else None


NOTES_MARK = "## Notes"  # a hand-written section at the end of the report, kept when it is regenerated


def _row(r: Planned, backend: str, model: str, keys: list, notes: list, total: list) -> str | None:
    """One run's table row for one backend (None when it has no scored row); its notes appended to ``notes``,
    the model's recorded seconds and examples added to ``total``."""
    ids, model_row = r.config.ids, backend == plans.MODEL_BACKEND
    res = _score_run(r, backend)
    if res is None:
        unsup = plans.run_dir(r.name, backend) / "unsupported.txt"
        if unsup.exists():
            notes.append(f"- {r.name} / {backend}: not run — {unsup.read_text().strip()}")
        elif model_row:
            notes.append(f"- {r.name}: planned ({len(ids)} examples), no model output yet — not reached in the time "
                         "this report was made; `python -m pfc.report.real_models` resumes it.")
        return None
    cells = ["–" if v is None or v[0] != v[0] else f"{v[0]:.2f} [{v[1]:.2f}, {v[2]:.2f}]"
             for v in (res["ci"].get(k) for k in keys)]
    g = res["generation"]
    if model_row:
        if res["n"] < len(ids):
            notes.append(f"- {r.name}: {res['n']} of {len(ids)} planned examples finished "
                         "(scored over those; the run resumes where it stopped).")
        if g:
            total[0] += g["s"] * res["n"]
            total[1] += res["n"]
        if res["fallbacks"] and res["fallbacks"][0]:
            f, t = res["fallbacks"]
            notes.append(f"- {r.name}: hierarchical step 1 named no known domain in {f}/{t} examples "
                         "(fell back to the full toolset; recorded per row as `domain_step`).")
        notes += [f"- {r.name}: warning: {w}" for w in res["usage"].get("warnings") or ()]
    sec = f"{g['s']:.1f}" if g else ("–" if model_row else "0")
    ptok = f"{g['prompt_tokens']:.0f}" if g else "–"
    name = f"**{model}**" if model_row else backend
    return f"| {r.name} | {name} | {res['n']} | " + " | ".join(cells) + f" | {sec} | {ptok} |"


def _benchmark_sections(runs: list[Planned], model: str, total: list) -> list[str]:
    """One table per benchmark (in the plan's order): each run with the model and each baseline, then notes."""
    lines = []
    for bench in dict.fromkeys(r.config.benchmark for r in runs):
        keys = list(benchmarks.get(bench).reporting.headline)
        lines += [f"## {bench}", "", "| run | backend | n | " + " | ".join(keys) + " | s/example | prompt tok/example |",
                  "|---|---|---:|" + "---:|" * (len(keys) + 2)]
        notes: list = []
        for r in (r for r in runs if r.config.benchmark == bench):
            rows = (_row(r, backend, model, keys, notes, total) for backend in (plans.MODEL_BACKEND, *GOLD_FREE))
            lines += [row for row in rows if row]
        lines += [""] + notes + ([""] if notes else [])
    return lines


def report(runs: list[Planned], model: str, out_path: Path, seconds: float | None = None) -> str:
    lines = ["# Real model reference runs (CPU)", "",
             f"Model: `{model}` through the `hf` backend (bf16, prefix reuse on), beside the built-in baselines "
             "on the same examples. Every number is computed here; values are the metric on the sample with a "
             "bootstrap 95% interval over examples (1,000 resamples, seed 0). Small samples: intervals are wide — "
             "read them before reading differences.", "",
             "Reproduce: `python -m pfc.report.real_models --model qwen2.5-coder-0.5b` (after `make models`); run "
             "directories are under `data/runs/real/` (config.json has every parameter).", ""]
    total = [0.0, 0]  # the model's recorded generation seconds and examples, over every run
    lines += _benchmark_sections(runs, model, total)
    lines += ["## Configuration", "",
              "| run | benchmark | strategy | history | k | examples |", "|---|---|---|---|---:|---:|"]
    lines += [f"| {r.name} | {r.config.benchmark} | {r.config.strategy} | {r.config.history} | {r.config.k} | "
              f"{len(r.config.ids)} |" for r in runs]
    model_dirs = (plans.run_dir(r.name, plans.MODEL_BACKEND) / "config.json" for r in runs)
    cfg = next((json.loads(f.read_text()) for f in model_dirs if f.exists()), None)
    if cfg:
        lines += ["", f"Sampling: `{json.dumps(cfg['sampling'])}`; model identity: "
                      f"`{json.dumps(cfg.get('model_identity', {}))}`; versions: `{json.dumps(cfg['versions'])}`."]
    lines += ["", "s/example and prompt tok/example: prefill + decode seconds and prompt tokens per example as "
              "recorded when each answer was generated (both calls of a hierarchical example; an answer later "
              "served from the response cache keeps its original cost, and costs nothing on a re-run). They include "
              "whatever else the machine was doing then; `reports/perf_models.md` has speeds on an idle machine.", ""]
    if total[1]:
        lines += [f"The model's generation time over the whole plan, as recorded: {total[0] / 60:.1f} min for "
                  f"{total[1]} examples.", ""]
    if seconds is not None:
        lines += [f"Wall time of the invocation that wrote this report: {seconds / 60:.1f} min.", ""]
    old = out_path.read_text(encoding="utf-8") if out_path.exists() else ""
    notes = old[old.index(NOTES_MARK):] if NOTES_MARK in old else ""  # hand-written notes stay, below
    text = "\n".join(lines) + ("\n" + notes if notes else "")
    atomic.write_text(out_path, text)
    return text


def main(argv=None) -> int:
    """The command line, through the one error path (``pfc.errors.entry``): a UserError is one line, exit 2;
    Ctrl-C one line, exit 130."""
    return entry("real_models", _main, argv)


def _plan(args, parts) -> list[Planned]:
    """The plan of the parsed arguments (``--data``, ``--benchmarks``); the embedded TRACEBench built by the
    pipeline first when it is planned and missing (:func:`tracebench_data`)."""
    data = {}
    for item in args.data:
        name, sep, d = item.partition("=")
        if not sep or name not in benchmarks.NAMES:
            raise UserError(f"--data: expected NAME=DIR with NAME one of {', '.join(benchmarks.NAMES)}, got {item!r}")
        data[name] = Path(d)
    only = tuple(x for x in (args.benchmarks or "").split(",") if x)
    from pfc.plans.evidence import EVIDENCE_BENCHMARK
    if EVIDENCE_BENCHMARK not in data and (not only or EVIDENCE_BENCHMARK in only):
        data[EVIDENCE_BENCHMARK] = tracebench_data()
    return plans.plan({a.name: getattr(args, f"n_{a.name}") for a, _ in parts}, args.k, data=data, model=args.model,
                      max_tokens=args.max_tokens, only=only,
                      tokens={a.name: getattr(args, f"max_tokens_{a.name}", None) for a, _ in parts})


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pfc.report.real_models", description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="qwen2.5-coder-0.5b")
    parts = plans.parts()
    for a, m in parts:  # each benchmark package's sample size, and its answers' limit when it has its own
        ap.add_argument(f"--n-{a.name}", type=positive_int, default=m.N, help=m.N_HELP)
    ap.add_argument("--k", type=positive_int, default=10, help="history records for last_k / retrieved")
    ap.add_argument("--max-tokens", type=positive_int, default=128, help="answers of a benchmark without its own")
    for a, m in parts:
        if hasattr(m, "MAX_TOKENS"):
            ap.add_argument(f"--max-tokens-{a.name}", type=positive_int, default=m.MAX_TOKENS, help=m.MAX_TOKENS_HELP)
    ap.add_argument("--benchmarks", help="comma-separated benchmarks to plan (default: all)")
    ap.add_argument("--data", action="append", default=[], metavar="NAME=DIR",
                    help="a benchmark's data directory (default: its own build or release)")
    ap.add_argument("--dry-run", action="store_true", help="print the plan (runs, examples, directories); run nothing")
    ap.add_argument("--only", help="comma-separated run names (default: all)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--cache", help="response cache (default data/cache/responses.sqlite; one per concurrent process)")
    ap.add_argument("--out", default=str(paths.REPORTS / "real_models.md"))
    args = ap.parse_args(argv)
    try:
        out_file(args.out)
    except UserError as e:
        ap.error(str(e))
    runs = _plan(args, parts)
    only = [x for x in (args.only or "").split(",") if x]
    unknown = sorted(set(only) - {r.name for r in runs})
    if unknown:
        ap.error(f"--only: unknown run name(s) {', '.join(unknown)}; planned: {', '.join(r.name for r in runs)}")
    chosen = sorted((r for r in runs if not only or r.name in only), key=lambda r: plans.rank(r.name))
    if args.dry_run:
        print("\n".join(f"{r.name}\t{r.config.benchmark}\t{len(r.config.ids)} examples\t"
                        f"{paths.relative(plans.run_dir(r.name, plans.MODEL_BACKEND))}" for r in chosen))
        return 0
    t0 = time.perf_counter()
    if not args.report_only:
        plans.execute(chosen, cache_path=args.cache)  # Ctrl-C: one line saying the same command resumes
    report(runs, args.model, Path(args.out), None if args.report_only else time.perf_counter() - t0)
    print(f"wrote {paths.relative(Path(args.out))}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
