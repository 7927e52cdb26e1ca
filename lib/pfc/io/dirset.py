"""A folder of outputs replaced whole: built beside its target, manifest written last, swapped in at once.

``with replace_dir(target, manifest, kind) as tmp:`` gives a fresh hidden folder beside ``target``
(``.<name>.building-<pid>-<hex>-<host>``, same file system); the caller writes every file into it, the ``manifest`` file
last. On a clean exit the folder takes ``target``'s place in one step (Linux ``renameat2(RENAME_EXCHANGE)``; elsewhere
two renames) and the old set is removed; on any exception (Ctrl-C, a full disk) the hidden folder is removed and
``target`` is untouched. So a reader sees the old set or the new one, and a folder holding its manifest is a finished
set. A ``target`` that is a file, a symbolic link, or a non-empty folder that is not one of ours (``ours(folder)``
false) is refused before anything is written: pfc never removes files it did not make. So is one of ours holding
anything ``made`` does not name (``made``: a collection of paths relative to the folder, ``/``-separated, or a predicate
on them): a user's notes, a run made inside a set. A build folder left by a killed process (its pid gone) is removed on
the next build on that host. It does not lock (:mod:`pfc.io.lock`) nor check names (:mod:`pfc.io.safepath`).
"""
from __future__ import annotations

import ctypes
import os
import shutil
import socket
from contextlib import contextmanager
from pathlib import Path

from pfc.errors import UserError
from pfc.io.atomic import write_failed

RENAME_EXCHANGE = 2
AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths atomically (Linux); False where the call is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: the file system cannot exchange
        return False
    raise OSError(err, os.strerror(err), str(b))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _clean_stale(target: Path) -> None:
    """Remove build folders of ``target`` left by dead processes of this host (shared storage: others' are kept)."""
    for p in target.parent.glob(f".{target.name}.building-*"):
        parts = p.name.rsplit(".building-", 1)[1].split("-", 2)
        if len(parts) == 3 and parts[0].isdigit() and parts[2] == socket.gethostname() and not _alive(int(parts[0])):
            shutil.rmtree(p, ignore_errors=True)


def check_target(target, manifest: str, kind: str, ours=None, made=None) -> Path:
    """``target`` when it may be replaced: absent, an empty folder, or a folder holding ``manifest`` (or one
    ``ours`` recognises) and, when ``made`` is given, nothing it does not name; else a UserError saying why."""
    t = Path(target)
    if t.is_symlink():
        raise UserError(f"is a symbolic link; the {kind} is written to a real folder", file=str(t))
    if t.exists() and not t.is_dir():
        raise UserError(f"exists and is a file; the {kind} goes to a folder", file=str(t))
    mine = (t / manifest).is_file() and not (t / manifest).is_symlink()  # a link is never taken for our manifest
    if t.is_dir() and any(t.iterdir()) and not mine and not (ours and ours(t)):
        raise UserError(f"holds other files and no {manifest}: not a {kind} pfc wrote, and pfc replaces only its own "
                        "(choose a new or empty folder)", file=str(t))
    if made is not None and t.is_dir():
        is_made = made if callable(made) else set(made).__contains__
        other = next((p for p in sorted(t.rglob("*")) if not is_made(p.relative_to(t).as_posix())), None)
        if other is not None:
            raise UserError(f"holds {other.relative_to(t).as_posix()}, which pfc did not write; the {kind} is "
                            "replaced whole, so move it out first or choose another folder", file=str(t))
    return t


@contextmanager
def replace_dir(target, manifest: str, kind: str, ours=None, made=None):
    """Build into a hidden sibling of ``target``; swap it in whole when the block ends cleanly."""
    t = check_target(target, manifest, kind, ours, made)
    try:
        t.parent.mkdir(parents=True, exist_ok=True)
        _clean_stale(t)
        tmp = t.parent / f".{t.name}.building-{os.getpid()}-{os.urandom(3).hex()}-{socket.gethostname()}"
        tmp.mkdir()
    except OSError as e:
        raise write_failed(t, e, f"the previous {kind}, if any, is unchanged") from None
    try:
        yield tmp
        assert (tmp / manifest).is_file(), f"{kind}: {manifest} not written"
        if t.is_dir():
            if not _exchange(tmp, t):
                old = t.parent / f".{t.name}.old-{os.getpid()}-{os.urandom(3).hex()}"
                os.rename(t, old)
                os.rename(tmp, t)
                tmp = old
            shutil.rmtree(tmp, ignore_errors=True)  # the old set, now at the hidden name
        else:
            os.rename(tmp, t)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise write_failed(t, e, f"the previous {kind}, if any, is unchanged") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
