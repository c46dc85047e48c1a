"""The scikit-learn estimator ``TURSClassifier``: contract, readout, prediction, errors.

Prediction is checked against slow row-by-row twins (tests/_estimator_helpers.py) that only
read the printed rules and the raw table. All data are fixed or drawn with fixed seeds.
"""
from __future__ import annotations

import json
import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from _estimator_helpers import categorical_data, covers_by_row, gap_data, union_estimate
from turs import Condition, SearchTrace, TURSClassifier, mdl_score


# --------------------------------------------------------------------------- data
@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    return X, y.to_numpy()


@pytest.fixture(scope="module")
def iris_model(iris):
    X, y = iris
    return TURSClassifier(record_trace=True).fit(X, y)


@pytest.fixture(scope="module")
def gap():
    X, y = gap_data(seed=1, n=800)  # a sample whose fit has a training overlap as well
    model = TURSClassifier().fit(X, y)
    g = np.linspace(0.0, 1.0, 21)
    uu, vv = np.meshgrid(g, g)
    X_test = pd.DataFrame({"u": uu.ravel(), "v": vv.ravel(), "w": 0.5})
    return X, y, model, X_test


# ------------------------------------------------------------ 1. scikit-learn checks
# Every check of scikit-learn 1.9 passes at the default configuration (about 25 s in all);
# none is expected to fail. A check that starts failing must be fixed or listed here with
# the reason, e.g. {"check_fit2d_1sample": "why"}.
EXPECTED_FAILED_CHECKS: dict[str, str] = {}


@parametrize_with_checks([TURSClassifier()], expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# -------------------------------------------------------------------- 2. contract
def test_default_parameters():
    assert TURSClassifier().get_params() == {
        "beam_width": 10, "n_cut_points": 20, "use_patience": True, "use_local_test": True,
        "use_auxiliary_beam": True, "local_test_fallback": False, "search": "turs2", "score": "learning_speed",
        "k_stop": 5, "model_encoding": "turs2", "max_rules": None,
        "record_trace": False, "random_state": None, "verbose": 0,
        "preferred_features": None, "preferred_fallback": True, "forbidden_features": None, "max_rule_length": None,
        "max_time": None, "exact": False,
    }


def test_score_is_both_a_parameter_and_the_accuracy_method(iris):
    # the parameter `score` (Eq. 3.21 vs absolute gain) must not hide ClassifierMixin.score
    X, y = iris
    model = TURSClassifier(score="absolute")
    assert model.get_params()["score"] == "absolute"
    assert clone(model).get_params()["score"] == "absolute"
    assert model.set_params(score="learning_speed").get_params()["score"] == "learning_speed"
    model.fit(X, y)
    assert model.score(X, y) == pytest.approx(np.mean(model.predict(X) == y))
    with pytest.raises(ValueError, match="The 'score' parameter of TURSClassifier must be one of"):
        TURSClassifier(score="gain").fit(X, y)


def test_fit_returns_self_and_clone_is_unfitted(iris):
    X, y = iris
    model = TURSClassifier(beam_width=3, max_rules=2)
    assert model.fit(X, y) is model
    c = clone(model)
    assert c.get_params() == model.get_params()
    assert not hasattr(c, "rules_")
    assert [str(r) for r in c.fit(X, y).rules_] == [str(r) for r in model.rules_]
    assert model.n_features_in_ == 4
    assert_array_equal(model.feature_names_in_, X.columns)


def test_pipeline(iris):
    X, y = iris
    pipe = Pipeline([("scale", StandardScaler()), ("turs", TURSClassifier())]).fit(X, y)
    direct = TURSClassifier().fit(StandardScaler().fit_transform(X), y)
    assert_allclose(pipe.predict_proba(X), direct.predict_proba(StandardScaler().fit_transform(X)))
    assert pipe.score(X, y) == pytest.approx(np.mean(direct.predict(StandardScaler().fit_transform(X)) == y))
    assert pipe.score(X, y) > 0.9


def test_grid_search_over_beam_width(iris):
    X, y = iris
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(TURSClassifier(), {"beam_width": [1, 5]}, cv=cv).fit(X, y)  # default scoring
    for i, w in enumerate([1, 5]):
        expected = cross_val_score(TURSClassifier(beam_width=w), X, y, cv=cv).mean()
        assert gs.cv_results_["mean_test_score"][i] == pytest.approx(expected)
    assert gs.best_params_["beam_width"] in (1, 5)
    assert gs.best_estimator_.beam_width == gs.best_params_["beam_width"]


def test_string_labels(iris):
    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)
    ys = names[y]
    m_str = TURSClassifier().fit(X, ys)
    m_int = TURSClassifier().fit(X, y)
    assert list(m_str.classes_) == list(names)
    pred = m_str.predict(X)
    assert set(pred) <= set(names)
    assert isinstance(pred[0], str)
    # the labels are only names: same search, same rules, same probabilities
    assert_array_equal(m_str.predict_proba(X), m_int.predict_proba(X))
    assert_array_equal(pred, names[m_int.predict(X)])
    assert "P(setosa)=" in str(m_str)


