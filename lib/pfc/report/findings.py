"""README's "What the evidence says": a short section generated from the reference report's committed numbers.

:func:`section` reads ``metrics.json`` and ``paired.json`` (``reports/reference_runs/``, written by ``python -m
pfc.report.reference``; ``format_grid.json`` beside them, by ``python -m pfc.report.format_grid --reference``) and says,
pair by pair, A − B with its paired 95% interval and n, printed as ``paired.md`` prints them
(``pfc.report.reference.pairs``: three decimals): which model is better where (the model-size pairs, the swap-user pair
across models), what history retrieval does (the history pairs), what LoRA does on our PTBench's current synthesis (the
LoRA pairs in the model folders), where each model stands against the history-prior rule (the ``rule`` pairs,
``pfc.report.reference.rule``), when each asks or infers (the ask-or-infer entries and the ask-model / ask-prompt pairs,
``pfc.report.reference.ask``), whether that holds in another prompt format (``format_grid.json``, when committed:
:func:`grid_lines`) and beside the papers' printed rows (``pfc.report.paper_results``: theirs, on their data, never
paired), and what the evidence cannot say.
A side is "higher" on a metric only when the printed interval lies wholly above or below zero: one that touches
zero ([+0.000, +0.014]) does not exclude it. :func:`splice` puts the section between README's markers;
``--check`` exits 1 when README's section differs from what would be written. It scores and runs nothing.

    python -m pfc.report.findings            # rewrites README.md's section
    python -m pfc.report.findings --check    # exit 1 when it is stale
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pfc import benchmarks, paths
from pfc.errors import UserError, entry, read_text
from pfc.io import atomic
from pfc.plans.format_grid import cells as grid_cells
from pfc.plans.reference import SWAP_RUN, paired_runs
from pfc.report.reference.pairs import _ci
from pfc.report.reference.run import ROOT

GRID = "format_grid.json"  # the prompt-format grid's committed numbers, when measured
GRID_COMMAND = "python -m pfc.report.format_grid --reference --json reports/reference_runs/format_grid.json"
RULE_RUNS = tuple(r for r in paired_runs() if r != SWAP_RUN)  # the headline runs (the swap-user variants aside)
START, END = "<!-- findings:start -->", "<!-- findings:end -->"
README = paths.ROOT / "README.md"
CANNOT = (
    "- **What it cannot say.** TRACEBench and our PTBench are synthetic (simulated users, generated requests): these "
    "are differences on synthetic users, not on people; only ToolSpectrum is a released dataset. The models are two of "
    "one family ({models}), both small enough for a CPU: \"larger is better\" is one step within one family, not a "
    "law of scale, and larger models may behave otherwise. The two models' chat templates render the tool-instruction "
    "line differently, so the pairs hold the messages fixed, not the token ids: a model difference includes how its "
    "template renders the same messages. Intervals resample users (ToolSpectrum: examples); over fewer than 10 users "
    "(PTBench's untrained users: 6) they are rough.")


def side(m: dict) -> int:
    """1 when a metric's printed paired interval lies above zero, -1 below, 0 when it holds or touches zero."""
    lo, hi = (float(format(m[k], "+.3f")) for k in ("paired_lo", "paired_hi"))
    return 1 if lo > 0 else -1 if hi < 0 else 0


def pair_line(p: dict, label: str, a: str, b: str) -> str:
    """One pair as a bullet: where A is higher, where B is, where the interval does not exclude zero."""
    if p.get("pending"):
        return f"  - {label}: pending (no rows in both runs yet)."
    ms = [m for m in p["metrics"] if m.get("paired_lo") is not None]
    users = ms[0]["clusters"] if ms else p["n"]
    n = f"n = {p['n']}" + (f", {users} users" if users < p["n"] else "") + \
        (f" of {p['planned']} planned, partial" if p.get("partial") else "") + ("; rough intervals" if users < 10 else "")
    cells = {s: ", ".join(f"{m['key']} {m['diff']:+.3f} {_ci(m['paired_lo'], m['paired_hi'])}" for m in ms
                          if side(m) == s) for s in (1, -1, 0)}
    said = [f"{a} higher on {cells[1]}" if cells[1] else "", f"{b} higher on {cells[-1]}" if cells[-1] else "",
            f"the interval does not exclude zero on {cells[0]}" if cells[0] else ""]
    return f"  - {label} ({n}): " + "; ".join(s for s in said if s) + "."


def _size(model: str) -> str:
    return model.split(" on ")[0].split("+")[0].rsplit("-", 1)[-1].upper()  # qwen2.5-coder-1.5b -> 1.5B


