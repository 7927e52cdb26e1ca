"""The prompt-format grid's plan entries (issue 65, ``pfc.plans.format_grid``): 7 cells, the same requests in each,
the reference ``last_k`` run's settings otherwise. Planning only: no model runs here."""
from collections import Counter
from dataclasses import fields

from pfc import benchmarks
from pfc.benchmarks.tracebench import formats
from pfc.plans import format_grid as G
from pfc.plans import reference as R
from pfc.plans.sampling import level_user_subset
from pfc.schema import Example

PROMPT_FIELDS = {"prompt_variant", "native", "out_dir", "ids", "plan"}


def test_seven_cells_one_factor_at_a_time_on_the_same_requests(tiny_tracebench, golden):
    plan = {p.name: p for p in R.plan({"tracebench": tiny_tracebench, "ptbench": golden / "ptbench_official"})}
    grid = {n: p.config for n, p in plan.items() if n.startswith(G.GRID_FOLDER + "/")}
    assert sorted(grid) == sorted(G.run_name(c) for c in ("default", "history-json", "history-table", "history-sentences",
                                                          "order-newest", "answer-prompt-json", "answer-python"))
    base = plan[R.HISTORY_RUNS["last_k"]].config
    for name, cfg in grid.items():
        cfg.check()  # every cell's variant works with its tool format
        assert cfg.ids == grid[G.run_name("default")].ids and set(cfg.ids) <= set(base.ids)
        assert {f.name for f in fields(cfg) if getattr(cfg, f.name) != getattr(base, f.name)} <= PROMPT_FIELDS
        assert cfg.plan["tables"] is False and (cfg.history, cfg.k) == ("last_k", 10)
        assert formats.cell_name(cfg.prompt_variant, cfg.native) == name.split("-", 1)[1]
    moved = [sum(v != d for v, d in zip(formats.cell_settings(c.prompt_variant, c.native).values(),
                                        ("calls", "oldest", "native"))) for c in grid.values()]
    assert sorted(moved) == [0] + [1] * 6
    assert formats.factorial_size() == 24


def _ex(i, level, user):
    return Example(f"e{i}", "tracebench", "q", None, user, meta={"vagueness": level})


def test_the_draw_takes_per_level_users_in_turn_deterministically():
    exs = [_ex(i, lv, u) for i, (lv, u) in enumerate((lv, u) for lv in ("a", "b") for u in ("x", "x", "x", "y", "z"))]
    ids = [e.id for e in exs]
    got = level_user_subset(exs, ids, 3, "k")
    by = {e.id: e for e in exs}
    assert Counter(by[i].meta["vagueness"] for i in got) == {"a": 3, "b": 3}
    for lv in ("a", "b"):  # three users, three per level: one each
        assert sorted(by[i].user_id for i in got if by[i].meta["vagueness"] == lv) == ["x", "y", "z"]
    assert level_user_subset(exs, ids, 3, "k") == got and got == sorted(got)
    assert len(level_user_subset(exs, ids, 9, "k")) == 10  # a level with fewer gives all it has
    assert set(level_user_subset(exs, ids[:5], 9, "k")) == set(ids[:5])  # only the ids asked from


def test_grid_ids_draw_from_the_reference_sample_only(tiny_tracebench):
    exs, _ = benchmarks.get(G.GRID_BENCHMARK).scoring.load(tiny_tracebench, None)
    ref = R.tracebench_ids(exs)
    got = G.grid_ids(exs, ref, per_level=2)
    assert set(got) <= set(ref) and got == G.grid_ids(exs, ref, per_level=2)
    assert max(Counter(e.meta["vagueness"] for e in exs if e.id in got).values()) <= 2


def test_the_full_factorial_has_24_distinct_cells_holding_the_seven():
    full = G.factorial()
    assert len(full) == len({c for c, _, _ in full}) == formats.factorial_size() == 24
    assert set(G.cells()) <= set(full)
