"""notebooks/fig3_1_overlap_blockade.py, its search section: started from the two rules of M
(``fit(initial_rules=...)``), the trace's two beams at rule search 1, iteration 1, as the
notebook writes them (fig3_1_overlap_blockade_beams.csv and .png), against a fit made here."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _notebook_helpers import assert_readable_png, run_notebook
from turs import TURSClassifier
from turs.datasets import make_overlap_blockade_data

pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")

M_TEXT = ["X1 < 1 AND X2 < 1.4", "X1 >= 0.6 AND X2 >= 0.8"]


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fig3_1_search")
    run_notebook("fig3_1_overlap_blockade", folder, output=folder / "executed.ipynb")
    return folder


@pytest.mark.slow
def test_both_beams_at_the_iteration_that_matters(out):
    assert_readable_png(out / "fig3_1_overlap_blockade_beams.png")
    assert (out / "fig3_1_overlap_blockade_beams.pdf").stat().st_size > 0
    table = pd.read_csv(out / "fig3_1_overlap_blockade_beams.csv")
    X, y = make_overlap_blockade_data(n=1000, seed=0)
    model = TURSClassifier(record_trace=True).fit(X, y, initial_rules=M_TEXT)
    it = model.trace_.searches[0]["iterations"][0]
    for beam, key in (("main", "main_beam"), ("auxiliary", "aux_beam")):
        rows = table[table["beam"] == beam]
        assert rows["candidate"].tolist() == [" AND ".join(c["conditions"]) for c in it[key]]
        assert np.allclose(rows["r"], [c["r"] for c in it[key]]) and np.allclose(rows["R"], [c["R"] for c in it[key]])
    # the blockade: the main beam's candidates inside the bottom-right block all have r < 0; the
    # auxiliary beam keeps X2 < 0.652117 (every new row in the block) with R > 0
    main_in = table[(table["beam"] == "main") & (table["new_in_target"] >= 0.9)]
    assert len(main_in) == 3 and (main_in["r"] < 0).all()
    aux = table[table["beam"] == "auxiliary"].set_index("candidate")
    assert aux.loc["X2 < 0.652117", "new_in_target"] == 1.0 and aux.loc["X2 < 0.652117", "R"] > 0
    assert aux.loc["X2 < 0.652117", "new_coverage"] == 183
    text = (out / "fig3_1_overlap_blockade_summary.txt").read_text(encoding="utf-8")
    assert "Started from M, rule search 1, beam iteration 1: the main beam keeps 3 candidate(s)" in text
    assert "Without the auxiliary beam the fit is the same" in text  # said as it is: here it changes nothing