def section(metrics: dict, paired: dict, grid: dict | None = None) -> str:
    """The section's Markdown (heading to last line, newline-terminated) from the committed files (``grid``: the
    prompt-format grid's, None before it is measured)."""
    ps = paired["pairs"]
    size = [p for p in ps if p["question"] == "model" or p["question"] == "personalization"
            and _size(p["a_side"]) != _size(p["b_side"])]
    lines = ["## What the evidence says", "",
             "Generated by `python -m pfc.report.findings` from `reports/reference_runs/metrics.json`, `paired.json` and "
             "`format_grid.json` "
             "(numbers as `paired.md` prints them; a test keeps this section equal to them): A − B with its paired 95% "
             "interval and n paired examples. A side is higher only where the interval excludes zero; every metric is "
             "higher-is-better but swap-user `sensitivity` (the share of answers that changed).", "",
             "- **Which model is better where** (Qwen2.5-Coder, larger − smaller, same engine, prompts and settings):"]
    for p in size:
        a, b = (p.get(f"{s}_model") or p.get(f"{s}_side") for s in "ab")
        run = p["a"].split("/", 1)[1] if "/" in p["a"] else p["a"]
        lines.append(pair_line(p, f"`{run}`" + (", personalization" if p["question"] != "model" else ""),
                               _size(a), _size(b)))
    lines.append("- **What history retrieval does** (TRACEBench: the 10 records most like the request − the last 10):")
    for p in (p for p in ps if p["question"] == "history"):
        lines.append(pair_line(p, f"{_size(p['a_model'])} on `{p['a_backend']}`", "retrieved", "last_k"))
    lines.append("- **What LoRA does on our PTBench** (adapter − base model, each model folder's runs):")
    for p in (p for p in ps if p["question"] == "lora" and "/" in p["a"]):
        folder, run = p["b"].split("/", 1)
        version = (metrics.get(p["b"]) or {}).get("synthesis")
        label = f"{_size(folder.rsplit('-', 1)[0])} `{run}`" + (f", {version}" if version else "")
        lines.append(pair_line(p, label, "LoRA", "base"))
    lines.append("- **Against the history-prior rule** (model − the built-in `history-prior` baseline on the same ids; "
                 "no model, it reads the user's whole history where the models see the prompt's records):")
    for p in (p for p in ps if p["question"] == "rule" and p["a"].rsplit("/", 1)[-1] in RULE_RUNS):
        folder, run = p["a"].split("/", 1)
        size = _size(folder.rsplit("-", 1)[0])
        lines.append(pair_line(p, f"{size} `{run}`", size, "the rule"))
    lines += asks(metrics, ps) + grid_lines(grid, [p for p in ps if p["question"] == "rerun"]) + papers(metrics)
    models = sorted({str(e.get("model")).split("+")[0] for e in metrics.values() if e.get("model")})
    return "\n".join(lines + [CANNOT.format(models=", ".join(models))]) + "\n"


ASK_SAID = (("guess_rate", "guess rate", "ask items"), ("over_ask", "over-ask", "originals"),
            ("tool_hallucination", "tool hallucination", "cannot items"), ("discrimination", "discrimination", "ask items"),
            ("action_accuracy", "action accuracy", "first-turn items"),
            ("two_turn_success", "two-turn success", "first-turn items"))


def ask_line(name: str, e: dict) -> str:
    """One model folder's ask-or-infer entry of ``metrics.json`` (``pfc.report.reference.ask``) as a bullet."""
    runs = e.get("runs") or {}
    due = [s for s, r in runs.items() if r is None or r["n"] < r["planned"]]
    state = f", partial: {', '.join(due)} to come" if e.get("partial") and due else ", partial" if e.get("partial") else ""
    cells = []
    for key, label, on in ASK_SAID:
        m = (e.get("action") or {}).get(key) or {}
        if m.get("value") is not None:
            ci = "" if m.get("lo") is None else f" [{m['lo']:.3f}, {m['hi']:.3f}]"
            cells.append(f"{label} {m['value']:.3f}{ci} ({m['items']} {on})")
    first = sum(r["n"] for s, r in runs.items() if r and s != "followup")  # e["n"] counts the follow-up turns too
    follow = f", {runs['followup']['n']} follow-up turns" if runs.get("followup") else ""
    return f"  - {_size(e['model'])} (`{name}`, {first} first-turn items{follow}{state}): " + ", ".join(cells) + "."


