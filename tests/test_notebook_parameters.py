"""Every notebook's `parameters` cell is one papermill can read: each assignment becomes a parameter.

A line papermill cannot parse (two `=` on it, e.g. a comment that shows `NAME=RUN`) is skipped with a
warning, and a value later injected for that name becomes an "unknown parameter" — the run still goes.
"""
import ast

import nbformat
import pytest
from papermill.translators import PythonTranslator

from pfc import paths

NOTEBOOKS = sorted(paths.NOTEBOOKS.glob("*.ipynb"))


def _parameters_cell(nb):
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, "one cell tagged parameters"
    return cells[0]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_papermill_reads_every_assignment_of_the_parameters_cell(path, caplog):
    cell = _parameters_cell(nbformat.read(str(path), 4))
    assigned = [t.id for node in ast.parse(cell.source).body if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)]
    with caplog.at_level("WARNING", logger="papermill"):
        read = [p.name for p in PythonTranslator.inspect(cell)]
    assert "Unable to parse" not in caplog.text, caplog.text
    assert read == assigned
