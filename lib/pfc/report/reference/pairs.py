"""Paired comparisons of the committed reference runs, each on the ids both runs answered.

Seven questions, six of them a pair of run directories under ``reports/reference_runs/`` (:func:`pairs`):

- **prompt layout** (issue 18, item 2): each ``layout/<run>-<other layout>`` ablation run (100 seeded examples of the
  run under the other layout; ``pfc.plans.reference.layout_ablation``) against its run;
- **history mode**: ``tracebench-retrieved`` against ``tracebench-last_k`` (the same 400 examples), in each model's
  folder (the 0.5B on ``hf`` at the root, each model on ``openvino`` in its own): does retrieval help either size;
- **LoRA**: ``ptbench-<split>-lora`` against the base model's ``ptbench-<split>`` in each model's folder (issue 19's
  base vs LoRA at the root, on the first synthesis; issue 38's on the second, in ``<model>-openvino``);
- **model size**: each run of ``pfc.plans.reference.paired_runs`` in the larger model's folder against the same run in
  the smaller model's, on one engine (``pfc.plans.reference.MODEL_PAIRS``: Qwen2.5-Coder-1.5B − 0.5B on ``openvino``);
- **engine**: one model's rows on two engines (``ENGINE_PAIRS``: the 0.5B on ``openvino`` − on ``hf``), a check that the
  faster engine answers as the reference one does; PTBench's ``hf`` runs answered the earlier synthesis, so those pairs
  say "not compared" (the runs' examples hashes differ) rather than pair them;
- **re-run**: the prompt-format grid's ``format/tracebench-default`` cell (issue 65: today's prompt and settings on 200 of
  the 400) against the same model's ``tracebench-last_k`` on those 200, in each model folder of ``MODEL_PAIRS``: the
  runs differ in batch size alone (the engine batches other requests together), so this is what a re-run moves, the
  floor under any format effect;
- **personalization**: the same sides' context following, request faithfulness and sensitivity on the swap-user
  variants, paired per variant (``pfc.report.reference.personalization``: each side is two runs).

Both runs are scored on the ids both answered (``pfc.eval.scoring.score``: a partial run is compared on its finished
rows, never counted wrong on the others) and compared with ``pfc.eval.paired.paired_table``: each run's value, the
difference (first − second) with a user-clustered paired bootstrap 95% interval, the unpaired interval beside it and an
exact McNemar p-value for 0/1 metrics. A pair with a run missing is listed as pending, never as a zero.

TRACEBench has no layout-ablation run because both layouts build the same requests (the tools follow the history by the
chat template's rule; ``pfc.benchmarks.tracebench.prompts``): this module checks that claim on every planned example of
``tracebench-last_k`` instead of assuming it.

It scores and writes ``paired.json`` / ``paired.md`` beside ``metrics.json``; it runs no model.
"""
from __future__ import annotations

import json
from pathlib import Path

from pfc import benchmarks, paths
from pfc.eval.bootstrap import N_BOOT
from pfc.eval.paired import paired_table, records
from pfc.eval.scoring import score
from pfc.report.reference import ask as ask_report
from pfc.report.reference import diffs
from pfc.report.reference import personalization as personalization_pairs
from pfc.report.reference import rule as rule_pairs
from pfc.report.reference import run as reference
from pfc.report.reference.run import examples_hash, has_rows, present
from pfc.io import atomic
from pfc.plans.evidence import EVIDENCE_BENCHMARK
from pfc.plans.format_grid import run_name
from pfc.plans.reference import (ENGINE_PAIRS, HISTORY_RUNS, MODEL_PAIRS, ablation_run, command, folder, layout_ablation,
                                 lora_pairs, paired_runs)
from pfc.io.reuse import reading_once
from pfc.run.requests import RequestBuilder


RERUN_RUN = run_name("default")  # the format grid's default cell: today's prompt again, on 200 of the 400
LAYOUTS = f"{EVIDENCE_BENCHMARK}_layouts"  # the result's check that both layouts build the same requests there


def _sides() -> list[tuple[str, str]]:
    """Every (model, engine) the model and engine questions name, each once, in order: the root's first."""
    return list(dict.fromkeys([(m, e) for m, ea, eb in ENGINE_PAIRS for e in (eb, ea)] + _model_sides()))


def _model_sides() -> list[tuple[str, str]]:
    """The (model, engine) sides of ``MODEL_PAIRS``, the smaller first: the folders holding the format grid's runs."""
    return list(dict.fromkeys((m, eng) for a, b, eng in MODEL_PAIRS for m in (b, a)))


