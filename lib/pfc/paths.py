"""Every path the project uses, built from the repository root (no absolute paths elsewhere).

External, third-party data directories are configured by environment variables and are
never copied into the repository:

- ``PFC_TOOLSPECTRUM_DIR``: the ToolSpectrum public release (default: ``<root>/../shared/data/toolspectrum``).
- ``PFC_PTBENCH_DIR``: a hyfshadow/PTBench checkout (official prompt and test data; no default).

    >>> from pfc import paths; paths.REPORTS.name
    'reports'
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "lib"
DATA = ROOT / "data"
RAW = DATA / "raw"
INTERIM = DATA / "interim"
PROCESSED = DATA / "processed"
EXTERNAL = DATA / "external"
EXAMPLES = DATA / "examples"
PAPER_RESULTS = DATA / "paper_results"
BENCHMARKS = DATA / "benchmarks"
RUNS = DATA / "runs"
FIGURES = ROOT / "figures"
REPORTS = ROOT / "reports"
NOTEBOOKS = ROOT / "notebooks"
TESTS = ROOT / "tests"
GOLDEN = TESTS / "golden"


def _env_dir(var: str, default: Path | None) -> Path | None:
    value = os.environ.get(var)
    if value:
        return Path(value).expanduser()
    return default


def toolspectrum_dir() -> Path | None:
    """The ToolSpectrum release directory (``PFC_TOOLSPECTRUM_DIR`` or ``../shared/data/toolspectrum``)."""
    return _env_dir("PFC_TOOLSPECTRUM_DIR", ROOT.parent / "shared" / "data" / "toolspectrum")


def relative(path: Path) -> str:
    """``path`` relative to the repo root (``../shared/...`` outside it): reports never hold absolute paths."""
    try:
        return os.path.relpath(os.path.abspath(path), ROOT)  # as configured: symlinks are not resolved
    except ValueError:  # another drive (Windows)
        return Path(path).name


def ptbench_dir() -> Path | None:
    """A hyfshadow/PTBench checkout (``PFC_PTBENCH_DIR``), read at run time for the official prompt; None if unset."""
    return _env_dir("PFC_PTBENCH_DIR", None)
