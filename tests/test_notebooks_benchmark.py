"""The benchmark notebooks of thesis §3.6 (Tables 3.3-3.5, Figs. 3.2-3.4, 3.7) run end to end and
write the harness' numbers.

The quick-profile results are computed once (folds 0 and 1, TURS, CART, C4.5 and CN2; CN2 on
``sim-local-testing`` is skipped by default, see ``turs.reproduce.QUICK_SKIP``) into a temporary
results folder; every notebook is then executed through ``tools/run_notebook.py`` on it, as
``make`` does. A test fails if a notebook writes a number that disagrees with
``turs.bench.summarize`` of the same records.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from turs.reproduce import get_results

REPO = Path(__file__).resolve().parent.parent
ALGORITHMS = "turs,cart,c45,cn2"
FOLDS = "0,1"
NOTEBOOKS = {
    "table3_3_roc_auc": ["table3_3_roc_auc.csv", "table3_3_summary.txt"],
    "fig3_2_gap_to_best": ["fig3_2_gap_to_best.png", "fig3_2_gap_to_best.pdf", "fig3_2_gap_to_best.csv",
                           "fig3_2_summary.txt"],
    "table3_4_random_picking": ["table3_4_random_picking.csv", "table3_4_summary.txt"],
    "fig3_3_probability_generalization": ["fig3_3_probability_generalization.png",
                                          "fig3_3_probability_generalization.pdf",
                                          "fig3_3_probability_generalization.csv", "fig3_3_summary.txt"],
    "fig3_4_model_complexity": ["fig3_4_model_complexity.png", "fig3_4_model_complexity.pdf",
                                "fig3_4_model_complexity.csv", "table3_5_total_literals.csv", "fig3_4_summary.txt"],
    "fig3_7_runtime": ["fig3_7_runtime.png", "fig3_7_runtime.pdf", "fig3_7_runtime.csv", "fig3_7_summary.txt"],
}

pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """The harness' summary of the quick profile (2 folds, 4 algorithms), computed once."""
    folder = tmp_path_factory.mktemp("bench_results")
    frame = get_results("quick", ALGORITHMS, results_dir=folder, folds=FOLDS, progress=False)
    return folder, frame