# -------------------------------------------------------- 3. readout vs prediction
def test_printed_model_uses_dataframe_column_names(iris_model, iris):
    X, _ = iris
    text = str(iris_model)
    used = {c.column for r in iris_model.rules_ for c in r.conditions}
    assert used and used <= set(X.columns)
    for col in used:
        assert col in text
    assert not re.search(r"\bx\d+\b", text)  # no positional names
    for i, rule in enumerate(iris_model.rules_):
        assert f"{i + 1:>3}. {rule}" in text
    assert str(iris_model.else_rule_) in text


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_polars_and_arrow_tables_keep_their_column_names(library):
    """A table of another library fits, prints and predicts as the pandas DataFrame of the same
    columns does: its column names, not x0, x1, ..."""
    lib = pytest.importorskip(library)
    X, y = categorical_data(seed=1, n=400)
    X = X.assign(color=X["color"].astype(str).astype(object))
    columns = {c: X[c].to_numpy() for c in X.columns}
    table = lib.DataFrame(columns) if library == "polars" else lib.table(columns)
    expected = TURSClassifier(beam_width=3).fit(X, y)
    model = TURSClassifier(beam_width=3).fit(table, y)
    assert_array_equal(model.feature_names_in_, ["color", "shape", "size"])
    assert str(model) == str(expected) and not re.search(r"\bx\d+\b", str(model))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "fitted without feature names" either way
        assert_array_equal(model.predict_proba(table), expected.predict_proba(X))
        assert_array_equal(expected.predict_proba(table), expected.predict_proba(X))


def test_apply_equals_conditions_on_raw_columns(iris_model, iris):
    X, y = iris
    covers = iris_model.apply(X)
    assert covers.shape == (len(X), len(iris_model.rules_))
    # vectorised Condition.mask on the raw columns
    by_mask = np.column_stack([
        np.logical_and.reduce([c.mask(X[c.column].to_numpy(dtype=float)) for c in r.conditions])
        for r in iris_model.rules_
    ])
    assert_array_equal(covers, by_mask)
    assert_array_equal(covers, covers_by_row(iris_model.rules_, X))
    for k, rule in enumerate(iris_model.rules_):
        assert rule.class_counts == tuple(np.bincount(y[covers[:, k]], minlength=3))
        assert rule.coverage == covers[:, k].sum()
    unc = ~covers.any(axis=1)
    assert iris_model.else_rule_.class_counts == tuple(np.bincount(y[unc], minlength=3))


def test_printed_probabilities_equal_predict_proba(iris_model, iris):
    X, _ = iris
    covers = iris_model.apply(X)
    proba = iris_model.predict_proba(X)
    assert len(iris_model.rules_) >= 2
    for k, rule in enumerate(iris_model.rules_):
        only = covers[:, k] & (covers.sum(axis=1) == 1)
        assert only.any(), f"rule {k + 1} covers no training row alone"
        assert_allclose(proba[only], np.tile(rule.probabilities, (only.sum(), 1)), rtol=0, atol=1e-12)
        printed = [float(v) for v in re.findall(r"P\([^)]*\)=([0-9.]+)", str(rule))]
        assert_allclose(printed, np.round(proba[only][0], 2), atol=1e-9)
    unc = ~covers.any(axis=1)
    assert_allclose(proba[unc], np.tile(iris_model.else_rule_.probabilities, (unc.sum(), 1)), atol=1e-12)


