"""A sweep's plan: the checked spec crossed into runs, models × benchmarks × settings, each a ``pfc run``.

:func:`plan` turns a spec (:mod:`pfc.sweep.spec` checks it) into :class:`PlannedRun` s, each one ``RunConfig``
(``pfc.run.config``) with what the sweep adds, naming its run directory ``<out>/runs/<name>`` and the ``pfc run``
arguments that produce the same directory serially (:meth:`PlannedRun.pfc_run_args`, written from ``pfc run``'s
own flag table, ``pfc.run.run_args``). Settings a benchmark or a backend does not use are not crossed
(``history``/``k`` are TRACEBench's; ``k`` only with ``last_k``/``retrieved``); combinations a benchmark or
backend refuses are listed as skipped. It reads no files but the spec's, runs nothing and does not import
Ray (:mod:`pfc.sweep.ray_tasks` does); the sweep index is :mod:`pfc.sweep.index`.

    >>> K_HISTORIES
    ('last_k', 'retrieved')
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import product
from pathlib import Path

from pfc.run.config import RunConfig
from pfc.run.run_args import run_args
from pfc.sweep.spec import SETTINGS, check_retries, entries, slug, spec_hash
from pfc import benchmarks
from pfc.run.backends import admitted_by, builtin

K_HISTORIES = ("last_k", "retrieved")


@dataclass
class PlannedRun:
    """One run of a sweep: the run itself (``config``, one ``RunConfig``, what ``pfc run`` runs) and what the
    sweep adds around it: its name, the spec's model and benchmark entries it crosses, the resources it asks of Ray and
    whether its model stays loaded across runs."""
    name: str
    model_name: str
    benchmark_name: str
    config: RunConfig
    resources: dict = field(default_factory=dict)
    keep_loaded: bool = False

    def run_dir(self, out) -> Path:
        return Path(out) / "runs" / self.name

    def label(self) -> str:
        """How reports name this run: the model, then every setting that is not the default."""
        c = self.config
        extra = [s for s, d in ((c.strategy, "zero_shot"), (c.history, "full")) if s != d]
        extra += [f"k={c.k}"] if c.history in K_HISTORIES else []
        extra += [f"layout={c.layout}"] if c.layout != "paper" else []
        extra += [f"seed={c.seed}"] if c.seed else []
        return f"{self.model_name} [{', '.join(extra)}]" if extra else self.model_name

    def pfc_run_args(self, out) -> list[str]:
        """The ``pfc run`` arguments that write the same run directory serially (``pfc.run.run_args``)."""
        return run_args(replace(self.config, out_dir=self.run_dir(out)))

    def index_entry(self) -> dict:
        """The run's settings as ``sweep.json`` lists them (the data paths aside)."""
        c = self.config
        return {"name": self.name, "model_name": self.model_name, "backend": c.backend, "model": c.model,
                "benchmark_name": self.benchmark_name, "benchmark": c.benchmark, "limit": c.limit,
                "strategy": c.strategy, "history": c.history, "k": c.k, "layout": c.layout, "seed": c.seed,
                "resources": self.resources, "keep_loaded": self.keep_loaded, "options": c.backend_options,
                "sampling": c.sampling}


@dataclass
class Plan:
    spec: dict
    spec_hash: str
    runs: list[PlannedRun]
    skipped: list[str]
    builds: dict            # benchmark entry's name -> (benchmark, build parameters): built by its package's builder


def _history_selection(benchmark: str) -> bool:
    """Whether the benchmark's prompts select history records (sweeps vary history and k only then)."""
    return benchmarks.get(benchmark).running.history_selection


def _refusal(model: dict, bench: dict, strategy: str, layout) -> str | None:
    """Why `pfc run` would refuse this combination before any request, or None."""
    name = bench["benchmark"]
    if name not in benchmarks.names() or strategy not in benchmarks.get(name).running.strategies:
        return f"{bench['benchmark']} has no strategy {strategy!r}"
    cls = builtin.BUILTINS.get(model["backend"])
    owners = admitted_by(model["backend"])  # a benchmark's own baseline (PTBench's nearest-train) answers only it
    if owners and name not in owners:
        return f"backend {model['backend']} answers only {', '.join(owners)}, not {name}"
    if cls is not None and not cls.supports(bench["benchmark"]):
        return f"backend {model['backend']} does not answer {bench['benchmark']}"
    return None


def plan(spec: dict, spec_path, out) -> Plan:
    """Every run of the spec, in order (models, then benchmarks, then settings), with skipped combinations."""
    models, benches = entries(spec, spec_path)
    builds = {b["name"]: (b["benchmark"], b["build"]) for b in benches if b["build"]}
    runs, skipped = [], []
    for m, b in product(models, benches):
        st = b["settings"]
        selects = _history_selection(b["benchmark"])
        histories = st["history"] if selects else ["full"]
        hk = [(h, k) for h in histories for k in (st["k"] if h in K_HISTORIES else [SETTINGS["k"][0]])]
        for strategy, (history, k), layout, seed in product(st["strategy"], list(dict.fromkeys(hk)),
                                                            st["layout"], st["seed"]):
            parts = [m["name"], b["name"], strategy] + ([history + (f"-k{k}" if history in K_HISTORIES else "")]
                                                        if selects else [])
            parts += ([f"layout-{layout}"] if layout else []) + [f"s{seed}"]
            name = "__".join(slug(p) for p in parts)
            why = _refusal(m, b, strategy, layout)
            if why:
                skipped.append(f"{name}: {why}")
                continue
            examples = b["examples"] or str(Path(out) / "benchmarks" / b["name"])
            cfg = RunConfig(b["benchmark"], examples, m["backend"], Path(out) / "runs" / name, model=m["model"],
                            strategy=strategy, history=history, k=k, limit=b["limit"], seed=seed, tools=b["tools"],
                            sampling=dict(m["sampling"]), backend_options=dict(m["options"]), progress=False,
                            layout=layout or "paper")
            runs.append(PlannedRun(name=name, model_name=m["name"], benchmark_name=b["name"], config=cfg,
                                   resources=m["resources"], keep_loaded=m["keep_loaded"]))
    check_retries(spec, spec_path)
    return Plan(spec=spec, spec_hash=spec_hash(spec), runs=runs, skipped=skipped, builds=builds)