@pytest.fixture(scope="module")
def executed(results, tmp_path_factory) -> Path:
    """Every notebook executed on those results (in parallel), writing into one folder."""
    folder, _ = results
    out = tmp_path_factory.mktemp("bench_notebooks")
    procs = {
        name: subprocess.Popen(
            [sys.executable, str(REPO / "tools" / "run_notebook.py"), str(REPO / "notebooks" / f"{name}.py"),
             "-p", "results_dir", repr(str(folder)), "-p", "folds", repr(FOLDS), "-p", "algorithms", repr(ALGORITHMS),
             "--out-dir", str(out), "--output", str(out / f"{name}.ipynb")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        )
        for name in NOTEBOOKS
    }
    failed = []
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        if proc.returncode != 0:
            failed.append(f"{name}:\n{stdout}\n{stderr}")
    assert not failed, "notebook(s) failed:\n" + "\n".join(failed)
    return out


def harness_mean(frame: pd.DataFrame, dataset: str, algorithm: str, metric: str) -> float:
    rows = frame[(frame["dataset"] == dataset) & (frame["algorithm"] == algorithm)]
    assert len(rows) == 2 and (rows["status"] == "ok").all(), rows[["fold", "status", "message"]]
    return float(rows[metric].mean())


def test_results_cover_every_task(results):
    _, frame = results
    assert len(frame) == 5 * 2 * 4  # datasets x folds x algorithms, skipped tasks included
    skipped = frame[frame["status"] == "skipped"]
    assert set(zip(skipped["algorithm"], skipped["dataset"])) == {("cn2", "sim-local-testing")}
    assert (frame.loc[frame["status"] != "skipped", "status"] == "ok").all(), frame[["dataset", "algorithm", "status"]]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_notebook_writes_its_files(executed, name):
    for file in NOTEBOOKS[name] + [f"{name}.ipynb"]:
        path = executed / file
        assert path.is_file() and path.stat().st_size > 0, f"{file} was not written"
        if file.endswith(".png"):
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if file.endswith(".pdf"):
            assert path.read_bytes()[:5] == b"%PDF-"


@pytest.mark.slow
@pytest.mark.parametrize("file, column, metric, algorithm", [
    ("table3_3_roc_auc.csv", "TURS", "roc_auc", "turs"),
    ("table3_3_roc_auc.csv", "C45", "roc_auc", "c45"),
    ("table3_4_random_picking.csv", "TURS_RP", "roc_auc_rp", "turs"),
    ("table3_4_random_picking.csv", "CN2_RP", "roc_auc_rp", "cn2"),
    ("table3_4_random_picking.csv", "TURS_overlap_pct", "overlap_pct", "turs"),
    ("fig3_3_probability_generalization.csv", "TURS", "g", "turs"),
    ("fig3_3_probability_generalization.csv", "CART", "g", "cart"),
    ("table3_5_total_literals.csv", "TURS", "n_literals", "turs"),
    ("table3_5_total_literals.csv", "CN2", "n_literals", "cn2"),
    ("fig3_7_runtime.csv", "TURS", "fit_seconds", "turs"),
])
def test_notebook_numbers_equal_the_harness_summary(executed, results, file, column, metric, algorithm):
    _, frame = results
    table = pd.read_csv(executed / file, index_col="dataset")
    assert list(table.index) == ["sklearn-iris", "sklearn-wine", "sklearn-breast-cancer", "sim-local-testing",
                                 "sim-overlap-blockade"]
    for dataset in ("sklearn-iris", "sklearn-breast-cancer"):
        assert table.loc[dataset, column] == pytest.approx(harness_mean(frame, dataset, algorithm, metric),
                                                           rel=1e-12, abs=1e-12)


@pytest.mark.slow
def test_skipped_task_is_shown_missing_not_dropped(executed):
    auc = pd.read_csv(executed / "table3_3_roc_auc.csv", index_col="dataset")
    assert "CN2" in auc.columns and np.isnan(auc.loc["sim-local-testing", "CN2"])
    assert not np.isnan(auc.loc["sim-local-testing", "TURS"])
    text = (executed / "table3_3_summary.txt").read_text(encoding="utf-8")
    assert "CN2 on sim-local-testing (skipped, folds 0,1)" in text


@pytest.mark.slow
def test_derived_numbers_and_sentences_follow_from_the_tables(executed):
    auc = pd.read_csv(executed / "table3_3_roc_auc.csv", index_col="dataset")
    algos = ["TURS", "CART", "C45", "CN2"]
    assert list(auc.columns) == algos + ["best", "TURS_gap_to_best"]
    np.testing.assert_allclose(auc["best"], auc[algos].max(axis=1))
    np.testing.assert_allclose(auc["TURS_gap_to_best"], auc["TURS"] - auc["best"])
    gap = pd.read_csv(executed / "fig3_2_gap_to_best.csv", index_col="dataset")
    np.testing.assert_allclose(gap["TURS"], auc["TURS_gap_to_best"])
    n_best = int((auc["TURS_gap_to_best"] >= -1e-12).sum())
    text = (executed / "table3_3_summary.txt").read_text(encoding="utf-8")
    assert f"TURS has the best AUC on {n_best} of 5 datasets" in text
    assert f"mean gap to the best is {auc['TURS_gap_to_best'].mean():.3f}" in text
    assert "Thesis: TURS has the best AUC on 11 of 31 datasets" in text  # from data/paper, unchanged

    rp = pd.read_csv(executed / "table3_4_random_picking.csv", index_col="dataset")
    np.testing.assert_allclose(rp["TURS_diff"], rp["TURS"] - rp["TURS_RP"])
    np.testing.assert_allclose(rp["TURS"], auc["TURS"])

    score = pd.read_csv(executed / "fig3_4_model_complexity.csv", index_col="dataset")
    values = score.to_numpy()[~np.isnan(score.to_numpy())]
    assert len(values) and ((values > 0) & (values <= 1 + 1e-12)).all()
    np.testing.assert_allclose(score.max(axis=1), 1.0)  # the simplest kept model of each dataset scores 1


def test_mean_table_shows_a_cell_only_when_every_fold_is_ok():
    from turs.reproduce import markdown, mean_table

    frame = pd.DataFrame({
        "dataset": ["a", "a", "a", "a", "b", "b", "b", "b"],
        "fold": [0, 1, 0, 1, 0, 1, 0, 1],
        "algorithm": ["turs", "turs", "cn2", "cn2"] * 2,
        "status": ["ok", "ok", "ok", "timeout", "ok", "ok", "not_installed", "not_installed"],
        "roc_auc": [0.8, 0.9, 0.7, np.nan, 0.6, 0.7, np.nan, np.nan],
    })
    table = mean_table(frame, "roc_auc", algorithms="turs,cn2,c45", datasets=["b", "a"])
    assert list(table.columns) == ["TURS", "CN2", "C45"] and list(table.index) == ["b", "a"]
    assert table.loc["a", "TURS"] == pytest.approx(0.85) and table.loc["b", "TURS"] == pytest.approx(0.65)
    assert table[["CN2", "C45"]].isna().all().all()  # a failed fold or no record: missing, not dropped
    text = markdown(table, bold=table.eq(table.max(axis=1), axis=0))
    assert text.splitlines()[2] == "| b | **0.650** | — | — |"


def test_compute_zero_uses_only_existing_records(results, monkeypatch):
    """TURS_REPRODUCE_COMPUTE=0 (`make reproduce COMPUTE=0`): nothing runs, missing tasks show."""
    folder, frame = results
    monkeypatch.setenv("TURS_REPRODUCE_COMPUTE", "0")
    again = get_results("quick", "turs,ripper", results_dir=folder, folds="0,1,2", progress=False)
    turs = again[again["algorithm"] == "turs"]
    assert (turs[turs["fold"] < 2]["status"] == "ok").all()  # records from the fixture
    assert set(turs[turs["fold"] == 2]["status"]) == {"skipped"}
    assert set(again[again["algorithm"] == "ripper"]["status"]) == {"skipped"}
    assert "TURS_REPRODUCE_COMPUTE=0" in again[again["algorithm"] == "ripper"]["message"].iloc[0]
    assert not any(p.name.startswith(("sklearn-iris__ripper", "sklearn-iris__turs__fold2")) for p in folder.iterdir())
