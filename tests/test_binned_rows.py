"""The training rows as a fit holds them (``turs.encoding.BinnedRows``: bins and a reference to
the user's table) against the encoded float table they replace: the same bins, covers,
``K_value`` and MDL scores; a fitted model that neither holds nor pickles a float copy."""
import pickle

import numpy as np
import pandas as pd
import pytest

from turs import TURSClassifier
from turs.encoding import BinnedRows, FeatureEncoder
from turs.mdl import ColumnCache, cover_matrix, rule_model_bits, score_literals
from turs.union_estimate import union_probabilities


def _table(seed=0, n=600):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.integers(0, 4, size=n).astype(float),  # few values: repeated cut points
        "c": np.where(rng.random(n) < 0.9, 0.0, rng.normal(size=n)),  # one value nine times in ten
        "d": rng.choice(["x", "y", "z"], size=n),
        "e": rng.random(n).astype(np.float32),
    })


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bins_of_the_table_equal_bins_of_the_float_table(seed):
    X = _table(seed)
    enc = FeatureEncoder(n_cut_points=12).fit(X)
    assert any(len(set(c.cuts)) < len(c.cuts) for c in enc.columns_)  # the repeats are exercised
    Xe = enc.transform(X)
    assert np.array_equal(enc.bins_of(X), enc.bins(Xe))
    for j in range(Xe.shape[1]):
        assert np.array_equal(enc.column(X, j), Xe[:, j])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_covers_and_model_codes_from_bins_equal_those_from_the_float_table(seed):
    X = _table(seed)
    rng = np.random.default_rng(seed + 10)
    enc = FeatureEncoder(n_cut_points=12).fit(X)
    Xe = enc.transform(X)
    rows = BinnedRows.of(enc, X)
    cuts = [c.cuts for c in enc.columns_]
    rules = []
    for _ in range(40):  # thresholds that are cut points (a repeat's too) and some that are not
        lits = []
        for j in rng.choice(Xe.shape[1], size=rng.integers(1, 4), replace=False):
            c = cuts[j]
            pick = lambda: float(c[rng.integers(len(c))]) if rng.random() < 0.8 else float(rng.normal())  # noqa: E731
            low, high = (pick(), None) if rng.random() < 0.4 else (None, pick()) if rng.random() < 0.5 \
                else tuple(sorted((pick(), pick())))
            lits.append((int(j), low, high))
        rules.append(lits)
    assert np.array_equal(cover_matrix(rules, rows), cover_matrix(rules, Xe))
    y = rng.integers(0, 3, size=len(X))
    for lits in rules:
        try:
            want = rule_model_bits(lits, Xe, cuts, enc.binary_, 1, "turs2", ColumnCache(Xe))
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)[:30]):
                rule_model_bits(lits, rows, cuts, enc.binary_, 1, "turs2")
            continue
        assert rule_model_bits(lits, rows, cuts, enc.binary_, 1, "turs2") == want
        assert score_literals([lits], rows, y, 3, cuts, enc.binary_, "turs2") == \
            score_literals([lits], Xe, y, 3, cuts, enc.binary_, "turs2")


def test_k_value_counts_repeated_cuts_as_the_float_table_does():
    # cuts (0.5, 1.5, 1.5, 2.5): rows with values 1 and 2 see the two repeats of 1.5
    x = pd.DataFrame({"v": [0.0, 1.0, 2.0, 3.0] * 5})
    enc = FeatureEncoder(n_cut_points=3).fit(x)
    enc.columns_[0] = type(enc.columns_[0])("v", "v", "numeric", None, (0.5, 1.5, 1.5, 2.5))
    rows, cc = BinnedRows.of(enc, x), ColumnCache(enc.transform(x))
    sub = (x["v"] >= 1).to_numpy() & (x["v"] <= 2).to_numpy()
    cuts = enc.columns_[0].cuts
    assert rows.k_value(0, sub, cuts) == cc.k_value(0, sub, cuts) == 2
    m1, m2 = np.ones(20, bool), np.ones(20, bool)
    assert np.array_equal(rows.restrict(m1, 0, 1.5, 2.5), cc.restrict(m2, 0, 1.5, 2.5))
    assert m1.sum() == 5  # the rows with 2.0


def test_a_fitted_model_keeps_bins_and_pickles_no_training_rows():
    X = _table(3, n=400)
    y = (X["a"] + (X["d"] == "x") > 0.3).astype(int).to_numpy()
    m = TURSClassifier().fit(X, y)
    rows = m._train_rows_
    assert isinstance(rows, BinnedRows) and rows.bins.dtype == np.uint8
    assert rows.table is X  # a reference to the user's table, read column by column, not a copy
    assert m._y_train_.dtype == np.uint8
    back = pickle.loads(pickle.dumps(m))
    assert not hasattr(back, "_train_rows_")
    assert np.array_equal(back.predict_proba(X), m.predict_proba(X))
    with pytest.raises(ValueError, match="Pass the data it was fitted on"):
        back.with_rule("a >= 0.25")
    assert back.with_rule("a >= 0.25", X=X, y=y).mdl_score_ == m.with_rule("a >= 0.25").mdl_score_


@pytest.mark.parametrize("chunk", [8, 64, 200])
def test_counts_made_in_chunks_equal_those_of_the_whole_cover_matrix(chunk):
    from turs.row_passes import fitted_counts

    X = _table(4, n=601)
    y = (X["a"] + (X["d"] == "x") > 0.3).astype(int).to_numpy() + (X["b"] > 2).to_numpy()
    m = TURSClassifier().fit(X, y)
    rows = m._train_rows_
    assert len(m._literals_) >= 3
    literals = m._literals_ + [[(0, 0.25, None)], [(4, None, 0.5), (1, 1.0, None)]]  # off-cut thresholds too
    cuts = [c.cuts for c in m.encoder_.columns_]
    y_codes = np.asarray(m._y_train_, dtype=np.int64)
    whole = fitted_counts(literals, rows, y_codes, 3, cuts, m.encoder_.binary_, "turs2", chunk_rows=1024)
    parts = fitted_counts(literals, rows, y_codes, 3, cuts, m.encoder_.binary_, "turs2", chunk_rows=chunk)
    for a, b in zip(whole[:3], parts[:3]):
        assert np.array_equal(a, b)
    assert whole[3] == parts[3]  # every field of the breakdown, floats to the bit
    assert whole[3].total == score_literals(literals, m.encoder_.transform(X), y_codes, 3, cuts,
                                            m.encoder_.binary_, "turs2").total


def test_predictions_made_in_chunks_equal_those_of_all_rows_at_once():
    from turs.row_passes import predict_union

    X = _table(5, n=500)
    y = (X["a"] + (X["d"] == "x") > 0.3).astype(int).to_numpy()
    m = TURSClassifier().fit(X, y)
    covers = m.apply(X)
    patterns, inverse = np.unique(covers, axis=0, return_inverse=True)
    probs = lambda q: union_probabilities(q, m._patterns_, m._pattern_counts_)  # noqa: E731
    want = probs(patterns)[inverse.ravel()]  # all rows at once
    for chunk in (1, 7, 64, 10_000):
        assert np.array_equal(predict_union(X, m.encoder_, m._literals_, probs, chunk_rows=chunk), want)
    assert np.array_equal(m.predict_proba(X), want)
    X2 = X.copy()
    X2.loc[300, "d"] = "w"  # a level not seen in fit: its row number in the whole table
    with pytest.raises(ValueError, match=r"'w' \(row 300\)"):
        predict_union(X2, m.encoder_, m._literals_, probs, chunk_rows=64)
