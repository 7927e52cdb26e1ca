"""``make reproduce``: the main job on the embedded default data; writes reports/ and figures/.

(1) TRACEBench built end to end on the embedded default (10 simulated users, seed 0) into
``data/benchmarks/tracebench``, its statistics beside the paper's, and two reference runs
scored per vagueness level; (2) every bundled, hand-computed golden case; (3) the PTBench
fixture scored the robust way and the published evaluator's way; (4) on the ToolSpectrum
release, when configured, reference baselines per subset. Every number here is computed,
except those labelled as the paper's.

    python -m pfc.report.reproduce [--out reports]
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from pfc import paths
from pfc.benchmarks import toolspectrum as ts
from pfc.data.build import build_tracebench
from pfc.schema import Example, Tool
from pfc.eval.scoring import score, score_files

PT_KEYS = ["format", "platforms", "tool_names", "tool_param_names", "tool_param_values",
           "query_params", "profile_params", "overall"]


BASELINES = ("oracle", "query-oracle", "history-prior", "no-history", "random")


def tracebench_section(fig_dir) -> tuple[list[str], dict]:
    from pfc.run.backends import Request, get
    from pfc.data.build import most_frequent_app
    from pfc.schema import load_examples, load_tools
    out = paths.BENCHMARKS / "tracebench"
    t0 = time.perf_counter()
    st = build_tracebench(out, progress=False)
    build_s = time.perf_counter() - t0
    paper = json.loads((paths.PAPER_RESULTS / "tracebench.json").read_text())
    lines = ["## 1. TRACEBench on the embedded default", "",
             f"Built by `python -m pfc build tracebench --out {paths.relative(out)}` (simulated logs, 10 users, seed 0) "
             f"in {build_s:.0f} s.", "",
             "| statistic | ours | paper |", "|---|---:|---:|"]
    lines += [f"| {k} | {v} | {paper['table2'][k]} |" for k, v in st["table2"].items()]
    lines += [f"| parameters | {st['parameters']} | {paper['table2']['parameters']} |",
              f"| required parameters | {st['required_parameters']} | {paper['table2']['required_parameters']} |", "",
              "Toolset by scenario (the paper's Table 3 layout; **paper** columns from `data/paper_results/tracebench.json`):",
              "", "| scenario | apps | paper | functions | paper | avg params | paper | avg required | paper |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    theirs = {r["scenario"]: r for r in paper["table3"]}
    for r in st["table3"]:
        t = theirs[r["scenario"]]
        lines.append(f"| {r['scenario']} | " + " | ".join(f"{r[k]} | {t[k]}" for k in
                                                          ("apps", "functions", "avg_params", "avg_required")) + " |")
    drops = {k.split(":", 1)[1]: v for k, v in st["preprocess"].items() if ":" in k}
    pct = lambda d: ", ".join(f"{k} {v:.1%}" for k, v in d.items())  # noqa: E731
    tc = st["tool_choice"]
    lines += ["", "Preprocessing: " + f"{st['preprocess']['calls_kept']} calls kept; dropped " +
              ", ".join(f"{k} {v}" for k, v in drops.items()) + ".", "",
              f"- Queries per vagueness level: {pct(st['share_by_vagueness'])}.",
              f"- History length (records before the anchor; min {st['history_bins']['min']}, max "
              f"{st['history_bins']['max']}): {pct(st['share_by_history_bin'])}.",
              f"- Queries per scenario: {pct(st['share_by_scenario'])}.",
              f"- Gold tools: all {len(st['by_gold_tool'])} of 55 (min {min(st['by_gold_tool'].values())} queries); "
              f"gold apps: {len(st['by_gold_app'])} of 38.",
              "- Personalization labels per query (from its own provenance): "
              + ", ".join(f"{k} {v}" for k, v in st["personalization_mix"].items()) + ".",
              f"- Tool personalization: {tc['queries']} queries; in {tc['share_not_most_frequent']:.1%} the gold app is "
              "not the user's most frequent app for the function (each with earlier same-context calls of that app).", ""]
    examples = load_examples(out / "examples.jsonl")
    tools = load_tools(out / "tools.json")
    runs = {}
    for name in BASELINES:
        backend = get(name, tools=tools, seed=0)
        responses = backend.generate([Request([], None, example=e) for e in examples])
        runs[name] = {e.id: r.text if r.error is None else "" for e, r in zip(examples, responses)}
    levels = list(st["by_vagueness"])
    lines += ["Overall accuracy (TRACEBench eq. 8) by vagueness level for the built-in baselines — not models. "
              "`query-oracle` knows the gold app and function but only the values the query states (the ceiling of a "
              "model that ignores the history); `history-prior` and `no-history` always use every stated value.", "",
              "Scored in the default (robust) mode; the last column scores the same outputs with `--strict` "
              "(exact template with the app named, exact values).", "",
              "| run | " + " | ".join(levels) + " | all | all (strict) |", "|---|" + "---:|" * (len(levels) + 2)]
    metrics = {"tracebench_stats": st}
    for name, outputs in runs.items():
        rep = score(examples, outputs, "tracebench")
        m = rep.metrics
        metrics[f"tracebench/{name}"] = m
        strict = score(examples, outputs, "tracebench", strict=True).metrics["overall"]
        m["strict/overall"] = strict
        lines.append(f"| {name} | " + " | ".join(f"{m[f'vagueness={lv}/overall']:.3f}" for lv in levels)
                     + f" | {m['overall']:.3f} | {strict:.3f} |")
        tool_rows = rep.per_example[rep.per_example["personalization"].fillna("").str.contains("tool")]
        metrics[f"tracebench/{name}"]["tool_personalization/app"] = float(tool_rows["app"].mean())
    tq = [e for e in examples if "tool" in e.meta["personalization"]]
    rule = sum(most_frequent_app(e) == e.gold[0].app for e in tq) / len(tq)
    lines += ["", f"App accuracy on the {len(tq)} tool-personalization queries:", "",
              "| rule / run | app accuracy |", "|---|---:|",
              f"| \"most frequent app\" rule (the user's most used app for the gold function) | {rule:.3f} |",
              f"| history-prior (usual app in the most similar context) | "
              f"{metrics['tracebench/history-prior']['tool_personalization/app']:.3f} |",
              f"| no-history | {metrics['tracebench/no-history']['tool_personalization/app']:.3f} |",
              f"| oracle | {metrics['tracebench/oracle']['tool_personalization/app']:.3f} |", ""]
    metrics["tracebench/most_frequent_app_rule"] = {"tool_personalization/app": rule}
    _level_figure(metrics, runs, levels, fig_dir / "tracebench_reference_by_vagueness.png")
    lines += ["![by vagueness](../figures/tracebench_reference_by_vagueness.png)", ""]
    return lines, metrics


def _level_figure(metrics, runs, levels, path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.4))
    for name in runs:
        m = metrics[f"tracebench/{name}"]
        ax.plot(levels, [m[f"vagueness={lv}/overall"] for lv in levels], marker="o", label=name)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("overall accuracy")
    ax.set_title("TRACEBench embedded default: built-in baselines by vagueness (ours)")
    ax.legend(frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def golden_section() -> list[str]:
    cases = json.loads((paths.GOLDEN / "scoring_cases.json").read_text())
    lines = ["## 2. Hand-computed golden cases", "",
             "Each case's expected numbers were computed by hand (see `tests/golden/scoring_cases.json`).", "",
             "| case | metric | computed | expected |", "|---|---|---:|---:|"]
    for c in cases:
        ex = [Example.from_dict(e) for e in c["examples"]]
        tools = [Tool.from_dict(t, "t") for t in c.get("tools", [])]
        m = score(ex, c["outputs"], c["benchmark"], tools).metrics
        for k, want in c["expected"].items():
            lines.append(f"| {c['name']} | {k} | {m[k]:.4f} | {want:.4f} |")
    lines += ["", "Strict vs robust scoring on hand-computed cases (`tests/golden/strict_cases.json`):", "",
              "| case | mode | metric | computed | expected |", "|---|---|---|---:|---:|"]
    for c in json.loads((paths.GOLDEN / "strict_cases.json").read_text()):
        ex = [Example.from_dict(e) for e in c["examples"]]
        for mode in ("robust", "strict"):
            m = score(ex, c["outputs"], c["benchmark"], strict=mode == "strict").metrics
            for k, want in c[f"expected_{mode}"].items():
                lines.append(f"| {c['name']} | {mode} | {k} | {m[k]:.4f} | {want:.4f} |")
    return lines + [""]


def ptbench_section(fig_dir) -> tuple[list[str], dict]:
    d = paths.GOLDEN / "ptbench_official"
    robust = score_files("ptbench", d, d).metrics
    official = score_files("ptbench", d, d, compat="official").metrics
    lines = ["## 3. PTBench: robust scoring vs the published evaluator's rules", "",
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
        return ["## 4. ToolSpectrum release", "",
                f"Skipped: no release at `{paths.relative(release) if release else None}` "
                "(set `PFC_TOOLSPECTRUM_DIR`).", ""], {}
    lines = ["## 4. ToolSpectrum release: reference baselines (F1)", "",
             f"Read in place from `PFC_TOOLSPECTRUM_DIR` (`{paths.relative(release)}`); nothing is copied.", "",
             "| subset | baseline | APP | API | RP | OP |", "|---|---|---:|---:|---:|---:|"]
    from pfc.report.toolspectrum_report import reference_runs
    out = {}
    for name in ("persona", "environment", "persona_environment"):
        examples, tools = ts.load(release / "data" / f"dataset_{name}.json")
        for base, outputs in reference_runs(examples).items():
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
    steps = [("TRACEBench build on the embedded default", lambda: tracebench_section(paths.FIGURES)),
             ("golden cases", lambda: (golden_section(), {})),
             ("PTBench robust vs official", lambda: ptbench_section(paths.FIGURES)),
             ("ToolSpectrum baselines", toolspectrum_section)]
    lines = ["# Reproduction report", "", "Generated by `make reproduce` (`python -m pfc.report.reproduce`). "
             "All numbers are computed by this repository, except those in columns labelled **paper**, "
             "which come from `data/paper_results/` with their sources.", ""]
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
