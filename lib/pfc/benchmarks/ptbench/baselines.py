"""The built-in baselines on PTBench-format examples (profile + history + platforms + tools), and its own one.

PTBench's package part ``baselines`` (``Adapter.part("baselines")``): :func:`predict`, called by
``pfc.run.backends.builtin``, and :data:`BACKENDS`, the baselines of its own (``Running.baselines``), which
``pfc.run.backends.get`` finds through the adapter. No model involved.

- ``random``: a random platform, a random API of the scenario, a random value per parameter (an enumeration value, else
  a placeholder of the right type).
- ``history-prior`` (profile- and behaviour-aware): APIs by TF-IDF similarity between each clause of the request and the
  API documentation; the platform a characteristic of which the request names, else the platform the user's history uses
  most; enumerated values stated in the request, else the value the user's history shows for that parameter; personal
  facts (address, city, language, name, email, ...) from the basic features; dates, times, identifiers, numbers and the
  remaining phrases from the request.
- ``no-history``: the same with the behaviour history hidden (basic features kept): the first platform and the first
  enumeration value stand in for the user's habits.
- ``nearest-train`` (:class:`NearestTrain`, PTBench's own): the memorization baseline, the answer of the most similar
  training request (TF-IDF cosine, :class:`pfc.data.ptool.overlap.Index`, the build's overlap audits' definition),
  preferring records whose functions are all among the example's candidate tools, copied verbatim: what template recall
  scores. The training split is ``--model PATH`` (a ``data.json`` or a build directory with ``train/data.json``), by
  default our build's; the official release ships none.

    >>> _norm("price_low_to_high")
    'price low to high'
"""
from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

from pfc import paths
from pfc.data.ptool.overlap import Index
from pfc.errors import UserError
from pfc.provenance import source_version
from pfc.render import render_ptbench
from pfc.run.backends import Baseline, Response
from pfc.schema import Call

STOP = set("""a an the me my i i'd i'm want need please can could you for to of on in at by with and then some up
find get book order buy put play download show set add share leave rent sign mark look what where is are be
would like it this that as from into our your let lets make new via""".split())
PATTERNS = [re.compile(r"\d{4}-\d{2}-\d{2}"), re.compile(r"\b\d{1,2}:\d{2}\b"), re.compile(r"\b[A-Z]{2,}-\d+\b")]


def _norm(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return re.sub(r"[_\s]+", " ", str(v)).strip().lower()


def _tools(ex) -> list[dict]:
    """Tool specs (OpenAI style); bare names (as in some fixtures) become specs without parameters."""
    return [t.get("function", t) if isinstance(t, dict) else {"name": str(t)} for t in (ex.meta.get("official_tools") or [])]


def _platforms(ex) -> list[dict]:
    return [p if isinstance(p, dict) else {"name": str(p)} for p in (ex.meta.get("platforms") or [])]


def _clauses(q: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.?!])\s+|\bThen\b|\bthen\b", q) if p.strip()]
    return parts or [q]


def _functions(ex, tools) -> list[dict]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import linear_kernel
    docs = [f"{_norm(re.sub(r'([a-z])([A-Z])', r'1 2', t['name']))} {t.get('description', '')} "
            f"{' '.join(_norm(p) for p in t.get('parameters', {}).get('properties', {}))}" for t in tools]
    clauses = _clauses(ex.query)
    vec = TfidfVectorizer().fit(docs + clauses)
    picked = []
    for c in clauses:
        sims = linear_kernel(vec.transform([c]), vec.transform(docs))[0]
        best = max(range(len(tools)), key=lambda i: (sims[i], -i))
        if sims[best] > 0.05 and tools[best] not in picked:
            picked.append(tools[best])
    return picked or [tools[0]]


def _history(ex) -> list[dict]:
    hist = (ex.profile or {}).get("user_history") if isinstance(ex.profile, dict) else None
    if isinstance(hist, dict):
        return [h for v in hist.values() if isinstance(v, list) for h in v if isinstance(h, dict)]
    return [h for h in hist if isinstance(h, dict)] if isinstance(hist, list) else []


def _platform(ex, platforms, hist) -> str:
    q = set(re.findall(r"[a-z]+", ex.query.lower())) - STOP
    overlap = {p["name"]: len(q & (set(re.findall(r"[a-z]+", " ".join(map(str, (p.get("profile") or {}).values())).lower()))
                                   - STOP)) for p in platforms}
    best = max(overlap.values(), default=0)
    if best >= 2 or (best == 1 and list(overlap.values()).count(1) == 1):
        return max(platforms, key=lambda p: overlap[p["name"]])["name"]
    names = [p["name"] for p in platforms]
    used = Counter(h.get("platform") for h in hist if h.get("platform") in names)
    return used.most_common(1)[0][0] if used else (names[0] if names else "")


def _enum_value(param, enum, q, hist_text):
    stated = [v for v in enum if len(_norm(v)) > 2 and _norm(v) in q]
    if stated:
        return max(stated, key=lambda v: len(_norm(v)))
    key = _norm(param)
    seen = Counter()
    for text in hist_text:
        for v in enum:
            if re.search(re.escape(key) + r"\W+" + re.escape(_norm(v)) + r"\b", text):
                seen[_norm(v)] += 1
    if seen:
        top = seen.most_common(1)[0][0]
        return next(v for v in enum if _norm(v) == top)
    return enum[0]


def _phrases(q: str, used: set) -> list[str]:
    words = re.findall(r"[A-Za-z][\w'-]*|\d[\d:.-]*|[.,?!]", q)
    out, cur = [], []
    for w in words + ["."]:
        if w.lower() in STOP or not w[0].isalpha() or w in used:
            if cur:
                out.append(" ".join(cur))
            cur = []
        else:
            cur.append(w)
    return out


