"""Every path the project uses, built from the repository root (no absolute paths elsewhere).

External, third-party data directories are configured by environment variables and are never copied into the repository:

- ``PFC_TOOLSPECTRUM_DIR``: the ToolSpectrum public release (default: ``<root>/../shared/data/toolspectrum``; its
  package's ``release_dir``, on :func:`env_dir` and :data:`SHARED_DATA`).
- ``PFC_MODELS_DIR``: converted real-model weights (default ``~/.cache/pfc/models``; see ``pfc.models.registry``).
- ``PFC_PTBENCH_DIR``: a hyfshadow/PTBench checkout (official prompt and test data; no default).
- ``PFC_SCRATCH_DIR``: where :func:`scratch_dir` makes a notebook's throw-away output folder when its ``out_dir``
  parameter is empty (default: the system's temporary directory; the tests point it inside their own output root, which
  they remove, so ``make test`` leaves nothing in ``/tmp``).

    >>> from pfc import paths; paths.REPORTS.name
    'reports'
"""
from __future__ import annotations

import os
from pathlib import Path
import tempfile

ROOT = Path(__file__).resolve().parents[2]
# Where generated files go: data built or downloaded by pipelines, runs, cache, figures, reports.
# ``PFC_OUTPUT_ROOT`` moves all of them elsewhere (the tests point it at a temporary directory);
# inputs that ship with the repository (toolsets, paper results, prices, golden cases) stay in ROOT.
OUTPUT_ROOT = Path(os.environ.get("PFC_OUTPUT_ROOT") or ROOT)
LIB = ROOT / "lib"
DATA = ROOT / "data"
OUT_DATA = OUTPUT_ROOT / "data"
RAW = OUT_DATA / "raw"
INTERIM = OUT_DATA / "interim"
PROCESSED = OUT_DATA / "processed"
PAPER_RESULTS = DATA / "paper_results"
BENCHMARKS = OUT_DATA / "benchmarks"
RUNS = OUT_DATA / "runs"
CACHE = OUT_DATA / "cache"
FIGURES = OUTPUT_ROOT / "figures"
REPORTS = OUTPUT_ROOT / "reports"
NOTEBOOKS = ROOT / "notebooks"
TESTS = ROOT / "tests"
GOLDEN = TESTS / "golden"
SHARED_DATA = ROOT.parent / "shared" / "data"  # third-party releases read in place, beside the repository


def output(path) -> Path:
    """Where a notebook or script writes a path it was given: absolute as is, relative under OUTPUT_ROOT."""
    p = Path(path)
    return p if p.is_absolute() else OUTPUT_ROOT / p


def source(path) -> Path:
    """Where to read a path it was given: absolute as is; relative under OUTPUT_ROOT if made there, else ROOT."""
    p = Path(path)
    if p.is_absolute():
        return p
    return OUTPUT_ROOT / p if (OUTPUT_ROOT / p).exists() else ROOT / p


def env_dir(var: str, default: Path | None) -> Path | None:
    """The directory the environment variable ``var`` names, else ``default``."""
    value = os.environ.get(var)
    if value:
        return Path(value).expanduser()
    return default


def scratch_dir(prefix: str = "pfc-") -> Path:
    """A new, empty temporary directory for output nobody asked to keep (a notebook run with an empty
    ``out_dir``): under ``PFC_SCRATCH_DIR`` when set (made if missing), else the system's temporary directory. The
    caller owns it; nothing removes it.

    >>> import os, tempfile; os.environ["PFC_SCRATCH_DIR"] = root = tempfile.mkdtemp()
    >>> d = scratch_dir("nb-"); (d.parent == Path(root), d.name.startswith("nb-"), list(d.iterdir()))
    (True, True, [])
    >>> del os.environ["PFC_SCRATCH_DIR"]; import shutil; shutil.rmtree(root)
    """
    root = env_dir("PFC_SCRATCH_DIR", None)
    if root is not None:
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as e:  # a file there, no permission: one line naming the variable
            from pfc.errors import UserError
            raise UserError(f"PFC_SCRATCH_DIR is not a usable folder ({type(e).__name__}: {e.strerror})",
                            file=str(root)) from None
    return Path(tempfile.mkdtemp(prefix=prefix, dir=root))


def relative(path: Path) -> str:
    """``path`` relative to the repo root (``../shared/...`` outside it): reports never hold absolute paths."""
    try:
        return os.path.relpath(os.path.abspath(path), ROOT)  # as configured: symlinks are not resolved
    except ValueError:  # another drive (Windows)
        return Path(path).name


def models_dir() -> Path:
    """Converted real-model weights (``PFC_MODELS_DIR``, default ``~/.cache/pfc/models``): outside the repository."""
    return env_dir("PFC_MODELS_DIR", Path("~/.cache/pfc/models").expanduser())


def ptbench_dir() -> Path | None:
    """A hyfshadow/PTBench checkout (``PFC_PTBENCH_DIR``), read at run time for the official prompt; None if unset."""
    return env_dir("PFC_PTBENCH_DIR", None)
