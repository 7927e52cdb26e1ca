"""Where progress bars go: the terminal, never a notebook's saved outputs.

``make reproduce`` runs notebooks under papermill, which saves whatever a cell writes to
``sys.stderr`` — progress bars included. It sets ``PFC_PROGRESS=terminal`` in the kernel's
environment; then :func:`stream` is the kernel process's own standard error (the terminal
``make`` runs in, which ipykernel keeps as ``sys.stderr._original_stdstream_copy``) instead
of the captured stream. Anywhere else (the CLI, a notebook opened by hand) it is
``sys.stderr``. This module draws no bars itself.

    >>> stream() is sys.stderr
    True
"""
from __future__ import annotations

import os
import sys

_terminal = None


def stream():
    """The file progress bars write to (pass as tqdm's ``file=``)."""
    global _terminal
    fd = getattr(sys.stderr, "_original_stdstream_copy", None)
    if os.environ.get("PFC_PROGRESS") != "terminal" or fd is None:
        return sys.stderr
    if _terminal is None:
        _terminal = os.fdopen(os.dup(fd), "w", buffering=1, encoding="utf-8", errors="replace")
    return _terminal
