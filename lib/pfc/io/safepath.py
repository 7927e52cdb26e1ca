"""Names that become paths, confined to their output root; outputs that are not their inputs; no symlinks followed.

:func:`safe_name` checks a name from a spec, config or command line that becomes one path
component (a sweep's model or benchmark name, a run name): letters, digits, ``.``, ``_`` and
``-``, not only dots, not starting with ``.`` (hidden names are where sets are built). Anything
else is a :class:`pfc.errors.UserError` naming the file and field. :func:`inside` joins parts
under a root and refuses a result that leaves it (``..``, an absolute part, a symlink that
points out). :func:`not_input` refuses an output directory that is one of the command's inputs,
holds one, or lies inside one. :func:`refuse_symlink` refuses to write through a link this
process did not create. Pure checks: nothing here writes or removes a file.

    >>> safe_name("qwen2.5-7b", "name")
    'qwen2.5-7b'
    >>> safe_name("..", "name")
    Traceback (most recent call last):
    ...
    pfc.errors.UserError: field 'name': '..' cannot name a folder (letters, digits, '.', '_', '-'; not starting with '.')
"""
from __future__ import annotations

import os
import re
from pathlib import Path
import errno

from pfc.errors import UserError

NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


def safe_name(name, field: str, file: str | None = None) -> str:
    """``name`` when it is one harmless path component, else a UserError naming ``file`` and ``field``."""
    text = str(name)
    if not NAME.fullmatch(text):
        raise UserError(f"{text!r} cannot name a folder (letters, digits, '.', '_', '-'; not starting with '.')",
                        file=file, field=field)
    return text


def _real(p) -> Path:
    return Path(os.path.realpath(os.path.abspath(p)))


def inside(root, *parts) -> Path:
    """``root / parts...``, refused unless it (symlinks resolved) stays strictly inside ``root``."""
    path = Path(root).joinpath(*map(str, parts))
    real, base = _real(path), _real(root)
    if real == base or base not in real.parents:
        raise UserError(f"resolves outside its output folder {root}", file=str(path))
    return path


def not_input(out, inputs: dict, flag: str = "--out") -> Path:
    """``out`` unless replacing it would touch an input ({flag: path}): ``out`` is the input, holds it, or (an
    input folder) lies inside it."""
    real = _real(out)
    for what, p in inputs.items():
        if p is None:
            continue
        src = _real(p)
        if real == src or real in src.parents or (src.is_dir() and src in real.parents):
            raise UserError(f"is also the input ({what} {p}); write the output to another folder", file=str(out),
                            field=flag)
    return Path(out)


def refuse_symlink(path, what: str = "file") -> Path:
    """``path`` unless it is a symbolic link (a write would go to whatever it points at)."""
    p = Path(path)
    if p.is_symlink():
        raise UserError(f"is a symbolic link; pfc does not write {what}s through links it did not make "
                        "(remove it or choose another folder)", file=str(p))
    return p


def open_append(path, what: str = "run file"):
    """``path`` opened for appending text (created if missing), refused when it is a symbolic link."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        if e.errno == errno.ELOOP:
            refuse_symlink(path, what)
        raise
    return open(fd, "a", encoding="utf-8")
