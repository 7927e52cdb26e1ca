"""A sweep's plan: the checked spec crossed into runs, models × benchmarks × settings, each a ``pfc run``.

:func:`plan` turns a spec (:mod:`pfc.sweep.spec` checks it) into :class:`PlannedRun` s, each naming its run
directory ``<out>/runs/<name>`` and the ``pfc run`` arguments that produce the same directory serially
(:meth:`PlannedRun.pfc_run_args`). Settings a benchmark or a backend does not use are not crossed
(``history``/``k`` are TRACEBench's; ``k`` only with ``last_k``/``retrieved``); combinations a benchmark or
backend refuses are listed as skipped. It reads no files but the spec's, runs nothing and does not import
Ray (:mod:`pfc.sweep.ray_tasks` does); the sweep index is :mod:`pfc.sweep.index`.

    >>> K_HISTORIES
    ('last_k', 'retrieved')
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from pathlib import Path

from pfc.sweep.spec import OPTION_FLAGS, SAMPLING_FLAGS, SETTINGS, check_retries, entries, slug, spec_error, spec_hash

K_HISTORIES = ("last_k", "retrieved")


@dataclass
class PlannedRun:
    name: str
    model_name: str
    backend: str
    model: str
    benchmark_name: str
    benchmark: str
    examples: str
    tools: str | None
    limit: int | None
    strategy: str
    history: str
    k: int
    layout: str | None
    seed: int
    resources: dict = field(default_factory=dict)
    keep_loaded: bool = False
    options: dict = field(default_factory=dict)
    sampling: dict = field(default_factory=dict)

    def run_dir(self, out) -> Path:
        return Path(out) / "runs" / self.name

    def label(self) -> str:
        """How reports name this run: the model, then every setting that is not the default."""
        extra = [s for s, d in ((self.strategy, "zero_shot"), (self.history, "full")) if s != d]
        extra += [f"k={self.k}"] if self.history in K_HISTORIES else []
        extra += [f"layout={self.layout}"] if self.layout else []
        extra += [f"seed={self.seed}"] if self.seed else []
        return f"{self.model_name} [{', '.join(extra)}]" if extra else self.model_name

    def runner_kwargs(self) -> dict:
        """Keyword arguments of ``pfc.run.runner.run`` (besides benchmark, examples, backend, out)."""
        kw = {"model": self.model, "strategy": self.strategy, "history": self.history, "k": self.k,
              "limit": self.limit, "seed": self.seed, "tools_path": self.tools, "sampling": dict(self.sampling),
              "backend_options": dict(self.options), "progress": False}
        if self.layout is not None:
            kw["layout"] = self.layout
        return kw

    def pfc_run_args(self, out) -> list[str]:
        """The ``pfc run`` arguments that write the same run directory serially."""
        a = ["run", "--benchmark", self.benchmark, "--examples", self.examples, "--backend", self.backend]
        a += ["--model", self.model] if self.model else []
        a += ["--tools", self.tools] if self.tools else []
        a += ["--strategy", self.strategy, "--history", self.history, "--k", str(self.k), "--seed", str(self.seed)]
        a += ["--limit", str(self.limit)] if self.limit else []
        a += ["--layout", self.layout] if self.layout else []
        for key, value in sorted(self.sampling.items()):
            a += [SAMPLING_FLAGS[key], str(value)]
        for key, value in sorted(self.options.items()):
            if key == "prefix_reuse":
                a += [] if value else ["--no-prefix-reuse"]
            elif key in OPTION_FLAGS:
                a += [OPTION_FLAGS[key], str(value)]
        return a + ["--out", str(self.run_dir(out))]


@dataclass
class Plan:
    spec: dict
    spec_hash: str
    runs: list[PlannedRun]
    skipped: list[str]
    builds: dict            # benchmark name -> build parameters (TRACEBench built by the sweep)


def _history_selection(benchmark: str) -> bool:
    """Whether the benchmark's prompts select history records (sweeps vary history and k only then)."""
    from pfc import benchmarks
    return benchmarks.get(benchmark).history_selection


def _refusal(model: dict, bench: dict, strategy: str, layout) -> str | None:
    """Why `pfc run` would refuse this combination before any request, or None."""
    from pfc.run.backends import builtin
    from pfc.run.runner import RUN_STRATEGIES
    if strategy not in RUN_STRATEGIES.get(bench["benchmark"], ()):
        return f"{bench['benchmark']} has no strategy {strategy!r}"
    cls = builtin.BUILTINS.get(model["backend"])
    if cls is not None and not cls.supports(bench["benchmark"]):
        return f"backend {model['backend']} does not answer {bench['benchmark']}"
    return None


def plan(spec: dict, spec_path, out) -> Plan:
    """Every run of the spec, in order (models, then benchmarks, then settings), with skipped combinations."""
    models, benches = entries(spec, spec_path)
    if any(v is not None for b in benches for v in b["settings"]["layout"]):
        import inspect
        from pfc.run.runner import run as runner_run
        if "layout" not in inspect.signature(runner_run).parameters:
            raise spec_error("this pfc's `pfc run` has no --layout yet; leave 'layout' out", spec_path, "settings.layout")
    builds = {b["name"]: b["build"] for b in benches if b["build"]}
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
            runs.append(PlannedRun(name=name, model_name=m["name"], backend=m["backend"], model=m["model"],
                                   benchmark_name=b["name"], benchmark=b["benchmark"], examples=examples,
                                   tools=b["tools"], limit=b["limit"], strategy=strategy, history=history, k=k,
                                   layout=layout, seed=seed, resources=m["resources"], keep_loaded=m["keep_loaded"],
                                   options=m["options"], sampling=m["sampling"]))
    check_retries(spec, spec_path)
    return Plan(spec=spec, spec_hash=spec_hash(spec), runs=runs, skipped=skipped, builds=builds)
