"""Counterfactual variants of a benchmark's examples: the same request under a changed user context.

``pfc perturb --benchmark B --examples … --kind K --out DIR`` writes ``DIR/examples.jsonl`` (one variant per original
example that the kind applies to), ``DIR/tools.json`` (when the input has a tool file) and ``DIR/perturb.json`` (kind,
seed, input hash, counts, skipped examples by reason). Every variant keeps its original's ``user_id`` (user-clustered
statistics stay clustered by the user who asked) and records in ``meta.counterfactual``: ``original_id``, ``kind``,
``seed`` and, for ``swap-user``, the ``donor_user`` and the ``items`` whose answer under the new context the generators
know (``pfc.data.counterfactual_swap``).

Kinds:

- ``swap-user``: the request stays; history/profile (ToolSpectrum: profile and environment) become another user's.
  TRACEBench and PTBench variants carry counterfactual gold for context-sourced values where it is known; stated values
  keep their gold.
- ``shuffle-history``: the history records in a random order (each keeps its time).
- ``truncate-history:K``: only the last K records.
- ``drop-profile``: the user context removed (TRACEBench: the history is its only user context; PTBench: basic features
  and behaviour history; ToolSpectrum: the profile).
- ``shift-time:±D``: the request time (``meta.anchor_time``) moved by D days; history records that would then lie in the
  future are dropped.
- ``strip-stated``: one value stated in the request is removed from its text; that gold argument's provenance becomes
  ``unknown``.
- ``dose:K`` (``dose``: K = 0, 1, 2, 4, 8, 16; a list: ``dose:0,4,16``): the history keeps exactly K records supporting
  the gold app or a history-sourced value, at constant length; one variant per example and K (ids ``~dose-K``).
  ``contradict-stated[:K]`` (K = 8): the history gains a K-record habit against a stated value. ``@W`` (``dose@20``)
  cuts either's history to a window of W records that a prompt shows whole. Both in ``pfc.data.counterfactual_dose``;
  both need call histories (TRACEBench) and refuse a set without them.
- ``ask[@W]``, ``cannot``: the right answer becomes a question (the history's support for one history-sourced value
  removed) or "cannot help" (no candidate tool of the request's scenario); ``pfc.data.counterfactual_ask`` (issue 64).
  ``meta.action`` says so (``pfc.schema``).

Only ``swap-user`` changes gold; the other kinds measure sensitivity. Deterministic: every random choice comes from
``random.Random("<seed>:<kind>:<example id>")`` (string seeds are hashed with SHA-512, never with Python's ``hash``), so
the same seed gives the same bytes in any process. It does not run models or score (``pfc.eval.personalization`` does);
the kinds' syntax is ``pfc.data.counterfactual_kinds``'s.
"""
from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from pfc.data.counterfactual_kinds import KINDS, MAX_SHIFT_DAYS, parse_kind, window_of  # noqa: F401 - the API
from pfc.data.querygen import BOOL, FRAG
from pfc.errors import UserError
from pfc.provenance import sha256_path
from pfc.data.variant import set_history as _set_history, slug, variant as _variant
from pfc.schema import Example, Role, write_examples, write_tools
from pfc.io import atomic
from pfc import benchmarks
from pfc.benchmarks.common import load_unified
from pfc.data.origin import origin
from pfc.io.dirset import replace_dir
from pfc.io.safepath import not_input
from pfc.paths import relative


def _rng(seed: int, kind: str, ex: Example) -> random.Random:
    return random.Random(f"{seed}:{kind}:{ex.id}")


def _fragments(name: str, value) -> list[str]:
    """The phrasings a query template may have used for ``name = value`` (``pfc.data.querygen``), longest first."""
    if isinstance(value, bool):
        yes, no = BOOL.get(name, (f"{name.replace('_', ' ')}: yes", f"{name.replace('_', ' ')}: no"))
        return [yes if value else no]
    text = " and ".join(map(str, value)) if isinstance(value, list) else str(value)
    frags = [t.format(v=text, n=name.replace("_", " ")) for t in FRAG.get(name, ["{n} {v}", "{n}: {v}"])]
    return sorted(set(frags) | {text}, key=lambda f: (-len(f), f))


def strip_value(query: str, name: str, value) -> str | None:
    """``query`` without the fragment stating ``name = value``; None when the text does not state it."""
    for frag in _fragments(name, value):
        m = re.search(r"(,\s*)?" + re.escape(frag) + r"(?=[\s,.!?]|$)", query, re.I)
        if not m or not frag.strip():
            continue
        out = (query[:m.start()] + query[m.end():]).strip()
        out = re.sub(r"\s+([,.!?])", r"\1", re.sub(r"\s{2,}", " ", out))
        out = re.sub(r"^[,\s]+|(?<=[:—-])\s*,", "", out).replace(",,", ",")
        out = re.sub(r"\s*[—:,-]\s*(?=[.!?]$)", "", out)
        return out if out and out != query else None
    return None


