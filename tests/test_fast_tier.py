"""The fast tier's guard (``tests/conftest.py``): a fast session whose tests import torch or transformers
fails, also when the import happens in a pytest-xdist worker (``make test-fast`` runs ``-n auto``)."""
import shutil
import subprocess
import sys
from pathlib import Path

FAST = "not slow and not model and not notebook"
FAKE_TORCH = "import sys, types\n\n\ndef test_loads_the_model_stack():\n    sys.modules['torch'] = types.ModuleType('torch')\n"


def _session(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_heavy.py").write_text(FAKE_TORCH)  # a stand-in module: no torch needed to test the guard
    return subprocess.run([sys.executable, "-m", "pytest", str(tmp_path), "-p", "no:cacheprovider", "-m", FAST, *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_a_worker_that_imports_torch_fails_the_fast_session(tmp_path):
    r = _session(tmp_path, "-n", "2")
    assert r.returncode == 1, r.stdout[-2000:]
    assert "1 passed" in r.stdout and "the fast tier imported torch" in r.stdout
