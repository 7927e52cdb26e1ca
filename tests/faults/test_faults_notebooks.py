"""Fault suite: every notebook checks its parameters in the cell after the parameters cell (pfc.nbparams)."""
import json

import pytest

from pfc import paths

pytestmark = pytest.mark.notebook


@pytest.mark.parametrize("notebook, params, message", [
    ("00_walkthrough", {"k": "twenty"}, "field 'k': expected an integer >= 1, got 'twenty' (str)"),
    ("04_evaluate", {"n_boot": "five"}, "field 'n_boot': expected an integer >= 0, got 'five' (str)"),
    ("05_error_taxonomy", {"n_show": -1}, "field 'n_show': expected an integer >= 0, got -1"),
    ("06_figures", {"seed": 1.5}, "field 'seed': expected an integer, got 1.5 (float)"),
    ("ptbench", {"per_user": "12"}, "field 'per_user': expected an integer >= 1, got '12' (str)"),
])
def test_a_bad_notebook_parameter_stops_in_the_check_cell_naming_it(notebook, params, message, tmp_path):
    import papermill as pm
    with pytest.raises(pm.PapermillExecutionError) as e:
        pm.execute_notebook(str(paths.NOTEBOOKS / f"{notebook}.ipynb"), str(tmp_path / "o.ipynb"),
                            kernel_name="python3", language="python", progress_bar=False, parameters=params)
    assert e.value.ename == "ParameterError"
    assert message in e.value.evalue
    cells = json.loads((tmp_path / "o.ipynb").read_text())["cells"]
    failed = [c for c in cells if any(o.get("output_type") == "error" for o in c.get("outputs", []))]
    assert len(failed) == 1 and "from pfc.nbparams import check" in "".join(failed[0]["source"])
