"""Overhead of a sweep on Ray against the same runs done serially on this machine -> reports/perf_sweep.md.

The sweep is a spec of built-in baseline runs (default ``sweeps/example.yaml``: 4 baselines x TRACEBench
(two history modes), PTBench, ToolSpectrum = 16 runs). Each mode runs every run of the plan from an empty
run directory and an empty response cache (so every request is answered by the backend, never replayed):

- ``serial``: ``pfc.sweep.one_run.execute`` for each run, one after another, in this process (what the
  Ray task calls; the baseline the overhead is measured against);
- ``serial-cli``: ``python -m pfc run …`` per run, one after another (a shell loop of ``pfc run``);
- ``ray-1cpu`` / ``ray-Ncpu``: the runs as Ray tasks on a local Ray with 1 / all cores, timed from
  submission to the last result (Ray's start and stop are reported apart: paid once per sweep).

Modes alternate for ``--repeats`` rounds and medians are reported; the load average is recorded before
and after (the machine is shared). Overhead = ray-1cpu / serial - 1 (same parallelism: one run at a time).

    python benchmarks/bench_sweep.py --repeats 3 [--no-cli]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pfc import paths
from pfc.io import atomic
from pfc.sweep import plan as sweep_plan, spec as sweep_spec
from pfc.sweep.command import _build
from pfc.sweep.one_run import execute
from pfc.errors import script_main, out_file  # noqa: E402


def serial(plan, out: Path) -> float:
    t = time.perf_counter()
    for r in plan.runs:
        res = execute(r, out, out / "cache.sqlite")
        assert res["status"] == "complete", res
    return time.perf_counter() - t


def serial_cli(plan, out: Path) -> float:
    t = time.perf_counter()
    for r in plan.runs:
        subprocess.run([sys.executable, "-m", "pfc"] + r.pfc_run_args(out) + ["--no-cache"], check=True,
                       capture_output=True)
    return time.perf_counter() - t


def on_ray(plan, out: Path, cpus: int) -> tuple[float, float]:
    """(seconds from submission to the last result, seconds to start and stop Ray)."""
    from pfc.sweep import ray_tasks
    t0 = time.perf_counter()
    info = ray_tasks.connect(None, cpus)
    t1 = time.perf_counter()
    refs = ray_tasks.submit_all(plan.runs, out, str(out / "cache.sqlite"), retries=0)
    for _, res in ray_tasks.results(refs):
        assert res["status"] == "complete", res
    t2 = time.perf_counter()
    ray_tasks.disconnect(info)
    return t2 - t1, (t1 - t0) + (time.perf_counter() - t2)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", default=str(paths.ROOT / "sweeps" / "example.yaml"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(paths.ROOT / "reports" / "perf_sweep.md"))
    ap.add_argument("--no-cli", action="store_true", help="leave out serial-cli (the slowest mode)")
    ap.add_argument("--render", action="store_true", help="only rewrite the .md from the .json beside it")
    args = ap.parse_args(argv)
    out_file(args.out)  # a bad --out is refused before any work
    if args.render:
        atomic.write_text(Path(args.out), render(json.loads(Path(args.out).with_suffix(".json").read_text())))
        return 0
    cores = len(os.sched_getaffinity(0))
    work = Path(tempfile.mkdtemp(prefix="pfc-bench-sweep-"))
    spec = sweep_spec.load_spec(args.spec)
    plan = sweep_plan.plan(spec, args.spec, work / "proto")
    _build(plan, work / "proto")  # the TRACEBench the spec builds, once, outside the timings
    times: dict[str, list[float]] = {}
    startup: list[float] = []
    load = [os.getloadavg()]
    modes = ["serial"] + ([] if args.no_cli else ["serial-cli"]) + ["ray-1cpu"] + \
        ([f"ray-{cores}cpu"] if cores > 1 else [])
    try:
        for rep in range(args.repeats):
            for mode in modes:
                out = work / f"{mode}-{rep}"
                shutil.copytree(work / "proto" / "benchmarks", out / "benchmarks")
                p = sweep_plan.plan(spec, args.spec, out)
                if mode == "serial":
                    t = serial(p, out)
                elif mode == "serial-cli":
                    t = serial_cli(p, out)
                else:
                    t, s = on_ray(p, out, int(mode.split("-")[1].removesuffix("cpu")))
                    startup.append(s)
                times.setdefault(mode, []).append(t)
                print(f"{mode} round {rep + 1}: {t:.2f} s", file=sys.stderr)
    finally:
        load.append(os.getloadavg())
        shutil.rmtree(work, ignore_errors=True)
    med = {m: statistics.median(v) for m, v in times.items()}
    result = {"spec": paths.relative(Path(args.spec)), "runs": len(plan.runs), "repeats": args.repeats,
              "cores": cores, "seconds": times, "median_s": med, "ray_start_stop_s": statistics.median(startup),
              "overhead_ray_1cpu_vs_serial": med["ray-1cpu"] / med["serial"] - 1,
              "load_average_before": [round(x, 2) for x in load[0]],
              "load_average_after": [round(x, 2) for x in load[1]],
              "when": time.strftime("%Y-%m-%d %H:%M"), "python": sys.version.split()[0]}
    atomic.write_text(Path(args.out).with_suffix(".json"), json.dumps(result, indent=1) + "\n")
    atomic.write_text(Path(args.out), render(result))
    print(json.dumps({k: result[k] for k in ("median_s", "overhead_ray_1cpu_vs_serial", "ray_start_stop_s")}))
    return 0


def render(r: dict) -> str:
    rows = "\n".join(f"| {m} | {statistics.median(v):.2f} | {' / '.join(f'{x:.2f}' for x in v)} | "
                     f"{statistics.median(v) / r['median_s']['serial'] - 1:+.1%} |" for m, v in r["seconds"].items())
    ser = r["seconds"]["serial"]
    noisy = (" The serial rounds alone differ by more than the target (load), so this measurement cannot "
             "show the overhead is under 10%: it is within noise." if max(ser) / min(ser) - 1 > 0.10 else "")
    paired = ", ".join(f"{b / a - 1:+.1%}" for a, b in zip(r["seconds"]["serial"], r["seconds"]["ray-1cpu"]))
    return f"""# Sweep overhead: Ray against serial runs

