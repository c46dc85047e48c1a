"""The teaching notebooks run end to end and their key numbers are right.

* ``notebooks/fig3_1_overlap_blockade.py`` (thesis Fig. 3.1, §3.5.2): the learning speed
  ``r`` (Eq. 3.21) and complementary score ``R`` (Eq. 3.24) of the candidates that start a
  rule for the bottom-right block of ``make_overlap_blockade_data``, given the two existing
  rules. We recompute ``r`` of the target rule and ``R`` of the blocked literal ``X1 >= 1``
  from ``turs.mdl_score`` alone.
The tutorial's tests are in ``tests/test_tutorial.py``.

It runs through ``tools/run_notebook.py`` (as ``make`` does) into a temporary folder; nothing
is written into the repository.
"""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from turs import Condition, TURSClassifier, mdl_score
from _notebook_helpers import assert_readable_png, changed, run_notebook, tree_snapshot
from turs.datasets import OVERLAP_BLOCKADE_RULES, load_bundled, make_overlap_blockade_data


pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")


def run(notebook: str, out: Path) -> Path:
    before = tree_snapshot()
    run_notebook(notebook.removesuffix(".py"), out, output=out / "executed.ipynb")
    assert not changed(before, tree_snapshot()), f"{notebook} wrote into the repository: {changed(before, tree_snapshot())}"
    return out


@pytest.fixture(scope="module")
def blockade(tmp_path_factory) -> Path:
    return run("fig3_1_overlap_blockade.py", tmp_path_factory.mktemp("fig3_1"))


def assert_written(folder: Path, names):
    for name in names:
        path = folder / name
        assert path.is_file() and path.stat().st_size > 0, f"{name} was not written"
        if name.endswith(".png"):
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if name.endswith(".pdf"):
            assert path.read_bytes()[:5] == b"%PDF-"


# ------------------------------------------------------------------------- Fig. 3.1
def _rule(box: dict) -> list:
    """A box of OVERLAP_BLOCKADE_RULES as Conditions; the domain edges 0 and 2 are no bounds."""
    return [Condition(col, low=lo if lo > 0 else None, high=hi if hi < 2 else None)
            for col, (lo, hi) in box.items()]


@pytest.mark.slow
def test_fig3_1_writes_figure_table_and_summary(blockade):
    assert_written(blockade, ["fig3_1_overlap_blockade.png", "fig3_1_overlap_blockade.pdf",
                              "fig3_1_overlap_blockade_scores.csv",
                              "fig3_1_overlap_blockade_summary.txt", "executed.ipynb"])
    assert_readable_png(blockade / "fig3_1_overlap_blockade.png")


@pytest.mark.slow
def test_fig3_1_scores_match_mdl_score(blockade):
    table = pd.read_csv(blockade / "fig3_1_overlap_blockade_scores.csv").set_index("candidate")
    X, y = make_overlap_blockade_data(n=1000, seed=0)
    M = [_rule(b) for b in OVERLAP_BLOCKADE_RULES[:2]]
    target = _rule(OVERLAP_BLOCKADE_RULES[2])
    base = mdl_score(M, X, y)
    with_target = mdl_score(M + [target], X, y)
    new = with_target.coverage - base.coverage
    r_target = (base.total - with_target.total) / new
    row = table.loc["X1 >= 1 AND X2 < 0.8"]
    assert row.kind == "target rule" and row.new_coverage == new
    assert row.r == pytest.approx(r_target, abs=1e-9)
    # the target does not overlap M, so R = r for it
    assert row.R == pytest.approx(r_target, abs=1e-9)
    # X1 >= 1 minus M is exactly the target's cover: M + (S \ M) is M + target with the
    # model cost of the one-literal rule instead of the two-literal one
    blocked = [Condition("X1", low=1.0)]
    l_blocked = mdl_score(M + [blocked], X, y).rule_model_bits[2]
    aux_total = with_target.total - with_target.rule_model_bits[2] + l_blocked
    row = table.loc["X1 >= 1"]
    assert row.R == pytest.approx((base.total - aux_total) / new, abs=1e-9)
    # the blockade: r of the blocked literal is negative, R positive
    assert row.r < 0 < row.R


@pytest.mark.slow
def test_fig3_1_summary_is_computed(blockade):
    table = pd.read_csv(blockade / "fig3_1_overlap_blockade_scores.csv").set_index("candidate")
    text = (blockade / "fig3_1_overlap_blockade_summary.txt").read_text(encoding="utf-8")
    blocked = table[table["kind"] == "blocked literal"]
    assert len(blocked) == 2
    assert (blocked["rank_R"] < blocked["rank_r"]).all()
    assert "ranks both blocked literals higher" in text
    assert f"rank {int(blocked.loc['X1 >= 1', 'rank_r'])} by r" in text
