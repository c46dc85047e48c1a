"""Seeded test data, and slow, obviously-correct twins of what ``TURSClassifier`` computes.

Every twin here works from the *printed* model -- ``model.rules_`` (conditions on the user's
columns) and ``model.else_rule_`` -- and the raw table, one row at a time, never from the
estimator's internal bins, literals or packed covers. The tests compare these against
``apply``, ``predict_proba`` and ``explain``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


# ---------------------------------------------------------------- seeded test data
def gap_data(seed=1, n=700):
    """3 numeric columns; class 'a' where u < 0.3, 'b' where v > 0.7, else 'c', 10% noise.

    The corner u < 0.3 and v > 0.7 holds no training row, so a test row there can be covered
    by an 'a' rule and a 'b' rule at once although no training row is.
    """
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 3))
    gap = (((X[:, 0] > 0.25) & (X[:, 0] < 0.35)) | ((X[:, 1] > 0.65) & (X[:, 1] < 0.75))
           | ((X[:, 0] < 0.3) & (X[:, 1] > 0.7)))
    X = X[~gap]
    y = np.where(X[:, 0] < 0.3, "a", np.where(X[:, 1] > 0.7, "b", "c")).astype(object)
    flip = rng.random(len(y)) < 0.1
    y[flip] = rng.choice(["a", "b", "c"], flip.sum())
    return pd.DataFrame(X, columns=["u", "v", "w"]), y


def categorical_data(seed=1, n=400):
    """A categorical column with 3 levels, one with 2 levels (one 0/1 column) and a numeric one."""
    rng = np.random.default_rng(seed)
    color = rng.choice(["red", "green", "blue"], n)
    shape = rng.choice(["circle", "square"], n)
    size = rng.uniform(0, 10, n)
    y = np.where(color == "red", "hot", np.where((shape == "square") & (size > 5), "big", "other"))
    flip = rng.random(n) < 0.05
    y[flip] = rng.choice(["hot", "big", "other"], flip.sum())
    X = pd.DataFrame({
        "color": pd.Categorical(color, categories=["blue", "green", "red"]),
        "shape": pd.Series(shape, dtype=object),
        "size": size,
    })
    return X, y


# ------------------------------------------------------------- row-by-row twins
def encoded_value(cond, row: pd.Series) -> float:
    """The value of the encoded column a condition is written on, for one raw row."""
    if cond.is_onehot:
        return 1.0 if row[cond.source] == cond.level else 0.0
    return float(row[cond.column])


def rule_covers_row(rule, row: pd.Series) -> bool:
    """Whether one row satisfies every condition of a rule (Condition.mask on one value)."""
    return all(bool(c.mask(np.array([encoded_value(c, row)]))[0]) for c in rule.conditions)


def covers_by_row(rules, X: pd.DataFrame) -> np.ndarray:
    """(n, K) bool: which rules cover each row, row by row."""
    out = np.zeros((len(X), len(rules)), dtype=bool)
    for i in range(len(X)):
        row = X.iloc[i]
        for k, rule in enumerate(rules):
            out[i, k] = rule_covers_row(rule, row)
    return out


def class_distribution(labels, classes) -> np.ndarray:
    counts = np.array([sum(1 for v in labels if v == c) for c in classes], dtype=float)
    return counts / counts.sum()


def union_estimate(rules, X_train: pd.DataFrame, y_train, classes, covering) -> np.ndarray:
    """Class distribution of the training rows in the union of the covers of ``covering``
    (rule indices; Eq. 3.4-3.5), or, for an empty ``covering``, of the training rows no rule
    covers (the else-rule)."""
    labels = []
    for i in range(len(X_train)):
        row = X_train.iloc[i]
        hit = [rule_covers_row(r, row) for r in rules]
        if covering:
            if any(hit[k] for k in covering):
                labels.append(y_train[i])
        elif not any(hit):
            labels.append(y_train[i])
    return class_distribution(labels, classes)
