"""The benchmark notebooks of thesis §3.6 (Tables 3.3-3.5, Figs. 3.2-3.4, 3.7) run end to end and
write the harness' numbers.

The quick-profile results are computed once (folds 0 and 1, TURS, CART, C4.5 and CN2; CN2 on
``sim-local-testing`` is skipped by default, see ``turs.reproduce.QUICK_SKIP``) into a temporary
results folder; every notebook is then executed through ``tools/run_notebook.py`` on it, as
``make`` does. A test fails if a notebook writes a number that disagrees with
``turs.bench.summarize`` of the same records. Without the competitors' libraries (a bare
machine: C4.5 and CN2 are ``not_installed``) the tests that need their numbers skip and name
`make competitors`; with TURS_REQUIRE_COMPETITORS=1 (CI) they fail instead. Nothing is written
into the repository: records and outputs go to temporary folders.
"""
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _notebook_helpers import assert_readable_png, notebook_command, tree_unchanged  # noqa: F401 (a fixture)
from turs.reproduce import get_results, read_committed

REPO = Path(__file__).resolve().parent.parent
COMPETITORS = ("c45", "cn2")  # the ones in ALGORITHMS that need extra libraries
ALGORITHMS = "turs,cart,c45,cn2"
BEYOND = "lire"  # the extra rows beyond the thesis of Figs. 3.2-3.4 (LIRE: ~1 s per fold; two classes only)
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
                                "fig3_4_model_complexity.csv", "table3_5_total_literals.csv", "fig3_4_summary.txt",
                                "fig3_4_local_explanation.png", "fig3_4_local_explanation.csv",
                                "fig3_4_local_explanation.txt"],
    "fig3_7_runtime": ["fig3_7_runtime.png", "fig3_7_runtime.pdf", "fig3_7_runtime.csv", "fig3_7_summary.txt"],
}

pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")


pytestmark = pytest.mark.usefixtures("tree_unchanged")  # nothing written into the repository


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """The harness' summary of the quick profile (2 folds, 4 algorithms and LIRE), computed once."""
    folder = tmp_path_factory.mktemp("bench_results")
    get_results("quick", BEYOND, results_dir=folder, folds=FOLDS, progress=False)
    frame = get_results("quick", f"{ALGORITHMS},{BEYOND}", results_dir=folder, folds=FOLDS, progress=False)
    return folder, frame


