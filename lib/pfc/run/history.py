"""Which part of a long history goes into a prompt: all of it, the last k records, or the k
records most relevant to the query (TF-IDF; returned in time order).

    >>> HISTORY_MODES
    ('full', 'last_k', 'retrieved')
"""
from __future__ import annotations

import json
from json.encoder import encode_basestring

from pfc.errors import UserError
from pfc.render import tool_name

HISTORY_MODES = ("full", "last_k", "retrieved")


def record_text(h) -> str:
    """``<time> App__function(k="v", ...)``: the same tool-name form as the tools offered to the model
    (``pfc.render.tool_name``), so a model that copies a history record names a real tool."""
    # a string (nearly every value) through json's own string encoder: what json.dumps(v, ensure_ascii=False)
    # returns for a str, without building an encoder per value (a default build renders ~2M values per run)
    args = ", ".join(f"{k}={encode_basestring(v) if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                     for k, v in h.arguments.items())
    return f"{h.time} {tool_name(h.app, h.function)}({args})"


def select_history(example, mode: str = "full", k: int = 50) -> list:
    hist = list(example.history)
    if mode == "full" or len(hist) <= k:
        return hist
    if mode == "last_k":
        return hist[-k:]
    if mode == "retrieved":
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.metrics.pairwise import linear_kernel
        docs = [record_text(h).replace("_", " ") for h in hist]
        vec = TfidfVectorizer(token_pattern=r"(?u)\b\w+\b").fit(docs + [example.query])
        sims = linear_kernel(vec.transform([example.query]), vec.transform(docs))[0]
        # ties (e.g. a vague query) favour recent records
        top = sorted(range(len(hist)), key=lambda i: (-sims[i], -i))[:k]
        return [hist[i] for i in sorted(top)]
    raise UserError(f"unknown history mode {mode!r}; expected one of {HISTORY_MODES}")
