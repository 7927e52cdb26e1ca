"""nbval: notebooks that need the ToolSpectrum release are skipped, with a clear message, only when it is absent."""
import pytest

from pfc.benchmarks.toolspectrum import release_dir

NEEDS_RELEASE = {"toolspectrum.ipynb"}


def pytest_collection_modifyitems(config, items):
    d = release_dir()
    if d is not None and (d / "data" / "dataset_persona.json").exists():
        return
    skip = pytest.mark.skip(reason=f"ToolSpectrum release not found at {d}; set PFC_TOOLSPECTRUM_DIR")
    for item in items:
        if item.fspath.basename in NEEDS_RELEASE:
            item.add_marker(skip)