@pytest.fixture(scope="module")
def executed(results, tmp_path_factory) -> Path:
    """Every notebook executed on those results (in parallel), writing into one folder."""
    folder, _ = results
    out = tmp_path_factory.mktemp("bench_notebooks")
    params = {"results_dir": repr(str(folder)), "folds": repr(FOLDS), "algorithms": repr(ALGORITHMS),
              "beyond_thesis": repr(BEYOND)}
    procs = {
        name: subprocess.Popen(notebook_command(name, out, params), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=REPO)
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


@pytest.mark.slow
def test_results_cover_every_task(results, require_competitors):
    require_competitors(*COMPETITORS)
    _, frame = results
    assert len(frame) == 5 * 2 * 5  # datasets x folds x algorithms, skipped tasks included
    skipped = frame[frame["status"] == "skipped"]
    assert set(zip(skipped["algorithm"], skipped["dataset"])) == {("cn2", "sim-local-testing")}
    inapplicable = frame[frame["status"] == "not_applicable"]  # LIRE: two classes only
    assert set(zip(inapplicable["algorithm"], inapplicable["dataset"])) == {("lire", "sklearn-iris"), ("lire", "sklearn-wine")}
    assert (frame.loc[~frame["status"].isin(["skipped", "not_applicable"]), "status"] == "ok").all(), \
        frame[["dataset", "algorithm", "status"]]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_notebook_writes_its_files(executed, name):
    for file in NOTEBOOKS[name] + [f"{name}.ipynb"]:
        path = executed / file
        assert path.is_file() and path.stat().st_size > 0, f"{file} was not written"
        if file.endswith(".png"):
            assert_readable_png(path)  # >= 150 dpi, <= 2000 px wide
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
    ("table3_5_total_literals.csv", "LIRE", "n_literals", "lire"),
    ("fig3_3_probability_generalization.csv", "LIRE", "g", "lire"),
    ("fig3_7_runtime.csv", "TURS", "fit_seconds", "turs"),
])
def test_notebook_numbers_equal_the_harness_summary(executed, results, file, column, metric, algorithm,
                                                    require_competitors):
    if algorithm in COMPETITORS:
        require_competitors(algorithm)
    _, frame = results
    table = pd.read_csv(executed / file, index_col="dataset")
    assert list(table.index) == ["sklearn-iris", "sklearn-wine", "sklearn-breast-cancer", "sim-local-testing",
                                 "sim-overlap-blockade"]
    for dataset in ("sklearn-iris", "sklearn-breast-cancer"):
        if algorithm == "lire" and dataset == "sklearn-iris":  # three classes: not applicable, shown missing
            assert np.isnan(table.loc[dataset, column])
            continue
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

    # the extra row beyond the thesis: its gap is to the best of the thesis' algorithms (not its own)
    lire = pd.read_csv(executed / "table3_5_total_literals.csv", index_col="dataset")  # rows as in the tables
    assert "LIRE" in gap.columns and "LIRE" not in auc.columns
    binary = ["sklearn-breast-cancer", "sim-local-testing", "sim-overlap-blockade"]
    assert gap.loc[["sklearn-iris", "sklearn-wine"], "LIRE"].isna().all()
    assert gap.loc[binary, "LIRE"].notna().all() and lire.loc[binary, "LIRE"].notna().all()
    np.testing.assert_allclose(gap["TURS"], auc["TURS_gap_to_best"])  # unchanged by the extra row
    text = (executed / "fig3_2_summary.txt").read_text(encoding="utf-8")
    assert f"Beyond the thesis, LIRE: median gap {gap.loc[binary, 'LIRE'].median():.3f} on its 3 (two-class)" in text
    assert "LIRE on sklearn-iris" not in text  # not applicable is not missing

    score = pd.read_csv(executed / "fig3_4_model_complexity.csv", index_col="dataset")
    thesis_algos = score.drop(columns=["LIRE"])
    values = thesis_algos.to_numpy()[~np.isnan(thesis_algos.to_numpy())]
    assert len(values) and ((values > 0) & (values <= 1 + 1e-12)).all()
    np.testing.assert_allclose(thesis_algos.max(axis=1), 1.0)  # the simplest kept model of each dataset scores 1
    kept_lire = score["LIRE"].dropna()  # fewest literals among the thesis' algorithms / LIRE's own
    fewest = lire.loc[kept_lire.index, ["TURS", "CART", "C45", "CN2"]].where(thesis_algos.loc[kept_lire.index].notna())
    np.testing.assert_allclose(kept_lire, fewest.min(axis=1) / lire.loc[kept_lire.index, "LIRE"])


@pytest.mark.slow
def test_local_explanation_size_follows_the_harness(executed, results, require_competitors):
    """Fig. 3.4's companion: the rules/literals read per prediction are the harness' means, and a
    tree is explained by exactly one path (CART reads one rule per row)."""
    _, frame = results
    local = pd.read_csv(executed / "fig3_4_local_explanation.csv", index_col=["metric", "dataset"])
    for metric, column, algorithm in [("local_rules", "TURS", "turs"), ("local_literals", "TURS", "turs"),
                                      ("local_rules", "LIRE", "lire"), ("local_literals", "CART", "cart")]:
        value = local.loc[(metric, "sklearn-breast-cancer"), column]
        assert value == pytest.approx(harness_mean(frame, "sklearn-breast-cancer", algorithm, metric), rel=1e-12)
    np.testing.assert_allclose(local.loc["local_rules", "CART"], 1.0)
    assert (local.loc["local_rules", "TURS"] >= 1 - 1e-12).all()  # a covering rule or the else rule
    text = (executed / "fig3_4_local_explanation.txt").read_text(encoding="utf-8")
    assert f"TURS {local.loc['local_rules', 'TURS'].median():.2f} / {local.loc['local_literals', 'TURS'].median():.1f}" in text


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
    # the algorithms in the one order of every figure (turs.style.algorithm_order), the datasets as asked
    assert list(table.columns) == ["TURS", "C45", "CN2"] and list(table.index) == ["b", "a"]
    assert table.loc["a", "TURS"] == pytest.approx(0.85) and table.loc["b", "TURS"] == pytest.approx(0.65)
    assert table[["CN2", "C45"]].isna().all().all()  # a failed fold or no record: missing, not dropped
    text = markdown(table, bold=table.eq(table.max(axis=1), axis=0))
    assert text.splitlines()[2] == "| b | **0.650** | — | — |"


@pytest.mark.slow
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