def asks(metrics: dict, ps: list[dict]) -> list[str]:
    """The ask-or-infer section: each model folder's entry, then the ask-model and ask-prompt pairs."""
    lines = ["- **When to ask or infer** (TRACEBench's ask-or-infer items, the ask-allowed prompt: an ask item's value "
             "was removed from the request and the history cannot supply it, so a call guesses it; a cannot item no "
             "offered tool serves; guess rate, over-ask and tool hallucination are lower-is-better):"]
    lines += [ask_line(k, e) for k, e in sorted(metrics.items()) if e.get("kind") == "ask-or-infer"]
    for p in (p for p in ps if p["question"] == "ask-model"):
        lines.append(pair_line(p, "larger − smaller, pooled items", _size(p["a_model"]), _size(p["b_model"])))
    for p in (p for p in ps if p["question"] == "ask-prompt"):
        size = _size(p["a"].split("/", 1)[0].rsplit("-", 1)[0])
        lines.append(pair_line(p, f"{size}, ask-allowed − standard prompt on the originals", "ask-allowed", "standard"))
    return lines


def _ours(metrics: dict, run: str, key: str, subset: str | None = None) -> str:
    """Each model folder's committed value of ``key`` on ``run`` (with its 95% interval), e.g. ``0.5B 0.083
    [0.060, 0.110]``; ``subset``: a ToolSpectrum subset's."""
    out = []
    for name, e in sorted(metrics.items()):
        if name.endswith(f"-openvino/{run}") and not e.get("partial"):
            v = (e["by_subset"][subset] if subset else e["robust"]).get(key)
            if v:
                out.append(f"{_size(e['model'])} {v[0]:.3f} [{v[1]:.3f}, {v[2]:.3f}]")
    return ", ".join(out) or "no run yet"


def papers(metrics: dict) -> list[str]:
    """The papers' printed rows nearest ours beside our committed values, a line per benchmark whose report section
    says which (its ``paper_row(ours)``; ``ours(run, key, subset=None)``: each model's value): on their data, so side by
    side, never paired."""
    rows = [f"  - {sec.paper_row(lambda run, key, subset=None: _ours(metrics, run, key, subset))}."
            for sec in (benchmarks.get(n).part("section") for n in benchmarks.NAMES) if hasattr(sec, "paper_row")]
    return ["- **Beside the papers' printed rows** (`data/paper_results/`: their models on their data — TRACEBench's "
            "private queries, PTBench's test set, ToolSpectrum's released samples — so side by side, never paired; ours "
            "as `metrics.json` holds them, 95% intervals):", *rows]


def _ci3(lo, hi) -> str:
    return "" if lo is None else f" [{lo:.3f}, {hi:.3f}]"


def _gap_text(rows: list[dict], summary: dict) -> str:
    """Each cell's model gap − the default's (``stability``'s ``gap_change``), or "" for a grid without it."""
    moved = [r for r in rows if "gap_change" in r]
    if "gap_changes" not in summary:
        return ""
    return (f"; the gap − the default's gap, paired, with an interval excluding zero in {summary['gap_changes']} of "
            f"{len(moved)} (" + ", ".join(f"{r['cell']} {r['gap_change']:+.3f} "
                                          f"{_ci(r['gap_change_lo'], r['gap_change_hi'])}" for r in moved) + ")")


