"""Checks around a run: refuse up front what cannot work; say loudly what failed.

:func:`preflight` runs before any request: the examples are of the benchmark named, the
backend can answer that benchmark, the tools it needs were found, and the backend is
reachable (``Backend.preflight``; a dead ``OPENAI_BASE_URL``). :func:`failure_summary`
turns a finished invocation's usage into one line when any request failed or nothing was
written (``pfc run`` prints it and exits 1; :func:`raise_if_failed` raises it in a
notebook). Ctrl-C becomes :class:`RunInterrupted` with the count of rows saved. This
module does not run anything itself (``pfc.run.runner``).

    >>> failure_summary({"failures": 0, "written": 3, "todo": 3, "done": 3, "n_examples": 3}) is None
    True
"""
from __future__ import annotations

from pfc.errors import UserError


class RunFailed(RuntimeError):
    """Some requests of a run failed, or nothing was written; the message is the one-line summary."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run; finished rows are saved and the same command resumes."""

    def __init__(self, saved: int, total: int, out: str):
        self.saved, self.total, self.out = saved, total, out
        super().__init__(f"interrupted: {saved} of {total} saved in {out}; re-run the same command to resume")


def preflight(benchmark: str, adapter, backend, examples, tools, examples_path, tools_path=None) -> None:
    """Raise UserError (naming the file or the option) for a run that cannot work."""
    where = str(examples_path)
    if not examples:
        raise UserError("no examples to run", file=where)
    kinds = sorted({e.benchmark for e in examples})
    if kinds != [benchmark]:
        raise UserError(f"holds {'/'.join(kinds)} examples, not {benchmark} (check --benchmark)", file=where)
    if not backend.supports(benchmark):
        from pfc.benchmarks import NAMES
        raise UserError(f"the {backend.name} backend cannot run {benchmark} data (it supports "
                        f"{', '.join(n for n in NAMES if backend.supports(n))}); use a model backend or oracle")
    needs = backend.needs_tools and not adapter.running.tools_in_examples
    if (needs or adapter.running.needs_tools) and not tools:
        from pathlib import Path
        p = Path(examples_path)
        looked = p / "tools.json" if p.is_dir() else p.parent / "tools.json"
        raise UserError(f"no tool file: {looked} does not exist, and a {benchmark} run with the "
                        f"{backend.name} backend needs the candidate tools; pass --tools", file=where)
    if needs and isinstance(getattr(backend, "tools", None), list) and not backend.tools:
        # a built-in baseline constructed without the tools would fail every request ("empty vocabulary")
        raise UserError(f"the {backend.name} backend was built without the candidate tools: pass its name "
                        f"to run(), or build it with get({backend.name!r}, tools=...)", file=where)
    backend.preflight()


def failure_summary(usage: dict, out: str = "") -> str | None:
    """One line when any request failed or nothing was written although work was due; else None."""
    failed, written, todo = usage.get("failures", 0), usage.get("written", 0), usage.get("todo", 0)
    if not failed and (written or not todo):
        return None
    first = usage.get("first_error")
    parts = [f"{failed} of {todo} requests failed" if failed else "nothing was written",
             f"{written} written ({usage.get('done', 0)} of {usage.get('n_examples', 0)} examples done)"]
    if first:
        parts.append(f"first error: {first}")
    if failed and out:
        parts.append(f"all in {out}/failures.jsonl; re-run the same command to retry them")
    return "; ".join(parts)


def raise_if_failed(usage: dict, out: str = "") -> dict:
    """For notebooks: raise RunFailed with the summary line, else return ``usage``."""
    line = failure_summary(usage, out)
    if line:
        raise RunFailed(line)
    return usage
