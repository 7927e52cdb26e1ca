"""``python -m pfc.report.format_grid RUN...``: the prompt-format grid of runs that differ in prompt settings only.

Prints a table, then the grid as JSON (``--json FILE`` also writes it): per model and cell the accuracy (overall, app,
values; robust rules, user-clustered 95% intervals), the strict rules' overall beside it (the parser axis), the prompt
cost where the rows recorded it; per model the main effect of each cell (cell − default, paired) and BFCL's SD and max-Δ
across cells with intervals; each overall main effect's exact McNemar p adjusted by Holm over the family of every real
model's overall main effects (``holm_p``; ``multiplicity`` gives the family's size); between the two models (B − A,
models in name order: B the later name) the sign and interval in every cell; whether the ``history-prior`` baseline
beats every model in every cell; whether each baseline scores the same in every cell (it reads no prompt). Runs that
differ in anything else (model settings aside: sample, sampling, history, k, examples) are refused in one line naming
the field (``pfc.report.format_grid_runs``); the statistics are ``pfc.eval.format_sensitivity``'s.

    python -m pfc.report.format_grid reports/reference_runs/*-openvino/format/* data/runs/grid-hp/*

``--reference`` takes the runs ``make reproduce``'s notebook 11 reads: the grid baselines in every cell (made first,
seconds, no model: ``pfc.report.pipeline.grid``) and the committed real-model grid runs whose every planned request
has a row (the others are named, one line each, and left out); the committed ``reports/reference_runs/format_grid.json``
is this with ``--json``:

    python -m pfc.report.format_grid --reference --json reports/reference_runs/format_grid.json
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from pfc import benchmarks, paths
from pfc.errors import UserError, entry
from pfc.eval import format_sensitivity as F
from pfc.eval.bootstrap import N_BOOT
from pfc.eval.paired import holm
from pfc.io import atomic
from pfc.plans import format_grid as G
from pfc.report.format_grid_runs import load
from pfc.report.format_grid_views import usable
from pfc.report.pipeline import grid as pipeline_grid  # the pipeline's own plan of notebook 11's runs
from pfc.run.backends.builtin import BASELINES

BASELINE = "history-prior"  # the rule the models are measured against (reports/reference_runs: 0.583)


def _clean(v):
    if isinstance(v, float):
        return None if math.isnan(v) else round(v, 6)
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v.item() if hasattr(v, "item") else v


def _baselines() -> set:
    return set(BASELINES)


def _official(runs) -> str:
    """Why the grid has no official-rules column: only a benchmark with a published evaluator has those rules."""
    bench = runs[0].identity.get("benchmark") if runs else None
    if bench in benchmarks.NAMES and benchmarks.get(bench).scoring.official_compat:
        return "not computed here: score the runs with pfc score --compat official"
    return "none: this benchmark has no published evaluator (Scoring.official_compat)"


def compute(runs, n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """The grid's numbers from :func:`pfc.report.format_grid_runs.load`'s runs (JSON-ready)."""
    by: dict = {}
    for r in runs:
        by.setdefault(r.model, {})[r.cell] = r
    baselines = {m for m, cells in by.items() if next(iter(cells.values())).identity.get("backend") in _baselines()}
    out: dict = {"cells": sorted({r.cell for r in runs}), "models": {}, "baselines_identical": {},
                 "rules": {"robust": "accuracy", "strict": "strict_overall (the benchmark's own answer template: "
                           "a cell asking for another answer syntax fails it by design)", "official": _official(runs)}}
    for model, cells in sorted(by.items()):
        robust = {c: r.robust for c, r in cells.items()}
        if model in baselines:
            out["baselines_identical"][model] = F.identical(robust)
        m = {"accuracy": F.cell_accuracy(robust, n_boot=n_boot, seed=seed),
             "strict_overall": {c: float(r.strict["overall"].mean()) for c, r in cells.items()},
             "cost": {c: r.cost for c, r in cells.items()}}
        if "default" in robust and len(robust) > 1:
            m["main_effects"] = F.main_effects(robust, n_boot=n_boot, seed=seed)
            m["spread"] = {k: F.spread(robust, metric, n_boot, seed) for k, metric in F.KEYS.items()}
        out["models"][model] = m
    real = sorted(m for m in by if m not in baselines)
    family = [e for m in real for e in out["models"][m].get("main_effects", [])
              if e["key"] == "overall" and e.get("mcnemar_p") is not None]
    for e, p in zip(family, holm([e["mcnemar_p"] for e in family])):
        e["holm_p"] = p
    out["multiplicity"] = {"method": "Holm", "family": "every real model's overall main effects (cell − default)",
                           "size": len(family)}
    if len(real) == 2:
        a, b = real
        out["stability"] = {"a": a, "b": b, **F.stability({c: r.robust for c, r in by[a].items()},
                                                            {c: r.robust for c, r in by[b].items()},
                                                            n_boot=n_boot, seed=seed)}
    if BASELINE in by and real:
        base = next(iter(by[BASELINE].values())).robust
        out["baseline_beats"] = {"baseline": BASELINE, **F.baseline_beats(
            base, {m: {c: r.robust for c, r in by[m].items()} for m in real}, n_boot=n_boot, seed=seed)}
    return _clean(out)


def _pct(v) -> str:
    return "–" if v is None else f"{v:.3f}"


def table(grid: dict) -> str:
    """A plain-text table: overall [interval] per cell and model, the main effects, the spread, stability."""
    lines = [f"{'cell':<24}" + "".join(f"{m[:30]:>34}" for m in grid["models"])]
    for cell in grid["cells"]:
        row = f"{cell:<24}"
        for m in grid["models"].values():
            acc = next((a for a in m["accuracy"] if a["cell"] == cell and a["key"] == "overall"), None)
            shown = "" if acc is None else f"{_pct(acc['value'])} [{_pct(acc['lo'])}, {_pct(acc['hi'])}]"
            row += f"{shown:>34}"
        lines.append(row)
    for name, m in grid["models"].items():
        for e in (x for x in m.get("main_effects", []) if x["key"] == "overall"):
            lines.append(f"{name}: {e['cell']} − default {e['diff']:+.3f} [{_pct(e.get('paired_lo'))}, "
                         f"{_pct(e.get('paired_hi'))}]" + (f" (McNemar p {e['mcnemar_p']:.3g}, Holm {e['holm_p']:.3g})"
                                                           if "holm_p" in e else ""))
        s = m.get("spread", {}).get("overall")
        if s:
            lines.append(f"{name}: SD {s['sd']:.3f} [{_pct(s['sd_lo'])}, {_pct(s['sd_hi'])}], max-Δ "
                         f"{s['max_delta']:.3f} [{_pct(s['max_delta_lo'])}, {_pct(s['max_delta_hi'])}] over {s['cells']} cells")
    st = grid.get("stability")
    if st:
        s = st["summary"]
        lines.append(f"{st['b']} − {st['a']}: default's sign kept in {s['same_sign']} of {s['cells']} cells, "
                     f"interval excludes 0 in {s['excludes_zero']}")
    bb = grid.get("baseline_beats")
    if bb:
        lines.append(f"{bb['baseline']} beats every model in every cell: {bb['every_cell']}")
    for b, same in grid["baselines_identical"].items():
        lines.append(f"{b}: the same per-example results in every cell: {same}")
    return "\n".join(lines)


def reference_runs() -> list[Path]:
    """``--reference``'s runs (see the module docstring): the baselines' cells, then the finished committed ones."""
    pipeline_grid.run_baselines(paths.BENCHMARKS / G.GRID_BENCHMARK)
    real, left_out = usable(pipeline_grid.committed_runs())
    for line in left_out:
        print(line, file=sys.stderr)
    return [pipeline_grid.baseline_dir(b, c) for b in pipeline_grid.GRID_BASELINES for c, _, _ in G.cells()] + real


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pfc.report.format_grid", description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*", help="run directories (each a cell of one model, or of a baseline)")
    ap.add_argument("--reference", action="store_true",
                    help="the baselines in every cell and the finished committed grid runs (notebook 11's)")
    ap.add_argument("--n-boot", type=int, default=N_BOOT)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="also write the grid's JSON here")
    args = ap.parse_args(argv)
    if bool(args.runs) == args.reference:
        raise UserError("give run directories or --reference (not both, not neither)")
    grid = compute(load(reference_runs() if args.reference else args.runs), args.n_boot, args.seed)
    text = json.dumps(grid, indent=1, ensure_ascii=False, sort_keys=True)
    print(table(grid))
    print(text)
    if args.json:
        atomic.write_text(Path(args.json), text + "\n")
    return 0


def main(argv=None) -> int:
    return entry("python -m pfc.report.format_grid", _main, argv)


if __name__ == "__main__":
    sys.exit(main())
