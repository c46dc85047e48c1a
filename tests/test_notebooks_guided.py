"""notebooks/preferred_variables.py runs end to end in the quick profile.

Executed through ``tools/run_notebook.py`` (as ``make reproduce`` does) into temporary folders;
its table is checked against the records it left (read here without the notebook's code) and
one of those records against a fit made here. Nothing is written into the repository.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _notebook_helpers import assert_readable_png, changed, run_notebook, tree_snapshot

pytest.importorskip("papermill", reason="needs the notebooks extra: pip install -e '.[notebooks]'")
pytest.importorskip("jupytext", reason="needs the notebooks extra: pip install -e '.[notebooks]'")

SETTINGS = ["none", "top", "top printed", "random", "random printed", "bottom", "bottom printed"]
DATASETS = ["sklearn-iris", "sklearn-wine"]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    out = tmp_path_factory.mktemp("pv_out")
    results = tmp_path_factory.mktemp("pv_results")
    before = tree_snapshot()
    run_notebook("preferred_variables", out, {"results_dir": str(results)}, timeout=600)
    assert not changed(before, tree_snapshot()), changed(before, tree_snapshot())
    return out, results


def records(results: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(results.glob("*.json"))]


@pytest.mark.slow
def test_outputs_exist_and_the_table_has_every_setting(executed):
    out, _ = executed
    assert_readable_png(out / "preferred_variables.png")
    assert (out / "preferred_variables.pdf").read_bytes()[:5] == b"%PDF-"
    table = pd.read_csv(out / "preferred_variables.csv")
    assert list(table["dataset"].unique()) == DATASETS
    for d in DATASETS:
        assert table[table["dataset"] == d]["setting"].tolist() == SETTINGS
    assert (table["folds"] == 3).all()  # the quick profile: folds 0-2 of 10
    assert table["L%"].between(0.3, 1).all() and table["AUC test"].between(0.8, 1).all()
    side = pd.read_csv(out / "preferred_variables_vs_sclassy.csv").set_index("dataset")
    assert side.loc["sklearn-iris", "S-CLASSY name"] == "Iris"
    assert side.loc["sklearn-iris", "AUC top [S-CL]"] == pytest.approx(0.95)  # S-CLASSY's Table 2
    assert side.loc["sklearn-wine", "L% none [BCL]"] == pytest.approx(0.64)  # its Table 1


@pytest.mark.slow
def test_preferred_sets_follow_the_forest(executed):
    out, _ = executed
    sets = pd.read_csv(out / "preferred_variables_sets.csv").set_index("dataset")
    assert sets.loc["sklearn-iris", "K"] == 1 and sets.loc["sklearn-wine", "K"] == 2  # ceil(0.1 m)
    assert sets.loc["sklearn-iris", "top"].startswith("petal")  # the petals separate the species
    assert sets.loc["sklearn-iris", "bottom"].startswith("sepal")


@pytest.mark.slow
def test_the_table_is_the_records_means(executed):
    out, results = executed
    table = pd.read_csv(out / "preferred_variables.csv").set_index(["dataset", "setting"])
    sets = pd.read_csv(out / "preferred_variables_sets.csv").set_index("dataset")
    recs = records(results)
    # one task per dataset, distinct setting and fold (iris' random-K draw is its bottom-K column,
    # so those settings share their records)
    distinct = sum(1 + 2 * len({sets.loc[d, k] for k in ("top", "random", "bottom")}) for d in DATASETS)
    assert sets.loc["sklearn-iris", "random"] == sets.loc["sklearn-iris", "bottom"]
    assert len(recs) == distinct * 3 and all(r["status"] == "ok" for r in recs)
    for d in DATASETS:
        top = sets.loc[d, "top"].split(", ")
        for setting, pref in (("none", None), ("top", top)):
            mine = [r for r in recs if r["dataset"] == d and r["settings"].get("preferred_features") == pref
                    and r["settings"].get("preferred_fallback", True)]
            assert len(mine) == 3
            L = np.mean([1 - r["extra"]["mdl_score"] / r["extra"]["mdl_empty"] for r in mine])
            assert table.loc[(d, setting), "L%"] == pytest.approx(L, abs=1e-12)
            assert table.loc[(d, setting), "rules"] == pytest.approx(np.mean([r["extra"]["n_rules"] for r in mine]))
            if setting == "top":  # f@1: the share of folds whose first rule uses the preferred column
                first = [{c["column"] for c in r["extra"]["model"]["rules"][0]["conditions"]}  # source columns
                         if r["extra"]["model"]["rules"] else set() for r in mine]
                assert table.loc[(d, setting), "max f@1"] == pytest.approx(
                    max(np.mean([p in f for f in first]) for p in pref))


@pytest.mark.slow
def test_a_record_is_the_fit_made_here(executed):
    from turs import TURSClassifier
    from turs.bench.profiles import load_dataset
    from turs.bench.tasks import split

    out, results = executed
    top = pd.read_csv(out / "preferred_variables_sets.csv").set_index("dataset").loc["sklearn-wine", "top"].split(", ")
    settings = {"preferred_features": top, "preferred_fallback": False}
    rec = next(r for r in records(results) if r["dataset"] == "sklearn-wine" and r["fold"] == 1
               and r["settings"] == settings)
    X, y = load_dataset("sklearn-wine")
    y = np.asarray(y)
    train, _ = split(y, 1, 10)
    Xt, yt = X.iloc[train].reset_index(drop=True), y[train]
    model = TURSClassifier(**settings).fit(Xt, yt)
    assert model.mdl_score_ == pytest.approx(rec["extra"]["mdl_score"], abs=1e-9)
    assert [str(r) for r in model.rules_] == [r["text"] for r in rec["rules"] if not r["is_default"]]
    empty = TURSClassifier(max_rules=0).fit(Xt, yt)
    assert empty.rules_ == () and empty.mdl_score_ == pytest.approx(rec["extra"]["mdl_empty"], abs=1e-9)


def test_one_hot_columns_of_the_study_rank_as_their_variable():
    from turs.bench import preferred as pv

    rng = np.random.default_rng(0)
    n = 300
    level = rng.integers(0, 3, n)
    X = pd.DataFrame({"v=0": (level == 0).astype(int), "v=1": (level == 1).astype(int),
                      "v=2": (level == 2).astype(int), "noise": rng.normal(size=n), "weak": rng.normal(size=n)})
    y = np.where(level == 2, "a", "b")
    X["weak"] += 0.3 * (y == "a")
    ranking = pv.forest_ranking(X, y, n_estimators=50)
    assert list(ranking.index) == ["v", "weak", "noise"]
    assert ranking.sum() == pytest.approx(1.0)
    sets = pv.preferred_sets(ranking)  # K = ceil(0.1 * 3) = 1
    assert sets["top"] == ["v"] and sets["bottom"] == ["noise"]
    assert pv.columns_of(["v"], X) == ["v=0", "v=1", "v=2"]
    srcs = [[{"v"}, {"weak"}], [{"weak"}, {"noise", "v"}], [{"v", "noise"}], []]
    # v first in folds 1 and 3 (2 of 4), weak in fold 2 (1 of 4); a fold without rules counts
    assert pv.first_rule_frequency(srcs, ["v", "weak"]) == (pytest.approx(3 / 8), pytest.approx(0.5))
    assert pv.first_positions(srcs, ["v"]) == [1, 2, 1, None]
