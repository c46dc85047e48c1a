"""turs.bench.metrics on hand-computed examples, with slow twins, and the metric plumbing of a task."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from turs.bench import metrics
from turs.bench.adapters import Adapter, CARTAdapter, ExtractedRule
from turs.bench.tasks import evaluate

# ------------------------------------------------------------------------------------- ROC-AUC
# Six instances, three classes. One-vs-rest AUCs by counting positive/negative pairs
# (a tie counts 1/2):
#   class 0: positives .6, .3 vs negatives .2 .5 .1 .3 -> (4 + 2.5) / 8 = 0.8125
#   class 1: positives .5, .3 vs negatives .3 .4 .2 .3 -> (4 + 2)   / 8 = 0.75
#   class 2: positives .7, .4 vs negatives .1 .3 .3 .2 -> 8 / 8         = 1
Y3 = np.array([0, 0, 1, 1, 2, 2])
P3 = np.array([[.6, .3, .1], [.3, .4, .3], [.2, .5, .3], [.5, .3, .2], [.1, .2, .7], [.3, .3, .4]])


def test_roc_auc_binary_uses_the_column_of_classes_1():
    # score of "yes" = [.1, .4, .35, .8], labels no no yes yes: pairs (.35>.1, .35<.4, .8>.1, .8>.4) -> 3/4
    y = np.array(["no", "no", "yes", "yes"])
    proba = np.array([[.9, .1], [.6, .4], [.65, .35], [.2, .8]])
    assert metrics.roc_auc(y, proba, np.array(["no", "yes"])) == pytest.approx(0.75)
    # the classes' order decides which column is the positive score
    assert metrics.roc_auc(y, proba[:, ::-1], np.array(["yes", "no"])) == pytest.approx(0.75)


def test_roc_auc_multiclass_is_the_macro_one_vs_rest_mean():
    expected = (0.8125 + 0.75 + 1.0) / 3
    assert metrics.roc_auc(Y3, P3, np.array([0, 1, 2])) == pytest.approx(expected)
    assert expected == pytest.approx(roc_auc_score(Y3, P3, multi_class="ovr", average="macro"))


def test_roc_auc_leaves_out_a_class_absent_from_the_test_fold():
    # rows 0-3 only (class 2 absent): class 0: (2 + 1) / 4 = .75; class 1: (2 + .5) / 4 = .625
    assert metrics.roc_auc(Y3[:4], P3[:4], np.array([0, 1, 2])) == pytest.approx((0.75 + 0.625) / 2)
    assert np.isnan(metrics.roc_auc(np.zeros(3, int), P3[:3], np.array([0, 1, 2])))


def test_roc_auc_checks_the_shape():
    with pytest.raises(ValueError, match="one column per entry of classes"):
        metrics.roc_auc(Y3, P3[:, :2], np.array([0, 1, 2]))


def test_random_picking_averages_seeded_draws():
    y = np.array([0, 0, 1, 1])

    def predict_random(rng):
        s = rng.random(4)
        return np.column_stack([1 - s, s])

    draws = [metrics.roc_auc(y, predict_random(np.random.default_rng(7 + i)), np.array([0, 1])) for i in range(3)]
    got = metrics.random_picking_roc_auc(predict_random, y, np.array([0, 1]), n_draws=3, seed=7)
    assert got == pytest.approx(np.mean(draws))
    assert got == metrics.random_picking_roc_auc(predict_random, y, np.array([0, 1]), n_draws=3, seed=7)
    with pytest.raises(ValueError, match="n_draws"):
        metrics.random_picking_roc_auc(predict_random, y, np.array([0, 1]), n_draws=0)


# ------------------------------------------------------------------------------------ %overlap
def test_overlap_percentage_counts_rows_in_more_than_one_rule():
    covers = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]], dtype=bool)
    assert metrics.overlap_percentage(covers) == pytest.approx(40.0)  # rows 2 and 3 of 5
    assert metrics.overlap_percentage(np.zeros((4, 0), bool)) == 0.0
    assert np.isnan(metrics.overlap_percentage(np.zeros((0, 2), bool)))


# -------------------------------------------------------------------------------------------- g
def _masks(n, ranges):
    out = []
    for lo, hi in ranges:
        m = np.zeros(n, bool)
        m[lo:hi] = True
        out.append(m)
    return out


def test_g_on_a_known_rule_set():
    # rule A: train 10 rows (8 of class 1) -> p = (.2, .8); test 4 rows (2 of class 1) -> q = (.5, .5)
    #         d = (.3 + .3) / 2 = .3, weight 10
    # rule B: train 30 rows (15 of class 1) -> (.5, .5); test 5 rows (3 of class 1) -> (.4, .6)
    #         d = .1, weight 30
    # else:   train 20 rows, no test row -> left out
    # g = (10 * .3 + 30 * .1) / 40 = .15
    y_train = np.r_[np.zeros(2), np.ones(8), np.zeros(15), np.ones(15), np.zeros(18), np.ones(2)].astype(int)
    y_test = np.r_[[0, 0, 1, 1], [0, 0, 1, 1, 1]]
    train_masks = _masks(60, [(0, 10), (10, 40), (40, 60)])
    test_masks = _masks(9, [(0, 4), (4, 9), (9, 9)])
    g = metrics.probability_difference(train_masks, y_train, test_masks, y_test, np.array([0, 1]))
    assert g == pytest.approx(0.15)


def test_g_three_classes_and_overlapping_rules():
    # one rule: p = (.5, .25, .25), q = (.5, .5, 0): d = (0 + .25 + .25) / 3 = 1/6
    y_train = np.array(["a", "a", "b", "c"])
    y_test = np.array(["a", "b"])
    g = metrics.probability_difference([np.ones(4, bool)], y_train, [np.ones(2, bool)], y_test, np.array(["a", "b", "c"]))
    assert g == pytest.approx(1 / 6)
    # two identical (fully overlapping) rules: each counts on its own, the weighted mean is unchanged
    g2 = metrics.probability_difference([np.ones(4, bool)] * 2, y_train, [np.ones(2, bool)] * 2, y_test, np.array(["a", "b", "c"]))
    assert g2 == pytest.approx(1 / 6)
    assert np.isnan(metrics.probability_difference([np.zeros(4, bool)], y_train, [np.ones(2, bool)], y_test, np.array(["a", "b", "c"])))


def _g_naive(train_masks, y_train, test_masks, y_test, classes):
    """Eq. 3.26 straight from the text, one instance at a time."""
    num = den = 0.0
    for mtr, mte in zip(train_masks, test_masks):
        ntr = sum(1 for i in range(len(y_train)) if mtr[i])
        nte = sum(1 for i in range(len(y_test)) if mte[i])
        if ntr == 0 or nte == 0:
            continue
        d = 0.0
        for c in classes:
            p = sum(1 for i in range(len(y_train)) if mtr[i] and y_train[i] == c) / ntr
            q = sum(1 for i in range(len(y_test)) if mte[i] and y_test[i] == c) / nte
            d += abs(p - q) / len(classes)
        num += ntr * d
        den += ntr
    return num / den if den else float("nan")


@pytest.mark.parametrize("seed", range(5))
def test_g_matches_the_naive_twin(seed):
    rng = np.random.default_rng(seed)
    classes = np.arange(3)
    y_train, y_test = rng.integers(0, 3, 50), rng.integers(0, 3, 20)
    train_masks = [rng.random(50) < 0.3 for _ in range(4)]
    test_masks = [rng.random(20) < 0.3 for _ in range(4)]
    assert metrics.probability_difference(train_masks, y_train, test_masks, y_test, classes) == pytest.approx(
        _g_naive(train_masks, y_train, test_masks, y_test, classes))


# ------------------------------------------------------------------------------------- literals
def test_total_literals():
    assert metrics.total_literals([2, 3, 0]) == 5
    assert metrics.total_literals([]) == 0
    with pytest.raises(ValueError, match=">= 0"):
        metrics.total_literals([1, -1])


def test_tree_literals_are_the_leaf_depths():
    # y = 0 1 1 0 on x = 0 1 2 3: the root splits off x=0 (leaf, depth 1), then x=3 (two leaves
    # at depth 2): 1 + 2 + 2 = 5 literals, three rules
    X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    cart = CARTAdapter().fit(X, np.array([0, 1, 1, 0]))
    rules = cart.rules()
    assert sorted(r.n_literals for r in rules) == [1, 2, 2]
    assert metrics.total_literals(r.n_literals for r in rules) == cart.n_literals() == 5
    assert np.array_equal(np.sum([r.mask(X) for r in rules], axis=0), np.ones(4))  # leaves partition


# --------------------------------------------------------------------- the metrics of one task
class _FixedRules(Adapter):
    """Two threshold rules on column x plus an else rule; union-free "first rule wins" proba."""

    name = "fixed"
    kind = "rule_set"

    def _fit(self, X, y):
        pass

    def _masks(self, X):
        x = X["x"].to_numpy()
        return [x < 2, (x >= 1) & (x < 3)]

    def predict_proba(self, X):
        a, b = self._masks(X)
        p1 = np.where(a, 0.2, np.where(b, 0.7, 0.9))
        return np.column_stack([1 - p1, p1])

    def rules(self):
        return [ExtractedRule("x < 2", 1, lambda X: self._masks(X)[0]),
                ExtractedRule("1 <= x < 3", 2, lambda X: self._masks(X)[1]),
                ExtractedRule("else", 0, lambda X: ~np.logical_or(*self._masks(X)), True)]


def test_evaluate_fills_the_metrics_from_the_rules():
    X_train = pd.DataFrame({"x": [0.0, 0.5, 1.5, 2.5, 3.5, 3.6]})
    y_train = np.array([0, 0, 1, 1, 1, 1])
    X_test = pd.DataFrame({"x": [0.2, 1.2, 2.2, 3.2]})
    y_test = np.array([0, 1, 1, 1])
    ad = _FixedRules().fit(X_train, y_train)
    out = evaluate(ad, X_train, y_train, X_test, y_test)
    assert out["n_rules"] == 2 and out["n_literals"] == 3
    assert out["overlap_pct"] == pytest.approx(25.0)  # x = 1.2 is in both rules
    assert np.isnan(out.get("roc_auc_rp", np.nan))  # no random picking
    assert out["roc_auc"] == pytest.approx(metrics.roc_auc(y_test, ad.predict_proba(X_test), np.array([0, 1])))
    # g: rule 1 train {0, .5, 1.5} p1 = 1/3, test {.2, 1.2} q1 = 1/2 -> d = 1/6, w = 3
    #    rule 2 train {1.5, 2.5} p1 = 1, test {1.2, 2.2} q1 = 1 -> d = 0, w = 2
    #    else   train {3.5, 3.6} p1 = 1, test {3.2} q1 = 1 -> d = 0, w = 2
    assert out["g"] == pytest.approx(3 * (1 / 6) / 7)
    assert [r["train_coverage"] for r in out["rules"]] == [3, 2, 2]
    # P(1) = .2 (x < 2), .7 (1 <= x < 3), .9 (else): predicted 0, 0, 1, 1 against 0, 1, 1, 1
    assert out["accuracy"] == pytest.approx(0.75)
    # explanations (covering rules, else the else rule): {x<2}, {x<2, 1<=x<3}, {1<=x<3}, {else}
    # rules 1 + 2 + 1 + 1 = 5, literals 1 + 3 + 2 + 0 = 6, over 4 rows
    assert out["local_rules"] == pytest.approx(1.25)
    assert out["local_literals"] == pytest.approx(1.5)


# ---------------------------------------------------------------------------------- accuracy
def test_accuracy_takes_the_most_probable_class():
    y = np.array(["b", "a", "b", "a"])
    proba = np.array([[.2, .8], [.6, .4], [.5, .5], [.1, .9]])  # b, a, a (tie: first class), b
    assert metrics.accuracy(y, proba, np.array(["a", "b"])) == pytest.approx(0.5)
    assert np.isnan(metrics.accuracy(np.array([]), np.zeros((0, 2)), np.array(["a", "b"])))


# ------------------------------------------------------------------ local explanation size
def _rows(n, *sets):
    return [np.isin(np.arange(n), list(s)) for s in sets]


def test_local_explanation_size_by_model_kind():
    n = 4
    # rule set: A (2 literals) covers rows 0, 1; B (1) rows 1, 2; the else rule row 3
    E = metrics.explanation_matrix("covering", _rows(n, {0, 1}, {1, 2}, {3}), [False, False, True])
    np.testing.assert_array_equal(E.sum(axis=1), [1, 2, 1, 1])
    assert metrics.local_explanation_size(E, [2, 1, 0]) == pytest.approx((5 / 4, (2 + 3 + 1 + 0) / 4))
    # rule list r1 (1), r2 (2), default: used for rows {0}, {1, 2}, {3}: prefixes of 1, 2, 2, 3 rules
    E = metrics.explanation_matrix("prefix", _rows(n, {0}, {1, 2}, {3}), [False, False, True])
    assert metrics.local_explanation_size(E, [1, 2, 0]) == pytest.approx(((1 + 2 + 2 + 3) / 4, (1 + 3 + 3 + 3) / 4))
    # two one-vs-rest lists: [a (1): {0, 1}, d1: {2, 3}] and [b (2): {2}, c (1): {0}, d2: {1, 3}]
    # row 0: a | b c; row 1: a | b c d2; row 2: a d1 | b; row 3: a d1 | b c d2
    E = metrics.explanation_matrix("prefix", _rows(n, {0, 1}, {2, 3}, {2}, {0}, {1, 3}),
                                   [False, True, False, False, True])
    np.testing.assert_array_equal(E.sum(axis=1), [3, 4, 3, 5])
    assert metrics.local_explanation_size(E, [1, 0, 2, 1, 0]) == pytest.approx((15 / 4, (4 + 4 + 3 + 4) / 4))
    # tree: leaves at depths 1, 2, 2 holding rows {0}, {1, 2}, {3}: one path each
    E = metrics.explanation_matrix("leaf", _rows(n, {0}, {1, 2}, {3}), [False, False, False])
    assert metrics.local_explanation_size(E, [1, 2, 2]) == pytest.approx((1.0, 7 / 4))
    # additive (RuleFit, LIRE): r1 (1) covers {0, 1}, r2 (3) covers {1}; rows 2, 3 need no rule
    E = metrics.explanation_matrix("additive", _rows(n, {0, 1}, {1}), [False, False])
    assert metrics.local_explanation_size(E, [1, 3]) == pytest.approx((3 / 4, 5 / 4))


def test_local_explanation_size_checks_its_input():
    with pytest.raises(ValueError, match="mode must be one of"):
        metrics.explanation_matrix("bag", _rows(2, {0}), [False])
    with pytest.raises(ValueError, match="n_rules = len"):
        metrics.local_explanation_size(np.ones((2, 2), bool), [1])
    assert np.isnan(metrics.local_explanation_size(np.zeros((0, 1), bool), [1])[0])


def test_tree_adapter_explains_with_its_path():
    X = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    cart = CARTAdapter().fit(X, np.array([0, 1, 1, 0]))
    E = cart.explain(X)
    np.testing.assert_array_equal(E.sum(axis=1), 1)
    sizes = metrics.local_explanation_size(E, [r.n_literals for r in cart.rules()])
    assert sizes == pytest.approx((1.0, (1 + 2 + 2 + 2) / 4))  # x=0 at depth 1, the others at depth 2