def _arguments(tool, ex, hist) -> dict:
    q = ex.query.lower()
    basic = (ex.profile or {}).get("basic_features", {}) if isinstance(ex.profile, dict) else {}
    hist_text = [_norm(h.get("action", "")) for h in hist]
    props = tool.get("parameters", {}).get("properties", {})
    args, used = {}, set()
    found = [m.group(0) for pat in PATTERNS for m in pat.finditer(ex.query)]
    numbers = [int(n) for n in re.findall(r"(?<![\d:-])\b\d+\b(?![\d:-])", ex.query)]
    leftovers = []
    for p, spec in props.items():
        typ = spec.get("type")
        if "enum" in spec:
            args[p] = _enum_value(p, spec["enum"], q, hist_text)
        elif typ == "integer":
            if numbers:
                args[p] = numbers.pop(0)
        elif typ == "boolean":
            args[p] = True
        else:
            key = next((k for k in basic if k in set(re.findall(r"[a-z]+", _norm(p)))), None)
            if key is not None:
                args[p] = basic[key]
            elif ("date" in p or "time" in p or "id" in p.split("_")) and found:
                args[p] = found.pop(0)
            else:
                leftovers.append(p)
    phrases = _phrases(ex.query, set(found))
    for p in leftovers:
        if phrases:
            args[p] = phrases.pop(0)
    return {p: args[p] for p in props if p in args}


def predict(name: str, ex, seed: int = 0) -> list[Call] | None:
    """The baseline's calls for one PTBench example; None for the oracle (it uses the gold)."""
    if name not in ("random", "history-prior", "no-history"):
        return None
    tools, platforms = _tools(ex), _platforms(ex)
    if not tools:
        raise UserError(f"example {ex.id}: no tools in the record (field 'tools')")
    if name == "random":
        rng = random.Random(f"{seed}:{ex.id}")
        plat = rng.choice(platforms)["name"] if platforms else ""
        tool = rng.choice(tools)
        args = {}
        for p, spec in tool.get("parameters", {}).get("properties", {}).items():
            args[p] = rng.choice(spec["enum"]) if "enum" in spec else {"integer": 1, "boolean": True}.get(
                spec.get("type"), "unknown")
        return [Call(plat, tool["name"], args)]
    if name in ("history-prior", "no-history"):
        hist = _history(ex) if name == "history-prior" else []
        plat = _platform(ex, platforms, hist)
        return [Call(plat, t["name"], _arguments(t, ex, hist)) for t in _functions(ex, tools)]
    return None


def train_path(model: str) -> Path:
    """The training ``data.json`` named by ``model`` (a file or a build directory); default: our build's."""
    p = Path(model) if model else paths.BENCHMARKS / "ptbench" / "train" / "data.json"
    if p.is_dir():
        p = p / "train" / "data.json"
    if not p.is_file():
        raise UserError(f"nearest-train: no training split at {paths.relative(p)} (build it with "
                        "`pfc build ptbench`, or pass --model PATH/TO/train/data.json)")
    return p


class NearestTrain(Baseline):
    name = "nearest-train"
    uses_gold = False
    needs_tools = False

    def __init__(self, model: str = "", tools=None, seed: int = 0, **_):
        self.path = train_path(model)
        raw = self.path.read_bytes()
        try:
            self.train = json.loads(raw)
            self.queries = [str(r["query"]) for r in self.train]
            [r["answer"][1] for r in self.train]
        except (ValueError, KeyError, TypeError, IndexError) as e:
            raise UserError(f"{paths.relative(self.path)}: not an official PTBench data.json "
                            f"({type(e).__name__}: {e})") from None
        if not any(re.search(r"\w", q) for q in self.queries):  # the TF-IDF index (Index) would have no term
            raise UserError(f"nearest-train: no training query with a word to match on ({len(self.queries)} queries)",
                            file=str(paths.relative(self.path)), field="query")
        # the lookup's identity: the training file's bytes (a run on another training split is another run)
        self.model = f"nearest-train@{hashlib.sha256(raw).hexdigest()[:16]}"
        self.version = source_version(sys.modules[__name__])
        self._index = None

    def identity(self) -> str:
        return self.model

    def _fn_index(self):
        out: dict[str, set] = {}
        for i, r in enumerate(self.train):
            for f in r["answer"][1]:
                for fn in f:
                    out.setdefault(fn, set()).add(i)
        return out

    def answer(self, requests, examples):
        if self._index is None:
            self._index = (Index(self.queries), self._fn_index())
        index, by_fn = self._index
        allowed = []
        for ex in examples:
            names = [t.get("function", t).get("name") for t in (ex.meta.get("official_tools") or [])
                     if isinstance(t, dict)]
            cand = set().union(*(by_fn.get(n, set()) for n in names)) if names else set()
            ok = [i for i in sorted(cand) if all(fn in names for f in self.train[i]["answer"][1] for fn in f)]
            allowed.append(ok or None)
        nn, _ = index.nearest([ex.query for ex in examples], allowed)
        out = []
        for ex, i in zip(examples, nn):
            try:
                platform, funcs = self.train[i]["answer"]
                calls = [Call(platform, fn, {k: v[0] for k, v in args.items()}) for f in funcs for fn, args in f.items()]
                out.append(Response(text=render_ptbench(calls)))
            except Exception as e:  # a malformed training answer fails this example, not the run
                out.append(Response(error=f"{type(e).__name__}: {e}"))
        return out


BACKENDS = {NearestTrain.name: NearestTrain}  # its own baselines, by name (ADAPTER.running.baselines)
