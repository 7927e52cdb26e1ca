"""Tables and figures for the PTBench notebook: Table 5 beside the paper's, the Table 1 layout for
our runs beside the paper's (labelled), the ablation table, and the Fig. 4 error pies.

Functions take data (stats dicts, metric dicts) and return pandas DataFrames or a matplotlib figure; they do not run
models (``pfc.run.runner``) or score (``pfc.eval.scoring``).

    >>> table5({"table5": {"Train": {"scenarios": 5, "platforms": 15, "apis": 63, "users": 74, "queries": 9}}}).shape[0]
    1
"""
from __future__ import annotations

import json

from pfc import paths

COLS = ["scenarios", "platforms", "apis", "users", "queries"]
T1 = [("format", "format"), ("platforms", "tool_p"), ("query_params", "query"), ("profile_params", "profile"),
      ("tool_names", "t_name"), ("tool_param_names", "t_param"), ("tool_param_values", "t_value")]
ERRORS = {"func_wrong_error": "T-wrong", "func_missing_error": "T-missing", "func_excessive_error": "T-excessive",
          "param_missing_error": "P-missing", "param_excessive_error": "P-excessive", "value_error": "P-error"}


def paper() -> dict:
    return json.loads((paths.PAPER_RESULTS / "ptbench.json").read_text())


def table5(stats: dict):
    """Our Table 5 rows with the paper's beside them (columns suffixed ``(paper)``)."""
    import pandas as pd
    theirs = paper()["table5"]["rows"]
    rows = []
    for name, ours in stats["table5"].items():
        row = {"split": name, **{c: ours[c] for c in COLS}}
        row.update({f"{c} (paper)": theirs.get(name, {}).get(c) for c in COLS})
        rows.append(row)
    return pd.DataFrame(rows).set_index("split")


def table1(results: dict[str, dict[str, dict]]):
    """Table 1 layout (percent) from ``{model: {"trained": metrics, "untrained": metrics, "n_trained", "n_untrained"}}``."""
    import pandas as pd
    rows = []
    for model, r in results.items():
        tr, un, ntr, nun = r["trained"], r["untrained"], r["n_trained"], r["n_untrained"]
        pooled = lambda k: 100 * (tr[k] * ntr + un[k] * nun) / (ntr + nun)  # noqa: E731
        rows.append({"model": model, "source": "ours", **{col: pooled(k) for k, col in T1},
                     "trained": 100 * tr["overall"], "untrained": 100 * un["overall"], "overall": pooled("overall")})
    return pd.DataFrame(rows)


def paper_table1():
    import pandas as pd
    rows = [{"model": f"{r['model']} (paper)", "source": "paper", **{k: r[k] for k in r if k not in ("model", "type")}}
            for r in paper()["table1"]["rows"]]
    return pd.DataFrame(rows)


def error_pies(errors: dict[str, dict], title: str = "Error types (PTBench Fig. 4 layout)"):
    """One pie per model from the six PTBench error counts (``func_*_error``, ``param_*_error``, ``value_error``)."""
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(errors), figsize=(3.2 * len(errors), 3.2), squeeze=False)
    for ax, (model, m) in zip(axes[0], errors.items()):
        counts = {ERRORS[k]: m.get(k, 0) for k in ERRORS}
        shown = {k: v for k, v in counts.items() if v > 0}
        if shown:
            ax.pie(list(shown.values()), labels=list(shown), autopct="%1.0f%%", textprops={"fontsize": 8})
        else:
            ax.text(0.5, 0.5, "no errors", ha="center", va="center")
            ax.axis("off")
        ax.set_title(model, fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
