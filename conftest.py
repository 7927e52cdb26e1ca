"""Test isolation (loaded before every other conftest): whatever the tests generate goes to a temporary directory.

``PFC_OUTPUT_ROOT`` moves data built by pipelines, runs, the response cache, figures and
reports out of the repository (``pfc.paths``); notebooks run by nbval and subprocesses
inherit it; ``PFC_SCRATCH_DIR`` does the same for a notebook's throw-away output folder (an empty
``out_dir``), so nothing is left in the system's temporary directory. Hypothesis keeps no example
database and Python writes no bytecode, so ``git status --ignored`` is the same before and after
``make test``.
"""
import atexit
import os
import shutil
import sys
import tempfile

_OUT = tempfile.mkdtemp(prefix="pfc-test-output-")
os.environ["PFC_OUTPUT_ROOT"] = _OUT
os.environ["PFC_SCRATCH_DIR"] = os.path.join(_OUT, "scratch")  # notebooks' throw-away output (pfc.paths.scratch_dir)
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
sys.dont_write_bytecode = True
atexit.register(shutil.rmtree, _OUT, ignore_errors=True)

try:
    from hypothesis import settings
    from hypothesis.configuration import set_hypothesis_home_dir

    set_hypothesis_home_dir(os.path.join(_OUT, ".hypothesis"))  # its caches (e.g. the charmap), not .hypothesis/
    settings.register_profile("pfc-isolated", database=None)
    settings.load_profile("pfc-isolated")
except ImportError:  # pragma: no cover - hypothesis is in requirements.txt
    pass

# The fast tier runs on the core stack (no torch): modules that need the model stack at import are
# not collected for their doctests there, whether or not torch happens to be installed (`make test`,
# which deselects nothing, collects them). A test of test_layers-style checks which modules these are.
import importlib.util  # noqa: E402

MODEL_STACK_MODULES = ("lib/pfc/run/backends/hf_engine.py", "lib/pfc/run/backends/hf_stream.py",
                       "lib/pfc/run/backends/hf_attention.py")


EXTRA_MODULES = {"lib/pfc/integrations/inspect_tasks.py": "inspect_ai",  # optional extras, imported at the top
                 "lib/pfc/integrations/inspect_logs.py": "inspect_ai"}


def pytest_ignore_collect(collection_path, config):
    """Skip the model-stack modules' doctests when torch is missing or the session deselects ``model``, and
    a module of an optional extra when the extra is not installed."""
    path = str(collection_path).replace(os.sep, "/")
    if path.endswith("lib/pfc/__main__.py"):  # no doctests; importing it installs the CLI's start-up SIGINT handler
        return True
    extra = next((pkg for mod, pkg in EXTRA_MODULES.items() if path.endswith(mod)), None)
    if path.endswith("/inspect_task.py"):  # each benchmark package's inspect_ai task
        extra = "inspect_ai"
    if extra is not None:
        return True if importlib.util.find_spec(extra) is None else None
    if not path.endswith(MODEL_STACK_MODULES):
        return None
    if importlib.util.find_spec("torch") is None or "not model" in (config.getoption("markexpr") or ""):
        return True
    return None
