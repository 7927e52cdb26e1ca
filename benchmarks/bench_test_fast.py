"""Wall time of ``make test-fast`` in a fresh clone on the core stack -> reports/perf_test_fast.md/.json.

    python benchmarks/bench_test_fast.py [--keep DIR] [--out reports/perf_test_fast.md]

Clones this checkout's HEAD into a temporary folder with ``../shared`` beside it (a link to this
checkout's), runs ``make venv`` there (set-up: the pinned core stack and pfc, timed apart), checks
that the new venv holds none of the heavy optional stacks (torch, transformers, inspect_ai, ray,
openvino: the fast tier must pass on the core stack only), then times ``make test-fast`` (the tier
itself: the issue's target is under 2 minutes on an idle 2-core machine) and records pytest's
counts, the load average before and after and the commit. A measurement, never an assertion: it
exits 1 when the tier fails or a heavy stack is found, and writes the report either way.
It does not measure ``make test`` (the full suite) and installs nothing into this checkout.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from pfc import paths  # noqa: E402
from pfc.errors import UserError, out_file, script_main  # noqa: E402
from pfc.io import atomic  # noqa: E402

HEAVY = ("torch", "transformers", "inspect_ai", "ray", "openvino", "openvino_genai")
TARGET_S = 120.0


def _sh(cmd: list[str], cwd: Path) -> tuple[float, int, str]:
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False,
                       env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")})
    return time.perf_counter() - t, p.returncode, p.stdout + p.stderr


def heavy_installed(python: Path) -> list[str]:
    """The heavy optional packages importable by ``python`` (found by spec, nothing imported)."""
    code = ("import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] "
            "if importlib.util.find_spec(m) is not None))")
    p = subprocess.run([str(python), "-c", code, *HEAVY], capture_output=True, text=True, check=False)
    return p.stdout.split()


def pytest_counts(log: str) -> list[str]:
    """pytest's closing summary line of each invocation, e.g. ``812 passed, 3 deselected in 71.2s``."""
    return [m.group(1) for m in re.finditer(r"^=*\s*(\d+ (?:passed|failed)[^\n=]*?in [\d.]+s)", log, re.M)]


def measure(clone: Path) -> dict:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone / "main")], check=True)
    (clone / "shared").symlink_to((ROOT.parent / "shared").resolve())
    work = clone / "main"
    setup_s, setup_rc, setup_log = _sh(["make", "venv"], work)
    if setup_rc:
        raise UserError(f"`make venv` failed in the fresh clone (exit {setup_rc}): "
                        f"{setup_log.strip().splitlines()[-1] if setup_log.strip() else 'no output'}")
    heavy = heavy_installed(work / ".venv" / "bin" / "python")
    load_before = os.getloadavg()
    tier_s, rc, log = _sh(["make", "test-fast"], work)
    return {"commit": head, "setup_s": round(setup_s, 1), "test_fast_s": round(tier_s, 1), "rc": rc,
            "pytest": pytest_counts(log), "heavy_installed": heavy, "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count(),
            "python": platform.python_version(), "target_s": TARGET_S,
            "log_tail": log[-1500:].replace(str(clone), "<clone>") if rc else ""}


def render(r: dict) -> str:
    verdict = "meets" if r["rc"] == 0 and r["test_fast_s"] < r["target_s"] else "misses"
    rows = [f"| `make test-fast` (the tier) | {r['test_fast_s']:.1f} |", f"| `make venv` (set-up, not counted) | "
            f"{r['setup_s']:.1f} |"]
    lines = ["# `make test-fast` from a fresh clone", "",
             f"`python benchmarks/bench_test_fast.py` on commit `{r['commit']}`: a fresh `git clone` with `../shared` "
             f"beside it, `make venv` (core stack), then `make test-fast`; wall seconds. Python {r['python']}, "
             f"{r['cpus']} CPUs; load average before the tier {' / '.join(map(str, r['load_before']))}, after "
             f"{' / '.join(map(str, r['load_after']))} (1/5/15 min).", "",
             "| step | seconds |", "|---|---:|", *rows, "",
             f"Exit status {r['rc']}; pytest: {'; '.join(r['pytest']) or 'no summary found'}.",
             f"Heavy optional stacks in the venv: {', '.join(r['heavy_installed']) or 'none'} (core stack only).",
             f"Target: under {r['target_s']:.0f} s on an idle 2-core machine — this run {verdict} it.", ""]
    if r["log_tail"]:
        lines += ["Last lines of the failing tier:", "", "```", r["log_tail"], "```", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keep", help="clone into this (new) folder and keep it; default: a temporary folder")
    ap.add_argument("--out", default=str(paths.REPORTS / "perf_test_fast.md"))
    args = ap.parse_args(argv)
    out = out_file(args.out)
    if args.keep:
        Path(args.keep).mkdir(parents=True)
        r = measure(Path(args.keep))
    else:
        with tempfile.TemporaryDirectory() as d:
            r = measure(Path(d))
    atomic.write_text(out, render(r))
    atomic.write_text(out.with_name(out.stem + ".json"), json.dumps(r, indent=1, sort_keys=True) + "\n")
    print(render(r))
    return 1 if r["rc"] or r["heavy_installed"] else 0


if __name__ == "__main__":
    raise SystemExit(script_main("bench_test_fast", main))
