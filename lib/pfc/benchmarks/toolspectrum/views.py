"""ToolSpectrum's release views (its package's ``views``, report stage; toolspectrum.ipynb and its ``section``):
Table 2 statistics, data quality, Table 3, Fig. 4, taxonomy, Table 8.

Functions take examples, tools or per-example tables and return pandas DataFrames; the notebook draws them. The paper's
own numbers come from ``data/paper_results/toolspectrum.json`` and are always labelled ``paper``; ours are always
computed and labelled ``ours``.

    >>> sorted(paper_results())[:2]
    ['label', 'notes']
"""
from __future__ import annotations

import json
from collections import Counter

import pandas as pd

from pfc import paths
from pfc.eval.matching import norm_text, values_equal
from pfc.eval.metrics import METRICS, aggregate
from pfc.schema import Call, Example, Tool
from pfc.eval.taxonomy import TOOLSPECTRUM_CLASSES
from pfc.render import render_json
from pfc.report import paper_results as P
from pfc.report import tables as T

LEVELS = ("APP", "API", "RP", "OP")
SUBSET_ORDER = ("profile", "environment", "both")
PY_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
            "array": (list,), "object": (dict,)}


def paper_results() -> dict:
    return json.loads((paths.PAPER_RESULTS / "toolspectrum.json").read_text())


# ------------------------------------------------------------------ Table 2
def stats(examples: list[Example]) -> dict:
    """Table 2 rows for one subset, computed from the examples."""
    calls = [e.gold[0] for e in examples if e.gold]
    uniq = lambda xs: len({json.dumps(x, sort_keys=True) for x in xs if x is not None})  # noqa: E731
    n = max(len(calls), 1)
    return {"samples": len(examples), "refusals": sum(e.is_refusal for e in examples),
            "domains": len({e.meta.get("domain") for e in examples if e.meta.get("domain")}),
            "apps": len({c.app for c in calls}), "apis": len({(c.app, c.function) for c in calls}),
            "profiles": uniq(e.profile for e in examples) or None,
            "environments": uniq(e.environment for e in examples) or None,
            "avg_params": round(sum(len(c.arguments) for c in calls) / n, 2),
            "avg_rps": round(sum(sum(c.role(a).required for a in c.arguments) for c in calls) / n, 2),
            "avg_ops": round(sum(sum(not c.role(a).required for a in c.arguments) for c in calls) / n, 2)}


def stats_table(by_subset: dict[str, list[Example]]) -> pd.DataFrame:
    """Ours beside the paper's Table 2: columns (subset, ours|paper)."""
    paper = paper_results()["table2"]
    cols = {}
    for subset in SUBSET_ORDER:
        if subset not in by_subset:
            continue
        ours = stats(by_subset[subset])
        idx = paper["columns"].index(subset)
        cols[(subset, "ours")] = ours
        cols[(subset, "paper")] = {k: v[idx] for k, v in paper["rows"].items()}
    return pd.DataFrame(cols)


# ------------------------------------------------------------------ data quality
def _type_ok(value, typ: str) -> bool:
    if typ in ("number", "integer") and isinstance(value, bool):  # bool is an int in Python
        return False
    return isinstance(value, PY_TYPES.get(typ, (object,)))


def _in_enum(value, enum: list) -> bool:
    items = value if isinstance(value, list) and not any(isinstance(e, list) for e in enum) else [value]
    return all(any(values_equal(v, e) for e in enum) for v in items)


