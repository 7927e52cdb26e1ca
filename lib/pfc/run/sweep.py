"""A sweep spec (YAML) and its plan: models × benchmarks × settings -> the runs, each a ``pfc run``.

A spec lists ``models`` (backend, model, the resources one run needs: ``cpus``, ``gpus``,
``tensor_parallel_size`` for vLLM, custom Ray resources; ``keep_loaded`` keeps the model in
one process across its runs), ``benchmarks`` (examples/tools, or ``build`` for a TRACEBench
built once by the sweep; a ``limit``; per-benchmark ``settings``) and ``settings`` to cross
(``strategy``, ``history``, ``k``, ``layout``, ``seed``). :func:`plan` turns it into
:class:`PlannedRun` s, each one ``RunConfig`` (``pfc.run.config``) with what the sweep adds, naming
its run directory ``<out>/runs/<name>`` and the ``pfc run`` arguments that produce the same directory
serially (written from ``pfc run``'s own flag table, ``pfc.run.run_args``). Settings a benchmark or a
backend does not use are not crossed (``history``/``k`` are TRACEBench's; ``k`` only with
``last_k``/``retrieved``); combinations a benchmark or backend refuses are listed as
skipped. The sweep index ``sweep.json`` is read and written here (atomically).
This module runs nothing and does not import Ray (``pfc.integrations.ray_sweep`` does).

    >>> sorted(SETTINGS)
    ['history', 'k', 'layout', 'seed', 'strategy']
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field, replace
from itertools import product
from pathlib import Path

from pfc import paths
from pfc.errors import UserError
from pfc.io.safepath import safe_name
from pfc.run.config import RunConfig
from pfc.run.run_args import flag_keys, run_args

SETTINGS = {"strategy": ["zero_shot"], "history": ["full"], "k": [50], "layout": [None], "seed": [0]}
K_HISTORIES = ("last_k", "retrieved")
MODEL_KEYS = {"name", "backend", "model", "resources", "keep_loaded", "options", "sampling"}
RESOURCE_KEYS = {"cpus", "gpus", "tensor_parallel_size", "custom"}
BENCH_KEYS = {"name", "benchmark", "examples", "tools", "build", "limit", "settings"}
SPEC_KEYS = {"name", "models", "benchmarks", "settings", "retries", "cache"}
INDEX = "sweep.json"


@dataclass
class PlannedRun:
    """One run of a sweep: the run itself (``config``, one ``RunConfig``, what ``pfc run`` runs) and what the
    sweep adds around it: its name, the spec's model and benchmark entries it crosses, the resources it asks
    of Ray and whether its model stays loaded across runs."""
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
    builds: dict            # benchmark name -> build parameters (TRACEBench built by the sweep)


def _err(msg: str, spec_path, field_: str) -> UserError:
    return UserError(msg, file=str(spec_path), field=field_)


def load_spec(path) -> dict:
    """The spec as a dict; a missing file, bad YAML or a non-mapping is one line naming the file."""
    import yaml
    p = Path(path)
    if not p.is_file():
        raise UserError("not found or not a file (the sweep spec)", file=str(path))
    try:
        spec = yaml.safe_load(p.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise UserError(f"not valid YAML: {str(e).splitlines()[0]}", file=str(path)) from None
    if not isinstance(spec, dict):
        raise UserError("a sweep spec is a mapping with 'models', 'benchmarks' and 'settings'", file=str(path))
    return spec


def spec_hash(spec: dict) -> str:
    return hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(s)).strip("-") or "x"


def resolve_path(value: str, spec_dir: Path) -> str:
    """``{toolspectrum}``, ``{root}``, ``{models}`` expanded; relative paths are relative to the spec's folder."""
    names = {"toolspectrum": paths.toolspectrum_dir(), "root": paths.ROOT, "models": paths.models_dir()}
    for key, where in names.items():
        if "{" + key + "}" in value:
            if where is None:
                raise UserError(f"{{{key}}} is not available here (set PFC_TOOLSPECTRUM_DIR)")
            value = value.replace("{" + key + "}", str(where))
    p = Path(os.path.expanduser(value))
    return str(p if p.is_absolute() else (spec_dir / p))


def _list(v, spec_path, where: str) -> list:
    vals = v if isinstance(v, list) else [v]
    if not vals:
        raise _err("an empty list crosses nothing", spec_path, where)
    return vals


