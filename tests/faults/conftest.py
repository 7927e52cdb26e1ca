"""Fault-suite fixtures: the shared tiny TRACEBench (helpers live in ``faultkit``)."""
import pytest


@pytest.fixture(scope="session")
def bench(tiny_tracebench):
    """The shared tiny TRACEBench (tests/conftest.py), built once per session."""
    return tiny_tracebench
