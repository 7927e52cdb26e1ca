"""``pfc compare A B --paired`` and the notebooks' paired comparison of two run directories.

Loads and scores both runs (``pfc.report.tables.load_run``), refuses runs on different example sets (the message says
how many ids they share), aligns their per-example tables by id, attaches each example's user and returns, per metric of
the benchmark, A − B with a paired user-clustered 95% interval, the unpaired one beside it, and an exact McNemar p-value
for 0/1 metrics (``pfc.eval.paired``). No new statistics live here.

    python -m pfc compare data/runs/tb-history-prior data/runs/tb-no-history --paired
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from pfc import benchmarks
from pfc.errors import UserError
from pfc.eval.bootstrap import N_BOOT
from pfc.eval.paired import paired_table
from pfc.report import tables as T


def user_ids(run: T.Run, examples=None, tools=None) -> dict:
    """{example id: user id} of the examples a run was scored on."""
    path = Path(examples) if examples is not None else T._examples_path(Path(run.run_dir or "."), run.config, None)
    exs, _ = benchmarks.get(run.benchmark).scoring.load(path, tools)
    return {e.id: e.user_id for e in exs}


MISSING = "input:missing_prediction"  # the error type of an example a run did not answer (pfc.eval.scoring)
MIN_SHARED = 0.5  # a paired comparison needs the ids both runs answered to be at least half of either run's


def answered(run: T.Run) -> set:
    """Ids of the examples a run answered (a row in its predictions); a missing one is scored as a failure."""
    df = run.per_example
    if "error_type" not in df.columns:
        return set(df["id"])
    return set(df.loc[df["error_type"] != MISSING, "id"])


def coverage_line(a: T.Run, b: T.Run) -> str:
    """How many examples each run answered and how many both did (what the paired numbers are computed on)."""
    n, sa, sb = len(a.per_example), answered(a), answered(b)
    return (f"coverage: {a.name} answered {len(sa)} of {n} examples, {b.name} {len(sb)} of {n}; "
            f"paired on the {len(sa & sb)} both answered")


def align(a: T.Run, b: T.Run) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both per-example tables on the ids both runs answered, in one id order; different example sets, or
    runs sharing too few answered ids (fewer than 2, or under half of either run's), are a user error."""
    if a.benchmark != b.benchmark:
        raise UserError(f"{a.name} is a {a.benchmark} run and {b.name} a {b.benchmark} run: not paired")
    ia, ib = set(a.per_example["id"]), set(b.per_example["id"])
    if ia != ib:
        raise UserError(f"{a.name} ({len(ia)} examples) and {b.name} ({len(ib)} examples) are on different "
                        f"example sets: they share {len(ia & ib)} ids; a paired comparison needs the same examples")
    sa, sb = answered(a), answered(b)
    both = sa & sb
    if len(both) < 2 or len(both) < MIN_SHARED * max(len(sa), len(sb)):
        raise UserError(f"{a.name} answered {len(sa)} of {len(ia)} examples and {b.name} {len(sb)}: they share "
                        f"{len(both)} answered ids, too few for a paired comparison (at least 2 and half of either "
                        "run's); finish the shorter run or compare them unpaired")
    order = sorted(both)
    return (a.per_example.set_index("id").loc[order].reset_index(),
            b.per_example.set_index("id").loc[order].reset_index())


def compare_runs(a: T.Run, b: T.Run, n_boot: int = N_BOOT, seed: int = 0, users: dict | None = None) -> pd.DataFrame:
    """Per metric: A, B, A − B, paired and unpaired 95% intervals, McNemar p (0/1 metrics)."""
    pa, pb = align(a, b)
    users = users if users is not None else user_ids(a)
    pa = pa.assign(user_id=pa["id"].map(users))
    pb = pb.assign(user_id=pa["user_id"])
    return paired_table(pa, pb, T.metric_keys(a.benchmark), "user_id", n_boot, seed)


def text(table: pd.DataFrame, a: str, b: str) -> str:
    """A readable table for standard output."""
    cols = [c for c in ("key", "a", "b", "diff", "paired_lo", "paired_hi", "unpaired_lo", "unpaired_hi",
                        "a_only", "b_only", "mcnemar_p") if c in table.columns]
    head = (f"paired: A = {a}, B = {b}; A - B with user-clustered bootstrap 95% intervals (paired and, for "
            f"comparison, unpaired); exact McNemar p on discordant pairs for 0/1 metrics")
    fmt = {c: (lambda x: f"{x:.2e}") if c == "mcnemar_p" else (lambda x: "" if x != x else f"{x:.0f}")
           if c in ("a_only", "b_only") else (lambda x: f"{x:.4f}") for c in cols if c != "key"}
    return head + "\n" + table[cols].to_string(index=False, formatters=fmt)


def paired_cmd(args) -> int:
    """``pfc compare A B --paired``: exactly two run directories."""
    if len(args.run_dirs) != 2:
        raise UserError(f"--paired compares exactly two run directories, got {len(args.run_dirs)}")
    a, b = (T.load_run(d, examples=args.examples, tools=args.tools) for d in args.run_dirs)
    a, b = T.unique_names([a, b])
    table = compare_runs(a, b, n_boot=args.n_boot or N_BOOT, seed=args.seed,
                         users=user_ids(a, args.examples, args.tools))
    print(text(table, a.name, b.name))
    print(coverage_line(a, b))
    return 0
