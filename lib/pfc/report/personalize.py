"""``pfc personalize ORIGINALS_RUN VARIANTS_RUN``: a run pair's personalization metrics as JSON on stdout.

The two runs are one model's run on a benchmark and its run on that benchmark's variants (``pfc perturb``, any kind). It
prints, with user-clustered bootstrap 95% intervals:

- ``personalization``: ``context_following``, ``request_faithfulness`` and ``sensitivity`` over the variants both runs
  answered (``coverage`` says how many of the set: a run of a sample, or one in progress, is never counted wrong on the
  rest; stderr says it too), computed by notebook 08's path (``pfc.report.counterfactual.evaluate_pairs`` with
  ``answered_only``, as notebook 08 scores the real model);
- ``dose`` (when the set holds ``dose`` variants): the dose-response curve (per K: accuracy, user's choice, population's
  favourite, switch rate, with the variants and users scored) and ``threshold_k``, the smallest K whose switch-rate
  interval lies above 0.5 (``pfc.eval.dose``); null, with ``threshold_withheld`` saying why, for a run that answered
  part of the set. It needs no answer on the originals (K = 0 is each request's base), so it is scored on every dose
  variant the variants run answered (``coverage.dose_answered``), whatever the originals run covers: notebook 09's
  numbers;
- ``override`` (``contradict-stated`` variants): ``stated_wins`` and ``overrides``;
- ``action`` (``ask`` / ``cannot`` variants, issue 64): the action metrics (``pfc.eval.ask``: action accuracy, macro-F1,
  over-ask, guess rate, tool hallucination, slot precision, discrimination, …) over the answered variants and their
  originals pooled, with user-clustered intervals.

Each run's examples are read from its ``config.json`` (``examples``) unless given. A missing run directory, runs on
different benchmarks, variants none of whose originals the first run covers, a set of variants made from another build
than the originals run answered (its ``perturb.json``), a run whose examples were re-made since it answered them (its
``run.json``, as ``pfc run`` checks), or no variant answered in both runs is one line and exit 2. Unknown and repeated
ids are reported as ``pfc score`` reports them (``coverage.predictions``, and on stderr). It writes no file (``pfc
report`` does not show these tables: it takes separate runs, not pairs).

    python -m pfc personalize data/runs/tb-history-prior data/runs/tb-swap-hp
"""
from __future__ import annotations

import json
from pathlib import Path
import math
import os
import sys
from collections import Counter

from pfc.errors import UserError, existing, nonneg_int
from pfc import benchmarks, paths
from pfc.benchmarks.common import load_predictions
from pfc.data.counterfactual import MANIFEST
from pfc.eval import coverage as cov
from pfc.provenance import sha256_path
from pfc.run.identity import check_answered


# what must be the same in both runs of a pair: who answered and how (the history window may differ: the originals
# of a contradict-stated set are shown their last records, the variants their whole planted history)
SAME_ANSWERER = ("backend", "model", "backend_options", "strategy", "sampling", "native_tools", "prompt_variant",
                 "layout")


def _run(d, examples, flag: str) -> tuple[str, Path, dict]:
    """(benchmark, examples path, config) of a run directory; one-line errors for what is missing."""
    d = existing(d, "run directory")
    cfg_path = d / "config.json"
    if not d.is_dir() or not cfg_path.is_file() or not (d / "predictions.jsonl").is_file():
        raise UserError("not a run directory (config.json and predictions.jsonl)", file=str(d))
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UserError(f"unreadable: {e}", file=str(cfg_path)) from None
    bench = cfg.get("benchmark") if isinstance(cfg, dict) else None
    if not isinstance(bench, str):
        raise UserError("no benchmark named", file=str(cfg_path), field="benchmark")
    if examples is None and not isinstance(cfg.get("examples"), str):
        raise UserError(f"missing or not a path; pass {flag}", file=str(cfg_path), field="examples")
    return bench, existing(examples, flag) if examples is not None else paths.source(cfg["examples"]), cfg