def _strip_stated(ex: Example, rng: random.Random):
    if not ex.gold:
        return None, "refusal gold"
    stated = [(i, a) for i, g in enumerate(ex.gold) for a, r in sorted(g.roles.items()) if r.source == "query"]
    rng.shuffle(stated)
    for i, a in stated:
        q = strip_value(ex.query, a, ex.gold[i].arguments[a])
        if q is not None:
            return (i, a, q), None
    return None, "no stated value found verbatim in the request"


def _shift(ex: Example, days: int):
    t = ex.meta.get("anchor_time")
    if not t:
        return None, "no request time (meta.anchor_time)"
    new = datetime.fromisoformat(t) + timedelta(days=days)
    kept = [h for h in ex.history if h.time is None or datetime.fromisoformat(h.time) < new]
    return (new.isoformat(timespec="seconds"), kept), None


def make_variant(ex: Example, kind: str, arg, seed: int, pool=None):
    """(variant, None) or (None, why it was skipped) for one example; ``pool`` is the swap donor index."""
    rng = _rng(seed, slug(kind, arg), ex)
    if kind == "swap-user":
        return pool.swap(ex, rng, seed)
    if kind == "dose":
        return pool.dose(ex, arg, rng, seed)
    if kind == "contradict-stated":
        return pool.contradict(ex, arg, rng, seed)
    if kind in ("ask", "cannot"):  # pfc.data.counterfactual_ask
        return pool.ask(ex, rng, seed) if kind == "ask" else pool.cannot(ex, seed)
    if kind in ("shuffle-history", "truncate-history"):
        if not ex.history:
            return None, "no history"
        hist = list(ex.history)
        if kind == "shuffle-history":
            if len(hist) < 2:
                return None, "fewer than 2 history records"
            rng.shuffle(hist)
        else:
            hist = hist[len(hist) - arg:] if arg else []
        v = _variant(ex, kind, arg, seed)
        _set_history(v, hist)
        return v, None
    if kind == "drop-profile":
        if not ex.history and not ex.profile:
            return None, "no user context"
        v = _variant(ex, kind, arg, seed)
        _set_history(v, [])
        v.profile = None
        return v, None
    if kind == "shift-time":
        res, why = _shift(ex, arg)
        if res is None:
            return None, why
        v = _variant(ex, kind, arg, seed, dropped_history=len(ex.history) - len(res[1]))
        v.meta["anchor_time"] = res[0]
        _set_history(v, res[1])
        return v, None
    if kind == "strip-stated":
        res, why = _strip_stated(ex, rng)
        if res is None:
            return None, why
        i, a, q = res
        v = _variant(ex, kind, arg, seed, stripped={"call": i, "argument": a})
        v.query = q
        v.gold[i].roles[a] = Role("unknown", v.gold[i].role(a).required)
        if isinstance(v.meta.get("stated"), list):
            v.meta["stated"] = [s for s in v.meta["stated"] if s != a]
        return v, None
    raise UserError(f"unknown kind {kind!r}", field="--kind")


def _pool(examples: list[Example], name: str, window: int | None = None, tools=None):
    """The index a kind reads over every example (swap donors, evidence, with the evidence ``window``), or None."""
    pool = None
    if name in ("ask", "cannot"):
        from pfc.data.counterfactual_ask import ActionPool
        return ActionPool(examples, name, window, tools)
    if name == "swap-user":
        from pfc.data.counterfactual_swap import DonorPool
        pool = DonorPool(examples)
    if name in ("dose", "contradict-stated"):
        from pfc.data.counterfactual_dose import EvidencePool
        if not any(e.history for e in examples):
            raise UserError(f"{name} counts call-history records that carry the user's choices (TRACEBench); none "
                            "of these examples has a call history (PTBench and ToolSpectrum keep preferences in "
                            "a profile: no records to count)", field="--kind")
        pool = EvidencePool(examples, window)
    return pool


def perturb(examples: list[Example], kind: str, seed: int = 0, tools=None) -> tuple[list[Example], Counter]:
    """Variants of ``examples`` (input order) and the count of skipped examples by reason (``tools``: the tool
    file's, which ``cannot`` reads)."""
    name, arg = parse_kind(kind)
    pool = _pool(examples, name, window_of(kind), tools)
    out, skipped = [], Counter()
    for ex in examples:
        for a in (arg if name == "dose" else (arg,)):  # dose: one variant per K
            v, why = make_variant(ex, name, a, seed, pool)
            if v is None:
                skipped[why] += 1
            else:
                out.append(v)
    return out, skipped


