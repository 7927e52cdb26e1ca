"""``pfc diff RUN_A RUN_B``: two runs side by side in the browser, on the examples both answered.

:func:`compute` reads both run directories (``pfc.report.reference.run.present``: any ``pfc run`` output, the
data it answered checked against its identity), scores each on the shared ids (``pfc.eval.scoring.score``) and
pairs them (``pfc.eval.paired.paired_table``: A − B with user-clustered intervals, McNemar's A only / B only);
then, for each 0/1 metric, the discordant examples, each with its gold call, both raw answers, the scorer's
per-argument verdicts (``pfc.eval.scoring.example_row``) and the prompt rebuilt from each run's settings
(``pfc.run.requests.RequestBuilder``; a few-shot run's demonstrations drawn from the answered examples).
:func:`page` renders that as one static HTML page, every value from the data escaped, filtered by user and
vagueness with a few lines of plain JavaScript (``?user=``, ``?vag=``, ``?open=<id>`` preset them); :func:`write`
writes ``diff.html`` and ``diff.json`` (the same content). Runs on different data builds, of different
benchmarks or sharing no example are refused (``UserError``). It runs nothing and re-scores nothing on disk.
"""
from __future__ import annotations

import json
from html import escape
from pathlib import Path

from pfc import benchmarks
from pfc.errors import UserError
from pfc.eval.bootstrap import N_BOOT
from pfc.eval.metrics import METRICS
from pfc.eval.paired import paired_table, records
from pfc.eval.scoring import example_row, score
from pfc.io import atomic
from pfc.report.labels import run_label
from pfc.report.reference.run import examples_hash, is_run, present
from pfc.run.requests import RequestBuilder

SIDES = ("a", "b")


def _text(output) -> str:
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, indent=1)


def _gold(ex) -> str:
    if ex.gold is None:
        return "refusal (no call)"
    return "\n".join(f"{g.app}__{g.function} {json.dumps(g.arguments, ensure_ascii=False)}" for g in ex.gold)


def _prompt(cfg: dict, tools, pool, ex) -> str:
    rb = RequestBuilder(cfg["benchmark"], tools, cfg.get("strategy") or "zero_shot", cfg.get("history") or "full",
                        cfg.get("k") or 50, cfg.get("native_tools", True), cfg.get("sampling"), pool,
                        cfg.get("prompt_variant") or "all", cfg.get("layout") or "paper")
    return "\n\n".join(f"[{m['role']}]\n{_text(m.get('content') or '')}" for m in rb.answer(ex).messages)


def _verdicts(cmp) -> list[dict]:
    return [{"function": a.function, "argument": a.argument, "status": a.status, "gold": a.gold,
             "predicted": None if a.status == "missing" else a.pred} for a in cmp.args]


def _metric_keys(adapter, wanted) -> dict:
    keys = adapter.scoring.metric_keys
    unknown = [m for m in wanted or () if m not in keys]
    if unknown:
        raise UserError(f"--metric {unknown[0]!r} is not a metric of {adapter.name} (one of: {', '.join(keys)})")
    return {k: keys[k] for k in (wanted or [k for k in adapter.reporting.headline if k in keys])}


