"""Data versions of a benchmark (PTBench's syntheses): which version a run's config or an example records, and where
an earlier version's build lives beside the current one, as each benchmark's ``plans`` module declares
(``data_version``, ``history_builds``). Read by the reference report, ``pfc verify`` and the exporters, so a run made on
an earlier synthesis is read on the data it answered. Builds nothing, reads no file.
"""
from __future__ import annotations

from pathlib import Path

from pfc import benchmarks, paths
from pfc.data.ptool.synthesis import DataVersion


def _versions(bench: str | None):
    """``bench``'s plans module when it keeps data versions (it has ``data_version``), else None."""
    a = benchmarks.get(bench) if bench in benchmarks.names() else None
    m = a.part("plans") if a is not None and a.has("plans") else None
    return m if hasattr(m, "data_version") else None


def history_builds() -> dict:
    """``{version: its build folder}`` of the earlier data versions kept buildable as history (PTBench's
    syntheses), from every benchmark whose plans keep versions."""
    return {k: v for a in benchmarks.adapters() if (m := _versions(a.name)) for k, v in m.history_builds().items()}


def data_version(bench: str | None, record: dict) -> DataVersion | None:
    """Which version of ``bench``'s data a run's ``config.json`` or one of its examples' meta (``record``)
    records, as its plans module says (PTBench: its synthesis, recorded by the runner since v2); None for a benchmark
    whose data has one version."""
    m = _versions(bench)
    return m.data_version(record) if m is not None else None


def history_examples(config: dict) -> Path | None:
    """Where a run made on an earlier data version finds its examples, that version's build beside the
    current one: ``data/benchmarks/ptbench/X`` -> ``data/benchmarks/ptbench-v1/X`` (read from the output root when built
    there); None for a run on the current version or data outside ``data/benchmarks``."""
    v, parts = data_version(config.get("benchmark"), config), Path(config.get("examples") or "").parts
    if v is None or v.current or v.suffix is None or parts[:2] != ("data", "benchmarks") or len(parts) < 4:
        return None
    return paths.source(Path(*parts[:2], parts[2] + v.suffix, *parts[3:]).as_posix())
