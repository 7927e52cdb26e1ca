"""``make reproduce``: the main job on the embedded default data; writes reports/ and figures/.

At this stage: (1) every bundled, hand-computed golden case scored by the one scorer;
(2) the PTBench fixture scored the robust way and the published evaluator's way, side by
side, with a figure; (3) on the ToolSpectrum release, when configured, oracle and
non-answer baselines per subset. Every number here is computed, none is copied.

    python -m pfc.reproduce [--out reports]
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from . import paths
from .benchmarks import toolspectrum as ts
from .render import render_json
from .schema import Example, Tool
from .scoring import score, score_files

PT_KEYS = ["format", "platforms", "tool_names", "tool_param_names", "tool_param_values",
           "query_params", "profile_params", "overall"]


def golden_section() -> list[str]:
    cases = json.loads((paths.GOLDEN / "scoring_cases.json").read_text())
    lines = ["## 1. Hand-computed golden cases", "",
             "Each case's expected numbers were computed by hand (see `tests/golden/scoring_cases.json`).", "",
             "| case | metric | computed | expected |", "|---|---|---:|---:|"]
    for c in cases:
        ex = [Example.from_dict(e) for e in c["examples"]]
        tools = [Tool.from_dict(t, "t") for t in c.get("tools", [])]
        m = score(ex, c["outputs"], c["benchmark"], tools).metrics
        for k, want in c["expected"].items():
            lines.append(f"| {c['name']} | {k} | {m[k]:.4f} | {want:.4f} |")
    return lines + [""]


def ptbench_section(fig_dir) -> tuple[list[str], dict]:
    d = paths.GOLDEN / "ptbench_official"
    robust = score_files("ptbench", d, d).metrics
    official = score_files("ptbench", d, d, compat="official").metrics
    lines = ["## 2. PTBench: robust scoring vs the published evaluator's rules", "",
             "1,083 synthetic PTBench outputs with reasoning preambles, braces, quoted platforms, "
             "arithmetic, `from=` parameters, list/boolean values and garbage "
             "(`tests/golden/ptbench_official/`). `--compat official` equals the published evaluator "
             "to 1e-9 (tested); the default mode reads what a person would read.", "",
             "| metric | robust (default) | `--compat official` |", "|---|---:|---:|"]
    for k in PT_KEYS:
        lines.append(f"| {k} | {robust[k]:.4f} | {official[k]:.4f} |")
    lines.append("")
    _bar_figure(robust, official, fig_dir / "ptbench_robust_vs_official.png")
    lines += ["![robust vs official](../figures/ptbench_robust_vs_official.png)", ""]
    return lines, {"ptbench_robust": robust, "ptbench_official": official}


def _bar_figure(robust: dict, official: dict, path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    import seaborn as sns
    df = pd.DataFrame({"metric": PT_KEYS * 2, "value": [robust[k] for k in PT_KEYS] + [official[k] for k in PT_KEYS],
                       "scorer": ["robust (default)"] * len(PT_KEYS) + ["published rules"] * len(PT_KEYS)})
    fig, ax = plt.subplots(figsize=(10.5, 3.8))
    sns.barplot(df, x="metric", y="value", hue="scorer", ax=ax)
    ax.set_ylim(0, 1)
    ax.set_title("Same 1,083 PTBench outputs, two scorers (ours, computed)")
    ax.tick_params(axis="x", rotation=30)
    sns.move_legend(ax, "upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def toolspectrum_section() -> tuple[list[str], dict]:
    release = paths.toolspectrum_dir()
    if release is None or not (release / "data" / "dataset_persona.json").exists():
        return ["## 3. ToolSpectrum release", "",
                f"Skipped: no release at `{paths.relative(release) if release else None}` "
                "(set `PFC_TOOLSPECTRUM_DIR`).", ""], {}
    lines = ["## 3. ToolSpectrum release: reference baselines (F1)", "",
             f"Read in place from `PFC_TOOLSPECTRUM_DIR` (`{paths.relative(release)}`); nothing is copied.", "",
             "| subset | baseline | APP | API | RP | OP |", "|---|---|---:|---:|---:|---:|"]
    out = {}
    for name in ("persona", "environment", "persona_environment"):
        examples, tools = ts.load(release / "data" / f"dataset_{name}.json")
        for base, outputs in (("oracle (gold rendered)", {e.id: render_json(e.gold) for e in examples}),
                              ("always refuse (null)", {e.id: "null" for e in examples})):
            m = score(examples, outputs, "toolspectrum", tools).metrics
            out[f"{name}/{base}"] = {k: m[k] for k in ("APP", "API", "RP", "OP")}
            lines.append(f"| {name} | {base} | " + " | ".join(f"{m[k]:.3f}" for k in ("APP", "API", "RP", "OP")) + " |")
    return lines + [""], out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(paths.REPORTS))
    args = ap.parse_args(argv)
    from pathlib import Path
    out = Path(args.out)
    t0 = time.perf_counter()
    steps = [("golden cases", lambda: (golden_section(), {})),
             ("PTBench robust vs official", lambda: ptbench_section(paths.FIGURES)),
             ("ToolSpectrum baselines", toolspectrum_section)]
    lines = ["# Reproduction report", "", "Generated by `make reproduce` (`python -m pfc.reproduce`). "
             "All numbers are computed by this repository; none are the papers'.", ""]
    metrics = {}
    for i, (name, fn) in enumerate(steps, 1):
        print(f"[{i}/{len(steps)}] {name}…", file=sys.stderr, flush=True)
        part, m = fn()
        lines += part
        metrics.update(m)
    out.mkdir(parents=True, exist_ok=True)
    (out / "reproduce.md").write_text("\n".join(lines) + "\n")
    (out / "reproduce_metrics.json").write_text(json.dumps(metrics, indent=1, sort_keys=True) + "\n")
    print(f"wrote {paths.relative(out / 'reproduce.md')} and reproduce_metrics.json "
          f"in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
