"""The prompt-layout ablation (issue 18, item 2): what the faster layout costs, paired on the same examples.

For each reference run named in ``pfc.run.reference.LAYOUT_ABLATION`` (PTBench's two user splits
under ``paper``, ToolSpectrum's ``both`` subset under ``prefix``) its ablation run
``layout/<run>-<other layout>`` answered 100 seeded examples of the same data under the other
layout. Both runs are scored on the ids both answered (``pfc.eval.scoring.score``) and compared
with ``pfc.eval.paired.paired_table``: each layout's value, the difference (other layout − the
run's own) with a user-clustered paired bootstrap 95% interval, the unpaired interval beside it
and an exact McNemar p-value for 0/1 metrics.

TRACEBench has no ablation run because both layouts build the same requests there (the tools
follow the history by the chat template's rule; ``pfc.run.prompts.tracebench``): this module
checks that claim on every planned example of the ``tracebench-last_k`` reference run instead of
assuming it, and reports how many requests were compared and how many differed.

It scores and writes ``layout_ablation.json`` / ``.md`` beside ``metrics.json``; it runs no model.
A pair whose ablation run has no rows yet is listed as pending, never as a zero.
"""
from __future__ import annotations

import json
from pathlib import Path

from pfc import benchmarks, paths
from pfc.eval.bootstrap import N_BOOT
from pfc.eval.paired import paired_table
from pfc.eval.scoring import score
from pfc.report.real_models import HEADLINE
from pfc.report import reference
from pfc.report.reference import present
from pfc.run.reference import LAYOUT_ABLATION


def _rows(table) -> list[dict]:
    keep = ("key", "a", "b", "diff", "paired_lo", "paired_hi", "unpaired_lo", "unpaired_hi", "a_only", "b_only",
            "mcnemar_p", "n", "clusters")
    out = []
    for rec in table.to_dict("records"):
        out.append({k: (None if v != v else round(float(v), 6) if isinstance(v, float) else v)
                    for k, v in rec.items() if k in keep})
    return out


