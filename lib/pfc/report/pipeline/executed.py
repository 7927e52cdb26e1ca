"""What makes an executed notebook clean: the kernel's environment, then the saved file tidied.

``make reproduce`` (``pfc.report.pipeline``) runs each notebook with :func:`kernel_env` applied: progress bars go to the
terminal (``PFC_PROGRESS=terminal``, see ``pfc.progress``), and the libraries that draw their own (huggingface_hub,
transformers, datasets, plain tqdm) draw none in the kernel. After the run, :func:`tidy` rewrites the saved notebook:
papermill's ``input_path``/``output_path`` metadata become repository-relative, and any absolute directory of this
machine that a cell printed (a traceback, a library's warning) is shown as ``.`` (the repository), ``$PFC_OUTPUT_ROOT``,
``<venv>``, ``~`` or ``$TMPDIR``. It does not run notebooks.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import threading
from pathlib import Path

from pfc import paths
from pfc.io import atomic

KERNEL_ENV = {"PFC_PROGRESS": "terminal", "TQDM_DISABLE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
              "HF_DATASETS_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error",
              "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
              # tqdm.auto warns at import when ipywidgets is missing (transformers imports it): matched by its
              # message, so no module is imported at interpreter start-up
              "PYTHONWARNINGS": "ignore:IProgress not found"}


_ENV_LOCK = threading.Lock()
_env_users: list = []  # the blocks inside kernel_env now; the first one saved what the last one restores
_SAVED: dict = {}


@contextlib.contextmanager
def kernel_env():
    """The environment a kernel started inside this block inherits (restored afterwards). Blocks may overlap
    across threads (``make reproduce`` runs a step beside the others): the environment is set while any is open and
    restored when the last one closes, so one block's exit never unsets it under another's kernel start."""
    with _ENV_LOCK:
        if not _env_users:
            _SAVED.clear()
            _SAVED.update({k: os.environ.get(k) for k in KERNEL_ENV})
            os.environ.update(KERNEL_ENV)
        _env_users.append(threading.get_ident())
    try:
        yield
    finally:
        with _ENV_LOCK:
            _env_users.pop()
            if not _env_users:
                for k, v in _SAVED.items():
                    os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _prefixes() -> list[tuple[str, str]]:
    """(absolute directory, what it is shown as), longest first so the most specific wins."""
    pairs = {tempfile.gettempdir(): "$TMPDIR", str(Path.home()): "~", sys.base_prefix: "<python>",
             sys.prefix: "<venv>", str(paths.OUTPUT_ROOT): "$PFC_OUTPUT_ROOT"}
    pairs[str(paths.ROOT)] = "."  # last: the repository wins where PFC_OUTPUT_ROOT is unset (the same directory)
    for d in list(pairs):
        real = os.path.realpath(d)
        pairs.setdefault(real, pairs[d])
    return sorted(((d, s) for d, s in pairs.items() if d not in ("", "/")), key=lambda p: -len(p[0]))


def scrub(text: str) -> str:
    """``text`` with this machine's absolute directories replaced by their names (see the module docstring)."""
    for d, shown in _prefixes():  # an absolute path only: not the tail of a relative one (../../tmp/x)
        text = re.sub(r"(?<![\w.~$/-])" + re.escape(d) + r"(?![\w.-])", lambda _: shown, text)
    return text


def _walk(obj):
    if isinstance(obj, str):
        return scrub(obj)
    if isinstance(obj, list):
        return [_walk(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _walk(v) for k, v in obj.items()}
    return obj


def tidy(executed: Path, source: Path) -> None:
    """Rewrite the executed notebook ``executed`` (run from ``source``) in place: relative paths only."""
    nb = json.loads(Path(executed).read_text(encoding="utf-8"))
    pm = nb.get("metadata", {}).get("papermill", {})
    if pm:
        pm["input_path"] = paths.relative(source)
        pm["output_path"] = Path(os.path.relpath(executed, paths.OUTPUT_ROOT)).as_posix()
    for cell in nb.get("cells", []):
        if "outputs" in cell:
            cell["outputs"] = _walk(cell["outputs"])
    nb["metadata"] = _walk(nb.get("metadata", {}))
    atomic.write_text(Path(executed), json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
