"""A sweep spec (YAML): read it, check every entry, and give back its models and benchmarks in plain form.

A spec lists ``models`` (backend, model, the resources one run needs: ``cpus``, ``gpus``,
``tensor_parallel_size`` for vLLM, custom Ray resources; ``keep_loaded`` keeps the model in
one process across its runs; backend ``options`` and ``sampling``), ``benchmarks`` (examples/tools,
or ``build`` for a TRACEBench built once by the sweep; a ``limit``; per-benchmark ``settings``) and
``settings`` to cross (``strategy``, ``history``, ``k``, ``layout``, ``seed``), plus ``retries`` and
``cache``. :func:`load_spec` reads the YAML; :func:`entries` checks it and returns the models and
benchmarks, each a dict of checked values (paths resolved against the spec's folder). Any mistake is one
:class:`pfc.errors.UserError` naming the file and the field. It does not cross the settings into runs
(:mod:`pfc.sweep.plan`), run anything, or import Ray.

    >>> sorted(SETTINGS)
    ['history', 'k', 'layout', 'seed', 'strategy']
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
from pathlib import Path

from pfc import benchmarks, paths
from pfc.benchmarks.adapter import Building
from pfc.errors import UserError
from pfc.io.safepath import safe_name
from pfc.run.backends import names as backend_names
from pfc.run.run_args import flag_keys

SETTINGS = {"strategy": ["zero_shot"], "history": ["full"], "k": [50], "layout": [None], "seed": [0]}
MODEL_KEYS = {"name", "backend", "model", "resources", "keep_loaded", "options", "sampling"}
RESOURCE_KEYS = {"cpus", "gpus", "tensor_parallel_size", "custom"}
BENCH_KEYS = {"name", "benchmark", "examples", "tools", "build", "limit", "settings"}
SPEC_KEYS = {"name", "models", "benchmarks", "settings", "retries", "cache"}


def spec_error(msg: str, spec_path, field_: str) -> UserError:
    """A mistake in the spec: one line naming the file and the field."""
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


def slug(s: str) -> str:
    """``s`` as one harmless name part (run folders, build folders)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(s)).strip("-") or "x"


def resolve_path(value: str, spec_dir: Path) -> str:
    """``{root}``, ``{models}`` and ``{<benchmark>}`` for a benchmark read in place (``Building.default_data``:
    ``{toolspectrum}``) expanded; relative paths are relative to the spec's folder."""
    names = {a.name: a.building for a in benchmarks.adapters() if a.building.default_data is not None}
    names |= {"root": paths.ROOT, "models": paths.models_dir()}
    for key, where in names.items():
        if "{" + key + "}" in value:
            where = where.default_data() if isinstance(where, Building) else where
            if where is None:
                env = getattr(names[key], "data_env", "")
                raise UserError(f"{{{key}}} is not available here" + (f" (set {env})" if env else ""))
            value = value.replace("{" + key + "}", str(where))
    p = Path(os.path.expanduser(value))
    return str(p if p.is_absolute() else (spec_dir / p))


def _list(v, spec_path, where: str) -> list:
    vals = v if isinstance(v, list) else [v]
    if not vals:
        raise spec_error("an empty list crosses nothing", spec_path, where)
    return vals


def _settings(raw, spec_path, where: str, base: dict) -> dict:
    if raw is None:
        return dict(base)
    if not isinstance(raw, dict):
        raise spec_error("expected a mapping of setting -> list of values", spec_path, where)
    unknown = set(raw) - set(SETTINGS)
    if unknown:
        raise spec_error(f"unknown setting {sorted(unknown)[0]!r}; expected some of {sorted(SETTINGS)}", spec_path,
                   f"{where}.{sorted(unknown)[0]}")
    out = dict(base)
    for key, v in raw.items():
        vals = _list(v, spec_path, f"{where}.{key}")
        if key in ("k", "seed") and not all(isinstance(x, int) and not isinstance(x, bool) and
                                             (x >= 1 or key == "seed") for x in vals):
            raise spec_error(f"expected {'positive ' if key == 'k' else ''}integers, got {vals!r}", spec_path,
                       f"{where}.{key}")
        if key in ("strategy", "history", "layout") and not all(isinstance(x, str) for x in vals):
            raise spec_error(f"expected names, got {vals!r}", spec_path, f"{where}.{key}")
        out[key] = list(dict.fromkeys(vals))
    return out


