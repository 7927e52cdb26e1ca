"""Error breakdowns over loaded runs: families by personalization type, gold values by source, PTBench Fig. 4.

Each function takes runs loaded by :func:`pfc.report.tables.load_run` and returns a tidy DataFrame (one row per run and
class, with counts and shares). It does not load or score runs, nor lay tables out (:mod:`pfc.report.tables`), nor
decide what an error is (:mod:`pfc.eval.taxonomy`).
"""
from __future__ import annotations

import pandas as pd

from pfc.report.tables import VALUE_SOURCES, Run


def errors_by_personalization(runs: list[Run]) -> pd.DataFrame:
    """Error family (``error_type`` before ':') per personalization type, as counts and shares of that type's examples.

    An example with two personalization types counts under each. Families: format, refusal, app, function, param, value
    (``pfc.eval.taxonomy.error_type``); ``correct`` when none.
    """
    rows = []
    for r in runs:
        df = r.per_example
        if "personalization" not in df.columns:
            continue
        fam = df["error_type"].fillna("").str.split(":").str[0].replace("", "correct")
        types = df["personalization"].fillna("").astype(str).replace("", "none")
        d = pd.DataFrame({"personalization": types.str.split("+"), "family": fam})
        d = d.explode("personalization")
        n = d.groupby("personalization").size()
        for (ptype, family), k in d.groupby(["personalization", "family"]).size().items():
            rows.append({"run": r.name, "personalization": ptype, "family": family, "count": int(k),
                         "share": k / n[ptype], "n": int(n[ptype])})
    return pd.DataFrame(rows, columns=["run", "personalization", "family", "count", "share", "n"])


def value_errors_by_source(runs: list[Run]) -> pd.DataFrame:
    """Gold values by provenance source: total, correct, wrong, missing per run (value provenance)."""
    rows = []
    for r in runs:
        df, err = r.per_example, r.errors
        arg = err[err["level"] == "argument"] if len(err) else err
        for s in VALUE_SOURCES + ["unknown"]:
            total = int(df[f"total_{s}"].sum()) if f"total_{s}" in df.columns else 0
            if not total:
                continue
            part = arg[arg["source"] == s] if len(arg) else arg
            rows.append({"run": r.name, "source": s, "total": total,
                         "correct": int(df[f"correct_{s}"].sum()),
                         "wrong": int((part["status"] == "wrong").sum()) if len(part) else 0,
                         "missing": int((part["status"] == "missing").sum()) if len(part) else 0})
    out = pd.DataFrame(rows, columns=["run", "source", "total", "correct", "wrong", "missing"])
    out["accuracy"] = out["correct"] / out["total"]
    return out


PTBENCH_ERRORS = ["func_wrong_error", "func_missing_error", "func_excessive_error", "param_missing_error",
                  "param_excessive_error", "value_error"]
PTBENCH_ERROR_NAMES = dict(zip(PTBENCH_ERRORS, ["T-wrong", "T-missing", "T-excessive", "P-missing",
                                                "P-excessive", "P-error"]))


def ptbench_error_shares(runs: list[Run]) -> pd.DataFrame:
    """PTBench Fig. 4: the six error classes' shares among parsable samples with an error (PTBench runs)."""
    rows = []
    for r in runs:
        counts = {PTBENCH_ERROR_NAMES[k]: int(r.metrics.get(k, 0) or 0) for k in PTBENCH_ERRORS}
        total = sum(counts.values())
        rows += [{"run": r.name, "class": c, "count": k, "share": k / total if total else 0.0} for c, k in counts.items()]
    return pd.DataFrame(rows, columns=["run", "class", "count", "share"])
