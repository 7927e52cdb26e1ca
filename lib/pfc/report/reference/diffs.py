"""The diff page of every finished run pair in ``paired.md`` (``make diffs``): each paired row's examples in the browser.

For each pair of ``paired.json`` whose two sides are run directories (``pfc.report.reference.pairs.DIFFABLE`` and the
``rule`` pairs, whose B side is the rule's run, ``pfc.plans.rule``) and that is neither pending nor on other data,
``pfc.report.diff`` writes ``diff.html`` / ``diff.json`` into ``diffs/<A>--<B>/`` beside ``paired.md``
(:func:`page_dir`; ``/`` in a run's path becomes ``+``), the path ``paired.md`` links under the pair. The pages are not
committed (about 2 MB each, rebuilt in about 20 s each from the committed runs). It runs nothing.

    python -m pfc.report.reference.diffs      # make diffs
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pfc import paths
from pfc.errors import UserError, entry, read_json
from pfc.plans.rule import rule_dir
from pfc.report import diff
from pfc.report.reference.run import ROOT

DIRS = "diffs"
COMMAND = "python -m pfc.report.reference.diffs"
SIDED = ("layout", "history", "lora", "model", "engine", "rerun", "ask-prompt", "rule")  # both sides are run directories


def page_dir(a: str, b: str) -> str:
    """A pair's page folder under the root, by its two runs' paths (``diffs/<A>--<B>``).

    >>> page_dir("qwen2.5-coder-1.5b-openvino/tracebench-last_k", "history-prior")
    'diffs/qwen2.5-coder-1.5b-openvino+tracebench-last_k--history-prior'
    """
    return f"{DIRS}/{a.replace('/', '+')}--{b.replace('/', '+')}"


def sides(p: dict, root: Path, runs: Path | None = None) -> tuple[Path, Path]:
    """The two run directories of a pair entry."""
    return root / p["a"], (rule_dir(p["a"], runs) if p["question"] == "rule" else root / p["b"])


def write_all(root: Path | None = None, runs: Path | None = None, tell=print) -> list[Path]:
    """Every finished pair's page under ``root`` (default: the committed runs'), from its ``paired.json``."""
    root = Path(root or ROOT)
    f = root / "paired.json"
    doc = read_json(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("pairs"), list):
        raise UserError("expected the reference report's object with a list of pairs: run python -m "
                        "pfc.report.reference", file=str(f), field="pairs")
    pairs = doc["pairs"]
    done = [p for p in pairs if p["question"] in SIDED and not p.get("pending") and not p.get("other_data")]
    out = []
    for k, p in enumerate(done, 1):
        dirs = sides(p, root, runs)
        result = diff.compute(*dirs)
        for s, d in zip(diff.SIDES, dirs):  # the page names each run by its path from the checkout, never absolute
            result["runs"][s]["dir"] = paths.relative(d)
        out.append(diff.write(result, root / page_dir(p["a"], p["b"])))
        tell(f"[{k}/{len(done)}] {paths.relative(out[-1])}")
    return out


def _main(argv=None) -> int:
    argparse.ArgumentParser(prog=COMMAND, description="the diff page of every finished run pair of the committed "
                            "reference runs' paired.json, beside it (diffs/<A>--<B>/diff.html)").parse_args(argv)
    write_all(tell=lambda line: print(line, file=sys.stderr))
    return 0


def main(argv=None) -> int:
    """The command line through the one error path (``pfc.errors.entry``)."""
    return entry(COMMAND, _main, argv)


if __name__ == "__main__":
    sys.exit(main())