def _settings(raw, spec_path, where: str, base: dict) -> dict:
    if raw is None:
        return dict(base)
    if not isinstance(raw, dict):
        raise _err("expected a mapping of setting -> list of values", spec_path, where)
    unknown = set(raw) - set(SETTINGS)
    if unknown:
        raise _err(f"unknown setting {sorted(unknown)[0]!r}; expected some of {sorted(SETTINGS)}", spec_path,
                   f"{where}.{sorted(unknown)[0]}")
    out = dict(base)
    for key, v in raw.items():
        vals = _list(v, spec_path, f"{where}.{key}")
        if key in ("k", "seed") and not all(isinstance(x, int) and not isinstance(x, bool) and
                                             (x >= 1 or key == "seed") for x in vals):
            raise _err(f"expected {'positive ' if key == 'k' else ''}integers, got {vals!r}", spec_path,
                       f"{where}.{key}")
        if key in ("strategy", "history", "layout") and not all(isinstance(x, str) for x in vals):
            raise _err(f"expected names, got {vals!r}", spec_path, f"{where}.{key}")
        out[key] = list(dict.fromkeys(vals))
    return out


def _model(m, i: int, spec_path) -> dict:
    where = f"models[{i}]"
    if not isinstance(m, dict) or not m.get("name") or not m.get("backend"):
        raise _err("each model needs 'name' and 'backend'", spec_path, where)
    unknown = set(m) - MODEL_KEYS
    if unknown:
        raise _err(f"unknown key {sorted(unknown)[0]!r}; expected some of {sorted(MODEL_KEYS)}", spec_path, where)
    res = m.get("resources") or {}
    if not isinstance(res, dict) or set(res) - RESOURCE_KEYS:
        raise _err(f"resources: expected some of {sorted(RESOURCE_KEYS)}", spec_path, f"{where}.resources")
    for key in ("cpus", "gpus", "tensor_parallel_size"):
        if key in res and (not isinstance(res[key], (int, float)) or isinstance(res[key], bool)
                           or not math.isfinite(res[key]) or res[key] < 0):
            raise _err(f"expected a number >= 0, got {res[key]!r}", spec_path, f"{where}.resources.{key}")
    custom = res.get("custom", {})
    if not isinstance(custom, dict) or not all(
            isinstance(k, str) and k and isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v) and v >= 0 for k, v in custom.items()):
        raise _err("expected a mapping of Ray resource -> amount >= 0", spec_path, f"{where}.resources.custom")
    if not isinstance(m.get("keep_loaded", False), bool):
        raise _err(f"expected true or false, got {m['keep_loaded']!r}", spec_path, f"{where}.keep_loaded")
    opts, samp = m.get("options") or {}, m.get("sampling") or {}
    for key, given in (("options", opts), ("sampling", samp)):  # the keys `pfc run` has a flag for
        known = flag_keys("backend_options" if key == "options" else key)
        if not isinstance(given, dict) or set(given) - set(known):
            raise _err(f"expected some of {sorted(known)}", spec_path, f"{where}.{key}")
    bad = next((k for k, v in samp.items() if not isinstance(v, (int, float)) or isinstance(v, bool)), None)
    if bad:
        raise _err(f"expected a number, got {samp[bad]!r}", spec_path, f"{where}.sampling.{bad}")
    if "prefix_reuse" in opts and not isinstance(opts["prefix_reuse"], bool):
        raise _err(f"expected true or false, got {opts['prefix_reuse']!r}", spec_path, f"{where}.options.prefix_reuse")
    from pfc.run.backends import NAMES
    if m["backend"] not in NAMES:
        raise _err(f"unknown backend {m['backend']!r}; expected one of {NAMES}", spec_path, f"{where}.backend")
    tp = res.get("tensor_parallel_size")
    opts = dict(opts)
    if tp and m["backend"] == "vllm":
        opts["tensor_parallel_size"] = int(tp)
    resources = {"cpus": res.get("cpus", 1), "gpus": res.get("gpus", tp or 0), "custom": dict(res.get("custom", {}))}
    return {"name": safe_name(_slug(m["name"]), f"{where}.name", str(spec_path)), "backend": m["backend"], "model": str(m.get("model") or ""),
            "resources": resources, "keep_loaded": bool(m.get("keep_loaded", False)), "options": opts,
            "sampling": dict(samp)}


