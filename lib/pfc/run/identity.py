"""Run identity: what made a run directory (``run.json``), so a resumed run never mixes two runs.

The identity is one flat-ish dict built in one place (:func:`build`): benchmark, backend
(and, for built-in backends, a hash of their code), model, strategy, history mode and k,
prompt format, sampling (every sampling parameter, seed included), seed, prompt variant,
prompt layout (``layout``, recorded when not ``paper``: a paper-layout run keeps the identity
it had before layouts existed, so it still resumes) and a content hash of the examples and the tools (independent of where they live).
:func:`claim` writes it on a fresh directory, accepts the same identity on resume, and
refuses a different one naming each differing field; ``force=True`` moves the old run's
files into ``<out>/attic/<n>/`` and starts afresh. Beside the identity, ``run.json`` may hold the record of
the plan that made the run (``plan``: its name there, how reports show it; :func:`plan_record`), which is never
compared. It does not run anything.

    >>> diff({"a": 1, "s": {"t": 0.1}}, {"a": 1, "s": {"t": 0.7}})
    ['s.t: 0.1 -> 0.7']
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from pfc.errors import UserError
from pfc.io import atomic
from pfc.io.reuse import once
from pfc.paths import relative

RUN_JSON = "run.json"
# What a run writes; --force moves exactly these aside (nothing else in the directory is touched).
RUN_FILES = ("predictions.jsonl", "failures.jsonl", "config.json", "usage.json", RUN_JSON, "score")


# Fields added to the identity after runs were recorded: a run.json without one is taken to match
# and is upgraded in place on resume (docs/robustness.md); any other difference is refused.
LATER_FIELDS = ("prompt_template",)


class RunIdentityError(UserError):
    """Resuming into a run directory made by something else."""


def _plain(o):
    """A dataclass's fields for JSON (without ``asdict``'s deep copies: 3x faster on long histories)."""
    d = getattr(o, "__dict__", None)
    return d if d is not None else {s: getattr(o, s) for s in getattr(o, "__slots__", ())} or str(o)


def content_hash(examples, tools) -> str:
    """sha256 of the examples and tools as canonical JSON (same content, same hash, wherever stored)."""
    h = hashlib.sha256()
    for obj in [*examples, "--tools--", *tools]:
        h.update(json.dumps(obj, default=_plain, sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


def examples_sha256(benchmark: str, examples_path, tools_path, examples, tools) -> str:
    """A run identity's ``examples_sha256``: :func:`content_hash` of the ``examples`` and ``tools`` that
    ``benchmark``'s adapter read from those paths, computed once per unchanged build inside
    ``pfc.io.reuse.reading_once`` (TRACEBench's 1,815 examples with histories take ~3 s to hash)."""
    return once(f"content_hash:{benchmark}", [examples_path, tools_path], lambda: content_hash(examples, tools))


def text_hash(items) -> str:
    """sha256 of a list of strings (e.g. a sample's example ids), order as given."""
    return hashlib.sha256("\n".join(items).encode()).hexdigest()


def build(cfg, backend, examples_sha256: str, **more) -> dict:
    """The identity of a run of ``cfg`` (a ``pfc.run.config.RunConfig``) on ``backend`` (a loaded backend) over
    the examples whose hash is ``examples_sha256``. New settings that change outputs go in the sampling or ``more``."""
    return {"benchmark": cfg.benchmark, "backend": backend.name, "backend_version": getattr(backend, "version", ""),
            "model": backend.model, "strategy": cfg.strategy, "history": cfg.history, "k": cfg.k,
            "native_tools": cfg.native, "sampling": dict(sorted(cfg.full_sampling().items())), "seed": cfg.seed,
            "prompt_variant": cfg.prompt_variant, "examples_sha256": examples_sha256, **dict(sorted(more.items()))}


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _show(v) -> str:
    s = json.dumps(v, default=str)
    return s[1:13] + "…" if isinstance(v, str) and len(v) == 64 else s  # a sha256: its first 12 digits


def diff(old: dict, new: dict) -> list[str]:
    """``field: old -> new`` for every field that differs (nested fields as ``a.b``)."""
    a, b = _flat(old), _flat(new)
    def show(d, k):
        return _show(d[k]) if k in d else "(absent)"
    return [f"{k}: {show(a, k)} -> {show(b, k)}" for k in sorted(set(a) | set(b)) if a.get(k, a) != b.get(k, a)]


def move_aside(out: Path) -> Path | None:
    """Move the run files of ``out`` into ``out/attic/<n>/`` (n = 1, 2, …); returns that folder."""
    present = [out / f for f in RUN_FILES if (out / f).exists()]
    if not present:
        return None
    attic = out / "attic"
    n = 1 + max((int(p.name) for p in attic.iterdir() if p.name.isdigit()), default=0) if attic.exists() else 1
    dest = attic / str(n)
    dest.mkdir(parents=True)
    for p in present:
        shutil.move(str(p), str(dest / p.name))
    return dest


def claim(out, ident: dict, force: bool = False, shown: str | None = None, plan: dict | None = None) -> Path | None:
    """Make ``out`` a run directory of ``ident``; returns where old files went when ``force`` moved them.
    ``plan``: the record of the plan that made the run (``RunConfig.plan``), kept in ``run.json`` beside the identity
    and never part of it (a run without one keeps the record it has)."""
    out = Path(out)
    shown = shown or str(out)
    rec = out / RUN_JSON
    pred = out / "predictions.jsonl"
    moved, upgrade, doc = None, False, {}
    if force:
        moved = move_aside(out)
    elif rec.exists():
        try:
            doc = json.loads(rec.read_text(encoding="utf-8"))
            old = doc["identity"]
        except (ValueError, KeyError, TypeError):
            old = None
        if not isinstance(old, dict):
            old, doc = None, {}
        added = [] if old is None else [f for f in LATER_FIELDS if f not in old and f in ident]
        changes = ["run.json: unreadable"] if old is None else diff({**old, **{f: ident[f] for f in added}}, ident)
        upgrade = bool(added)  # the same run, recorded before the added fields existed
        if changes:
            raise RunIdentityError(
                f"made by a different run ({'; '.join(changes)}); resuming would mix two runs. "
                "Use --force to move the old files to attic/ and start afresh, or another --out", file=shown)
    elif pred.exists() and pred.stat().st_size > 0:
        raise RunIdentityError("has predictions but no run.json, so what made them is unknown; "
                               "use --force to move them to attic/ and start afresh, or another --out", file=shown)
    out.mkdir(parents=True, exist_ok=True)
    plan = plan if plan is not None else doc.get("plan")
    if not rec.exists() or upgrade or plan != doc.get("plan"):
        atomic.write_json(rec, {"identity": ident, **({"plan": plan} if plan is not None else {})})
    return moved


def planned(cfg) -> dict:
    """What a run of ``cfg`` (a ``pfc.run.config.RunConfig``) records in its identity that is known before its
    backend loads: what :func:`write_plan` checks a run against before stamping it with a plan's record."""
    ids = cfg.sample_ids()
    return {"benchmark": cfg.benchmark, "backend": cfg.backend, "model": cfg.model, "history": cfg.history, "k": cfg.k,
            "native_tools": cfg.native, "prompt_variant": cfg.prompt_variant,
            "layout": None if cfg.layout == "paper" else cfg.layout,
            "sample_sha256": None if ids is None else text_hash(ids)}


def write_plan(out, plan: dict, expect: dict | None = None) -> None:
    """Record ``plan`` in an existing run's ``run.json``, its identity kept as it is (a run made before plans
    recorded themselves). ``expect`` (:func:`planned`): a run whose identity differs in any of these fields is another
    run (one copied into this folder) and is refused, as is an unreadable ``run.json``; a field its identity does not
    record is not compared, but for ``layout`` and ``sample_sha256`` (absent: paper, no sample), and the model is
    compared without the adapter a LoRA run names beside it."""
    rec = Path(out) / RUN_JSON
    try:
        doc = json.loads(rec.read_text(encoding="utf-8"))
    except ValueError as e:
        raise UserError(f"unreadable JSON ({type(e).__name__}); the run's record is left as it is", file=str(rec)) from None
    old = doc.get("identity") if isinstance(doc, dict) else None
    if not isinstance(old, dict):
        raise UserError("expected an object with an object 'identity'", file=str(rec), field="identity")
    if expect:
        seen = {**old, "model": str(old.get("model")).split("+lora:")[0]}
        got = {k: seen.get(k) for k in expect if k in seen or k in ("layout", "sample_sha256")}
        changes = diff(got, {k: expect[k] for k in got})
        if changes:
            raise RunIdentityError(f"made by another run than the one planned here ({'; '.join(changes)}); "
                                   "its plan record is left as it is", file=str(rec), field="identity")
    if doc.get("plan") != plan:
        atomic.write_json(rec, {"identity": old, "plan": plan})


def plan_record(run_dir) -> dict:
    """The record of the plan that made a run (``run.json``'s ``plan``), ``{}`` for a run made by hand."""
    try:
        doc = json.loads((Path(run_dir) / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    plan = doc.get("plan") if isinstance(doc, dict) else None
    return plan if isinstance(plan, dict) else {}


def answered_sha256(run_dir) -> str | None:
    """The examples hash a run's ``run.json`` records (which examples it answered); None when it records none."""
    try:
        doc = json.loads((Path(run_dir) / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    want = doc.get("identity") if isinstance(doc, dict) else None
    want = want.get("examples_sha256") if isinstance(want, dict) else None
    return want if isinstance(want, str) else None


def check_answered(run_dir, benchmark: str, examples_path, tools_path, examples, tools) -> None:
    """Refuse to score ``run_dir`` on ``examples`` (read from ``examples_path``) that are not those it answered:
    the examples hash its ``run.json`` records (``pfc run`` refuses to resume on the same check); a run that records
    none (made by hand, or before hashes) is taken as it is."""
    want = answered_sha256(run_dir)
    if want and examples_sha256(benchmark, examples_path, tools_path, examples, tools) != want:
        raise UserError(f"{_show(want)}: {relative(examples_path)} no longer holds the examples this run answered "
                        "(re-made since?), and its answers would be scored against others: rerun it there, or pass "
                        "the examples it answered", file=str(Path(run_dir) / RUN_JSON),
                        field="identity.examples_sha256")