def _places() -> dict[str, tuple[str, str, str]]:
    """``{path under the root: (run, model, backend)}`` of every run the model, engine and LoRA questions compare
    (where the plan puts each model's runs, ``pfc.plans.reference.folder``)."""
    return {f"{folder(m, e)}/{r}".lstrip("/"): (r, m, e) for m, e in _sides()
            for r in (*paired_runs(), *(r for p in lora_pairs() for r in p), RERUN_RUN)}


def pairs() -> list[tuple[str, str, str]]:
    """``(question, run A, run B)``: A − B is reported. Runs are named by their path under the root."""
    def at(model: str, backend: str, run: str) -> str:
        return f"{folder(model, backend)}/{run}".lstrip("/")

    return ([("layout", ablation_run(b), b) for b in layout_ablation()]
            + [("history", at(m, e, HISTORY_RUNS["retrieved"]), at(m, e, HISTORY_RUNS["last_k"])) for m, e in _sides()]
            + [("lora", *(at(m, e, r) for r in p)) for m, e in _sides() for p in lora_pairs()]
            + [("model", at(a, eng, r), at(b, eng, r)) for a, b, eng in MODEL_PAIRS for r in paired_runs()]
            + [("engine", at(m, ea, r), at(m, eb, r)) for m, ea, eb in ENGINE_PAIRS for r in paired_runs()]
            + [("rerun", at(m, eng, RERUN_RUN), at(m, eng, HISTORY_RUNS["last_k"])) for m, eng in _model_sides()])