def test_quick_outputs_never_go_to_the_committed_figures():
    """`make reproduce` (quick) writes to build/figures (ignored), the paper profile to figures/."""
    import importlib.util

    from turs.reproduce import figures_dir, output_dir

    assert figures_dir("quick", REPO) == REPO / "build" / "figures"
    assert figures_dir("paper", REPO) == REPO / "figures"
    assert figures_dir("large", REPO) == REPO / "build" / "figures" / "large"
    assert output_dir(None) == REPO / "build" / "figures"  # a notebook run by hand, default profile
    spec = importlib.util.spec_from_file_location("run_notebook", REPO / "tools" / "run_notebook.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    for profile in ("quick", "paper", "large"):
        args = tool.build_parser().parse_args(["notebooks/x.py", "--profile", profile])
        assert tool.parameters_from(args)["out_dir"] == str(figures_dir(profile, REPO).resolve())
    args = tool.build_parser().parse_args(["notebooks/x.py", "--out-dir", "/tmp/elsewhere"])
    assert tool.parameters_from(args)["out_dir"] == "/tmp/elsewhere"
    ignored = subprocess.run(["git", "check-ignore", "-q", "build/figures/fig3_2_gap_to_best.png"], cwd=REPO)
    if ignored.returncode in (0, 1):  # 128: not a git checkout
        assert ignored.returncode == 0, "build/figures/ must be ignored by git"


def _committed_rows() -> pd.DataFrame:
    return pd.DataFrame({
        "dataset": ["iris", "iris", "iris", "iris", "car"],
        "fold": [0, 1, 0, 1, 0],
        "algorithm": ["turs", "turs", "cn2", "cn2", "turs"],
        "status": ["ok", "ok", "ok", "timeout", "ok"],
        "message": ["", "", "", "timeout after 240 s", ""],
        "roc_auc": [0.98, 0.96, 0.97, np.nan, 0.91],
        "fit_seconds": [0.01, 0.02, 1.5, np.nan, 0.3],
        "mdl_score": [50.5, 51.25, np.nan, np.nan, 800.0],
    })


def test_compute_zero_takes_missing_tasks_from_the_committed_table(tmp_path, monkeypatch):
    """`make reproduce PROFILE=paper COMPUTE=0` on a fresh clone: no record, no dataset, the
    committed per-task table fills every task it has; a record in the results folder wins."""
    import json

    from turs.reproduce import mean_table

    table = tmp_path / "paper_profile_tasks.csv"
    _committed_rows().to_csv(table, index=False)
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    record = {"task_id": "iris__turs__fold1", "dataset": "iris", "fold": 1, "n_folds": 5, "algorithm": "turs",
              "settings": {}, "status": "ok", "roc_auc": 0.5, "fit_seconds": 9.0, "extra": {"mdl_score": 1.0}}
    (results_dir / "iris__turs__fold1.json").write_text(json.dumps(record), encoding="utf-8")
    ten_fold = {**record, "task_id": "iris__turs__fold1of10", "n_folds": 10, "roc_auc": 0.1}  # another study's
    (results_dir / "iris__turs__fold1of10.json").write_text(json.dumps(ten_fold), encoding="utf-8")
    monkeypatch.setenv("TURS_REPRODUCE_COMPUTE", "0")
    monkeypatch.delenv("TURS_DATA_DIR", raising=False)
    frame = get_results("paper", "turs,cn2,cart", results_dir=results_dir, folds="0,1", datasets="iris,car",
                        progress=False, table=table)
    by = frame.set_index(["dataset", "algorithm", "fold"])
    assert len(frame) == 2 * 3 * 2 and frame.attrs["from_committed_table"] == 4
    assert by.loc[("iris", "turs", 0), "roc_auc"] == 0.98  # from the table
    assert by.loc[("iris", "turs", 1), "roc_auc"] == 0.5  # the record wins over the table
    assert by.loc[("iris", "cn2", 1), "status"] == "timeout"
    assert by.loc[("car", "turs", 1), "status"] == "skipped"  # in neither
    assert "paper_profile_tasks.csv" in by.loc[("car", "turs", 1), "message"]
    assert set(by.xs("cart", level="algorithm")["status"]) == {"skipped"}
    auc = mean_table(frame, "roc_auc")
    assert auc.loc["iris", "TURS"] == pytest.approx((0.98 + 0.5) / 2)
    assert np.isnan(auc.loc["iris", "CN2"]) and np.isnan(auc.loc["car", "TURS"])  # a fold not ok / missing
    assert pd.to_numeric(by.loc[("iris", "turs", 0), "mdl_score"]) == 50.5
    assert not any(results_dir.glob("*__cart__*")), "COMPUTE=0 must not run anything"


def test_committed_table_is_compact_and_complete():
    """The committed paper-profile table: one row per task, the columns the notebooks read."""
    from turs.bench import get_profile
    from turs.bench.summary import EXPORT_COLUMNS
    from turs.reproduce import committed_table

    path = committed_table("paper", REPO)
    if not path.is_file():
        pytest.skip(f"{path.relative_to(REPO)} is not committed yet (tools/export_paper_results.py)")
    assert path.stat().st_size < 1_000_000
    table = read_committed(path)
    assert list(table.columns[:len(EXPORT_COLUMNS)]) == EXPORT_COLUMNS
    assert not table.duplicated(["dataset", "fold", "algorithm"]).any()
    prof = get_profile("paper")
    assert set(table["dataset"]) <= set(prof.datasets) and set(table["fold"]) <= set(prof.folds)
    ok = table[table["status"] == "ok"]
    assert ok["roc_auc"].between(0, 1).all() and (ok["fit_seconds"] >= 0).all()
    assert ok.loc[ok["algorithm"].str.startswith("turs"), "mdl_score"].gt(0).all()
    assert (ok["message"] == "").all()


def test_export_rounds_and_keeps_one_row_per_task(tmp_path):
    from turs.bench.summary import EXPORT_COLUMNS, export_tasks

    records = [
        {"dataset": "iris", "fold": f, "algorithm": a, "settings": {}, "status": "ok", "roc_auc": 0.123456789,
         "fit_seconds": 1234.56789, "n_rules": 3, "extra": {"mdl_score": 98.7654321}}
        for f in (1, 0) for a in ("turs", "cart")
    ] + [{"dataset": "iris", "fold": 0, "algorithm": "cn2", "settings": {}, "status": "timeout",
          "message": "timeout after\n240 s", "extra": {}},
         {"dataset": "iris", "fold": 0, "algorithm": "turs", "settings": {"beam_width": 5}, "status": "ok"},
         {"dataset": "iris", "fold": 0, "algorithm": "turs", "settings": {}, "n_folds": 10, "status": "ok"}]
    table = export_tasks(records)
    assert list(table.columns) == EXPORT_COLUMNS and len(table) == 5  # non-default setting, 10-fold CV left out
    assert len(export_tasks(records, folds=[1], algorithms=["turs"])) == 1
    assert list(table["algorithm"]) == ["cart", "cart", "cn2", "turs", "turs"] and list(table["fold"][:2]) == [0, 1]
    assert table.loc[table["algorithm"] == "cn2", "message"].item() == "timeout after 240 s"
    out = tmp_path / "t.csv"
    table.to_csv(out, index=False, float_format="%.6g")
    back = read_committed(out)
    assert back["roc_auc"].iloc[0] == 0.123457 and back["fit_seconds"].iloc[0] == 1234.57
    assert back.loc[back["algorithm"] == "turs", "mdl_score"].tolist() == [98.7654, 98.7654]
    with pytest.raises(ValueError, match="Two records with default settings"):
        export_tasks(records + [records[0]])


def test_export_merge_keeps_other_learners_and_fill_touches_only_empty_cells():
    """tools/export_paper_results.py --merge / --fill: a run of two new learners does not drop the
    committed ones; a metric added later fills empty cells without replacing measured fit times."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("export_paper_results", REPO / "tools" / "export_paper_results.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    committed = pd.DataFrame({"dataset": ["a", "a", "b"], "fold": [0, 0, 0], "algorithm": ["cart", "turs", "cart"],
                              "status": ["ok"] * 3, "fit_seconds": [1.0, 2.0, 3.0],
                              "local_rules": [np.nan, 1.2, np.nan]})
    new = pd.DataFrame({"dataset": ["a", "b", "a"], "fold": [0, 0, 0], "algorithm": ["cart", "cart", "lire"],
                        "status": ["ok", "timeout", "ok"], "fit_seconds": [9.0, np.nan, 4.0],
                        "local_rules": [1.0, np.nan, 3.5]})
    filled = tool.combine(committed, new, fill="local_rules")
    assert filled["fit_seconds"].tolist() == [1.0, 2.0, 3.0]  # measured times stay
    assert filled["local_rules"].tolist()[:2] == [1.0, 1.2] and np.isnan(filled["local_rules"].iloc[2])
    assert len(filled) == 3  # no new rows from a fill
    merged = tool.combine(committed, new)
    assert list(zip(merged["dataset"], merged["algorithm"])) == [("a", "cart"), ("a", "lire"), ("a", "turs"),
                                                                  ("b", "cart")]
    assert merged.loc[merged["algorithm"] == "turs", "fit_seconds"].item() == 2.0  # not in the new run: kept
    assert merged.loc[(merged["dataset"] == "a") & (merged["algorithm"] == "cart"), "fit_seconds"].item() == 9.0
    with pytest.raises(SystemExit, match="not a column"):
        tool.combine(committed, new, fill="nope")
