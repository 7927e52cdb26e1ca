"""Read a file's contents once per report: values derived from unchanged files, shared inside a ``with`` block.

A report scores many runs against the same benchmark build; TRACEBench's ``examples.jsonl`` (1,815 examples with full
histories) takes ~3 s to read and check, and a notebook read it once per run. Inside :func:`reading_once`, :func:`once`
computes a value the first time for a kind and a set of paths and returns the stored value while none of them has
changed: a file keeps its resolved path, size, modification time and inode; a directory, every file under it does (and
no file comes or goes). Outside the block, it simply computes. The values are shared, not copied: the block is for code
that only reads them (scoring, tables), never for code that edits examples (builders, counterfactual variants). Nothing
here knows what is read.

    >>> calls = []
    >>> with reading_once():
    ...     a = once("n", [], lambda: calls.append(1) or len(calls))
    ...     b = once("n", [], lambda: calls.append(1) or len(calls))
    >>> a, b, once("n", [], lambda: 7)
    (1, 1, 7)
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

_STORE: dict | None = None   # None: outside any reading_once block


@contextmanager
def reading_once():
    """Share derived values of unchanged files until the outermost block ends (blocks nest)."""
    global _STORE
    outer = _STORE
    _STORE = {} if outer is None else outer
    try:
        yield
    finally:
        _STORE = outer


def _file_stamp(p: Path) -> tuple:
    try:
        st = os.stat(p)
    except OSError:
        return (str(p), None)
    return (str(p), st.st_size, st.st_mtime_ns, st.st_ino)


def _stamp(path) -> tuple:
    """A file's stamp; a directory's: every file under it (a benchmark build's few files)."""
    if path is None:
        return (None,)
    p = Path(path).resolve()
    if p.is_dir():
        return (str(p), *(_file_stamp(f) for f in sorted(p.rglob("*")) if f.is_file()))
    return _file_stamp(p)


def once(kind: str, files, make):
    """``make()``, computed once per ``kind`` and unchanged ``files`` inside :func:`reading_once`."""
    if _STORE is None:
        return make()
    key = (kind, *(_stamp(f) for f in files))
    if key not in _STORE:
        _STORE[key] = make()
    return _STORE[key]
