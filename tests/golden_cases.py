"""Load golden-case files from tests/golden/ (each case carries its own source)."""
import json

from pfc import paths


def load_golden(name: str):
    return json.loads((paths.GOLDEN / name).read_text(encoding="utf-8"))
