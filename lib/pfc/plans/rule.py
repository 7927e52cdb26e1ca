"""The history-prior rule's runs on the committed model runs' examples (the reference report's ``rule`` pairs).

For every run both models' folders repeat (``pfc.plans.reference.paired_runs``, the sides of
``pfc.plans.reference.MODEL_PAIRS``) that has a row, the built-in ``history-prior`` baseline (deterministic, no model:
the request matched to the functions, then the user's habits in similar contexts; ``pfc.run.backends.builtin``) answers
the same planned ids of the same examples with the same settings into ``data/runs/reference-rule/<run's path>``
(:func:`rule_dir`; resumed, replaced when the plan changes). It reads the user's whole history whatever the run showed
the model. ``make reproduce`` makes them before the reference report pairs them (``pfc.report.reference.rule``); so does
``python -m pfc.plans.rule``. It scores nothing; the runs take seconds.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pfc import paths
from pfc.errors import UserError, entry, read_json
from pfc.plans import executor
from pfc.plans.reference import MODEL_PAIRS, folder, paired_runs
from pfc.run.config import RunConfig

RULE = "history-prior"
COMMAND = "python -m pfc.plans.rule"
COMMITTED = paths.ROOT / "reports" / "reference_runs"  # the committed runs (in the checkout, whatever PFC_OUTPUT_ROOT)


def model_runs() -> list[str]:
    """Every model run the rule answers, by its path under the reference root (each side's paired runs)."""
    sides = dict.fromkeys((m, eng) for a, b, eng in MODEL_PAIRS for m in (b, a))
    return [f"{folder(m, eng)}/{run}".lstrip("/") for m, eng in sides for run in paired_runs()]


def rule_dir(name: str, runs: Path | None = None) -> Path:
    """Where the rule's run of the model run ``name`` (its path under the reference root) goes."""
    return Path(runs or paths.RUNS) / "reference-rule" / name


def rule_config(run_dir: Path, out: Path) -> RunConfig:
    """The rule's run of a committed model run: its benchmark, examples, tools, planned ids and settings."""
    f = Path(run_dir) / "config.json"
    c = read_json(f)
    for k in ("benchmark", "examples"):
        if not isinstance(c, dict) or not isinstance(c.get(k), str):
            raise UserError("not a run's config: expected an object naming it as a string", file=str(f), field=k)
    examples, tools = (paths.source(c[k]) if c.get(k) else None for k in ("examples", "tools"))
    return RunConfig(c["benchmark"], examples, RULE, out, tools=tools, ids=tuple(c["ids"]) if c.get("ids") else None,
                     strategy=c.get("strategy") or "zero_shot", history=c.get("history") or "full", k=c.get("k") or 10,
                     seed=c.get("seed") or 0, prompt_variant=c.get("prompt_variant") or "all", progress=False,
                     use_cache=False)


def make(root: Path | None = None, runs: Path | None = None) -> list[Path]:
    """Make (or resume) the rule's run of every model run under ``root`` (default: the committed runs, which
    ``pfc.report.reference`` reads) with rows; returns their directories."""
    root, made = Path(root or COMMITTED), []
    for name in model_runs():
        if (root / name / "config.json").is_file() and (root / name / "predictions.jsonl").is_file():
            executor.run_config(rule_config(root / name, rule_dir(name, runs)), replacing=True, tell=None)
            made.append(rule_dir(name, runs))
    return made


def _main(argv=None) -> int:
    argparse.ArgumentParser(prog=COMMAND, description="the history-prior rule's runs on every committed model run's "
                            "examples and settings (data/runs/reference-rule/; resumed; no model)").parse_args(argv)
    made = make()
    print(f"the {RULE} rule answered {len(made)} model runs' examples under {paths.relative(rule_dir(''))}",
          file=sys.stderr)
    return 0


def main(argv=None) -> int:
    """The command line through the one error path (``pfc.errors.entry``)."""
    return entry(COMMAND, _main, argv)


if __name__ == "__main__":
    sys.exit(main())
