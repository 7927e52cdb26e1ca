"""Shared fixtures: the golden-data folder, the ToolSpectrum release (read in place), the tiny model and
the tiny TRACEBench every test module shares (each built once per session into a temporary directory).

Also the test tiers (markers registered in ``pyproject.toml``): ``model`` (torch, the tiny or the
real models, LoRA), ``notebook`` (papermill/nbval), ``slow`` (long CPU work, subprocess pipelines).
``make test-fast`` deselects all three; a fast session that imports torch or transformers fails
here, so the fast tier keeps running on the core stack alone (``requirements.txt``).
"""
import sys
from pathlib import Path

import pytest

from pfc import paths
from pfc.benchmarks.toolspectrum import release_dir

sys.path.insert(0, str(paths.ROOT / "benchmarks"))  # the scripts' helper modules (tiny_model, vllm_server, …)

TINY_TRACEBENCH = {"users": 2, "seed": 1, "records": 150}   # 190 examples over 2 users
HEAVY = ("torch", "transformers")


@pytest.fixture(scope="session")
def golden() -> Path:
    return paths.GOLDEN


@pytest.fixture(scope="session")
def bench_script():
    """``bench_script(name)``: ``benchmarks/<name>.py`` loaded as a module (the scripts are not a package)."""
    import importlib.util

    def load(name: str):
        spec = importlib.util.spec_from_file_location(name, paths.ROOT / "benchmarks" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # as an import would (dataclasses look their module up there)
        spec.loader.exec_module(mod)
        return mod
    return load


@pytest.fixture(scope="session")
def release() -> Path:
    d = release_dir()
    if d is None or not (d / "data" / "dataset_persona.json").exists():
        pytest.skip(f"ToolSpectrum release not found at {d}; set PFC_TOOLSPECTRUM_DIR (CI always has it)")
    return d


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """The tiny local chat model (``benchmarks/tiny_model.py``), built once per session in a temporary directory
    (~30 s idle, minutes on a loaded machine): tests write nothing into the repository."""
    from tiny_model import build_tiny_model
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model-v1"))


@pytest.fixture(scope="session")
def tiny_tracebench(tmp_path_factory) -> Path:
    """The shared tiny TRACEBench (``TINY_TRACEBENCH``: ``examples.jsonl`` + ``tools.json``), built once
    into a temporary directory. Tests only read it (runs go to their own ``tmp_path``); a test that needs
    a changed copy makes one. At the end of the session its bytes are checked to be unchanged."""
    from pfc.data.build import build_tracebench
    from pfc.provenance import sha256_path
    out = tmp_path_factory.mktemp("tiny-tracebench")
    build_tracebench(out, progress=False, **TINY_TRACEBENCH)
    before = sha256_path(out)
    yield out
    assert sha256_path(out) == before, f"a test changed the shared tiny TRACEBench in {out}: copy it first"


def _fast_tier(config) -> bool:
    expr = config.getoption("markexpr") or ""
    return all(f"not {m}" in expr for m in ("slow", "model", "notebook"))


_HEAVY_IN_WORKERS: set = set()   # what pytest-xdist workers (make test-fast runs -n auto) reported loading


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller collects each worker's heavy imports (a worker's own exit status is not the run's)."""
    _HEAVY_IN_WORKERS.update(getattr(node, "workeroutput", {}).get("heavy", ()))


def pytest_sessionfinish(session, exitstatus):
    """The fast tier must not need the model stack: importing torch/transformers there is a failure,
    in this process or in any pytest-xdist worker (which hands its list to the controller)."""
    loaded = [m for m in HEAVY if m in sys.modules]
    worker = getattr(session.config, "workeroutput", None)
    if worker is not None:
        worker["heavy"] = loaded
        return
    loaded = sorted(set(loaded) | _HEAVY_IN_WORKERS)
    if _fast_tier(session.config) and loaded:
        session.config.pluginmanager.get_plugin("terminalreporter").write_line(
            f"the fast tier imported {', '.join(loaded)}: mark the test that needs it @pytest.mark.model", red=True)
        session.exitstatus = 1
