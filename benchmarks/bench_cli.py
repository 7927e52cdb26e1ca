"""Start-up time of the ``pfc`` command line, per command -> reports/perf_cli.md.

    python benchmarks/bench_cli.py [--repeat 7] [--out reports/perf_cli.md]

Each command runs in a fresh ``python -m pfc`` process (``PYTHONPATH=lib``), ``--repeat`` times; the
report gives the median and the minimum wall time, the heavy modules the command imported
(``python -X importtime``: pandas, numpy, scipy, matplotlib, seaborn, torch) and the machine's load
average when the measurement started, since a busy machine stretches every import. ``pfc parse`` parses
one line; ``pfc score`` is measured on ``--help`` (its scorer loads pandas by design, never the plotting
stack); ``pfc run`` likewise. A measurement, never an assertion.
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from pfc.io import atomic  # noqa: E402
from pfc import paths  # noqa: E402
from pfc.errors import script_main, out_file  # noqa: E402

COMMANDS = [("pfc --help", ["--help"], ""), ("pfc parse (one line)", ["parse", "--style", "ptbench"], "Shop:[buy(n=2)]\n"),
            ("pfc score --help", ["score", "--help"], ""), ("pfc run --help", ["run", "--help"], ""),
            ("pfc report --help", ["report", "--help"], "")]
HEAVY = ("pandas", "numpy", "scipy", "matplotlib", "seaborn", "torch")


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT / "lib"), "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}


def once(args: list[str], stdin: str) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pfc", *args], input=stdin, text=True, capture_output=True, env=_env(),
                   cwd=ROOT, check=False)
    return time.perf_counter() - t


def heavy_imports(args: list[str], stdin: str) -> list[str]:
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "pfc", *args], input=stdin, text=True,
                       capture_output=True, env=_env(), cwd=ROOT, check=False)
    mods = {m.group(1).split(".")[0] for m in re.finditer(r"^import time:.*\|\s+(\S+)$", p.stderr, re.M)}
    return [m for m in HEAVY if m in mods]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_cli.md"))
    args = ap.parse_args(argv)
    out = out_file(args.out)
    load = os.getloadavg()
    rows = []
    for label, cmd, stdin in COMMANDS:
        once(cmd, stdin)  # warm the file cache
        times = [once(cmd, stdin) for _ in range(args.repeat)]
        rows.append(f"| {label} | {statistics.median(times):.3f} | {min(times):.3f} | "
                    f"{', '.join(heavy_imports(cmd, stdin)) or 'none'} |")
    lines = ["# `pfc` start-up time per command", "",
             f"`python benchmarks/bench_cli.py --repeat {args.repeat}`: each command in a fresh process, "
             f"{args.repeat} times after one warm-up; wall seconds. Python {platform.python_version()}, "
             f"{os.cpu_count()} CPUs; load average at the start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} "
             "(1/5/15 min): a busy machine stretches every import. Target: `pfc parse` on one line < 0.5 s "
             "on an idle machine.", "",
             "| command | median s | min s | heavy modules imported |", "|---|---:|---:|---|", *rows, ""]
    atomic.write_text(out, "\n".join(lines))
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(script_main("bench_cli", main))