def _benchmark(b, i: int, spec_path, base: dict) -> dict:
    from pfc import benchmarks
    from pfc.benchmarks import NAMES
    where = f"benchmarks[{i}]"
    if not isinstance(b, dict) or not b.get("name"):
        raise _err("each benchmark needs 'name'", spec_path, where)
    unknown = set(b) - BENCH_KEYS
    if unknown:
        raise _err(f"unknown key {sorted(unknown)[0]!r}; expected some of {sorted(BENCH_KEYS)}", spec_path, where)
    kind = b.get("benchmark", b["name"])
    if kind not in NAMES:
        raise _err(f"unknown benchmark {kind!r}; expected one of {NAMES}", spec_path, f"{where}.benchmark")
    if bool(b.get("examples")) == bool(b.get("build")):
        raise _err("give either 'examples' (a path) or 'build' (TRACEBench parameters)", spec_path, where)
    buildable = benchmarks.get(kind).build_params  # what a 'build' can make it with (empty: it cannot)
    if b.get("build") is not None and (not buildable or not isinstance(b["build"], dict)
                                       or set(b["build"]) - buildable):
        raise _err("'build' makes a TRACEBench: a mapping of users, seed, records, queries", spec_path,
                   f"{where}.build")
    bad = next((k for k, v in (b.get("build") or {}).items() if not isinstance(v, int) or isinstance(v, bool)
                or (v < 1 and k != "seed")), None)
    if bad:
        raise _err(f"expected {'an integer' if bad == 'seed' else 'a positive integer'}, got {b['build'][bad]!r}",
                   spec_path, f"{where}.build.{bad}")
    limit = b.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise _err(f"expected a positive integer, got {limit!r}", spec_path, f"{where}.limit")
    spec_dir = Path(spec_path).parent
    try:
        examples = resolve_path(str(b["examples"]), spec_dir) if b.get("examples") else None
        tools = resolve_path(str(b["tools"]), spec_dir) if b.get("tools") else None
    except UserError as e:
        raise _err(str(e), spec_path, f"{where}.examples") from None
    # the name becomes <out>/benchmarks/<name> (a build) and part of run folders: one harmless path component
    return {"name": safe_name(_slug(b["name"]), f"{where}.name", str(spec_path)), "benchmark": kind, "examples": examples, "tools": tools,
            "build": b.get("build"), "limit": limit,
            "settings": _settings(b.get("settings"), spec_path, f"{where}.settings", base)}


def _history_selection(benchmark: str) -> bool:
    """Whether the benchmark's prompts select history records (sweeps vary history and k only then)."""
    from pfc import benchmarks
    return benchmarks.get(benchmark).history_selection


def _refusal(model: dict, bench: dict, strategy: str, layout) -> str | None:
    """Why `pfc run` would refuse this combination before any request, or None."""
    from pfc.run.backends import builtin
    from pfc.run.config import RUN_STRATEGIES
    if strategy not in RUN_STRATEGIES.get(bench["benchmark"], ()):
        return f"{bench['benchmark']} has no strategy {strategy!r}"
    cls = builtin.BUILTINS.get(model["backend"])
    if cls is not None and not cls.supports(bench["benchmark"]):
        return f"backend {model['backend']} does not answer {bench['benchmark']}"
    return None


def plan(spec: dict, spec_path, out) -> Plan:
    """Every run of the spec, in order (models, then benchmarks, then settings), with skipped combinations."""
    unknown = set(spec) - SPEC_KEYS
    if unknown:
        raise _err(f"unknown key {sorted(unknown)[0]!r}; expected some of {sorted(SPEC_KEYS)}", spec_path,
                   sorted(unknown)[0])
    for key in ("models", "benchmarks"):
        if not isinstance(spec.get(key), list) or not spec[key]:
            raise _err("expected a non-empty list", spec_path, key)
    base = _settings(spec.get("settings"), spec_path, "settings", SETTINGS)
    models = [_model(m, i, spec_path) for i, m in enumerate(spec["models"])]
    benches = [_benchmark(b, i, spec_path, base) for i, b in enumerate(spec["benchmarks"])]
    for what, items in (("models", models), ("benchmarks", benches)):
        names = [x["name"] for x in items]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup:
            raise _err(f"two entries named {dup!r}", spec_path, what)
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
            name = "__".join(_slug(p) for p in parts)
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
    retries = spec.get("retries", 2)
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise _err(f"expected an integer >= 0, got {retries!r}", spec_path, "retries")
    return Plan(spec=spec, spec_hash=spec_hash(spec), runs=runs, skipped=skipped, builds=builds)