def sample(examples: list[Example], kind: str, n: int, seed: int = 0, tools=None) -> tuple[list[Example], Counter]:
    """The variants of ``n`` originals, one per anchor (``meta.anchor_id``, else the id), and the skip counts.

    Anchors are taken in a seeded order (``random.Random("sample:<kind>:<seed>")``), each anchor's requests in a seeded
    order too; the first request with a variant for every argument of the kind (``dose``: every K) is taken, so every K
    holds the same requests. The pool (population's favourites, donors) still reads every example, so a variant equals
    its copy in the whole set's ``perturb``. Fewer than ``n`` anchors admit the kind: all of them. Variants in
    ``perturb``'s order.
    """
    name, arg = parse_kind(kind)
    pool = _pool(examples, name, window_of(kind), tools)
    by_anchor: dict = {}
    for ex in sorted(examples, key=lambda e: e.id):
        by_anchor.setdefault(str(ex.meta.get("anchor_id", ex.id)), []).append(ex)
    rng = random.Random(f"sample:{slug(name, arg)}:{seed}")
    anchors = sorted(by_anchor)
    rng.shuffle(anchors)
    chosen, skipped = {}, Counter()
    for a in anchors:
        if len(chosen) == n:
            break
        requests = list(by_anchor[a])
        rng.shuffle(requests)
        for ex in requests:
            made = [make_variant(ex, name, x, seed, pool) for x in (arg if name == "dose" else (arg,))]
            why = next((w for v, w in made if v is None), None)
            if why is None:
                chosen[ex.id] = [v for v, _ in made]
                break
            skipped[why] += 1
    return [v for ex in examples if ex.id in chosen for v in chosen[ex.id]], skipped


MANIFEST = "perturb.json"  # written last: a folder holding it is a finished set of variants
SET_FILES = ("examples.jsonl", "tools.json", MANIFEST)  # all a set holds: anything else in its folder is kept


@dataclass(frozen=True)
class VariantSet:
    """What one ``pfc perturb`` made: ``kind``'s variants of ``originals`` (the examples read, with their
    ``tools``), the skips by reason; ``sampled``: the variants are those of that many anchors' requests
    (:func:`sample`)."""
    benchmark: str
    kind: str
    seed: int
    variants: list
    skipped: dict
    tools: list
    originals: list
    sampled: int | None = None


def write(out_dir, examples_path, made: VariantSet) -> dict:
    """``examples.jsonl``, ``tools.json`` (if any) and ``perturb.json`` into ``out_dir``, replaced whole
    (``pfc.io.dirset``: built beside it, the manifest last; a stop leaves the old set or the new one); an ``out_dir``
    that is or holds the input is refused. The originals' origin is recorded (``pfc.data.origin``), ``sampled`` as
    ``sampled_anchors``. Returns the manifest."""
    benchmark, kind, seed, variants, skipped, tools, originals, sampled = (
        made.benchmark, made.kind, made.seed, made.variants, made.skipped, made.tools, made.originals, made.sampled)
    out = not_input(out_dir, {"--examples": examples_path})
    src = Path(examples_path)
    src_file = src / "examples.jsonl" if src.is_dir() else src
    where = origin(originals, src)
    parse_kind(kind)  # the command as given, which reruns it (a slug such as contradict-stated-8 would not parse)
    where["derived"] = where["derived"] + [f"pfc perturb --kind {kind} --seed {seed}"
                                           + (f" (pfc.data.counterfactual.sample: {sampled} anchors)"
                                              if sampled is not None else "")]
    manifest = {"benchmark": benchmark, "kind": kind, "seed": seed,
                "examples": {"path": str(relative(src)),
                             "sha256": sha256_path(src_file) if src_file.is_file() else None},
                "origin": where,
                "originals": len(originals), "variants": len(variants), "skipped": dict(sorted(skipped.items())),
                "with_counterfactual_gold": sum(1 for v in variants if v.meta["counterfactual"].get("items"))}
    if sampled is not None:
        manifest["sampled_anchors"] = sampled
    with replace_dir(out, MANIFEST, "set of variants", ours=_only_ours, made=SET_FILES) as tmp:
        write_examples(variants, tmp / "examples.jsonl")
        if tools:
            write_tools(tools, tmp / "tools.json")
        atomic.write_text(tmp / MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return manifest


def _only_ours(folder: Path) -> bool:
    """A folder holding only what ``pfc perturb`` writes (an unfinished set of an earlier version, no manifest)."""
    return all(p.name in SET_FILES and p.is_file() and not p.is_symlink()
               for p in folder.iterdir())


def build_variants(examples_path, out_dir, kind: str, seed: int = 0, benchmark: str | None = None) -> dict:
    """Load a benchmark, write its ``kind`` variants into ``out_dir`` (the pipeline's step); returns the manifest.
    ``benchmark``: whose loader reads ``examples_path``; default: a unified-schema build, of the benchmark its examples
    name."""
    load = benchmarks.get(benchmark).scoring.load if benchmark else load_unified
    examples, tools = load(examples_path, None)
    benchmark = benchmark or (examples[0].benchmark if examples else "")
    variants, skipped = perturb(examples, kind, seed, tools)
    return write(out_dir, examples_path, VariantSet(benchmark, kind, seed, variants, skipped, tools, examples))
