"""One writer per output directory: an advisory ``flock`` on ``<dir>/.pfc-writer.lock`` holding pid and host.

:func:`writer_lock` takes an exclusive, non-blocking ``flock`` on the directory's lock file
and writes the holder into it (``pid 123 on host since 2026-11-24T16:40:00: pfc run``). A
second writer — another terminal, another ``make reproduce``, another Ray worker on this or
(over NFS, whose client maps ``flock`` to POSIX locks) another node — is refused at once
with :class:`DirBusy` (a ``UserError``, exit 2) naming the holder. The kernel drops the
lock when its holder exits in any way, kill -9 included, so there is never a stale lock to
clean by hand: a lock file that still names a holder but is not locked was left by a dead
process (a *stale* record); it is taken over and reported in ``LockInfo.stale``. The lock
file itself is kept (deleting it would let two processes lock two different files).
Not re-entrant: a second ``writer_lock`` on the same directory in the same process is
refused as well (``flock`` locks belong to an open file). It does not write outputs (:mod:`pfc.io.atomic`).
"""
from __future__ import annotations

import errno
import os
import socket
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
import fcntl

from pfc.errors import UserError

LOCK_NAME = ".pfc-writer.lock"


class DirBusy(UserError):
    """Another live process writes this directory."""


@dataclass
class LockInfo:
    path: Path
    stale: str | None = None       # what a dead holder had left in the lock file, if anything


def holder_line(what: str = "") -> str:
    # the program's name and its sub-command only: arguments may hold absolute paths
    cmd = what or " ".join([Path(sys.argv[0]).name, *sys.argv[1:2]]) if sys.argv and sys.argv[0] else what
    return f"pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%dT%H:%M:%S')}: {cmd}"


def read_holder(directory, name: str = LOCK_NAME) -> str:
    """The holder recorded in ``directory``'s lock file ('' when none)."""
    try:
        return (Path(directory) / name).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def _holder_of_held_lock(fh, wait_s: float = 2.0) -> str:
    """The holder's line of a lock another process holds. A holder writes its line just after it
    takes the lock, so a refusal in between waits (up to ``wait_s``) for that line to appear."""
    deadline = time.monotonic() + wait_s
    while True:
        fh.seek(0)
        holder = fh.read().strip()
        if holder or time.monotonic() >= deadline:
            return holder or "another process (starting)"
        time.sleep(0.01)


def _acquire(directory: Path, kind: str, what: str, name: str) -> tuple:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # never through a symbolic link: a link planted as the lock file would have its target written and emptied
        fd = os.open(directory / name, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        fh = open(fd, "a+", encoding="utf-8")
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise UserError(f"the {kind}'s lock file {name} is a symbolic link; pfc does not write through links "
                            "it did not make (remove it)", file=str(directory)) from None
        raise UserError(f"cannot create the {kind}'s lock file: {e.strerror or e}", file=str(directory)) from None
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder_of_held_lock(fh)
        fh.close()
        raise DirBusy(f"another writer holds this {kind} ({holder}); wait for it to finish or stop it",
                      file=str(directory)) from None
    except OSError as e:
        fh.close()
        raise UserError(f"cannot lock the {kind}: {e.strerror or e}", file=str(directory)) from None
    fh.seek(0)
    stale = fh.read().strip() or None
    fh.seek(0)
    fh.truncate()
    fh.write(holder_line(what) + "\n")
    fh.flush()
    return fh, stale


@contextmanager
def writer_lock(directory, kind: str = "directory", what: str = "", name: str = LOCK_NAME):
    """Hold ``directory`` (created if missing) as its only writer for the ``with`` block; yields a LockInfo.
    ``kind`` names it in the refusal ("run directory"), ``what`` is the holder's command as recorded; ``name``: another
    lock file, for a lock on something other than the directory's own files."""
    directory = Path(directory)
    fh, stale = _acquire(directory, kind, what, name)
    try:
        yield LockInfo(directory / name, stale)
    finally:
        try:
            fh.seek(0)
            fh.truncate()  # released cleanly: no holder recorded
        except OSError:
            pass
        fh.close()  # closing drops the flock