# ------------------------------------------------------------------ the sweep index (sweep.json + sweep.jsonl)
RESULTS = "sweep.jsonl"  # one line per result as it arrives (appended); folded into sweep.json when a sweep ends


def _bad_index(p: Path, why: str) -> UserError:
    return UserError(f"{why} (the sweep index); move it aside to start the sweep afresh", file=str(p))


def read_index(out) -> dict | None:
    """``sweep.json`` with the results appended to ``sweep.jsonl`` since it was written (last line per run wins;
    a cut last line, left by a kill, is ignored). A malformed index is one line naming the file."""
    p = Path(out) / INDEX
    if not p.exists():
        return None
    try:
        index = json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise _bad_index(p, "not valid JSON") from None
    if not isinstance(index, dict) or not isinstance(index.get("runs", []), list) or not all(
            isinstance(r, dict) and isinstance(r.get("name"), str) and isinstance(r.get("run_dir"), str)
            for r in index.get("runs", [])):
        raise _bad_index(p, "not a sweep index (expected an object whose 'runs' each have a name and a run_dir)")
    later = {}
    j = Path(out) / RESULTS
    if j.is_file():
        for line in j.read_bytes().split(b"\n"):
            try:
                rec = json.loads(line)
            except (ValueError, UnicodeDecodeError, RecursionError):
                continue  # a cut last line
            if isinstance(rec, dict) and isinstance(rec.get("name"), str):
                later[rec["name"]] = rec
    for r in index.get("runs", []):
        r.update({k: v for k, v in later.get(r["name"], {}).items() if k != "name"})
    runs = index.get("runs", [])
    index["counts"] = {s: sum(1 for r in runs if r.get("status") == s) for s in dict.fromkeys(r.get("status")
                                                                                              for r in runs)}
    return index


def append_result(out, name: str, result: dict) -> None:
    """One run's result appended to ``sweep.jsonl`` (one short line, flushed): the index never grows per write."""
    from pfc.io.atomic import dumps, write_failed
    from pfc.io.safepath import open_append
    p = Path(out) / RESULTS
    try:
        with open_append(p, "sweep index") as fh:
            fh.write(dumps({"name": name, **result}, default=str) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as e:
        raise write_failed(p, e, "the results recorded so far are kept") from None


def write_index(out, p: Plan, status: dict, spec_name: str) -> Path:
    """``sweep.json``: the spec and its hash, every run (directory relative to the sweep, label, settings,
    status, why it failed) and the skipped combinations. Written to a temporary file, then renamed."""
    out = Path(out)
    runs = []
    for r in p.runs:
        runs.append({**r.index_entry(), "run_dir": r.run_dir(".").as_posix(), "label": r.label(),
                     **status.get(r.name, {"status": "planned"})})
    index = {"spec": spec_name, "spec_hash": p.spec_hash, "n_runs": len(runs),
             "counts": {s: sum(1 for r in runs if r["status"] == s) for s in dict.fromkeys(r["status"] for r in runs)},
             "runs": runs, "skipped": p.skipped}
    from pfc.io.atomic import write_json
    out.mkdir(parents=True, exist_ok=True)
    written = write_json(out / INDEX, index, default=str)
    (out / RESULTS).unlink(missing_ok=True)  # folded in: every status it held is in the index just written
    return written


def run_dirs(sweep_dir) -> list[tuple[Path, str]]:
    """(run directory, label) of each run of a sweep that wrote predictions, in the index's order."""
    index = read_index(sweep_dir)
    if index is None:
        raise UserError(f"no {INDEX} here: not a sweep directory", file=str(sweep_dir))
    from pfc.io.safepath import inside
    out = []
    for r in index.get("runs", []):
        d = inside(sweep_dir, r["run_dir"])  # a hostile index cannot point a report outside the sweep
        if (d / "predictions.jsonl").exists():
            out.append((d, r.get("label") or r["name"]))
    return out
