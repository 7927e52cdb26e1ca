"""Where progress bars go: the terminal, never a notebook's saved outputs; in a log file, whole lines.

``make reproduce`` runs notebooks under papermill, which saves whatever a cell writes to ``sys.stderr`` — progress bars
included. It sets ``PFC_PROGRESS=terminal`` in the kernel's environment; then :func:`stream` is the kernel process's own
standard error (the terminal ``make`` runs in, which ipykernel keeps as ``sys.stderr._original_stdstream_copy``) instead
of the captured stream (or ``sys.__stderr__`` where ipykernel does not capture file descriptors, as under pytest).
Anywhere else (the CLI, a notebook opened by hand) it is ``sys.stderr``.

A bar redraws itself with carriage returns. On a terminal that is what a reader wants; in a file
(``make reproduce > log``, CI, a ``nohup`` run) every redraw piles onto one ever longer line, and a
log line written meanwhile (the pipeline's, from another process) lands in the middle of it. So when
the target is neither a terminal nor a Jupyter cell's output, :func:`stream` hands out a
:class:`LineStream` over it: each redraw becomes a whole line, at most one every
``PFC_PROGRESS_INTERVAL`` seconds (default 30), and the bar's last state is always written. This
module draws no bars itself.

    >>> import io; s = LineStream(io.StringIO(), interval=30, clock=iter([0, 1, 40, 41, 42]).__next__)
    >>> for text in ("\\rrun: 0/3", "\\rrun: 1/3", "\\rrun: 2/3", "\\rrun: 3/3", "\\n"):
    ...     _ = s.write(text)
    >>> print(s.fp.getvalue(), end="")
    run: 0/3
    run: 2/3
    run: 3/3
"""
from __future__ import annotations

import os
import re
import sys
import time

_terminal = None
INTERVAL = 30.0  # seconds between two lines of one bar in a log file (PFC_PROGRESS_INTERVAL)


class LineStream:
    """A file for tqdm's ``file=`` that turns carriage-return redraws into whole lines, throttled: the first
    redraw, then the latest one once ``interval`` seconds have passed since the last line, and the final one (tqdm ends
    a finished bar with a newline); a redraw of the count the last line showed is not repeated."""

    def __init__(self, fp, interval: float = INTERVAL, clock=time.monotonic):
        self.fp, self.interval, self.clock = fp, interval, clock
        self.latest, self.written_at, self.written = None, None, None
        self.encoding = getattr(fp, "encoding", None) or "utf-8"  # tqdm draws its Unicode blocks for a UTF-8 file

    def write(self, s: str) -> int:
        for part in re.split(r"(\r|\n)", s):
            if part == "\n":
                self._line()
            elif part != "\r" and part.strip() and _state(part) != _state(self.written):  # the same count: no line
                self.latest = part.rstrip()
        if self.latest is not None:
            now = self.clock()
            if self.written_at is None or now - self.written_at >= self.interval:
                self._line(now)
        return len(s)

    def _line(self, now: float | None = None) -> None:
        if self.latest is None:
            return
        self.fp.write(self.latest + "\n")
        self.fp.flush()
        self.written, self.latest = self.latest, None
        self.written_at = self.clock() if now is None else now

    def flush(self) -> None:  # lines are flushed as they are written; a pending redraw waits for its turn
        pass


def _state(text: str | None) -> str | None:
    """A redraw without its timing (tqdm's trailing ``[elapsed<left, rate]``): a bar's closing redraw of the count
    its last line showed differs only there, and is not written again."""
    return None if text is None else re.sub(r"\s*\[[^\]]*\]\s*$", "", text.rstrip())


def _interval() -> float:
    try:
        return max(0.0, float(os.environ.get("PFC_PROGRESS_INTERVAL", INTERVAL)))
    except ValueError:
        return INTERVAL


def _redraws(fp) -> bool:
    """Whether ``fp`` shows carriage-return redraws in place: a terminal, or a Jupyter output area."""
    if type(fp).__module__.split(".")[0] == "ipykernel":  # a notebook opened by hand: its bar redraws in the cell
        return True
    isatty = getattr(fp, "isatty", None)
    try:
        return bool(isatty()) if isatty else False
    except (ValueError, OSError):  # a closed stream
        return False


def _lines_unless_terminal(fp):
    return fp if _redraws(fp) else LineStream(fp, _interval())


def stream():
    """The file progress bars write to (pass as tqdm's ``file=``): see the module docstring."""
    global _terminal
    if os.environ.get("PFC_PROGRESS") != "terminal":
        return _lines_unless_terminal(sys.stderr)
    fd = getattr(sys.stderr, "_original_stdstream_copy", None)
    if fd is None:  # a kernel that does not capture file descriptors (e.g. under pytest): fd 2 is not captured
        return _lines_unless_terminal(sys.__stderr__ or sys.stderr)
    if _terminal is None:
        _terminal = os.fdopen(os.dup(fd), "w", buffering=1, encoding="utf-8", errors="replace")
    return _lines_unless_terminal(_terminal)
