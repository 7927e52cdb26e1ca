"""The one way to execute a plan: planned steps (:class:`pfc.plans.Planned`) run in order through the runner.

``pfc run``, the real-model and reference plans, the demo runs, ``make reproduce``'s baseline runs and the notebooks all
go through :func:`execute` (:func:`run`, :func:`run_config` for one). A variant set is built first when unfinished (its
manifest is written last), keeping the ids it holds (none: nothing to run, said); a run resumes (``pfc.run.runner``);
``replacing``: a directory made by an older plan moves to ``attic/``. A step without a run goes to ``train``. One error
path: a ``UserError`` names the step and goes to the command's ``pfc.errors.entry`` (one line, exit 2) unless
``refused`` takes it; Ctrl-C says the same command resumes (exit 130). It does not plan, score or report.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from pfc import benchmarks
from pfc.data.counterfactual import MANIFEST
from pfc.errors import UserError
from pfc.plans import Planned
from pfc.run import runner
from pfc.run.checks import RunInterrupted

RESUME = "the same command resumes every run"


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def prepared(step: Planned):
    """The step's ``RunConfig``, its variant set built first when unfinished (only the ids the set holds: an
    original without a donor has no variant)."""
    cfg = step.config
    if step.build is None:
        return cfg
    if not (Path(cfg.examples) / MANIFEST).exists():
        step.build()
    known = {e.id for e in benchmarks.get(cfg.benchmark).scoring.load(cfg.examples, None)[0]}
    return replace(cfg, ids=tuple(i for i in cfg.ids if i in known))


def run(step: Planned, *, replacing: bool = False, label: str = "", tell=say) -> dict:
    """One run step (see the module docstring); returns the run's usage. ``label``: announce the step as
    ``[label] name: N examples`` first; ``tell``: where a replaced run is said (None: silently)."""
    cfg = prepared(step)
    if cfg.ids == () and step.build is not None:  # its built set holds none of the ids (no question to follow up)
        tell(f"[{label or 'run'}] {step.name}: 0 examples: {Path(cfg.examples).name} holds none of its "
             f"{len(step.config.ids)} planned ids; nothing to run")
        return {"n_examples": 0, "todo": 0, "done": 0, "written": 0, "failures": 0}
    if label:
        tell(f"[{label}] {step.name}: {len(cfg.ids) if cfg.ids else 'all'} examples")
    if not replacing:
        return runner.execute(cfg)
    return runner.execute_or_replace(cfg, tell and (lambda e: tell(
        f"{step.name}: {cfg.backend}: the plan changed ({e}); the old run goes to attic/, answers already given "
        "come from the response cache")))


def execute(steps, *, replacing: bool = False, label: str = "", train=None, refused=None, tell=say) -> list[dict]:
    """Every step of ``steps`` in order (:func:`run`); their usages. ``train(step)`` runs a step without a config;
    ``refused(step, error)`` takes a step's ``UserError`` or ``NotImplementedError`` instead of stopping the plan
    (otherwise a ``UserError`` is re-raised naming the step)."""
    usages = []
    for step in steps:
        try:
            if step.config is None:
                train(step)
            else:
                usages.append(run(step, replacing=replacing, label=label, tell=tell))
        except RunInterrupted as e:
            raise KeyboardInterrupt(f"{e}; {RESUME}") from None
        except KeyboardInterrupt as e:  # before the run started writing (loading the model, building variants)
            raise KeyboardInterrupt(str(e) or f"{step.name}: interrupted before its first row; {RESUME}") from None
        except (UserError, NotImplementedError) as e:
            if refused is not None and step.config is not None:
                refused(step, e)
            elif isinstance(e, UserError):
                raise UserError(f"{step.name}: {e}") from None
            else:
                raise
    return usages


def run_config(cfg, *, replacing: bool = False, tell=say) -> dict:
    """:func:`run` of one ``RunConfig`` (named by its directory): how the notebooks run theirs."""
    return run(Planned(Path(cfg.out_dir).name, cfg), replacing=replacing, tell=tell)
