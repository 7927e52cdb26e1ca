"""The library's import order (README, "The library follows the path raw data → report").

Stages, lowest first: ``eval`` (parsing, matching, metrics: what every later stage uses) → ``data`` →
``models`` (the model registry, install, OpenVINO IR: what the backends load) → ``run`` (the typed run,
backends, prompts, the runner) → ``train`` (SFT records, LoRA) → ``sweep`` (``pfc sweep``) → ``plans`` (the
real-model run plans, each step one ``RunConfig``) → ``report``. A module in a
stage imports only its own stage and lower ones; the modules below the stages (``pfc/*.py`` other than
the command line on top: ``cli`` and its command groups ``cli_*``; and ``pfc/io``) import no stage at all. Every ``import`` statement counts, lazy ones
inside functions included. Beside the path, checked too: ``benchmarks/`` (one package per benchmark) imports only
``eval`` and the foundation, except a package's parts, each checked as the stage of its job
(``pfc.benchmarks.adapter.PARTS``: ``prompts`` as ``run``, ``section`` as ``report``, …), and a stage imports no
part of a higher stage's job; any module may import the adapters;
``integrations/`` (inspect_ai, HF datasets) may import every stage below ``report``, and only the
command line imports them. No two modules import each other, directly or around a loop.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pfc.benchmarks.adapter import PARTS

LIB = Path(__file__).resolve().parents[1] / "lib" / "pfc"
STAGES = ("eval", "data", "models", "run", "train", "sweep", "plans", "report")   # lowest first
ON_TOP = {"cli.py", "__main__.py"} | {f.name for f in LIB.glob("cli_*.py")}  # the command line and its command groups
BESIDE = {"benchmarks": {"eval"}, "integrations": set(STAGES[:STAGES.index("report")])}  # folder -> stages it may import
CALLS_INTEGRATIONS = {"cli.py"}  # the command line


def imported_pfc_packages(source: str) -> set[str]:
    """The ``pfc.<name>`` first components that ``source`` imports, at any depth of the file."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] if node.module != "pfc" else [f"pfc.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found |= {n.split(".")[1] for n in names if n.startswith("pfc.")}
    return found


def violations(module_stage: str | None, source: str) -> set[str]:
    """The stages ``source`` may not import: higher ones for a stage, every stage below the stages."""
    allowed = set(STAGES[:STAGES.index(module_stage) + 1]) if module_stage else set()
    return {p for p in imported_pfc_packages(source) if p in STAGES and p not in allowed}


def test_checker_sees_a_lazy_import_of_a_higher_stage():
    src = "def f():\n    from pfc.data.anchors import x\n    return x\n"
    assert violations("eval", src) == {"data"}


def test_checker_allows_own_and_lower_stages_and_the_foundation():
    src = "import pfc.eval.metrics\nfrom pfc.data import build\nfrom pfc.schema import Call\nfrom pfc import render\n"
    assert violations("run", src) == set()


def test_checker_sees_a_stage_imported_by_name_from_pfc():
    assert violations(None, "from pfc import eval as e\n") == {"eval"}


@pytest.mark.parametrize("stage", STAGES)
def test_no_module_imports_a_higher_stage(stage):
    bad = {str(f.relative_to(LIB)): sorted(v) for f in sorted((LIB / stage).rglob("*.py"))
           if (v := violations(stage, f.read_text(encoding="utf-8")))}
    assert bad == {}


def test_modules_below_the_stages_import_no_stage():
    files = [f for f in LIB.glob("*.py") if f.name not in ON_TOP] + sorted((LIB / "io").rglob("*.py"))
    bad = {f.name: sorted(v) for f in files if (v := violations(None, f.read_text(encoding="utf-8")))}
    assert bad == {}


def part_stage(f: Path) -> str | None:
    """The job's stage of a benchmark package's part (``benchmarks/<name>/<job>.py``), else None."""
    rel = f.relative_to(LIB).parts
    return PARTS.get(f.stem) if len(rel) == 3 and rel[0] == "benchmarks" else None


def allowed(folder: str, f: Path) -> set[str]:
    stage = part_stage(f) if folder == "benchmarks" else None
    if stage is None:
        return BESIDE[folder]
    return BESIDE["integrations"] if stage == "integrations" else set(STAGES[:STAGES.index(stage) + 1])


@pytest.mark.parametrize("folder", sorted(BESIDE))
def test_adapter_folders_import_only_what_they_may(folder):
    bad = {str(f.relative_to(LIB)): sorted(v) for f in sorted((LIB / folder).rglob("*.py"))
           if (v := {p for p in imported_pfc_packages(f.read_text(encoding="utf-8"))
                     if p in STAGES and p not in allowed(folder, f)})}
    assert bad == {}


