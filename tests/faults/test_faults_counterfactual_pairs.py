"""Fault suite, notebook 08's library (``pfc.report.counterfactual``): run names other than history-prior and
no-history skip the paired comparison instead of a KeyError; a run name holding ``$`` is drawn as text, not
mathtext; a run or examples folder that does not exist is one line naming that folder."""
import io
import json

import matplotlib
import pandas as pd
import pytest

from pfc import paths
from pfc.errors import UserError
from pfc.report import counterfactual as cf

matplotlib.use("Agg")


@pytest.mark.parametrize("names", [["a $^$ b", "x$_$y"], ["cost $5 or $", "m_1^2", "history-prior"]])
def test_run_names_with_dollars_draw_as_they_are(names):
    wide = pd.DataFrame({"accuracy (originals)": [0.5] * len(names), "context_following": [0.25] * len(names)},
                        index=names)
    ax = cf.figure(wide)
    ax.figure.savefig(io.BytesIO(), format="png")
    assert [t.get_text() for t in ax.texts] == names


def test_the_paired_comparison_needs_both_baselines_by_name():
    assert cf.history_pair(cf.parse_pairs("a=r1:v1,b=r2:v2")) is None
    assert cf.history_pair(cf.parse_pairs("history-prior=r1:v1,x=r2:-")) is None
    assert cf.history_pair(cf.parse_pairs("no-history=r2:-,history-prior=r1:v1")) == ("history-prior", "no-history")


def test_notebook_08_asks_for_the_pair_instead_of_indexing_it():
    nb = json.loads((paths.NOTEBOOKS / "08_counterfactuals.ipynb").read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "cf.history_pair(pairs)" in code and 'for n in ("history-prior", "no-history")' not in code


def test_a_folder_that_does_not_exist_is_named(bench, tmp_path):
    gone = tmp_path / "runs" / "never-made"
    with pytest.raises(UserError, match=rf"^run_pairs 'm': {gone}: no such folder$"):
        cf.evaluate_pairs("tracebench", bench, bench, {"m": (gone, None)}, n_boot=0)
    with pytest.raises(UserError, match=rf"^variants: {gone}: no such folder$"):
        cf.evaluate_pairs("tracebench", bench, gone, {}, n_boot=0)