# ------------------------------------------------------ 4. union estimate of overlaps
def test_predict_proba_equals_brute_force_union(gap):
    X, y, model, X_test = gap
    classes = list(model.classes_)
    assert len(model.rules_) >= 2
    train_cov = covers_by_row(model.rules_, X)
    test_cov = covers_by_row(model.rules_, X_test)
    assert_array_equal(model.apply(X_test), test_cov)
    train_patterns = {tuple(p) for p in train_cov}
    test_patterns = {tuple(p) for p in test_cov}
    unseen_overlaps = [p for p in test_patterns if sum(p) >= 2 and p not in train_patterns]
    assert unseen_overlaps, "the grid should reach a rule combination no training row has"
    assert any(sum(p) == 0 for p in test_patterns)
    proba = model.predict_proba(X_test)
    for pattern in test_patterns:
        rows = np.flatnonzero((test_cov == np.array(pattern)).all(axis=1))
        expected = union_estimate(model.rules_, X, y, classes, list(np.flatnonzero(pattern)))
        assert_allclose(proba[rows], np.tile(expected, (len(rows), 1)), rtol=0, atol=1e-12,
                        err_msg=f"covering rules {pattern}")
    # the unseen combination of two disjoint training covers: counts add up
    p = unseen_overlaps[0]
    ks = list(np.flatnonzero(p))
    row = np.flatnonzero((test_cov == np.array(p)).all(axis=1))[0]
    assert not (train_cov[:, ks].sum(axis=1) > 1).any(), "the data are built for disjoint covers"
    counts = np.array([model.rules_[k].class_counts for k in ks], dtype=float)
    assert_allclose(proba[row], counts.sum(axis=0) / counts.sum(), atol=1e-12)
    # each rule's counts are over its whole training cover, overlaps included (Eq. 3.3)
    assert any(sum(p) >= 2 for p in train_patterns), "the data should have a training overlap"
    for k, rule in enumerate(model.rules_):
        labels = y[train_cov[:, k]]
        assert rule.class_counts == tuple(int((labels == c).sum()) for c in classes)


def test_else_rule_rows(gap):
    X, y, model, X_test = gap
    test_cov = covers_by_row(model.rules_, X_test)
    none = ~test_cov.any(axis=1)
    assert none.any()
    expected = union_estimate(model.rules_, X, y, list(model.classes_), [])
    assert_allclose(model.else_rule_.probabilities, expected, atol=1e-12)
    assert_allclose(model.predict_proba(X_test)[none], np.tile(expected, (none.sum(), 1)), atol=1e-12)


# ---------------------------------------------------------------- 5. random picking
def test_random_picking(gap):
    X, y, model, X_test = gap
    covers = model.apply(X_test)
    union = model.predict_proba(X_test)
    rnd = model.predict_proba(X_test, overlap="random", random_state=0)
    assert_array_equal(rnd, model.predict_proba(X_test, overlap="random", random_state=0))
    n_cov = covers.sum(axis=1)
    assert_allclose(rnd[n_cov <= 1], union[n_cov <= 1], atol=1e-12)
    over = np.flatnonzero(n_cov >= 2)
    assert len(over) >= 5
    picked = {}  # covering rules -> the rules drawn for rows with them
    for i in over:
        options = tuple(int(k) for k in np.flatnonzero(covers[i]))
        match = [k for k in options if np.allclose(rnd[i], model.rules_[k].probabilities, atol=1e-12)]
        assert match, f"row {i}: {rnd[i]} is none of its covering rules' distributions"
        picked.setdefault(options, set()).update(match)
    # a draw, not always the same covering rule: rows with the same covering rules get different ones
    assert any(len(drawn) >= 2 for drawn in picked.values()), picked
    # the estimator's random_state is the default seed
    m2 = clone(model).set_params(random_state=0).fit(X, y)
    assert_array_equal(m2.predict_proba(X_test, overlap="random"), rnd)
    with pytest.raises(ValueError, match="overlap must be 'union' or 'random'"):
        model.predict_proba(X_test, overlap="first")


