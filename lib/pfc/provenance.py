"""Provenance of results: content hashes, paths as shown, git commit, package versions.

Everything here describes *what produced a file* without absolute paths or secrets: paths are kept as the user gave them
when relative, else shown relative to the repository root (``pfc.paths.relative``); a directory's hash covers its files'
relative names and bytes. It does not decide whether two runs match (``pfc.run.identity``).

    >>> sha256_path("no-such-file") is None
    True
"""
from __future__ import annotations

import hashlib
import os
import platform
import subprocess
from pathlib import Path
from importlib.metadata import PackageNotFoundError, version

from pfc import paths


def sha256_path(path) -> str | None:
    """Hash of a file's bytes, or of a directory's files (sorted relative names + bytes); None if absent."""
    p = Path(path)
    h = hashlib.sha256()
    if p.is_file():
        with p.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    if p.is_dir():
        for f in sorted(q for q in p.rglob("*") if q.is_file()):
            h.update(f.relative_to(p).as_posix().encode() + b"\0")
            h.update(bytes.fromhex(sha256_path(f)))
        return h.hexdigest()
    return None


def shown_path(path) -> str | None:
    """A path for a report: as given when relative, else relative to the repo root (never absolute)."""
    if path is None:
        return None
    p = str(path)
    return p if not os.path.isabs(p) else paths.relative(Path(p))


def file_record(path) -> dict | None:
    return None if path is None else {"path": shown_path(path), "sha256": sha256_path(path)}


def git_commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def versions(packages=("pfc", "openai", "transformers", "torch", "vllm", "pandas", "scikit-learn")) -> dict:
    out = {"python": platform.python_version()}
    for pkg in packages:
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            pass
    return out


def source_version(*modules) -> str:
    """A short hash of the source files of ``modules``: changes whenever their code changes."""
    h = hashlib.sha256()
    for m in modules:
        f = getattr(m, "__file__", None)
        h.update(Path(f).read_bytes() if f else repr(m).encode())
    return h.hexdigest()[:16]