def pair(root: Path, base: str, n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """One base run against its ablation run, on the ids both answered; ``pending`` when either lacks rows."""
    other = LAYOUT_ABLATION[base]
    a_dir, b_dir = root / "layout" / f"{base}-{other}", root / base
    entry = {"base": base, "ablation": f"layout/{base}-{other}", "a_layout": other}
    if not all((d / "predictions.jsonl").is_file() and (d / "config.json").is_file() for d in (a_dir, b_dir)):
        return {**entry, "pending": True}
    cfg_a, exs_a, out_a, tools, planned, _ = present(a_dir)
    cfg_b, exs_b, out_b, _, _, _ = present(b_dir)
    entry.update(benchmark=cfg_b["benchmark"], b_layout=cfg_b.get("layout"), planned=planned)
    common = sorted(set(out_a) & set(out_b))
    if not common:
        return {**entry, "pending": True}
    exs = [e for e in exs_a if e.id in set(common)]
    bench = cfg_a["benchmark"]
    keys = {k: benchmarks.get(bench).metric_keys[k] for k in HEADLINE[bench] if k in benchmarks.get(bench).metric_keys}
    users = {e.id: e.user_id for e in exs}
    frames = []
    for outputs in (out_a, out_b):
        rep = score(exs, {i: outputs[i] for i in common}, bench, tools)
        df = rep.per_example.set_index("id").loc[common].reset_index()
        frames.append(df.assign(user_id=df["id"].map(users)))
    table = paired_table(frames[0], frames[1], keys, "user_id", n_boot, seed)
    return {**entry, "pending": False, "n": len(common), "partial": len(common) < planned, "metrics": _rows(table)}


def tracebench_check(root: Path) -> dict:
    """The requests of ``tracebench-last_k``'s planned examples under both layouts: how many differ."""
    from pfc.run.requests import RequestBuilder
    run = root / "tracebench-last_k"
    if not (run / "predictions.jsonl").is_file():
        return {"run": "tracebench-last_k", "pending": True}
    config, _, _, tools, _, _ = present(run)
    planned = set(config.get("ids") or ())
    exs = [e for e in benchmarks.get("tracebench").load(paths.source(config["examples"]), None)[0]
           if not planned or e.id in planned]  # every planned example, answered or not
    built = [RequestBuilder("tracebench", tools, history=config["history"], k=config["k"], layout=lay,
                            sampling=config.get("sampling")) for lay in ("paper", "prefix")]

    def differs(e) -> bool:
        a, b = (rb.answer(e) for rb in built)
        return (a.messages, a.tools) != (b.messages, b.tools)

    differ = sum(differs(e) for e in exs)
    return {"run": "tracebench-last_k", "pending": False, "compared": len(exs), "differ": differ}


def ablation(root: Path | None = None, n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """``{"pairs": [...], "tracebench": {...}}`` for the committed runs (or those under ``root``)."""
    root = Path(root or reference.ROOT)
    return {"pairs": [pair(root, b, n_boot, seed) for b in LAYOUT_ABLATION], "tracebench": tracebench_check(root)}


def _ci(lo, hi) -> str:
    return "–" if lo is None else f"[{lo:+.3f}, {hi:+.3f}]"


def markdown(result: dict) -> str:
    """The ablation as a Markdown report."""
    lines = ["# Prompt-layout ablation (issue 18, item 2)", "",
             "Written by `python -m pfc.report.reference` from the committed reference runs "
             "(`pfc.report.layout_ablation`; numbers computed, never typed in). Model: Qwen2.5-Coder-0.5B "
             "through the `hf` backend (bf16, the papers' sampling). Each ablation run answered 100 seeded "
             "examples of its reference run under the other layout; both are scored on the ids both "
             "answered. Difference = ablation layout − reference layout, with a user-clustered paired "
             "bootstrap 95% interval (the unpaired one beside it) and an exact McNemar p for 0/1 metrics.", ""]
    for p in result["pairs"]:
        lines.append(f"## {p['base']} vs {p['ablation']} (the {p['a_layout']} layout)")
        lines.append("")
        if p["pending"]:
            lines += ["Pending: the ablation run has no rows yet (`python -m pfc.run.reference --only "
                      f"{p['ablation']}`).", ""]
            continue
        part = f", partial: {p['n']} of {p['planned']}" if p["partial"] else ""
        lines += [f"n = {p['n']} paired examples{part}.", "",
                  f"| metric | {p['a_layout']} | {p['b_layout']} | difference | paired 95% CI | unpaired 95% CI "
                  "| McNemar p |", "|---|---:|---:|---:|---|---|---:|"]
        for m in p["metrics"]:
            mp = "–" if m.get("mcnemar_p") is None else f"{m['mcnemar_p']:.3g}"
            lines.append(f"| {m['key']} | {m['a']:.3f} | {m['b']:.3f} | {m['diff']:+.3f} | "
                         f"{_ci(m.get('paired_lo'), m.get('paired_hi'))} | "
                         f"{_ci(m.get('unpaired_lo'), m.get('unpaired_hi'))} | {mp} |")
        lines.append("")
    tb = result["tracebench"]
    lines += ["## TRACEBench", ""]
    if tb["pending"]:
        lines.append("Pending: no `tracebench-last_k` rows to check.")
    else:
        lines.append(f"No ablation run: both layouts build the same requests (the candidate tools follow the "
                     f"history by the chat template's rule). Checked on the {tb['compared']} planned examples of "
                     f"`tracebench-last_k`: {tb['differ']} of {tb['compared']} requests differ, so the "
                     "paired difference is 0 by construction.")
    return "\n".join(lines) + "\n"


def write(root: Path | None = None, out_dir: Path | None = None) -> list[Path]:
    """Write ``layout_ablation.json`` and ``.md`` (default: beside ``metrics.json``)."""
    result = ablation(root)
    out_dir = Path(out_dir or paths.REPORTS / "reference_runs")
    out_dir.mkdir(parents=True, exist_ok=True)
    js, md = out_dir / "layout_ablation.json", out_dir / "layout_ablation.md"
    js.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    md.write_text(markdown(result), encoding="utf-8")
    return [js, md]