# ------------------------------------------------------------------ 6. determinism
def test_deterministic(gap):
    X, y, model, _ = gap
    again = TURSClassifier().fit(X, y)
    assert again.rules_ == model.rules_
    assert again.mdl_score_ == model.mdl_score_
    assert again.else_rule_ == model.else_rule_


# ----------------------------------------------------------------------- 7. JSON
@pytest.mark.parametrize("which", ["iris", "categorical"])
def test_json_round_trip(which, iris, monkeypatch):
    if which == "iris":
        X, y = iris
        y = np.array(["setosa", "versicolor", "virginica"], dtype=object)[y]
    else:
        X, y = categorical_data()
    model = TURSClassifier(record_trace=True, beam_width=5).fit(X, y)
    s = model.to_json()
    json.loads(s)  # plain JSON

    def no_pickle(*a, **k):
        raise AssertionError("from_json must not unpickle")

    monkeypatch.setattr(pickle, "loads", no_pickle)
    monkeypatch.setattr(pickle, "load", no_pickle)
    back = TURSClassifier.from_json(s)
    assert back.get_params() == model.get_params()
    assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    assert_array_equal(back.predict(X), model.predict(X))
    assert list(back.classes_) == list(model.classes_)
    assert str(back) == str(model)
    assert back.rules_ == model.rules_
    assert back.else_rule_ == model.else_rule_
    assert back.mdl_score_ == model.mdl_score_
    assert back.mdl_breakdown_ == model.mdl_breakdown_
    assert back.trace_.to_dict() == model.trace_.to_dict()
    assert back.to_json() == s
    with pytest.raises(ValueError, match="not a TURS model"):
        TURSClassifier.from_json(json.dumps({"format": "other"}))


# ---------------------------------------------------------------------- 8. errors
def test_nan_in_dataframe_names_column_and_row(iris):
    X, y = iris
    X = X.copy()
    X.loc[7, "sepal width (cm)"] = np.nan
    with pytest.raises(ValueError, match=r"column 'sepal width \(cm\)' has nan at row 7") as e:
        TURSClassifier().fit(X, y)
    assert "Impute or drop" in str(e.value)


def test_inf_in_array(iris):
    X, y = iris
    A = X.to_numpy().copy()
    A[12, 2] = np.inf
    with pytest.raises(ValueError, match=r"column 'x2' has inf at row 12") as e:
        TURSClassifier().fit(A, y)
    assert "Impute or drop" in str(e.value)
    model = TURSClassifier().fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match=r"column 'x2' has inf at row 12"):
        model.predict(A)


def test_missing_category_names_column_and_row():
    X, y = categorical_data()
    X = X.copy()
    X["shape"] = X["shape"].astype(object)
    X.loc[4, "shape"] = None
    with pytest.raises(ValueError, match=r"column 'shape' has a missing value at row 4") as e:
        TURSClassifier().fit(X, y)
    assert "Fill it" in str(e.value)


def test_single_class(iris):
    X, _ = iris
    with pytest.raises(ValueError, match=r"y has only one class \('a'\).*at least 2 classes"):
        TURSClassifier().fit(X, np.array(["a"] * len(X)))


def test_empty_x(iris):
    X, y = iris
    with pytest.raises(ValueError, match=r"X has no rows: 0 sample\(s\) \(shape=\(0, 4\)\) while a minimum of 1 is "
                                         r"required\. Pass the table with its rows"):
        TURSClassifier().fit(X.iloc[:0], y[:0])
    with pytest.raises(ValueError, match=r"X has no columns: 0 feature\(s\) \(shape=\(150, 0\)\) while a minimum of 1 "
                                         r"is required\. Pass the feature"):
        TURSClassifier().fit(X.iloc[:, :0], y)


