"""A run's display label from its config: the model, then the settings that differ from the papers'.

Pure: it reads a config dict and returns text (``pfc.report.tables`` and the reference runs use it).
"""
from __future__ import annotations


def run_label(config: dict, fallback: str) -> str:
    """``model [strategy, history k=K, layout]`` from a run's config (defaults omitted; ``k`` whenever the
    history mode uses it; the prompt layout when it is not the papers').

    >>> run_label({"model": "m", "strategy": "few_shot", "history": "last_k", "k": 5}, "x")
    'm [few_shot, last_k k=5]'
    >>> run_label({"backend": "oracle", "history": "full", "k": 10}, "x")
    'oracle'
    >>> run_label({"model": "m", "history": "full", "layout": "prefix"}, "x")
    'm [prefix layout]'
    """
    name = config.get("model") or config.get("backend") or fallback
    extra = [v for k, v in (("strategy", "zero_shot"), ("history", "full")) if config.get(k) not in (None, v)
             for v in [config.get(k)]]
    if config.get("history") in ("last_k", "retrieved") and config.get("k") is not None:
        extra[-1] = f"{extra[-1]} k={config['k']}"  # k=5 and k=10 runs must not share a label
    if config.get("layout") not in (None, "paper"):
        extra.append(f"{config['layout']} layout")  # a Table 3 row says which prompt layout made it
    return f"{name} [{', '.join(extra)}]" if extra else str(name)
