"""The fast tier's guard (``tests/conftest.py``): a fast session whose tests import torch or transformers
fails, also when the import happens in a pytest-xdist worker (``make test-fast`` runs ``-n auto``)."""
import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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


# Packages outside requirements.txt (the core stack `make test-fast` installs) that a lib module may import at its top.
OPTIONAL = {"inspect_ai": "extra", "ray": "extra", "every_eval_ever": "extra", "vllm": "extra", "llama_cpp": "extra",
            "openvino": "extra", "optimum": "extra", "torch": "model", "transformers": "model", "peft": "model"}


def _conftest_lists() -> set[str]:
    """The module paths the root conftest leaves out when their stack is missing, read from its source as data."""
    tree = ast.parse((ROOT / "conftest.py").read_text(encoding="utf-8"))
    out = set()
    for node in tree.body:
        name = getattr(node.targets[0], "id", None) if isinstance(node, ast.Assign) else None
        if name in ("EXTRA_MODULES", "MODEL_STACK_MODULES"):
            out |= set(ast.literal_eval(node.value))  # a dict's keys or a tuple's items
    return out


def _top_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:  # module level only: an import inside a function or a try runs when it is wanted
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_every_lib_module_importing_an_optional_stack_at_its_top_is_left_out_of_the_fast_tiers_doctests():
    # found by a fresh clone's make test-fast: integrations/inspect_logs.py (inspect_ai at its top) was collected
    listed = _conftest_lists()
    missing = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "lib" / "pfc").rglob("*.py"))
               if _top_imports(p) & OPTIONAL.keys() and p.name != "inspect_task.py"
               and str(p.relative_to(ROOT)).replace("\\", "/") not in listed]
    assert missing == [], "add to conftest.py's EXTRA_MODULES or MODEL_STACK_MODULES: " + ", ".join(missing)
