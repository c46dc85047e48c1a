"""The class tutorial (``notebooks/tutorial_mdl_rule_sets.py``) runs end to end and its numbers
are right: the code length of one rule by hand and a fit on iris, recomputed independently.
It runs through ``tools/run_notebook.py`` (as ``make`` does) into a temporary folder.
"""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from turs import Condition, TURSClassifier, mdl_score
from _notebook_helpers import changed, run_notebook, tree_snapshot
from turs.datasets import load_bundled

pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tutorial")
    before = tree_snapshot()
    run_notebook("tutorial_mdl_rule_sets", out, output=out / "executed.ipynb")
    assert not changed(before, tree_snapshot()), f"the tutorial wrote into the repository: {changed(before, tree_snapshot())}"
    return out


def assert_written(folder: Path, names):
    for name in names:
        path = folder / name
        assert path.is_file() and path.stat().st_size > 0, f"{name} was not written"
        if name.endswith(".png"):
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------------- tutorial
@pytest.mark.slow
def test_tutorial_writes_its_files(tutorial):
    assert_written(tutorial, ["tutorial_mdl_rule_sets_regret.png", "tutorial_mdl_rule_sets_overlap.png",
                              "tutorial_mdl_rule_sets_rule_steps.csv", "tutorial_mdl_rule_sets_regret.csv",
                              "tutorial_mdl_rule_sets_overlap.csv", "tutorial_mdl_rule_sets_iris.csv",
                              "executed.ipynb"])


@pytest.mark.slow
def test_tutorial_totals_match_independent_computations(tutorial):
    iris = pd.read_csv(tutorial / "tutorial_mdl_rule_sets_iris.csv").iloc[0]
    X, y = load_bundled("sklearn-iris")
    model = TURSClassifier().fit(X, y)
    assert iris.total == pytest.approx(model.mdl_score_, abs=1e-9)
    assert iris.n_rules == len(model.rules_)

    steps = pd.read_csv(tutorial / "tutorial_mdl_rule_sets_rule_steps.csv").set_index("part")["bits"]
    tiny = pd.DataFrame({"x1": np.arange(12.0), "x2": [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8.0],
                         "x3": [2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5.0]})
    y_tiny = np.array([0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0])
    bd = mdl_score([[Condition("x1", low=5.5), Condition("x2", high=5.5)]], tiny, y_tiny, model_encoding="thesis")
    assert steps["total"] == pytest.approx(bd.total, abs=1e-9)
    # hand values: log2 3 + log2 3 + (2 + log2 11) + (2 + log2 6). x2's quantile cuts are
    # 1.5, 2.5, 3+, 4.5, 5+, 5+, 5.5 ("v+": just above v); the 6 rows with x1 >= 5.5 have
    # x2 in [2, 8], which 2.5, 3+, 4.5, 5+, 5+ and 5.5 split.
    assert steps["L(S)"] == pytest.approx(2 * np.log2(3) + 4 + np.log2(11) + np.log2(6), abs=1e-9)