def test_a_pyarrow_dictionary_column_is_categorical():
    pa = pytest.importorskip("pyarrow")
    Xc, y = categorical_data()
    table = pa.Table.from_pandas(Xc.astype({c: str for c in Xc.columns if Xc[c].dtype == object}),
                                 preserve_index=False)
    table = pa.table({name: (table[name].dictionary_encode() if pa.types.is_string(table[name].type) else table[name])
                      for name in table.column_names})
    X_arrow = table.to_pandas(types_mapper=pd.ArrowDtype)  # e.g. read_parquet(dtype_backend="pyarrow")
    assert any(str(t).startswith("dictionary<") for t in X_arrow.dtypes)
    plain = TURSClassifier().fit(Xc, y)
    model = TURSClassifier().fit(X_arrow, y)
    assert [str(r) for r in model.rules_] == [str(r) for r in plain.rules_]
    assert_array_equal(model.predict_proba(X_arrow), plain.predict_proba(Xc))


def test_an_object_column_of_tuples_is_refused_with_the_fix():
    X = pd.DataFrame({"a": [(1, 2), (3, 4)] * 10, "b": np.arange(20.0)})
    with pytest.raises(ValueError, match=r"Column 'a' holds a tuple at row 0 \(\(1, 2\)\); each value must be one "
                                         r"number, string or bool.*Split the values into columns"):
        TURSClassifier().fit(X, [0, 1] * 10)


@pytest.mark.parametrize("values, kinds, shown", [
    ([1, "a"], "number and str", "1 at row 0, 'a' at row 1"),
    ([True, 2.5], "bool and number", "True at row 0, 2.5 at row 1"),
])
def test_a_mixed_type_object_column_is_refused_with_the_fix(values, kinds, shown):
    X = pd.DataFrame({"a": pd.Series(values * 10, dtype=object), "b": np.arange(20.0)})
    with pytest.raises(ValueError, match=rf"Column 'a' mixes {kinds} values \({re.escape(shown)}\).*"
                                         r"X\['a'\] = X\['a'\]\.astype\(str\)"):
        TURSClassifier().fit(X, [0, 1] * 10)


def test_an_object_column_of_one_kind_still_fits():
    X = pd.DataFrame({"a": pd.Series(["x", "y", "z", "x"] * 10, dtype=object), "b": np.arange(40.0)})
    assert TURSClassifier().fit(X, [0, 1] * 20).encoder_.categorical_levels_["a"] == ["x", "y", "z"]


def test_a_label_with_a_lone_surrogate_is_refused_with_the_fix(iris):
    X, y = iris
    labels = np.array(["setosa", "versi\ud800color", "virginica"], dtype=object)[y]
    with pytest.raises(ValueError, match=r"y has the label 'versi\\ud800color' \(row 50\), which holds the lone "
                                         r"surrogate '\\ud800' at position 5.*Decode the source bytes"):
        TURSClassifier().fit(X, labels)


def test_a_level_with_a_lone_surrogate_names_the_column(iris):
    X, y = iris
    X = X.assign(colour=pd.Series(["red", "bl\udcffue"] * 75, dtype=object))
    with pytest.raises(ValueError, match=r"Column 'colour' has the value 'bl\\udcffue' \(row 1\)"):
        TURSClassifier().fit(X, y)


@pytest.mark.parametrize("y_missing, shown", [
    (np.array([0.0, np.nan] * 75), r"a missing or infinite label \(nan\) at row 1 \(75 such labels\)"),
    (np.array(["a", None] * 75, dtype=object), r"a missing label \(None\) at row 1 \(75 missing in all\)"),
])
def test_missing_labels_name_the_row_and_the_fix(iris, y_missing, shown):
    X, _ = iris
    with pytest.raises(ValueError, match=rf"y has {shown}; every row needs its class\. Drop those rows"):
        TURSClassifier().fit(X, y_missing)


def test_wrong_column_count_at_predict(iris):
    X, y = iris
    model = TURSClassifier().fit(X.to_numpy(), y)
    with pytest.raises(ValueError, match="X has 3 features, but TURSClassifier is expecting 4 features"):
        model.predict(X.to_numpy()[:, :3])
    model = TURSClassifier().fit(X, y)
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(X.iloc[:, :3])


