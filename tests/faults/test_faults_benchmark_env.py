"""Fault suite: a bad ``PFC_BENCHMARKS`` entry (a typo, a module that raises or exits at import, no ``=``, a ``..``
path, no ``ADAPTER``, a built-in's name) breaks only the commands that use it, with one line naming the entry and
what is wrong; every other command, and every run on a built-in benchmark, works as without it."""
import pytest
from faultkit import last_line, pfc

from pfc import benchmarks
from pfc.errors import UserError

MODULES = {"pfcfault_raises": 'raise RuntimeError("boom at import")\n', "pfcfault_exits": "raise SystemExit(0)\n",
           "pfcfault_empty": "X = 1\n"}
ENTRIES = [  # (PFC_BENCHMARKS, the name a command uses, what the one line says)
    ("toy=pfcfault_no_such_module", "toy", "No module named 'pfcfault_no_such_module'"),
    ("toy=pfcfault_raises", "toy", "importing it failed (RuntimeError: boom at import)"),
    ("toy=pfcfault_exits", "toy", "importing it failed (SystemExit: 0)"),
    ("toy=..toy", "toy", "'..toy' is not a module name"),
    ("toy=pfcfault_empty", "toy", "module 'pfcfault_empty' defines no ADAPTER"),
    ("not-a-pair", None, "expected name=module"),
    ("tracebench=pfcfault_empty", "tracebench", "'tracebench' is a built-in benchmark"),
]


@pytest.fixture
def modules(tmp_path):
    for name, text in MODULES.items():
        (tmp_path / f"{name}.py").write_text(text)
    return tmp_path


@pytest.fixture
def fresh(monkeypatch, modules):
    """The registry read afresh from a PFC_BENCHMARKS set by the test."""
    monkeypatch.syspath_prepend(str(modules))
    monkeypatch.setattr(benchmarks, "_registry", {})
    monkeypatch.setattr(benchmarks, "_refused", {}, raising=False)
    return lambda value: monkeypatch.setenv("PFC_BENCHMARKS", value)


@pytest.mark.parametrize("value, name, message", ENTRIES)
def test_a_bad_entry_is_one_line_from_what_uses_or_lists_it_and_nothing_else(fresh, value, name, message):
    fresh(value)
    assert benchmarks.get("ptbench").name == "ptbench"  # a built-in one not named by the entry: as ever
    assert benchmarks.output_styles() and benchmarks.loaded()  # what a parser lists: the usable ones
    for use in ([lambda: benchmarks.get(name)] if name else []) + [benchmarks.adapters]:
        with pytest.raises(UserError) as e:
            use()
        assert str(e.value).startswith(f"PFC_BENCHMARKS entry '{value}': ") and message in str(e.value)
        assert "\n" not in str(e.value)


def test_a_module_that_exits_at_import_does_not_end_pfc(fresh):
    fresh("toy=pfcfault_exits")
    with pytest.raises(UserError, match="SystemExit"):
        benchmarks.get("toy")


@pytest.mark.slow
@pytest.mark.parametrize("value, name, message", ENTRIES)
def test_a_bad_entry_leaves_help_and_built_in_runs_alone_and_is_one_line_where_used(bench, modules, tmp_path,
                                                                                     value, name, message):
    env = {"PFC_BENCHMARKS": value, "PYTHONPATH": f"{modules}:{benchmarks.__file__.rsplit('/pfc/', 1)[0]}"}
    assert pfc("--help", env=env).returncode == 0
    run = ("run", "--examples", bench, "--backend", "oracle", "--limit", 2, "--no-cache")
    if name != "tracebench":
        p = pfc(*run, "--benchmark", "tracebench", "--out", tmp_path / "ok", env=env)
        assert p.returncode == 0, p.stderr
    if name:
        line = last_line(pfc(*run, "--benchmark", name, "--out", tmp_path / "bad", env=env), 2)
        assert line.startswith("pfc") and f"PFC_BENCHMARKS entry '{value}'" in line and message in line
        assert not (tmp_path / "bad").exists()
