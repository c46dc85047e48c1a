"""The Table 3.6 / Fig. 3.6 notebook (local-test ablation, thesis §3.6.7) runs end to end.

It is executed through ``tools/run_notebook.py`` (as ``make`` does) on 3 simulated datasets of
2,000 rows, writing into a temporary folder. On these seeds (training seeds 0, 1, 2) TURS with
the local test learns the true model -- one rule, ``X1 >= 0.5`` -- every time, as the thesis
reports; without it, it learns more rules on two of the three datasets and ends at a larger
MDL score on average. Nothing is written into the repository.
"""
from pathlib import Path

import pandas as pd
import pytest

from _notebook_helpers import assert_readable_png, changed, run_notebook, tree_snapshot


pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("local_testing")
    before = tree_snapshot()
    run_notebook("table3_6_fig3_6_local_testing", out, {"n_datasets": "3", "n": "2000"},
                 output=out / "executed.ipynb")
    assert not changed(before, tree_snapshot()), f"the notebook wrote into the repository: {changed(before, tree_snapshot())}"
    return out


@pytest.mark.slow
def test_writes_figure_table_and_summary(executed):
    for name in ("fig3_6_local_testing.png", "fig3_6_local_testing.pdf", "table3_6_local_testing.csv",
                 "table3_6_local_testing.md", "table3_6_summary.txt", "executed.ipynb"):
        path = executed / name
        assert path.is_file() and path.stat().st_size > 0, f"{name} was not written"
    assert_readable_png(executed / "fig3_6_local_testing.png")
    assert (executed / "fig3_6_local_testing.pdf").read_bytes()[:5] == b"%PDF-"


@pytest.mark.slow
def test_markdown_view_puts_ours_beside_the_thesis(executed):
    table = pd.read_csv(executed / "table3_6_local_testing.csv").set_index("local_testing")
    lines = (executed / "table3_6_local_testing.md").read_text(encoding="utf-8").splitlines()
    header = next(line for line in lines if line.startswith("| measure"))
    assert header == ("| measure (mean ± sd) | with local test, ours | with local test, thesis | "
                      "without local test, ours | without local test, thesis |")
    rules = next(line for line in lines if line.startswith("| number of rules"))
    no = table.loc["No"]
    assert rules.rstrip(" |").split(" | ")[3:5] == [f"{no.n_rules_mean:.2f} (± {no.n_rules_sd:.2f})", "12.48 (± 1.56)"]
    mdl = next(line for line in lines if line.startswith("| MDL score"))
    assert "2050.1 (± 68.9)" in mdl and f"{table.loc['Yes', 'mdl_score_mean']:.1f}" in mdl


@pytest.mark.slow
def test_local_test_finds_the_ground_truth(executed):
    table = pd.read_csv(executed / "table3_6_local_testing.csv").set_index("local_testing")
    assert list(table.index) == ["No", "Yes"]
    yes, no = table.loc["Yes"], table.loc["No"]
    assert yes.n_datasets == 3 and no.n_datasets == 3
    # With the local test: the true model (one rule, one literal on X1) on every dataset.
    assert yes.ground_truth_found == 3
    assert yes.n_rules_mean == 1.0 and yes.n_rules_sd == 0.0
    assert yes.rule_length_mean == 1.0
    # Without it: more rules than the truth and a worse (larger) MDL score on average.
    assert no.ground_truth_found < 3
    assert no.n_rules_mean > 1.0
    assert no.rule_length_mean > 1.0
    assert no.mdl_score_mean > yes.mdl_score_mean
    # Sane ranges for the other measures.
    for row in (yes, no):
        assert 0.5 < row.roc_auc_mean <= 1.0
        assert 0.0 <= row.train_test_prob_diff_mean < 0.5
    # The thesis' numbers sit next to ours, unchanged.
    assert yes.thesis_mdl_score_mean == pytest.approx(2050.087)
    assert no.thesis_n_rules_mean == pytest.approx(12.48)


@pytest.mark.slow
def test_summary_is_computed_from_the_table(executed):
    table = pd.read_csv(executed / "table3_6_local_testing.csv").set_index("local_testing")
    text = (executed / "table3_6_summary.txt").read_text(encoding="utf-8")
    assert "found on 3 of 3 datasets (thesis: all 100)" in text
    assert f"Mean MDL score {table.loc['Yes', 'mdl_score_mean']:.1f} bits" in text
    assert f"{table.loc['No', 'mdl_score_mean']:.1f} without (thesis 2191.2)" in text