def test_duplicated_column_names(iris):
    # pandas would fail deep inside (X["a"] is then a frame); the check names the duplicates
    X, y = iris
    dup = X.set_axis(["a", "b", "a", "b"], axis=1)
    message = r"X has duplicated column names: \['a', 'b'\]\. Every column needs its own name"
    with pytest.raises(ValueError, match=message):
        TURSClassifier().fit(dup, y)
    model = TURSClassifier(max_rules=1).fit(X, y)
    with pytest.raises(ValueError, match=message):
        model.predict(dup)
    with pytest.raises(ValueError, match=message):
        mdl_score(model.rules_, dup, y)
    one = X.set_axis(["a", "b", "c", "c"], axis=1)
    with pytest.raises(ValueError, match=r"duplicated column names: \['c'\]"):
        TURSClassifier().fit(one, y)


def test_datetime_column():
    X = pd.DataFrame({"when": pd.date_range("2020-01-01", periods=20), "x": np.arange(20.0)})
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match=r"Column 'when' has the type datetime64.*convert it to a number"):
        TURSClassifier().fit(X, y)


def test_unseen_level_at_predict():
    X, y = categorical_data()
    model = TURSClassifier(beam_width=3).fit(X, y)
    X_new = X.iloc[:6].copy()
    X_new["shape"] = X_new["shape"].astype(object)
    X_new.loc[X_new.index[3], "shape"] = "triangle"
    with pytest.raises(ValueError, match=r"Column 'shape' has the level 'triangle' \(row 3\) that was not seen in fit") as e:
        model.predict(X_new)
    assert "['circle', 'square']" in str(e.value)
    assert "Map it to a known level or refit" in str(e.value)


_WIDTH = ("The 'beam_width' parameter of TURSClassifier must be an int from 1 to 1000 (each beam keeps that many "
          "candidates and their covers, and the patience buckets are as many; the thesis uses 10).")


@pytest.mark.parametrize("params, message", [
    ({"beam_width": 0}, _WIDTH + " Got 0 instead."),
    ({"beam_width": 2.5}, _WIDTH + " Got 2.5 instead."),
    ({"beam_width": True}, _WIDTH + " Got True instead."),
    ({"beam_width": 10**12}, _WIDTH + " Got 1000000000000 instead."),
    ({"n_cut_points": 0}, "The 'n_cut_points' parameter of TURSClassifier must be an int >= 1. Got 0 instead."),
    ({"n_cut_points": 300}, "The 'n_cut_points' parameter of TURSClassifier must be <= 254. Got 300."),
    ({"k_stop": 0}, "The 'k_stop' parameter of TURSClassifier must be an int >= 1. Got 0 instead."),
    ({"max_rules": -1}, "The 'max_rules' parameter of TURSClassifier must be an int >= 0 or None. Got -1 instead."),
    ({"verbose": -1}, "The 'verbose' parameter of TURSClassifier must be an int >= 0. Got -1 instead."),
    ({"use_patience": "yes"}, "The 'use_patience' parameter of TURSClassifier must be a bool. Got 'yes' instead."),
    ({"score": "gain"}, "The 'score' parameter of TURSClassifier must be one of ('learning_speed', 'absolute'). Got 'gain' instead."),
    ({"model_encoding": "reference"}, "The 'model_encoding' parameter of TURSClassifier must be one of ('thesis', 'turs2'). Got 'reference' instead."),
    ({"search": "reference"}, "The 'search' parameter of TURSClassifier must be one of ('thesis', 'turs2'). Got 'reference' instead."),
])
def test_bad_parameters(params, message, iris):
    X, y = iris
    model = TURSClassifier(**params)  # __init__ only stores
    assert model.get_params()[next(iter(params))] == next(iter(params.values()))
    with pytest.raises(ValueError) as e:
        model.fit(X, y)
    assert str(e.value) == message


def test_predict_before_fit():
    from sklearn.exceptions import NotFittedError

    for method in ("predict", "predict_proba", "apply", "explain"):
        with pytest.raises(NotFittedError):
            getattr(TURSClassifier(), method)(np.zeros((2, 2)))