def compute(run_a, run_b, metrics=None, n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """The paired table and the discordant examples of ``run_a`` − ``run_b`` (see the module docstring)."""
    dirs = [Path(run_a), Path(run_b)]
    for d in dirs:
        if not is_run(d):
            raise UserError("not a run directory (no predictions.jsonl and config.json)", file=str(d))
    ha, hb = (examples_hash(d) for d in dirs)
    if ha != hb:
        raise UserError(f"answered another data build than {dirs[0]} ({hb} vs {ha}): not comparable",
                        file=str(dirs[1] / "run.json"), field="identity.examples_sha256")
    (cfg_a, exs, out_a, tools, _, _), (cfg_b, exs_b, out_b, _, _, _) = (present(d) for d in dirs)
    bench = cfg_a["benchmark"]
    if cfg_b["benchmark"] != bench:
        raise UserError(f"a {cfg_b['benchmark']} run, {dirs[0]} a {bench} run", file=str(dirs[1] / "config.json"),
                        field="benchmark")
    common = sorted(set(out_a) & set(out_b))
    if not common:
        raise UserError(f"shares no example with {dirs[0]}: nothing to compare", file=str(dirs[1] / "predictions.jsonl"))
    adapter, outs, cfgs, pools = benchmarks.get(bench), (out_a, out_b), (cfg_a, cfg_b), (exs, exs_b)
    keys = _metric_keys(adapter, metrics)
    by_id = {e.id: e for e in exs}
    shared = [by_id[i] for i in common]
    frames = []
    for out in outs:
        df = score(shared, {i: out[i] for i in common}, bench, tools).per_example.set_index("id").loc[common]
        frames.append(df.reset_index().assign(user_id=[by_id[i].user_id for i in common]))
    table = records(paired_table(*frames, keys, "user_id", n_boot, seed))
    discordant = {}
    for rec in table:
        if rec.get("a_only") is not None:
            col = METRICS[keys[rec["key"]]].columns[0]
            x, y = (f[col].to_numpy() for f in frames)
            discordant[rec["key"]] = {"a_only": [common[j] for j in ((x == 1) & (y == 0)).nonzero()[0]],
                                      "b_only": [common[j] for j in ((x == 0) & (y == 1)).nonzero()[0]]}
    ctx = adapter.scoring.context(shared, tools)
    examples = {}
    for i in sorted({i for d in discordant.values() for side in d.values() for i in side}):
        ex = by_id[i]
        examples[i] = {"user": ex.user_id, "vagueness": ex.meta.get("vagueness"), "query": ex.query, "gold": _gold(ex),
                       "answers": {s: _text(o[i]) for s, o in zip(SIDES, outs)},
                       "arguments": {s: _verdicts(example_row(ex, o, bench, adapter, ctx)[1]) for s, o in zip(SIDES, outs)},
                       "prompt": {s: _prompt(c, tools, p, ex) for s, c, p in zip(SIDES, cfgs, pools)}}
    return {"benchmark": bench, "n": len(common), "users": len({e.user_id for e in shared}),
            "runs": {s: {"dir": str(d), "label": run_label(c, d.name)} for s, d, c in zip(SIDES, dirs, cfgs)},
            "metrics": table, "discordant": discordant, "examples": examples}


def _num(v, f=".3f") -> str:
    return "–" if v is None else format(v, f)


def _table(result: dict) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("metric", "A", "B", "A − B", "paired 95% CI", "unpaired 95% CI", "users",
                                            "A only", "B only", "McNemar p"))
    rows = [f"<tr><td>{escape(m['key'])}</td><td>{_num(m['a'])}</td><td>{_num(m['b'])}</td>"
            f"<td>{_num(m['diff'], '+.3f')}</td>"
            + "".join(f"<td>[{_num(m.get(w + '_lo'), '+.3f')}, {_num(m.get(w + '_hi'), '+.3f')}]</td>"
                      for w in ("paired", "unpaired"))
            + "".join(f"<td>{_num(m.get(k), 'd')}</td>" for k in ("clusters", "a_only", "b_only"))
            + f"<td>{_num(m.get('mcnemar_p'), '.3g')}</td></tr>" for m in result["metrics"]]
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _args(verdicts: list[dict]) -> str:
    cell = lambda v: escape(json.dumps(v, ensure_ascii=False, default=str))  # noqa: E731
    rows = "".join(f"<tr class='{escape(a['status'])}'><td>{escape(a['function'])}.{escape(a['argument'])}</td>"
                   f"<td>{escape(a['status'])}</td><td>{cell(a['gold'])}</td><td>{cell(a['predicted'])}</td></tr>"
                   for a in verdicts)
    return f"<table><tr><th>argument</th><th>verdict</th><th>gold</th><th>predicted</th></tr>{rows}</table>"


