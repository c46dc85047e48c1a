"""Slow, obviously-correct twins of what ``TURSClassifier`` computes from its rules.

Everything here works from the *printed* model -- ``model.rules_`` (conditions on the user's
columns) and ``model.else_rule_`` -- and the raw table, one row at a time, never from the
estimator's internal bins, literals or packed covers. The tests compare these against
``apply``, ``predict_proba`` and ``explain``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


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