# ----------------------------------------------------------------- 9. categorical
def test_categorical_columns():
    X, y = categorical_data()
    model = TURSClassifier().fit(X, y)
    onehot = [c for r in model.rules_ for c in r.conditions if c.is_onehot]
    assert onehot, f"expected a rule on a categorical column:\n{model}"
    text = str(model)
    for c in onehot:
        assert c.source in ("color", "shape")
        assert str(c) in (f"{c.source} = {c.level}", f"{c.source} != {c.level}")
        assert str(c) in text
    assert "color=red" not in text and ">= 0.5" not in text
    # a two-level column is one 0/1 column (its second level), three levels three columns
    names = model.encoder_.names_
    assert [n for n in names if n.startswith("shape")] == ["shape=square"]
    assert [n for n in names if n.startswith("color")] == ["color=blue", "color=green", "color=red"]
    assert_array_equal(model.apply(X), covers_by_row(model.rules_, X))
    # a new frame with the same levels: other category order, object dtype, shuffled rows
    perm = np.random.default_rng(3).permutation(len(X))
    X_new = X.iloc[perm].reset_index(drop=True)
    X_new["color"] = pd.Categorical(X_new["color"].astype(str), categories=["red", "green", "blue", "pink"])
    X_new["shape"] = X_new["shape"].astype("category")
    assert_array_equal(model.predict_proba(X_new), model.predict_proba(X)[perm])
    assert_array_equal(model.predict(X_new), model.predict(X)[perm])
    assert model.score(X, y) > 0.85


def test_boolean_column():
    rng = np.random.default_rng(5)
    flag = rng.random(300) < 0.5
    x = rng.uniform(size=300)
    y = np.where(flag, 1, 0)
    y[rng.random(300) < 0.05] ^= 1
    X = pd.DataFrame({"flag": flag, "x": x})
    model = TURSClassifier().fit(X, y)
    text = str(model)
    assert re.search(r"flag (=|!=) True", text), text
    assert_array_equal(model.apply(X), covers_by_row(model.rules_, X))


# -------------------------------------------------------------- 10. verbose, trace
def test_verbose_progress_bar(iris, capsys):
    X, y = iris
    model = TURSClassifier(verbose=1).fit(X, y)
    err = capsys.readouterr().err
    assert "TURS rules" in err
    # the bar's last state: K rules, the final MDL score, coverage and the elapsed time
    covered = int(model.apply(X).any(axis=1).sum())
    assert f"{len(model.rules_)}rule" in err
    last = err.strip().split("\r")[-1]  # tqdm prints the postfix keys sorted
    assert f"coverage={covered}, elapsed=" in last
    assert f"mdl={model.mdl_score_:.1f}, rules={len(model.rules_)}" in last
    quiet = TURSClassifier().fit(X, y)
    assert capsys.readouterr() == ("", "")
    assert quiet.rules_ == model.rules_


