"""The harness' ``n_folds`` option (10-fold CV, the seed papers' protocol) through the command
line and :func:`turs.reproduce.get_results`, and the labels of algorithms beyond the thesis."""
from __future__ import annotations

import json

import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

from turs.bench.__main__ import main
from turs.bench.profiles import load_dataset
from turs.reproduce import get_results, label


def _records(out):
    return [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]


@pytest.mark.subprocess
def test_cli_n_folds_runs_ten_fold_tasks_with_the_ten_fold_split(tmp_path):
    out = tmp_path / "r"
    assert main(["run", "--algorithms", "cart", "--datasets", "sklearn-iris", "--n-folds", "10", "--folds", "7,9",
                 "--out", str(out), "--n-jobs", "1", "--no-progress"]) == 0
    recs = _records(out)
    assert sorted(r["fold"] for r in recs) == [7, 9]
    assert {r["n_folds"] for r in recs} == {10}
    # fold 9 of a stratified 10-fold split of 150 rows tests 15 rows, not the 30 of a 5-fold split
    X, y = load_dataset("sklearn-iris")
    sizes = [len(test) for _, test in StratifiedKFold(10, shuffle=True, random_state=2).split(X, y)]
    assert {r["fold"]: r["n_test"] for r in recs} == {7: sizes[7], 9: sizes[9]}


def test_cli_n_folds_defaults_to_all_folds_and_rejects_folds_outside(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["run", "--algorithms", "cart", "--datasets", "sklearn-iris", "--n-folds", "3", "--out", str(out),
                 "--n-jobs", "1", "--no-progress"]) == 0
    assert sorted(r["fold"] for r in _records(out)) == [0, 1, 2]
    assert main(["run", "--algorithms", "cart", "--datasets", "sklearn-iris", "--folds", "5", "--out", str(out),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "fold(s) [5] outside 0..4 of 5-fold CV" in err
    assert main(["run", "--algorithms", "cart", "--n-folds", "1", "--out", str(out), "--no-progress"]) == 2
    assert "--n-folds must be at least 2" in capsys.readouterr().err


@pytest.mark.subprocess
def test_get_results_keeps_five_and_ten_fold_records_apart(tmp_path):
    out = tmp_path / "r"
    ten = get_results("quick", "cart", results_dir=out, datasets="sklearn-iris", n_folds=10, folds=[0, 1],
                      n_jobs=1, progress=False)
    five = get_results("quick", "cart", results_dir=out, datasets="sklearn-iris", folds=[0], n_jobs=1,
                       progress=False)
    assert sorted(ten["fold"]) == [0, 1] and set(ten["n_folds"]) == {10}
    assert list(five["fold"]) == [0] and set(five["n_folds"]) == {5}
    assert five["n_test"].iloc[0] == 30 and ten["n_test"].iloc[0] == 15
    assert pd.api.types.is_float_dtype(ten["accuracy"]) and ten["accuracy"].between(0.5, 1).all()
    with pytest.raises(ValueError, match=r"folds \[10\] are outside 0..9"):
        get_results("quick", "cart", results_dir=out, datasets="sklearn-iris", n_folds=10, folds=[10])


def test_labels_beyond_the_thesis_come_from_the_style():
    assert label("c45") == "C45"
    assert label("lire") == "LIRE" and label("submodular") == "Submodular"
    assert label("turs-noaux") == "TURS without auxiliary beam"
    assert label("no-such-learner") == "no-such-learner"
