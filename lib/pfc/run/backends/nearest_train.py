"""``nearest-train``: the memorization baseline of PTBench — the answer of the most similar training request.

For each test example it finds the training record whose request is most similar (TF-IDF
cosine, :class:`pfc.data.ptool.overlap.Index`, the definition the build's overlap audits use),
preferring records whose called functions are all among the example's candidate tools, and
answers with that record's platform and calls, values and all, copied verbatim. No model, no
profile, no history: what template recall scores on the split at hand.

The training split is ``--model PATH`` (an official-format ``data.json``, or a build directory
holding ``train/data.json``); without it, our synthesized build's ``train/data.json``
(``data/benchmarks/ptbench``). The official release ships no training split: give it one
(e.g. our synthesis') or the run is refused with one line. It does not score (``pfc score``).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
import sys

from pfc import paths
from pfc.errors import UserError
from pfc.render import render
from pfc.run.backends import Baseline, Response
from pfc.schema import Call
from pfc.data.ptool.overlap import Index
from pfc.provenance import source_version


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
    benchmarks = ("ptbench",)
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
                out.append(Response(text=render(calls, "ptbench")))
            except Exception as e:  # a malformed training answer fails this example, not the run
                out.append(Response(error=f"{type(e).__name__}: {e}"))
        return out