def grid_lines(grid: dict | None, reruns: list[dict] = ()) -> list[str]:
    """The prompt-format grid (``format_grid.json``: ``python -m pfc.report.format_grid --reference``): each model's
    overall accuracy in the cells it has finished, its spread across them (BFCL's SD and max-Δ) and each cell − default
    with the requests that changed (a cluster interval on a handful of them is no finding alone), larger − smaller in
    every cell both have (the default's sign kept? the interval excluding zero?), whether the history-prior rule beats
    every model in every cell; the cells still to run named. ``reruns``: ``paired.json``'s re-run pairs (the default cell
    − the same model's ``tracebench-last_k`` on the same ids: what a re-run alone moves)."""
    head = ("- **Does it hold in another prompt format?** (TRACEBench's prompt-format grid, `format_grid.json`: the same "
            "200 requests, 50 per vagueness level, under 7 prompts that change one axis of the default at a time; "
            "overall accuracy, robust rules, user-clustered 95% intervals; a cell counts once its run answered all 200)")
    if not grid:
        return [head + ": not measured yet."]
    said_rerun = [pair_line(p, f"{_size(p['a_model'])} re-run: the default cell − the same "
                            "model's `tracebench-last_k` on the same requests, batch size "
                            f"{p.get('a_batch_size')} vs {p.get('b_batch_size')}", "the default cell", "last_k")
                  for p in reruns if not p.get("pending")]
    order = [c for c, _, _ in grid_cells()]
    real = [m for m in grid["models"] if m not in grid.get("baselines_identical", {})]
    lines = [head + ":"]
    fam = grid.get("multiplicity", {}).get("size")
    for m in real:
        acc = {a["cell"]: a for a in grid["models"][m]["accuracy"] if a["key"] == "overall"}
        todo = [c for c in order if c not in acc]
        sp = grid["models"][m].get("spread", {}).get("overall")
        spread = (f"; across them SD {sp['sd']:.3f}{_ci3(sp['sd_lo'], sp['sd_hi'])}, max-Δ {sp['max_delta']:.3f}"
                  f"{_ci3(sp['max_delta_lo'], sp['max_delta_hi'])}") if sp else ""
        cells = ", ".join(f"{c} {acc[c]['value']:.3f}{_ci3(acc[c]['lo'], acc[c]['hi'])}" for c in order if c in acc)
        me = {e["cell"]: e for e in grid["models"][m].get("main_effects", []) if e["key"] == "overall"}
        effects = ("; each cell − default, paired (requests right only in the cell vs only in the default, exact "
                   f"McNemar p, Holm's over the grid's {fam} overall main effects): " + ", ".join(
                       f"{c} {me[c]['diff']:+.3f} {_ci(me[c]['paired_lo'], me[c]['paired_hi'])} "
                       f"({me[c]['a_only']} vs {me[c]['b_only']}, p {me[c]['mcnemar_p']:.2g}, Holm {me[c]['holm_p']:.2g})"
                       for c in order if c in me)) if me else ""
        lines.append(f"  - {_size(m)}, {len(acc)} of {len(order)} cells{' (to run: ' + ', '.join(todo) + ')' if todo else ''}"
                     f": {cells}{spread}{effects}.")
    st = grid.get("stability")
    if st:
        rows = sorted(st["rows"], key=lambda r: order.index(r["cell"]) if r["cell"] in order else len(order))
        s = st["summary"]
        lines.append(f"  - {_size(st['b'])} − {_size(st['a'])}, overall, paired, in the {s['cells']} cell"
                     f"{'s' * (s['cells'] != 1)} both have: the default's sign kept in {s['same_sign']}, the interval "
                     f"excluding zero in {s['excludes_zero']} (" + ", ".join(
                         f"{r['cell']} {r['diff']:+.3f} {_ci(r['paired_lo'], r['paired_hi'])}" for r in rows) + ")"
                     + _gap_text(rows, s) + ".")
    bb = grid.get("baseline_beats")
    if bb:
        short = [f"{_size(r['model'])} {r['cell']}" for r in bb["rows"] if not r["beats"]]
        lines.append(f"  - The `{bb['baseline']}` rule (it reads no prompt: the same answers in every cell) beats "
                     f"every model in every cell measured: {'yes' if bb['every_cell'] else 'no'} "
                     f"({len(bb['rows'])} model-cell{'s' * (len(bb['rows']) != 1)}" + (f"; not in {', '.join(short)}" if short else "") + ").")
    return lines + said_rerun


def splice(readme: str, body: str) -> str:
    """``readme`` with ``body`` between its findings markers (each on a line of its own)."""
    if readme.count(START) != 1 or readme.count(END) != 1 or readme.index(START) > readme.index(END):
        raise UserError(f"expected one {START} line followed by one {END} line", file="README.md")
    head, rest = readme.split(START, 1)
    return f"{head}{START}\n{body}{END}{rest.split(END, 1)[1]}"


def _load(root: Path) -> tuple[dict, dict, dict | None]:
    out = []
    for name, command in (("metrics.json", "python -m pfc.report.reference"),
                          ("paired.json", "python -m pfc.report.reference"), (GRID, GRID_COMMAND)):
        if name == GRID and not (root / name).exists():
            out.append(None)  # the grid not measured yet
            continue
        try:
            out.append(json.loads((root / name).read_text(encoding="utf-8")))
        except (OSError, ValueError) as e:
            raise UserError(f"unreadable ({type(e).__name__}): run {command}", file=paths.relative(root / name)) from None
    return out[0], out[1], out[2]


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pfc.report.findings", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when README's section differs; write nothing")
    ap.add_argument("--root", type=Path, default=ROOT, help="folder of metrics.json and paired.json")
    ap.add_argument("--readme", type=Path, default=README)
    args = ap.parse_args(argv)
    text = read_text(args.readme)  # a missing or non-UTF-8 README: one line naming it
    try:
        body = section(*_load(args.root))
    except (KeyError, TypeError) as e:  # a hand-edited report, or one another version wrote
        raise UserError(f"a report lacks the field {e}: re-make them (python -m pfc.report.reference; {GRID_COMMAND})",
                        file=paths.relative(args.root)) from None
    new = splice(text, body)
    if args.check:
        if new != text:
            print(f"{paths.relative(args.readme)}: its findings section differs from {paths.relative(args.root)}'s "
                  "metrics.json and paired.json: run python -m pfc.report.findings", file=sys.stderr)
        return int(new != text)
    if new != text:
        atomic.write_text(args.readme, new)
    return 0


def main(argv=None) -> int:
    """The command line through the one error path (``pfc.errors.entry``)."""
    return entry("python -m pfc.report.findings", _main, argv)


if __name__ == "__main__":
    sys.exit(main())
