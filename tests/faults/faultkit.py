"""Fault-suite helpers: ``pfc`` run as a user would, the refusal check, file and tree digests.

A module of its own, not conftest.py: a test module importing ``conftest`` gets whichever conftest
was imported last (there are several), and doctest collection imports each conftest as ``conftest`` too.
"""
import hashlib
import os
import subprocess
import sys

from pfc import paths


def pfc(*args, env=None, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "pfc", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or paths.ROOT, timeout=timeout, env={**os.environ, **(env or {})})


def last_line(p, status):
    """Exit ``status``, no traceback; the last stderr line (the one-line message)."""
    assert p.returncode == status, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr, p.stderr[-2000:]
    return p.stderr.strip().splitlines()[-1]


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree(folder) -> dict:
    """name -> sha256 of every file under ``folder`` but the writer lock (what 'no earlier result changed'
    compares; the lock file only records who holds the directory)."""
    return {str(p.relative_to(folder)): digest(p) for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".pfc-writer.lock"}