def test_a_benchmark_part_is_checked_as_its_jobs_stage():
    assert part_stage(LIB / "benchmarks" / "ptbench" / "prompts.py") == "run"
    assert allowed("benchmarks", LIB / "benchmarks" / "ptbench" / "section.py") == set(STAGES)
    assert allowed("benchmarks", LIB / "benchmarks" / "ptbench" / "official.py") == {"eval"}


def imported_parts(source: str) -> set[str]:
    """The jobs of the benchmark package parts (``pfc.benchmarks.<name>.<job>``) that ``source`` imports."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pfc.benchmarks."):
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {n.split(".")[3] for n in names if n.startswith("pfc.benchmarks.") and n.count(".") >= 3
                  and n.split(".")[3] in PARTS}
    return found


@pytest.mark.parametrize("stage", STAGES)
def test_no_stage_imports_a_benchmark_part_of_a_higher_stage(stage):
    ok = set(STAGES[:STAGES.index(stage) + 1])
    bad = {str(f.relative_to(LIB)): sorted(j) for f in sorted((LIB / stage).rglob("*.py"))
           if (j := {p for p in imported_parts(f.read_text(encoding="utf-8")) if PARTS[p] not in ok})}
    assert bad == {}


def test_only_the_command_line_imports_the_integrations():
    bad = sorted(str(f.relative_to(LIB)) for f in LIB.rglob("*.py")
                 if "integrations" not in f.relative_to(LIB).parts[:1]
                 and str(f.relative_to(LIB)) not in CALLS_INTEGRATIONS and part_stage(f) != "integrations"
                 and "integrations" in imported_pfc_packages(f.read_text(encoding="utf-8")))
    assert bad == []


def test_every_folder_is_a_stage_an_adapter_folder_or_the_foundation():
    folders = {p.name for p in LIB.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(STAGES) | set(BESIDE) | {"io"}


# ------------------------------------------------------------------ import cycles between modules
def _module_names() -> dict[str, Path]:
    out = {}
    for f in LIB.rglob("*.py"):
        parts = list(f.relative_to(LIB.parent).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    return out


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """``{module: modules it imports}`` (any depth of the file; ``from pkg import mod`` is an edge to ``pkg.mod``)."""
    def resolve(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name
    graph = {}
    for m, f in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("pfc"):
                edges |= {resolve(f"{node.module}.{a.name}") for a in node.names}
            elif isinstance(node, ast.Import):
                edges |= {resolve(a.name) for a in node.names if a.name.startswith("pfc")}
        graph[m] = {e for e in edges if e and e != m}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_cycle_finder_sees_a_loop_of_three_and_no_loop_in_a_chain():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_two_modules_import_each_other_directly_or_around_a_loop():
    assert cycles(import_graph(_module_names())) == []


def test_modules_needing_the_model_stack_at_import_are_the_ones_the_fast_tier_skips():
    conftest = ast.parse((LIB.parents[1] / "conftest.py").read_text(encoding="utf-8"))  # read, never run
    skipped = next(ast.literal_eval(n.value) for n in conftest.body if isinstance(n, ast.Assign)
                   and getattr(n.targets[0], "id", "") == "MODEL_STACK_MODULES")
    heavy = sorted(f"lib/pfc/{f.relative_to(LIB).as_posix()}" for f in LIB.rglob("*.py")
                   if {"torch", "transformers"} & {n.split(".")[0] for node in ast.parse(f.read_text(encoding="utf-8")).body
                                                   if isinstance(node, (ast.Import, ast.ImportFrom))
                                                   for n in ([a.name for a in node.names] if isinstance(node, ast.Import)
                                                             else [node.module or ""])})
    assert heavy == sorted(skipped)


def test_report_modules_start_no_run_but_the_pipelines_own_steps():
    """A report reads run directories; the notebooks' demo runs are ``pfc.plans.demo``'s (issue 62). Runs start
    through the one executor (``pfc.plans.executor``); in ``report/`` only the pipeline's steps
    (``pipeline/step.py``: the baselines' runs of ``make reproduce``) call it, and none calls the runner itself."""
    def runs(f: Path) -> bool:
        return any(isinstance(n, ast.ImportFrom) and (n.module in ("pfc.run.runner", "pfc.plans.executor") or (
            n.module == "pfc.plans" and "executor" in {a.name for a in n.names}))
            for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))))
    assert sorted(f.relative_to(LIB / "report").as_posix() for f in (LIB / "report").rglob("*.py") if runs(f)) \
        == ["pipeline/step.py"]
