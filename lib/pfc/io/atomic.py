"""Atomic, lossless output files: a file appears whole or not at all, and a set of files together.

:func:`write_bytes` / :func:`write_text` / :func:`write_json` write to a temporary file in the
same folder, fsync it and ``os.replace`` it over the target, so a reader (or a kill -9, or a
full disk) sees the old file or the new one, never a cut one. :func:`write_set` does the
same for several files of one directory (a score or report directory): every file is staged
first (a full disk leaves the old set untouched), then the ``stamp`` file (the one that says
which invocation made the set) is removed, the others renamed in, and the stamp renamed last:
a directory with its stamp holds exactly one invocation's files. :func:`dumps` is JSON
that can always be written as UTF-8: text with a lone surrogate (``"\\ud800"``, which
UTF-8 cannot carry) is kept as a JSON escape instead of failing. A failure to write (full
disk, read-only folder) is a :class:`pfc.errors.UserError` naming the file; the old file is
unchanged. It does not lock anything (:mod:`pfc.io.lock`) nor append to files.

    >>> dumps({"t": "\\ud800"})
    '{"t": "\\\\ud800"}'
"""
from __future__ import annotations

import errno
import json
import os
from contextlib import contextmanager
from pathlib import Path

from pfc.errors import UserError


def dumps(obj, **kw) -> str:
    """``json.dumps(ensure_ascii=False)``, or with ``\\uXXXX`` escapes when the text is not valid UTF-8
    (lone surrogates): lossless either way, and the result always encodes as UTF-8."""
    text = json.dumps(obj, ensure_ascii=False, **kw)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, ensure_ascii=True, **kw)
    return text


def _tmp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp-{os.getpid()}-{os.urandom(3).hex()}")


def write_failed(path, e: OSError, kept: str = "the previous file, if any, is unchanged") -> UserError:
    """One line for a write that failed, naming the file, why, and what was ``kept``."""
    why = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded",
           errno.EROFS: "read-only file system", errno.EFBIG: "file too large", errno.EACCES: "permission denied"}.get(e.errno,
                                                                                       e.strerror or str(e))
    return UserError(f"cannot write: {why}; {kept}", file=str(path))


def _stage(path: Path, data: bytes) -> Path:
    """Write ``data`` to a fresh temporary file beside ``path`` (fsynced); removed again if that fails."""
    tmp = _tmp_name(path)
    with _removed_on_failure(tmp, path):
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
    return tmp


@contextmanager
def _removed_on_failure(tmp: Path, path: Path):
    """Remove ``tmp`` if the block fails: an OSError becomes one line naming ``path``; Ctrl-C or anything
    else is re-raised, with no hidden temporary file left beside the target."""
    try:
        yield
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise write_failed(path, e) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _replace(tmp: Path, path: Path) -> None:
    try:
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise write_failed(path, e) from None


def write_bytes(path, data: bytes) -> Path:
    path = Path(path)
    _replace(_stage(path, data), path)
    return path


def write_text(path, text: str) -> Path:
    return write_bytes(path, text.encode("utf-8"))


def write_json(path, obj, indent: int | None = 1, **kw) -> Path:
    return write_text(path, dumps(obj, indent=indent, **kw) + "\n")


@contextmanager
def staged(path):
    """For writers that want a path (``savefig``, ``to_parquet``, a copy): yields a temporary path beside
    ``path``; when the block ends without an error it is fsynced and renamed over ``path``, else removed. The temporary
    name does not end in the target's suffix: name the format explicitly."""
    path = Path(path)
    tmp = _tmp_name(path)
    with _removed_on_failure(tmp, path):
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    _replace(tmp, path)


@contextmanager
def open_text(path, newline: str | None = None):
    """A text file (UTF-8) written line by line that appears whole or not at all (:func:`staged`)."""
    with staged(path) as tmp, open(tmp, "w", encoding="utf-8", newline=newline) as fh:
        yield fh


def write_set(folder, files: dict[str, bytes | str], stamp: str) -> None:
    """Replace the files ``files`` (name -> content) of ``folder`` as one set; ``stamp`` (one of the names)
    is written last and removed first, so its presence means the set is whole."""
    folder = Path(folder)
    assert stamp in files, stamp
    folder.mkdir(parents=True, exist_ok=True)
    staged: dict[str, Path] = {}
    try:
        for name, content in files.items():
            staged[name] = _stage(folder / name, content.encode("utf-8") if isinstance(content, str) else content)
    except BaseException:
        for tmp in staged.values():
            tmp.unlink(missing_ok=True)
        raise
    (folder / stamp).unlink(missing_ok=True)
    for name in [n for n in files if n != stamp] + [stamp]:
        _replace(staged[name], folder / name)