def quality_report(examples: list[Example], tools: list[Tool]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(counts per subset and check, one row per finding). Findings are reported, never fatal."""
    spec = {(t.app, t.function): t for t in tools}
    rows = []
    seen = Counter((e.meta.get("subset"), norm_text(e.query)) for e in examples)
    for e in examples:
        sub = e.meta.get("subset")
        base = {"subset": sub, "id": e.id}
        if seen[(sub, norm_text(e.query))] > 1:
            rows.append({**base, "check": "repeated instruction", "detail": e.query[:80]})
        for g in e.gold or []:
            tool = spec.get((g.app, g.function))
            if tool is None:
                rows.append({**base, "check": "gold app/API not in the API description",
                             "detail": f"{g.app}.{g.function}"})
                continue
            props = tool.parameters.get("properties", {})
            for name, value in g.arguments.items():
                where = {**base, "argument": f"{g.function}.{name}", "value": json.dumps(value, ensure_ascii=False)[:60]}
                if name not in props:
                    rows.append({**where, "check": "gold argument not in the API description"})
                    continue
                if not _type_ok(value, props[name].get("type", "string")):
                    rows.append({**where, "check": "type mismatch", "detail": f"declared {props[name].get('type')}"})
                enum = props[name].get("enum")
                if enum and not _in_enum(value, enum):
                    rows.append({**where, "check": "value outside the enumeration", "detail": str(enum)[:80]})
    details = pd.DataFrame(rows, columns=["subset", "id", "check", "argument", "value", "detail"])
    counts = (details.groupby(["check", "subset"]).size().unstack("subset", fill_value=0)
              .reindex(columns=[s for s in SUBSET_ORDER if s in set(details["subset"])], fill_value=0))
    return counts, details


# ------------------------------------------------------------------ scores
def _by_subset(wide: pd.DataFrame, index_name: str) -> pd.DataFrame:
    """``subset/level`` columns -> a (subset, level) column index, numbers as floats."""
    wide = wide.astype(float)
    wide.columns = pd.MultiIndex.from_tuples([tuple(c.split("/")) for c in wide.columns], names=["subset", "level"])
    wide.index.name = index_name
    return wide


def _ours(rows: dict, index_name: str) -> pd.DataFrame:
    """{row name: per-example table} in the Table 3 layout, through the report's one builder
    (``pfc.report.tables.toolspectrum_levels``; values only, rows in the given order)."""
    runs = [T.Run(name, "toolspectrum", {}, df, {}, pd.DataFrame()) for name, df in rows.items()]
    wide = T.layout(T.toolspectrum_levels(runs, n_boot=0), T.TS_ORDER, with_ci=False)
    return _by_subset(wide.reindex(list(rows)), index_name)


def table3(ours: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 3 layout (rows models; columns subset × level) for our runs ({name: per-example table})."""
    return _ours(ours, "model (ours)")


def table8(ours: dict[tuple[str, str], pd.DataFrame]) -> pd.DataFrame:
    """Prompt-method comparison: {(model, strategy): per-example table} -> Table 8 layout."""
    return _ours({f"{m} / {s}": df for (m, s), df in ours.items()}, "model / method (ours)")


def paper_table3() -> pd.DataFrame:
    """The paper's Table 3 (``data/paper_results/papers.csv``, as the reports show it)."""
    return _by_subset(P.toolspectrum_table("Table 3"), "model (paper)")


def paper_table8() -> pd.DataFrame:
    return _by_subset(P.toolspectrum_table("Table 8"), "model / method (paper)")


def domain_means(ours: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Fig. 4: mean of the four F1 levels per model, subset and domain (refusal gold has no domain)."""
    rows = []
    for name, df in ours.items():
        for (subset, domain), part in df.dropna(subset=["domain"]).groupby(["subset", "domain"]):
            f1 = [aggregate(METRICS[lv], part) for lv in LEVELS]
            rows.append({"model": name, "subset": subset, "domain": domain, "mean_f1": sum(f1) / 4,
                         **dict(zip(LEVELS, f1)), "n": len(part)})
    return pd.DataFrame(rows)


def taxonomy(per_example: pd.DataFrame, examples: list[Example], outputs: dict, n_examples: int = 2):
    """(counts per class with the paper's names and shares, example rows per class)."""
    err = per_example[per_example["error_type"] != ""].copy()
    err["family"] = err["error_type"].str.split(":").str[0]
    counts = err.groupby("family").size().rename("errors").to_frame()
    counts["share"] = (counts["errors"] / max(len(err), 1)).round(3)
    counts["class (paper §5.3)"] = [TOOLSPECTRUM_CLASSES.get(f, f) for f in counts.index]
    by_id = {e.id: e for e in examples}
    samples = []
    for family, part in err.groupby("family"):
        for _, r in part.head(n_examples).iterrows():
            ex = by_id[r["id"]]
            gold = None if ex.gold is None else {"APP": ex.gold[0].app, "API": ex.gold[0].function,
                                                 "params": ex.gold[0].arguments}
            samples.append({"family": family, "error_type": r["error_type"], "id": r["id"],
                            "instruction": ex.query[:100], "predicted": str(outputs.get(r["id"]))[:160],
                            "gold": json.dumps(gold, ensure_ascii=False)[:160]})
    return counts.sort_values("errors", ascending=False), pd.DataFrame(samples)


def reference_runs(examples: list[Example]) -> dict[str, dict]:
    """Outputs of three reference runs (not models): oracle, always-refuse, and the gold call
    with its personalized/environmental arguments removed (what ignoring the user costs)."""
    oracle = {e.id: render_json(e.gold) for e in examples}
    refuse = {e.id: "null" for e in examples}
    required_only = {e.id: render_json(None if e.gold is None else [
        Call(g.app, g.function, {a: v for a, v in g.arguments.items() if g.role(a).required}) for g in e.gold])
        for e in examples}
    return {"reference: oracle": oracle, "reference: always refuse": refuse,
            "reference: gold without personalization": required_only}