def _model(m, i: int, spec_path) -> dict:
    where = f"models[{i}]"
    if not isinstance(m, dict) or not m.get("name") or not m.get("backend"):
        raise spec_error("each model needs 'name' and 'backend'", spec_path, where)
    unknown = set(m) - MODEL_KEYS
    if unknown:
        raise spec_error(f"unknown key {sorted(unknown)[0]!r}; expected some of {sorted(MODEL_KEYS)}", spec_path, where)
    res = m.get("resources") or {}
    if not isinstance(res, dict) or set(res) - RESOURCE_KEYS:
        raise spec_error(f"resources: expected some of {sorted(RESOURCE_KEYS)}", spec_path, f"{where}.resources")
    for key in ("cpus", "gpus", "tensor_parallel_size"):
        if key in res and (not isinstance(res[key], (int, float)) or isinstance(res[key], bool)
                           or not math.isfinite(res[key]) or res[key] < 0):
            raise spec_error(f"expected a number >= 0, got {res[key]!r}", spec_path, f"{where}.resources.{key}")
    custom = res.get("custom", {})
    if not isinstance(custom, dict) or not all(
            isinstance(k, str) and k and isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v) and v >= 0 for k, v in custom.items()):
        raise spec_error("expected a mapping of Ray resource -> amount >= 0", spec_path, f"{where}.resources.custom")
    if not isinstance(m.get("keep_loaded", False), bool):
        raise spec_error(f"expected true or false, got {m['keep_loaded']!r}", spec_path, f"{where}.keep_loaded")
    opts, samp = m.get("options") or {}, m.get("sampling") or {}
    for key, given in (("options", opts), ("sampling", samp)):  # the keys `pfc run` has a flag for
        known = flag_keys("backend_options" if key == "options" else key)
        if not isinstance(given, dict) or set(given) - set(known):
            raise spec_error(f"expected some of {sorted(known)}", spec_path, f"{where}.{key}")
    bad = next((k for k, v in samp.items() if not isinstance(v, (int, float)) or isinstance(v, bool)), None)
    if bad:
        raise spec_error(f"expected a number, got {samp[bad]!r}", spec_path, f"{where}.sampling.{bad}")
    if "prefix_reuse" in opts and not isinstance(opts["prefix_reuse"], bool):
        raise spec_error(f"expected true or false, got {opts['prefix_reuse']!r}", spec_path, f"{where}.options.prefix_reuse")
    if m["backend"] not in backend_names():
        raise spec_error(f"unknown backend {m['backend']!r}; expected one of {backend_names()}", spec_path,
                         f"{where}.backend")
    tp = res.get("tensor_parallel_size")
    opts = dict(opts)
    if tp and m["backend"] == "vllm":
        opts["tensor_parallel_size"] = int(tp)
    resources = {"cpus": res.get("cpus", 1), "gpus": res.get("gpus", tp or 0), "custom": dict(res.get("custom", {}))}
    return {"name": safe_name(slug(m["name"]), f"{where}.name", str(spec_path)), "backend": m["backend"], "model": str(m.get("model") or ""),
            "resources": resources, "keep_loaded": bool(m.get("keep_loaded", False)), "options": opts,
            "sampling": dict(samp)}


def _benchmark(b, i: int, spec_path, base: dict) -> dict:
    names = benchmarks.names()
    where = f"benchmarks[{i}]"
    if not isinstance(b, dict) or not b.get("name"):
        raise spec_error("each benchmark needs 'name'", spec_path, where)
    unknown = set(b) - BENCH_KEYS
    if unknown:
        raise spec_error(f"unknown key {sorted(unknown)[0]!r}; expected some of {sorted(BENCH_KEYS)}", spec_path, where)
    kind = b.get("benchmark", b["name"])
    if kind not in names:
        raise spec_error(f"unknown benchmark {kind!r}; expected one of {names}", spec_path, f"{where}.benchmark")
    if bool(b.get("examples")) == bool(b.get("build")):
        raise spec_error("give either 'examples' (a path) or 'build' (its builder's parameters)", spec_path, where)
    buildable = benchmarks.get(kind).building.params  # what a 'build' can make it with (empty: it cannot)
    if b.get("build") is not None and (not buildable or not isinstance(b["build"], dict)
                                       or set(b["build"]) - buildable):
        raise spec_error(f"'build' makes a {kind}: a mapping of {', '.join(sorted(buildable))}" if buildable else
                         f"a sweep cannot build {kind}: give its 'examples'", spec_path, f"{where}.build")
    bad = next((k for k, v in (b.get("build") or {}).items() if not isinstance(v, int) or isinstance(v, bool)
                or (v < 1 and k != "seed")), None)
    if bad:
        raise spec_error(f"expected {'an integer' if bad == 'seed' else 'a positive integer'}, got {b['build'][bad]!r}",
                   spec_path, f"{where}.build.{bad}")
    limit = b.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise spec_error(f"expected a positive integer, got {limit!r}", spec_path, f"{where}.limit")
    spec_dir = Path(spec_path).parent
    try:
        examples = resolve_path(str(b["examples"]), spec_dir) if b.get("examples") else None
        tools = resolve_path(str(b["tools"]), spec_dir) if b.get("tools") else None
    except UserError as e:
        raise spec_error(str(e), spec_path, f"{where}.examples") from None
    # the name becomes <out>/benchmarks/<name> (a build) and part of run folders: one harmless path component
    return {"name": safe_name(slug(b["name"]), f"{where}.name", str(spec_path)), "benchmark": kind, "examples": examples, "tools": tools,
            "build": b.get("build"), "limit": limit,
            "settings": _settings(b.get("settings"), spec_path, f"{where}.settings", base)}


def entries(spec: dict, spec_path) -> tuple[list[dict], list[dict]]:
    """The spec's models and benchmarks, each checked (:func:`_model`, :func:`_benchmark`; a benchmark's
    ``settings`` filled in from the spec's own), in the spec's order; two entries of one name are refused."""
    unknown = set(spec) - SPEC_KEYS
    if unknown:
        raise spec_error(f"unknown key {sorted(unknown)[0]!r}; expected some of {sorted(SPEC_KEYS)}", spec_path,
                         sorted(unknown)[0])
    for key in ("models", "benchmarks"):
        if not isinstance(spec.get(key), list) or not spec[key]:
            raise spec_error("expected a non-empty list", spec_path, key)
    base = _settings(spec.get("settings"), spec_path, "settings", SETTINGS)
    models = [_model(m, i, spec_path) for i, m in enumerate(spec["models"])]
    benches = [_benchmark(b, i, spec_path, base) for i, b in enumerate(spec["benchmarks"])]
    for what, items in (("models", models), ("benchmarks", benches)):
        names = [x["name"] for x in items]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup:
            raise spec_error(f"two entries named {dup!r}", spec_path, what)
    return models, benches


def check_retries(spec: dict, spec_path) -> int:
    """How often Ray retries a run whose process or node died (``retries``, default 2)."""
    retries = spec.get("retries", 2)
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise spec_error(f"expected an integer >= 0, got {retries!r}", spec_path, "retries")
    return retries
