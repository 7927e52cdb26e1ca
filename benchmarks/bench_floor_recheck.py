"""One benchmark's floor measured again beside our engine's own seconds of the same hour (issue 63, item 3).

    python benchmarks/bench_floor_recheck.py --benchmark tracebench \\
        --measured reports/perf_openvino_prefill_first_1.5b.json reports/perf_openvino_prefill_first_0.5b.json \\
        [--out reports/perf_floor_recheck.json] [--note "..."]

``reports/perf_engines.md`` set each cell's seconds against a floor from kernel rates measured in the same run,
but on a shared machine whose speed drifts from hour to hour (``reports/perf_machine_drift.md``) a cell's engine
and its kernel-rate child ran up to an hour apart. Here each ``--measured`` file (a
``benchmarks/bench_openvino_options.py`` run of the same sample: its ``default`` rows are today's engine) is set
against the floor whose inputs — this machine's kernel rates for the model's shapes and the sample's token counts —
are measured now, right after it, by ``bench_engines.py``'s own floor child; the answer length is the run's. Writes
the JSON and the ``.md`` beside it. Numbers are measurements on whatever else the machine does, never assertions.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import engine_floor as ef  # noqa: E402
from pfc import paths  # noqa: E402
from pfc.errors import UserError, out_file, read_json, script_main  # noqa: E402
from pfc.io import atomic  # noqa: E402


def measure_floor(model: str, bench: str, n: int) -> dict:
    """The floor's inputs for ``model`` on ``bench``'s sample, from ``bench_engines.py``'s floor child (its own process)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "floor.json"
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_engines.py"), "--n", str(n),
                        "--child", "floor", model, bench, str(out)], check=True)
        return json.loads(out.read_text(encoding="utf-8"))


def row(run: dict, f: dict, bench: str) -> dict:
    """One measured option against the floor of its hour (the run's own answer length)."""
    b = f["benchmarks"][bench]
    fl = ef.floor(ef.Shapes(**f["shapes"]), b["rates"], [tuple(p) for p in b["plan"]], b["prompt_lens"],
                  run["completion_tokens_per_example"])
    return {"model": run["model"], "option": run["option"], "s_per_example": run["s_per_example"],
            "loadavg": [run["loadavg_start"][0], run["loadavg_end"][0]],
            "floor": {k: round(v, 2) for k, v in fl.items()},
            "x_floor": round(run["s_per_example"] / fl["s_per_example"], 2)}


def write_md(doc: dict) -> str:
    lines = [f"# {doc['benchmark']}: our engine against its floor in the same hour",
             "", f"Measured by `benchmarks/bench_floor_recheck.py` on {doc['when']}, {os.cpu_count()} cores. Each "
             "row's seconds are a `benchmarks/bench_openvino_options.py` run (24 examples, prefix layout, full history, "
             "the papers' sampling, one untimed warm-up); its floor (`benchmarks/engine_floor.py`) comes from kernel "
             "rates measured right after it and the run's own answer length.", ""]
    lines += [f"- {n}" for n in doc["notes"]] + [""]
    lines += ["| model | option | s/ex | floor s/ex | floor prefill | floor decode | × floor | load (1 min) | from |",
              "|---|---|---:|---:|---:|---:|---:|---|---|"]
    for r in doc["rows"]:
        f = r["floor"]
        lines.append(f"| {r['model']} | {r['option']} | {r['s_per_example']} | {f['s_per_example']} | "
                     f"{f['prefill_s']} | {f['decode_s']} | {r['x_floor']}× | {r['loadavg'][0]}–{r['loadavg'][1]} | "
                     f"`{r['from']}` |")
    return "\n".join(lines + ["", f"Command: `{doc['command']}`.", ""])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--benchmark", default="tracebench", choices=("ptbench", "tracebench", "toolspectrum"))
    ap.add_argument("--measured", nargs="+", required=True, help="bench_openvino_options.py JSON files")
    ap.add_argument("--note", default="", help="a sentence for the report (what else ran)")
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_floor_recheck.json"))
    args = ap.parse_args(argv)
    out = out_file(args.out)
    runs = []
    for p in args.measured:
        doc = read_json(Path(p))
        for r in (doc.get("runs", []) if isinstance(doc, dict) else []):
            if r.get("benchmark") != args.benchmark or "s_per_example" not in r:
                continue
            runs.append((paths.relative(Path(p)), r, doc.get("n", 24)))
    if not runs:
        raise UserError(f"no measured {args.benchmark} run in --measured", file=args.measured[0])
    floors, rows = {}, []
    for src, r, n in runs:
        if r["model"] not in floors:
            print(f"bench_floor_recheck: floor of {r['model']} ({time.strftime('%H:%M:%S')})", file=sys.stderr)
            floors[r["model"]] = measure_floor(r["model"], args.benchmark, n)
        rows.append({**row(r, floors[r["model"]], args.benchmark), "from": src})
    doc = {"benchmark": args.benchmark, "when": time.strftime("%Y-%m-%d %H:%M"), "rows": rows,
           "notes": [args.note] if args.note else [], "floors": floors,
           "command": "python benchmarks/bench_floor_recheck.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    atomic.write_text(out, json.dumps(doc, indent=1) + "\n")
    atomic.write_text(out.with_suffix(".md"), write_md(doc))
    print(out.with_suffix(".md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(script_main("bench_floor_recheck", main))