def _example(i: str, x: dict, labels: dict) -> str:
    prompts = x["prompt"]
    shown = ({"prompt (both runs)": prompts["a"]} if prompts["a"] == prompts["b"]
             else {f"prompt of {labels[s]}": prompts[s] for s in SIDES})
    sides = "".join(f"<div><h4>{escape(labels[s])}</h4><pre>{escape(x['answers'][s])}</pre>{_args(x['arguments'][s])}"
                    "</div>" for s in SIDES)
    folded = "".join(f"<details><summary>{escape(k)}</summary><pre>{escape(v)}</pre></details>" for k, v in shown.items())
    return (f"<details class='ex' data-id='{escape(i)}' data-user='{escape(str(x['user']))}' "
            f"data-vag='{escape(str(x['vagueness']))}'><summary><code>{escape(i)}</code> · user {escape(str(x['user']))}"
            f" · {escape(str(x['vagueness']))} · {escape(x['query'])}</summary><p>gold:</p><pre>{escape(x['gold'])}</pre>"
            f"<div class='sides'>{sides}</div>{folded}</details>")


SCRIPT = """var q=new URLSearchParams(location.search);
function f(){var u=document.getElementById('user').value,v=document.getElementById('vag').value;
document.querySelectorAll('section').forEach(function(s){var n=0;s.querySelectorAll('details.ex').forEach(function(d){
d.hidden=!!((u&&d.dataset.user!==u)||(v&&d.dataset.vag!==v));n+=d.hidden?0:1;});s.querySelector('.n').textContent=n;});}
['user','vag'].forEach(function(k){var e=document.getElementById(k);if(q.get(k))e.value=q.get(k);e.onchange=f;});
document.querySelectorAll('details.ex').forEach(function(d){if(d.dataset.id===q.get('open'))d.open=true;});f();"""
STYLE = ("body{font-family:sans-serif;margin:1em 2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
         "padding:2px 6px;font-size:90%}pre{white-space:pre-wrap;background:#f6f6f6;padding:4px;margin:2px 0}"
         ".sides{display:flex;gap:1em}.sides>div{flex:1;min-width:0}tr.correct td{background:#e8f6e8}"
         "tr.wrong td,tr.missing td,tr.excess td{background:#fbe9e9}details.ex{border-top:1px solid #ddd;padding:3px}")


def page(result: dict) -> str:
    """The diff as one self-contained HTML page (no external asset; everything from the data escaped)."""
    labels = {s: f"{s.upper()}: {r['label']}" for s, r in result["runs"].items()}
    ex = result["examples"]

    def options(field):
        values = sorted({str(x[field]) for x in ex.values()})
        return "<option value=''>all</option>" + "".join(f"<option>{escape(v)}</option>" for v in values)

    sections = []
    for key, d in result["discordant"].items():
        for side, who in (("a_only", "A"), ("b_only", "B")):
            rows = "".join(_example(i, ex[i], labels) for i in d[side])
            sections.append(f"<section><h3>{escape(key)}: right only in {who} (<span class='n'>{len(d[side])}</span> of "
                            f"{len(d[side])})</h3>{rows}</section>")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>pfc diff</title>"
            f"<style>{STYLE}</style></head><body><h1>pfc diff ({escape(result['benchmark'])})</h1><ul>"
            + "".join(f"<li>{escape(labels[s])} ({escape(r['dir'])})</li>" for s, r in result["runs"].items())
            + f"</ul><p>{result['n']} shared examples, {result['users']} users. A − B with user-clustered paired "
            f"bootstrap intervals; A only / B only: the discordant examples McNemar's test counts.</p>{_table(result)}"
            f"<p>user <select id='user'>{options('user')}</select> vagueness <select id='vag'>{options('vagueness')}"
            f"</select></p>{''.join(sections)}<script>{SCRIPT}</script></body></html>\n")


def write(result: dict, out) -> Path:
    """``diff.html`` and ``diff.json`` under ``out``; returns the page's path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    atomic.write_text(out / "diff.json", json.dumps(result, indent=1, ensure_ascii=False, default=str) + "\n")
    return atomic.write_text(out / "diff.html", page(result))
