"""Shared fixtures: the golden-data folder and the ToolSpectrum release (read in place)."""
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
