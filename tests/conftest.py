"""Shared fixtures: the golden-data folder, the ToolSpectrum release (read in place), the tiny model."""
from pathlib import Path

import pytest

from pfc import paths


@pytest.fixture(scope="session")
def golden() -> Path:
    return paths.GOLDEN


@pytest.fixture(scope="session")
def release() -> Path:
    d = paths.toolspectrum_dir()
    if d is None or not (d / "data" / "dataset_persona.json").exists():
        pytest.skip(f"ToolSpectrum release not found at {d}; set PFC_TOOLSPECTRUM_DIR (CI always has it)")
    return d


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """The tiny local chat model (pfc.run.backends.tiny), built once per session in a temporary directory
    (~30 s idle, minutes on a loaded machine): tests write nothing into the repository."""
    from pfc.run.backends.tiny import build_tiny_model
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model-v1"))