Measured by `benchmarks/bench_sweep.py` on {r['when']} ({r['cores']} cores, Python {r['python']}); spec
`{r['spec']}` ({r['runs']} runs of built-in baselines), {r['repeats']} rounds with the modes alternating, every
run from an empty run directory and an empty response cache. Load average (1/5/15 min) before
{r['load_average_before']}, after {r['load_average_after']}: the machine is shared, so rounds vary.

| mode | median s | each round s | vs serial |
|---|---:|---:|---:|
{rows}

- **serial**: `pfc.sweep.one_run.execute` per run in one process (what each Ray task calls);
  **serial-cli**: `python -m pfc run` per run (a shell loop); **ray-Ncpu**: Ray tasks on a local Ray
  with N CPUs, from submission to the last result.
- **Overhead of Ray at equal parallelism (ray-1cpu vs serial): {r['overhead_ray_1cpu_vs_serial']:+.1%}**
  (target: at most +10%).
  Round by round (each Ray round right after its serial round): {paired}.{noisy}
- Starting and stopping local Ray: {r['ray_start_stop_s']:.1f} s per sweep (median), paid once, not per run.
- Ray runs task workers at nice 15 by default. Measured here before `pfc sweep` set
  `RAY_worker_niceness=0` for its local Ray (2026-11-24 17:10, load ~18): serial 39.9 / 49.9 s,
  ray-1cpu 99.5 / 138.8 s (2.5-2.8x) — the niced workers lost the CPU to everything else running.
"""


if __name__ == "__main__":
    raise SystemExit(script_main("bench_sweep", main))