def pair(root: Path, question: str, a: str, b: str, n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """Run ``a`` against run ``b`` on the ids both answered; ``pending`` when either lacks rows; refused
    (``other_data``) when the two answered different builds (PTBench's two syntheses share ids, not examples)."""
    a_dir, b_dir = root / a, root / b
    entry = {"question": question, "a": a, "b": b}
    if not all(has_rows(d) for d in (a_dir, b_dir)):
        return {**entry, "pending": True}
    if examples_hash(a_dir) != examples_hash(b_dir):
        return {**entry, "pending": False, "other_data": True}
    cfg_a, exs_a, out_a, tools, planned, _ = present(a_dir)
    cfg_b, exs_b, out_b, _, _, _ = present(b_dir)
    entry.update(benchmark=cfg_b["benchmark"], planned=planned,
                 **{f"{x}_{k}": c.get(k) for x, c in (("a", cfg_a), ("b", cfg_b))
                    for k in ("layout", "history", "model", "backend", "batch_size")})
    common = sorted(set(out_a) & set(out_b))
    if not common:
        return {**entry, "pending": True}
    exs = [e for e in exs_a if e.id in set(common)]
    bench = cfg_a["benchmark"]
    adapter = benchmarks.get(bench)
    keys = {k: adapter.scoring.metric_keys[k] for k in adapter.reporting.headline if k in adapter.scoring.metric_keys}
    users = {e.id: e.user_id for e in exs}
    frames = []
    for outputs in (out_a, out_b):
        rep = score(exs, {i: outputs[i] for i in common}, bench, tools)
        df = rep.per_example.set_index("id").loc[common].reset_index()
        frames.append(df.assign(user_id=df["id"].map(users)))
    table = paired_table(frames[0], frames[1], keys, "user_id", n_boot, seed)
    return {**entry, "pending": False, "n": len(common), "partial": len(common) < planned, "metrics": records(table)}


def tracebench_check(root: Path) -> dict:
    """The requests of ``tracebench-last_k``'s planned examples under both layouts: how many differ."""
    name = HISTORY_RUNS["last_k"]
    run = root / name
    if not (run / "predictions.jsonl").is_file():
        return {"run": name, "pending": True}
    config, _, _, tools, _, _ = present(run)
    planned = set(config.get("ids") or ())
    exs = [e for e in benchmarks.get(config["benchmark"]).scoring.load(paths.source(config["examples"]), None)[0]
           if not planned or e.id in planned]  # every planned example, answered or not
    built = [RequestBuilder(config["benchmark"], tools, history=config["history"], k=config["k"], layout=lay,
                            sampling=config.get("sampling")) for lay in ("paper", "prefix")]

    def differs(e) -> bool:
        a, b = (rb.answer(e) for rb in built)
        return (a.messages, a.tools) != (b.messages, b.tools)

    differ = sum(differs(e) for e in exs)
    return {"run": name, "pending": False, "compared": len(exs), "differ": differ}


def compute(root: Path | None = None, n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """``{"pairs": [...], "tracebench_layouts": {...}}`` for the committed runs (or those under ``root``)."""
    root = Path(root or reference.ROOT)
    with reading_once():  # both runs of a pair, and every pair on one build, read and hash its examples once
        return {"pairs": [pair(root, *p, n_boot=n_boot, seed=seed) for p in pairs()]
                + personalization_pairs.compute(root, n_boot, seed) + ask_report.pairs(root, n_boot, seed)
                + rule_pairs.pairs(root, pair, n_boot, seed),
                LAYOUTS: tracebench_check(root)}


def _ci(lo, hi) -> str:
    return "–" if lo is None else f"[{lo:+.3f}, {hi:+.3f}]"


TITLES = {"layout": "Prompt layout (issue 18, item 2): the other layout − the run's own",
          "history": "History mode: retrieved − last_k",
          "lora": "LoRA − base model (the top-level pairs answered PTBench's first synthesis, ptool-v1, the model "
                  "folders' the second, ptool-v2; each adapter was trained on its synthesis' training split)",
          "model": "Model size: the larger model − the smaller, same engine and settings",
          "personalization": "Personalization under swapped users: one side − the other, on the same variants",
          "engine": "Engine: one model's rows on two engines, same prompts and settings",
          "rerun": "Re-run (issue 65): the format grid's `default` cell − the same model's `tracebench-last_k` on the "
                   "200 ids both answered: the same prompts and settings in another batch size, so what a re-run "
                   "alone moves (the floor under a format effect)",
          "rule": "Against the history-prior rule: each model − the built-in `history-prior` baseline (no model; it "
                  "reads the user's whole history) on the same ids (`pfc.report.reference.rule`)",
          "ask-model": "Ask or infer (issue 64), model size: the larger model − the smaller on the pooled ask-or-infer "
                       "sets (originals, ask and cannot variants, follow-up turns; the ask-allowed prompt)",
          "ask-prompt": "Ask or infer, prompt: ask-allowed − standard prompt on the same originals (what allowing a "
                        "question costs in accuracy)"}
WHAT = {"layout": "layout", "history": "history", "lora": "model", "model": "model", "engine": "backend",
        "rerun": "batch_size",
        "personalization": "side", "rule": "model", "ask-model": "model", "ask-prompt": "prompt"}
# what a section's tables measure, where their rows alone do not say
NOTES = {"personalization": (
    "Each side is a model on an engine: its `tracebench-last_k` run on the originals and its swap-user run on their "
    "variants (`pfc.report.reference.personalization`; the metrics of notebook 08 and `pfc personalize`), scored on the "
    "variants that all four runs answered. `context_following`: of the app choices and history-sourced values the "
    "other user's context should change, the share the answer moved to; `request_faithfulness`: of the values "
    "stated in the request and right on the original, the share still right; `sensitivity`: variants whose answer "
    "changed (McNemar on those). Users resampled together for both sides.")}


def _command(run: str) -> str:
    """The command that makes (or resumes) a pending run named by its path under the root: the plan's own
    (``pfc.plans.reference.command``) for the model and engine the pair compares there."""
    return command(*_places().get(run, (run,)))


DIFFABLE = diffs.SIDED  # questions whose sides are two run directories
MIN_USERS = 10  # fewer users than this: a user-clustered bootstrap interval is flagged as rough (it resamples a handful)


def _table(p: dict) -> list[str]:
    if p.get("other_data"):
        return [f"`{p['a']}` vs `{p['b']}`: not compared (the two runs answered different builds of the data: "
                "their identities' examples hashes differ).", ""]
    if p["pending"] and "commands" in p:  # an ask pair names the runs it lacks (pfc.report.reference.ask)
        return [f"`{p['a']}` vs `{p['b']}`: pending (a side has no rows yet; "
                + ", ".join(f"`{c}`" for c in p["commands"]) + ").", ""]
    if p["pending"]:  # the commands of every run the pair reads (a personalization side reads two)
        runs = [p["a"], p["b"], *p.get("originals", ())]
        return [f"`{p['a']}` vs `{p['b']}`: pending (no rows in {'all four' if len(runs) > 2 else 'both'} runs yet; "
                + ", ".join(f"`{_command(r)}`" for r in runs) + ").", ""]
    part = f", partial: {p['n']} of {p['planned']} planned" if p["partial"] else ""
    if p.get("commands"):  # an ask pair with runs still to come
        part += "; still to run: " + ", ".join(f"`{c}`" for c in p["commands"])
    what = WHAT[p["question"]]
    lines = [f"`{p['a']}` ({p.get('a_' + what)}) − `{p['b']}` ({p.get('b_' + what)}), n = {p['n']} paired "
             f"examples{part}.", "",
             "| metric | A | B | A − B | paired 95% CI | unpaired 95% CI | users | A only | B only | McNemar p |",
             "|---|---:|---:|---:|---|---|---:|---:|---:|---:|"]
    few = False
    for m in p["metrics"]:
        mp = "–" if m.get("mcnemar_p") is None else f"{m['mcnemar_p']:.3g}"
        only = [("–" if m.get(k) is None else m[k]) for k in ("a_only", "b_only")]
        users = m.get("clusters")
        shown = users is None or users >= MIN_USERS
        few |= not shown
        cis = [_ci(m.get(f"{w}_lo"), m.get(f"{w}_hi")) + ("" if shown else " †") for w in ("paired", "unpaired")]
        a, b, d = ("–" if m[k] is None else format(m[k], f) for k, f in (("a", ".3f"), ("b", ".3f"), ("diff", "+.3f")))
        lines.append(f"| {m['key']} | {a} | {b} | {d} | {cis[0]} | {cis[1]} "
                     f"| {'–' if users is None else users} | {only[0]} | {only[1]} | {mp} |")
    if few:
        lines += ["", f"† Intervals resample users: over fewer than {MIN_USERS} users they are rough (a handful of users "
                  "resampled), read the McNemar p instead. A run in progress covers few users: it answers user by user."]
    if p["question"] in DIFFABLE:  # the discordant examples themselves, side by side (pfc.report.diff)
        a, b = (paths.relative(d) for d in diffs.sides(p, reference.ROOT))
        lines += ["", f"The examples behind A only / B only: [diff page]({diffs.page_dir(p['a'], p['b'])}/diff.html) "
                      f"(`make diffs` writes every pair's; this one alone: `pfc diff {a} {b}`)."]
    return lines + [""]


def markdown(result: dict) -> str:
    """The comparisons as a Markdown report."""
    lines = ["# Paired comparisons of the reference runs", "",
             "Written by `python -m pfc.report.reference` from the committed reference runs "
             "(`pfc.report.reference.pairs`; numbers computed, never typed in). Runs at the top of "
             "`reports/reference_runs/`: Qwen2.5-Coder-0.5B through the `hf` backend (bf16); runs in a folder "
             "`<model>-<backend>/`: that model on that engine; all with the papers' sampling. Each pair is scored "
             "on the ids both runs "
             "answered. A − B with a user-clustered paired bootstrap 95% interval (the unpaired one beside it) "
             "and an exact McNemar p on the discordant examples (A only / B only) for 0/1 metrics. `users`: the "
             "clusters the intervals resample; ToolSpectrum's examples carry no user (each has a persona of its own), "
             "so there each example is its own cluster.", ""]
    for q, title in TITLES.items():
        lines += [f"## {title}", ""] + ([NOTES[q], ""] if q in NOTES else [])
        for p in result["pairs"]:
            if p["question"] == q:
                lines += _table(p)
        if q == "layout":
            tb = result[LAYOUTS]
            lines += (["TRACEBench: pending (no `tracebench-last_k` run to check)."] if tb["pending"] else
                      [f"TRACEBench has no ablation run: both layouts build the same requests (the candidate tools "
                       f"follow the history by the chat template's rule). Checked on the {tb['compared']} planned "
                       f"examples of `tracebench-last_k`: {tb['differ']} requests differ, so the paired difference "
                       "is 0 by construction."]) + [""]
    return "\n".join(lines)


def frame(result: dict):
    """The finished pairs as one long table (question, A, B, n, metric, A, B, A − B, intervals, users, McNemar p;
    an interval over fewer than ``MIN_USERS`` users flagged †)."""
    import pandas as pd
    def ci(m, w):
        few = m.get("clusters") is not None and m["clusters"] < MIN_USERS
        return _ci(m.get(f"{w}_lo"), m.get(f"{w}_hi")) + (" †" if few else "")
    rows = [{"question": p["question"], "A": p["a"], "B": p["b"], "n": p["n"], "metric": m["key"],
             "value A": m["a"], "value B": m["b"], "A - B": m["diff"], "paired 95% CI": ci(m, "paired"),
             "unpaired 95% CI": ci(m, "unpaired"), "users": m.get("clusters"), "McNemar p": m.get("mcnemar_p")}
            for p in result["pairs"] if not p["pending"] and not p.get("other_data") for m in p["metrics"]]
    return pd.DataFrame(rows)


def write(root: Path | None = None, out_dir: Path | None = None) -> list[Path]:
    """Write ``paired.json`` and ``paired.md`` (default: beside ``metrics.json``)."""
    result = compute(root)
    out_dir = Path(out_dir or paths.REPORTS / "reference_runs")
    out_dir.mkdir(parents=True, exist_ok=True)
    js, md = out_dir / "paired.json", out_dir / "paired.md"
    atomic.write_text(js, json.dumps(result, indent=1, sort_keys=True) + "\n")
    atomic.write_text(md, markdown(result))
    return [js, md]
