"""Where progress bars go: the terminal, never a notebook's saved outputs.

``make reproduce`` runs notebooks under papermill, which saves whatever a cell writes to
``sys.stderr`` — progress bars included. It sets ``PFC_PROGRESS=terminal`` in the kernel's
environment; then :func:`stream` is the kernel process's own standard error (the terminal
``make`` runs in, which ipykernel keeps as ``sys.stderr._original_stdstream_copy``) instead
of the captured stream (or ``sys.__stderr__`` where ipykernel does not capture file descriptors,
as under pytest). Anywhere else (the CLI, a notebook opened by hand) it is
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
    if os.environ.get("PFC_PROGRESS") != "terminal":
        return sys.stderr
    fd = getattr(sys.stderr, "_original_stdstream_copy", None)
    if fd is None:  # a kernel that does not capture file descriptors (e.g. under pytest): fd 2 is not captured
        return sys.__stderr__ or sys.stderr
    if _terminal is None:
        _terminal = os.fdopen(os.dup(fd), "w", buffering=1, encoding="utf-8", errors="replace")
    return _terminal
