"""The ablation notebooks (Fig. 3.5 diverse patience; the auxiliary beam) run end to end.

Both are executed through ``tools/run_notebook.py`` (as ``make`` does) on two bundled datasets
and two folds, sharing one temporary results folder (the ``turs`` records of the first notebook
are reused by the second). Their tables are checked against the benchmark harness' own summary
(``turs.bench.summarize``) of that folder, recomputed here. Nothing is written into the
repository.
"""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _notebook_helpers import assert_readable_png, run_notebook, tree_unchanged  # noqa: F401 (a fixture)

REPO = Path(__file__).resolve().parent.parent
DATASETS = ["sklearn-iris", "sklearn-wine"]
FOLDS = [0, 1]

pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")


def _execute(name: str, out: Path, results: Path) -> None:
    run_notebook(name, out, {"folds": ",".join(map(str, FOLDS)), "datasets": ",".join(DATASETS),
                             "results_dir": str(results)})


pytestmark = pytest.mark.usefixtures("tree_unchanged")  # nothing written into the repository


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    out = tmp_path_factory.mktemp("ablation_out")
    results = tmp_path_factory.mktemp("ablation_results")
    _execute("fig3_5_diverse_patience", out, results)
    _execute("ablation_auxiliary_beam", out, results)
    return out, results


@pytest.fixture(scope="module")
def summary(executed):
    from turs.bench import summarize

    _, results = executed
    frame = summarize(results)
    assert set(frame["status"]) == {"ok"}
    return frame


def _mean(frame: pd.DataFrame, dataset: str, algorithm: str, column: str) -> float:
    rows = frame[(frame["dataset"] == dataset) & (frame["algorithm"] == algorithm)]
    assert sorted(rows["fold"]) == FOLDS
    return float(pd.to_numeric(rows[column]).mean())


def _is_figure(path: Path) -> None:
    assert path.is_file() and path.stat().st_size > 0, f"{path.name} was not written"
    if path.suffix == ".png":
        assert_readable_png(path)  # >= 150 dpi, <= 2000 px wide
    else:
        assert path.read_bytes()[:5] == b"%PDF-"


@pytest.mark.slow
def test_records_cover_exactly_the_requested_tasks(executed, summary):
    got = set(zip(summary["dataset"], summary["fold"], summary["algorithm"]))
    want = {(d, f, a) for d in DATASETS for f in FOLDS for a in ("turs", "turs-nopatience", "turs-noaux")}
    assert got == want  # turs ran once, shared by both notebooks


@pytest.mark.slow
def test_fig3_5_outputs_and_numbers(executed, summary):
    out, _ = executed
    for suffix in (".png", ".pdf"):
        _is_figure(out / f"fig3_5_diverse_patience{suffix}")
    table = pd.read_csv(out / "fig3_5_diverse_patience.csv")
    assert sorted(table["dataset"]) == DATASETS
    assert list(table["auc_diff"]) == sorted(table["auc_diff"])  # sorted by the difference, as Fig. 3.5
    row = table.set_index("dataset").loc["sklearn-iris"]
    with_p = _mean(summary, "sklearn-iris", "turs", "roc_auc")
    without_p = _mean(summary, "sklearn-iris", "turs-nopatience", "roc_auc")
    assert row["n_folds"] == len(FOLDS)
    assert row["auc_with_patience"] == pytest.approx(with_p, abs=1e-12)
    assert row["auc_diff"] == pytest.approx(with_p - without_p, abs=1e-12)
    text = (out / "fig3_5_diverse_patience_summary.txt").read_text(encoding="utf-8")
    helps = int((table["auc_diff"] > 0).sum())
    assert f"higher on {helps} of {len(DATASETS)} datasets" in text
    assert "the thesis reports higher on 25 of 31" in text


