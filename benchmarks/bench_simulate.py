"""Simulator throughput: 10,000 users x 300 records -> reports/perf_simulate.md.

    python benchmarks/bench_simulate.py [--users 10000] [--records 300] [--workers 2]

Writes the raw log to a temporary folder (deleted afterwards) and reports wall time,
records/s, output size and peak memory of the parent process. A measurement, never an assertion.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from pfc.io import atomic  # noqa: E402
from pfc import paths  # noqa: E402
from pfc.data.simulate import simulate  # noqa: E402
from pfc.errors import script_main, out_file  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--records", type=int, default=300)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_simulate.md"))
    args = ap.parse_args(argv)
    out_file(args.out)  # a bad --out is refused before any work
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        out = simulate(args.users, args.seed, Path(tmp) / "raw", records=args.records, workers=args.workers)
        secs = time.perf_counter() - t
        size = (out / "events.jsonl").stat().st_size
        lines = sum(1 for _ in (out / "events.jsonl").open("rb"))
    n = args.users * args.records
    text = "\n".join([
        "# Simulator performance", "",
        f"Measured by `benchmarks/bench_simulate.py` on {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {args.workers} worker process(es), seed {args.seed}.", "",
        "| users | records/user | records | raw lines | seconds | records/s | output MiB | parent peak RSS MiB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {args.users:,} | {args.records} | {n:,} | {lines:,} | {secs:.1f} | {n / secs:,.0f} | {size / 2**20:.0f} | "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} |", "",
        "Output is byte-identical for any number of workers (tested in `tests/test_tracebench_pipeline.py`).", ""])
    atomic.write_text(Path(args.out), text)
    print(text)


if __name__ == "__main__":
    raise SystemExit(script_main("bench_simulate", main))