def test_trace(iris_model, iris):
    X, y = iris
    model, trace = iris_model, iris_model.trace_
    K = len(model.rules_)
    assert isinstance(trace, SearchTrace)
    # one entry per rule search: K accepted, then the one that did not improve the score
    assert trace.n_searches == K + 1
    assert [s["rule_index"] for s in trace.searches] == list(range(K + 1))
    assert [s["accepted"] for s in trace.searches] == [True] * K + [False]
    traj = trace.mdl_trajectory()
    assert list(traj["n_rules"]) == list(range(K + 1))
    assert np.all(np.diff(traj["mdl"]) < 0)
    assert traj["mdl"].iloc[-1] == pytest.approx(model.mdl_score_, abs=1e-6)
    covers = model.apply(X)
    for k in range(K + 1):
        assert traj["coverage"].iloc[k] == covers[:, :k].any(axis=1).sum()
        # the search's running score is the MDL score of the first k rules
        ref = mdl_score(model.rules_[:k], X, y, encoder=model.encoder_, classes=model.classes_)
        assert traj["mdl"].iloc[k] == pytest.approx(ref.total, abs=1e-6)
    fields = {"conditions", "literals", "coverage", "coverage_uncovered", "class_counts", "r", "R",
              "bucket", "aux_bucket", "local_test", "aux_local_test", "model_bits", "mdl_after"}
    n_cand = 0
    for s in trace.searches:
        assert s["iterations"]
        for it in s["iterations"]:
            for key in ("main_beam", "aux_beam", "rejected_by_local_test"):
                for c in it[key]:
                    assert fields <= set(c)
                    assert 0 <= c["bucket"] < model.beam_width
                    n_cand += 1
            for c in it["main_beam"]:
                assert c["local_test"] is True
    assert n_cand > 0
    for k, s in enumerate(trace.searches[:K]):
        assert s["chosen"]["conditions"] == [str(c) for c in model.rules_[k].conditions]
        assert s["chosen"]["coverage"] == model.rules_[k].coverage
    assert trace.beams(0, 0).shape[0] == len(trace.searches[0]["iterations"][0]["main_beam"])
    back = SearchTrace.from_json(trace.to_json())
    assert back.to_dict() == trace.to_dict()
    pd.testing.assert_frame_equal(back.mdl_trajectory(), traj)


def test_no_trace_by_default(gap):
    assert gap[2].trace_ is None


def test_max_rules(iris):
    X, y = iris
    model = TURSClassifier(max_rules=1, record_trace=True).fit(X, y)
    assert len(model.rules_) == 1
    assert model.trace_.n_searches == 1
    assert TURSClassifier(max_rules=0).fit(X, y).rules_ == ()


# ------------------------------------------------------------------- 11. explain
def test_explain(gap):
    X, y, model, X_test = gap
    covers = covers_by_row(model.rules_, X_test)
    train_cov = covers_by_row(model.rules_, X)
    ex = model.explain(X_test)
    assert len(ex) == len(X_test)
    n_over = 0
    for i in range(len(X_test)):
        idx = list(np.flatnonzero(covers[i]))
        assert ex["rules"].iloc[i] == [k + 1 for k in idx]
        text = ex["explanation"].iloc[i]
        if len(idx) >= 2:
            n_union = int(train_cov[:, idx].any(axis=1).sum())
            assert f"rules {', '.join(str(k + 1) for k in idx)} cover it" in text
            assert f"the {n_union} training instances in the union" in text
            n_over += 1
        elif len(idx) == 1:
            assert f"only rule {idx[0] + 1} covers it ({model.rules_[idx[0]].coverage} training" in text
        else:
            assert f"else-rule ({model.else_rule_.coverage} training instances)" in text
    assert n_over > 0


def test_explain_gives_the_counts_and_probabilities_of_each_rows_union(gap):
    """The counts the explorer shows for a point, counted row by row on the training data: the
    training rows in the union of the covers of the rules that cover the row (or the else-rule's),
    their class counts, and the probabilities they give (predict_proba's)."""
    X, y, model, X_test = gap
    covers = covers_by_row(model.rules_, X_test)
    train_cov = covers_by_row(model.rules_, X)
    ex = model.explain(X_test)
    classes = list(model.classes_)
    assert list(ex.columns) == (["rules", "explanation", "training rows"] + [f"count {c}" for c in classes]
                                + [f"P({c})" for c in classes])
    assert_allclose(ex[[f"P({c})" for c in classes]].to_numpy(), model.predict_proba(X_test), rtol=0, atol=0)
    seen = set()
    for i in range(len(X_test)):
        idx = np.flatnonzero(covers[i])
        rows = train_cov[:, idx].any(axis=1) if len(idx) else ~train_cov.any(axis=1)
        counts = [int(np.sum(y[rows] == c)) for c in classes]
        assert ex["training rows"].iloc[i] == int(rows.sum())
        assert [int(ex[f"count {c}"].iloc[i]) for c in classes] == counts
        assert_allclose(ex[[f"P({c})" for c in classes]].iloc[i].to_numpy(float), np.array(counts) / sum(counts))
        seen.add(min(len(idx), 2))
    assert seen == {0, 1, 2}  # rows of the else-rule, of one rule and of an overlap