def evaluate(orig_dir, var_dir, n_boot: int = 1000, seed: int = 0, examples=None, variant_examples=None) -> dict:
    """The JSON ``pfc personalize`` prints (see the module docstring)."""

    from pfc.eval import dose
    from pfc.report.counterfactual import evaluate_pairs
    bench, orig_path, ocfg = _run(orig_dir, examples, "--examples")
    vbench, var_path, vcfg = _run(var_dir, variant_examples, "--variant-examples")
    if bench != vbench:
        raise UserError(f"the originals run is on {bench} and the variants run on {vbench}: not a pair",
                        file=str(var_dir))
    differ = [k for k in SAME_ANSWERER if ocfg.get(k) != vcfg.get(k)]
    if differ:
        k = differ[0]
        raise UserError(f"{json.dumps(vcfg.get(k))}, the originals run's {json.dumps(ocfg.get(k))}: another "
                        "answerer, not a pair", file=str(Path(var_dir) / "config.json"), field=k)
    adapter = benchmarks.get(bench)
    originals, o_tools = adapter.scoring.load(orig_path, None)
    variants, tools = adapter.scoring.load(var_path, None)
    _made_from(var_path, orig_path)
    _answered(orig_dir, bench, ocfg, orig_path, originals, o_tools)  # what pfc run checks: the examples it answered
    _answered(var_dir, bench, vcfg, var_path, variants, tools)
    ids = {e.id for e in originals}
    linked = [v for v in variants if (v.meta.get("counterfactual") or {}).get("original_id") in ids]
    if not linked:
        made = sum(1 for v in variants if v.meta.get("counterfactual"))
        raise UserError(f"shares no ids with the originals run: {made} of its {len(variants)} examples are "
                        f"variants, none of an example of {paths.relative(orig_path)}", file=str(var_dir))
    out_o, out_v, read = _outputs(orig_dir, originals, var_dir, variants)
    answered = [v for v in linked if v.id in out_v and v.meta["counterfactual"]["original_id"] in out_o]
    if not answered:
        raise UserError(f"no variant of {len(linked)} has an answer in both runs (the variants run holds "
                        f"{len(out_v)} rows, the originals run {len(out_o)}): nothing to compare", file=str(var_dir))
    # a run of a sample (or one still in progress) is scored on the variants both runs answered, never counting
    # the unanswered as wrong; the coverage says how many that is (an unparsable answer is a row, and fails)
    long, _, _ = evaluate_pairs(bench, orig_path, var_path, {"run": (orig_dir, var_dir)}, n_boot, seed,
                                answered_only=True)
    out = {"benchmark": bench, "originals_run": str(orig_dir), "variants_run": str(var_dir),
           "kinds": dict(sorted(Counter(dose.kind_of(v) for v in answered).items())),
           "variants": len(answered), "coverage": {"variants_in_set": len(variants), "linked": len(linked),
                                                   "answered_by_both": len(answered), "predictions": read},
           "n_boot": n_boot, "seed": seed,
           "personalization": _records(long.drop(columns=["run", "variants"]))}
    in_set = sum(dose.kind_of(v) == "dose" for v in variants)
    # the dose curve reads no answer on the originals (a request's K = 0 variant is its base): it is scored on every
    # dose variant the variants run answered, as notebook 09 scores a dose run alone, whatever the originals run covers
    doses = [v for v in linked if dose.kind_of(v) == "dose" and v.id in out_v]
    if doses:
        from pfc.report.evidence_dose import dose_curve
        out["coverage"]["dose_answered"] = len(doses)
        table = dose_curve(doses, var_dir, n_boot, seed, answered_only=True)  # notebook 09's path
        why = dose.withheld(len(doses), in_set)
        out["dose"] = {"curve": _records(table), "threshold_k": None if why else dose.threshold(table),
                       **({"threshold_withheld": why} if why else {})}
    out.update(_actions(bench, originals, answered, out_o, out_v, tools, n_boot, seed))  # ask/cannot variants
    variants = answered
    if any(dose.kind_of(v) == "contradict-stated" for v in variants):
        df = dose.override_rows(originals, variants, out_o, out_v, adapter.scoring.style)
        out["override"] = _records(dose.metric_rows(df, dose.OVERRIDE_METRICS, n_boot, seed))
    return out


def _outputs(orig_dir, originals, var_dir, variants) -> tuple[dict, dict, dict]:
    """Both runs' ``{id: output}`` (as ``pfc.report.counterfactual.load_outputs`` reads them: the last of a repeated
    id kept) and ``{run: its coverage line}``: unknown and repeated ids, as ``pfc score`` reports them."""
    preds = {k: load_predictions(Path(d) / "predictions.jsonl", exs)
             for k, d, exs in (("originals_run", orig_dir, originals), ("variants_run", var_dir, variants))}
    read = {k: cov.summary(cov.coverage([e.id for e in exs], preds[k]))
            for k, exs in (("originals_run", originals), ("variants_run", variants))}
    return dict(preds["originals_run"]), dict(preds["variants_run"]), read


