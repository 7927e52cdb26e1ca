"""Test isolation (loaded before every other conftest): whatever the tests generate goes to a temporary directory.

``PFC_OUTPUT_ROOT`` moves data built by pipelines, runs, the response cache, figures and
reports out of the repository (``pfc.paths``); notebooks run by nbval and subprocesses
inherit it. Hypothesis keeps no example database and Python writes no bytecode, so
``git status --ignored`` is the same before and after ``make test``.
"""
import atexit
import os
import shutil
import sys
import tempfile

_OUT = tempfile.mkdtemp(prefix="pfc-test-output-")
os.environ["PFC_OUTPUT_ROOT"] = _OUT
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
# not collected for their doctests there (`make test`, with torch, collects them).
import importlib.util  # noqa: E402

collect_ignore = [] if importlib.util.find_spec("torch") else ["lib/pfc/run/backends/hf_engine.py",
                                                               "lib/pfc/run/backends/hf_stream.py"]