@pytest.mark.slow
def test_auxiliary_beam_outputs_and_numbers(executed, summary):
    out, _ = executed
    for suffix in (".png", ".pdf"):
        _is_figure(out / f"ablation_auxiliary_beam{suffix}")
    table = pd.read_csv(out / "ablation_auxiliary_beam.csv").set_index("dataset")
    assert sorted(table.index) == DATASETS
    for dataset in DATASETS:
        mdl_aux = _mean(summary, dataset, "turs", "mdl_score")
        mdl_noaux = _mean(summary, dataset, "turs-noaux", "mdl_score")
        auc_diff = _mean(summary, dataset, "turs", "roc_auc") - _mean(summary, dataset, "turs-noaux", "roc_auc")
        assert table.loc[dataset, "mdl_aux"] == pytest.approx(mdl_aux, abs=1e-9)
        assert table.loc[dataset, "mdl_diff"] == pytest.approx(mdl_aux - mdl_noaux, abs=1e-9)
        assert table.loc[dataset, "auc_diff"] == pytest.approx(auc_diff, abs=1e-12)
        assert table.loc[dataset, "aux_lowers_mdl"] == (mdl_aux < mdl_noaux)
    text = (out / "ablation_auxiliary_beam_summary.txt").read_text(encoding="utf-8")
    lower = int((table["mdl_diff"] < 0).sum())
    assert f"MDL score is lower on {lower} of {len(DATASETS)} datasets" in text


@pytest.mark.slow
def test_reference_table_from_the_anchors_or_their_committed_copy(executed):
    """With ../shared the anchors are read; on a fresh clone their committed copy
    (data/results/reference_turs2_runs.csv): the table is the same either way."""
    out, _ = executed
    anchors = REPO.parent / "shared" / "anchors" / "reference_turs2_runs.csv"
    source = anchors if anchors.is_file() else REPO / "data" / "results" / "reference_turs2_runs.csv"
    reference = pd.read_csv(out / "ablation_auxiliary_beam_reference.csv").set_index("dataset")
    runs = pd.read_csv(source)
    runs = runs[(runs["dataset"] == "backnote") & (runs["status"] == "ok")]
    means = runs.groupby("variant")["total_cl_bits"].mean()
    assert reference.loc["backnote", "mdl_aux"] == pytest.approx(means["cyaux"], rel=1e-6)
    assert reference.loc["backnote", "mdl_noaux"] == pytest.approx(means["cy"], rel=1e-6)
    # ADBench files map to the registry's names; the UCI glass and ADBench glass stay apart.
    assert reference.loc["glass-2", "reference_name"] == "glass.npz"
    assert reference.loc["glass", "reference_name"] == "glass"
    assert np.all(reference["n_folds"] == 5)
    text = (out / "ablation_auxiliary_beam_summary.txt").read_text(encoding="utf-8")
    lower = int((reference["mdl_diff"] < 0).sum())
    assert f"lowers the MDL score on {lower} of {len(reference)} datasets" in text


def test_committed_reference_copy_equals_the_anchors():
    """data/results/reference_turs2_runs.csv holds the anchors' columns the notebooks use, to 6
    significant digits (tools/export_paper_results.py)."""
    from turs.reproduce import reference_runs

    copy = REPO / "data" / "results" / "reference_turs2_runs.csv"
    anchors = REPO.parent / "shared" / "anchors" / "reference_turs2_runs.csv"
    assert copy.is_file() and copy.stat().st_size < 100_000
    mine = reference_runs(copy)
    assert mine.attrs["path"] == str(copy)
    assert {"variant", "dataset", "fold", "status", "fit_seconds", "roc_auc_test", "total_cl_bits"} <= set(mine)
    assert mine["thesis_name"].notna().sum() > 0.9 * len(mine)
    if not anchors.is_file():
        pytest.skip("../shared/anchors is absent: nothing to compare the copy with")
    full = pd.read_csv(anchors)
    assert len(full) == len(mine)
    for col in ("fit_seconds", "roc_auc_test", "total_cl_bits"):
        np.testing.assert_allclose(mine[col], full[col], rtol=5e-6, err_msg=col)
    assert (mine[["variant", "dataset", "fold", "status"]].to_numpy() == full[["variant", "dataset", "fold", "status"]].to_numpy()).all()