def _made_from(var_path: Path, orig_path: Path) -> None:
    """Refuse variants whose set (``pfc perturb``'s manifest beside them) was made from other examples than
    ``orig_path`` holds (another build whose ids happen to match); a set without a manifest is taken as it is."""
    m = (var_path if var_path.is_dir() else var_path.parent) / MANIFEST
    try:
        made = json.loads(m.read_text(encoding="utf-8")) if m.is_file() else None
    except (OSError, ValueError):
        made = None
    want = ((made or {}).get("examples") or {}).get("sha256") if isinstance(made, dict) else None
    src = orig_path / "examples.jsonl" if orig_path.is_dir() else orig_path
    if isinstance(want, str) and src.is_file() and sha256_path(src) != want:
        raise UserError(f"{want[:12]}…: the variants were made from {made['examples'].get('path')}, not from "
                        f"{paths.relative(src)} that the originals run answered (another build?): not a pair",
                        file=os.path.normpath(m), field="examples.sha256")


def _answered(run_dir, bench, cfg: dict, path: Path, exs, tools) -> None:
    """Refuse a run scored on other examples than it answered (``pfc.run.identity.check_answered``)."""
    tools_path = paths.source(cfg["tools"]) if isinstance(cfg.get("tools"), str) else None
    if tools_path is not None:
        exs, tools = benchmarks.get(bench).scoring.load(path, tools_path)
    check_answered(run_dir, bench, path, tools_path, exs, tools)


def _actions(bench, originals, variants, out_o, out_v, tools, n_boot, seed) -> dict:
    """``{"action": the action metrics}`` (``pfc.eval.ask``) over the answered ask/cannot variants and their
    originals pooled; ``{}`` for variants of other kinds."""
    import pandas as pd

    from pfc.eval import ask
    from pfc.eval.scoring import score
    if all(v.action == "call" for v in variants):
        return {}
    ids = {v.meta["counterfactual"]["original_id"] for v in variants}
    rows = [score([e for e in exs if e.id in keep], outs, bench, tools, actions=True).per_example
            for exs, outs, keep in ((originals, out_o, ids), (variants, out_v, {v.id for v in variants}))]
    return {"action": _records(ask.table(pd.concat(rows), n_boot, seed))}


def _records(rows) -> list[dict]:
    """Rows (a DataFrame or dicts) as JSON records: NaN as null, numbers rounded to 4 places."""
    recs = rows.to_dict(orient="records") if hasattr(rows, "to_dict") else list(rows)
    fix = lambda v: None if isinstance(v, float) and math.isnan(v) else round(v, 4) if isinstance(v, float) else v
    return [{k: fix(v.item() if hasattr(v, "item") else v) for k, v in r.items()} for r in recs]


def _personalize_cmd(args) -> int:
    result = evaluate(args.originals_run, args.variants_run, args.n_boot, args.seed, args.examples,
                      args.variant_examples)
    c = result["coverage"]
    dose = f"; the dose curve {c['dose_answered']} (the variants run's own)" if "dose_answered" in c else ""
    for run, line in c["predictions"].items():  # unknown ids and repeated ones, as pfc score says them
        if " 0 unknown, 0 duplicate" not in line:
            print(f"pfc personalize: {result[run]}/predictions.jsonl: {line}", file=sys.stderr)
    print(f"pfc personalize: scored {c['answered_by_both']} of {c['variants_in_set']} variants (those both runs "
          f"answered){dose}", file=sys.stderr)
    print(json.dumps(result, indent=1))
    return 0


def add_command(sub) -> None:
    """Register ``personalize`` on the ``python -m pfc`` sub-command parser."""
    p = sub.add_parser("personalize", help="personalization metrics of a run on originals and a run on their "
                       "variants (swap-user, dose, contradict-stated, ...): JSON on stdout")
    p.add_argument("originals_run", help="run directory on the original examples")
    p.add_argument("variants_run", help="the same model's run directory on their variants (pfc perturb)")
    p.add_argument("--examples", help="the originals (default: the first run's config 'examples')")
    p.add_argument("--variant-examples", help="the variants (default: the second run's config 'examples')")
    p.add_argument("--n-boot", type=nonneg_int, default=1000, help="bootstrap resamples over users (0: no intervals)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_personalize_cmd)
