"""S-CLASSY's evaluation of preferred variables (seed 003, Section 5) for TURS: what
``notebooks/preferred_variables.py`` needs beyond the harness.

* :func:`forest_ranking`: the source columns ranked by a random forest's entropy-based
  importance on the whole data, and :func:`preferred_sets`: its top-K, bottom-K and random-K
  sets with ``K = ceil(0.1 m)`` (chosen once, as the paper does);
* :class:`PreferredTURSAdapter` (registered by :func:`register`): TURS through the harness,
  whose record's ``extra`` also holds the empty model's MDL score ``L(D, {})`` (for
  ``L% = 1 - L(D, M) / L(D, {})``, the paper's Eq. 7), the class-frequency-weighted train AUC
  and the model file, from which the notebook reads the rules in the order the search added
  them and predicts the test fold;
* :func:`first_rule_frequency` and :func:`first_positions`: ``f@1`` and where the preferred
  columns appear in that order.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from .adapters import TURSAdapter
from .metrics import weighted_roc_auc

__all__ = ["PreferredTURSAdapter", "forest_ranking", "preferred_sets", "register", "rule_sources",
           "first_rule_frequency", "first_positions", "variable_of", "columns_of", "ALGORITHM"]

ALGORITHM = "turs-preferred"


def variable_of(column: str) -> str:
    """The variable a column belongs to: the study's files hold categorical variables already
    one-hot encoded as ``"variable=level"`` columns (tic-tac-toe's ``x4=o``, diabetes'
    ``Pregnancies=3``); any other column is its own variable."""
    return str(column).split("=", 1)[0]


def columns_of(variables, X: pd.DataFrame) -> list:
    """The columns of ``X`` that belong to ``variables`` (in ``X``'s order)."""
    wanted = set(variables)
    return [str(c) for c in X.columns if variable_of(c) in wanted]


def forest_ranking(X: pd.DataFrame, y, random_state: int = 0, n_estimators: int = 500) -> pd.Series:
    """Each variable's importance in a random forest (``criterion="entropy"``), highest first
    (ties by column order): a categorical column's one-hot columns, and the study's
    ``variable=level`` columns (:func:`variable_of`), summed into their variable, as S-CLASSY
    ranks its variables."""
    from sklearn.ensemble import RandomForestClassifier

    parts, owner = [], []
    for col in X.columns:
        s = X[col]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            parts.append(s.to_numpy(dtype=float)[:, None])
            owner.append(col)
        else:
            dummies = pd.get_dummies(s.astype(str)).to_numpy(dtype=float)
            parts.append(dummies)
            owner.extend([col] * dummies.shape[1])
    forest = RandomForestClassifier(n_estimators=n_estimators, criterion="entropy", random_state=random_state,
                                    n_jobs=1).fit(np.hstack(parts), np.asarray(y))
    owner = [variable_of(c) for c in owner]
    imp = pd.Series(forest.feature_importances_, index=owner).groupby(level=0, sort=False).sum()
    imp = imp.reindex(list(dict.fromkeys(owner)))
    order = sorted(range(len(imp)), key=lambda i: (-imp.iloc[i], i))
    return imp.iloc[order]


def preferred_sets(ranking: pd.Series, random_state: int = 0) -> dict:
    """``{"top": [...], "bottom": [...], "random": [...]}``: ``K = ceil(0.1 m)`` columns each
    (``m`` the number of source columns): the K most and least important of ``ranking`` and K
    drawn uniformly with ``np.random.default_rng(random_state)`` (in ranking order)."""
    names = [str(c) for c in ranking.index]
    k = math.ceil(0.1 * len(names))
    rng = np.random.default_rng(random_state)
    picked = sorted(rng.choice(len(names), size=k, replace=False).tolist())
    return {"top": names[:k], "bottom": names[-k:], "random": [names[i] for i in picked]}


class PreferredTURSAdapter(TURSAdapter):
    """TURS (``params``: ``TURSClassifier`` arguments, e.g. ``preferred_features``) whose
    ``extra`` adds ``mdl_empty`` (``L(D, {})`` on the training fold), ``train_auc_weighted`` and
    ``model`` (the model file as a dict: rules in the search's order, no training rows)."""

    name = "TURS (preferred features)"

    def _fit(self, X, y):
        super()._fit(X, y)
        self._train_auc = weighted_roc_auc(y, self.model_.predict_proba(X), self.model_.classes_)

    def extra(self):
        from ..mdl import score_literals

        m = self.model_
        out = super().extra()
        empty = score_literals([], m._train_rows_, np.asarray(m._y_train_, dtype=np.int64), len(m.classes_), [c.cuts for c in m.encoder_.columns_],
                               m.encoder_.binary_, m.model_encoding)
        out.update(mdl_empty=empty.total, train_auc_weighted=self._train_auc, model=json.loads(m.to_json()))
        return out


def register() -> None:
    """Register :class:`PreferredTURSAdapter` as ``"turs-preferred"`` (replacing an earlier one)."""
    from .algorithms import register_algorithm

    register_algorithm(ALGORITHM, PreferredTURSAdapter, replace=True,
                       description="TURS with preferred features; extra: L(D, {}), weighted train AUC, model file")


def rule_sources(model) -> list:
    """The variables (:func:`variable_of` of the source columns) each rule of a fitted or
    loaded model uses, in the order the search added the rules."""
    return [{variable_of(c.source if c.is_onehot else c.column) for c in r.conditions} for r in model.rules_]


def first_rule_frequency(sources_per_fold: list, preferred) -> tuple[float, float]:
    """S-CLASSY's ``f@1`` over folds: for each preferred column the share of folds whose first
    rule uses it; returns (their mean, their maximum). A fold without rules counts as not using
    any."""
    preferred = list(preferred)
    if not sources_per_fold or not preferred:
        return float("nan"), float("nan")
    freq = [np.mean([bool(s) and col in s[0] for s in sources_per_fold]) for col in preferred]
    return float(np.mean(freq)), float(np.max(freq))


def first_positions(sources_per_fold: list, preferred) -> list:
    """Per fold, the 1-based position of the first rule that uses a preferred column (None:
    no rule uses one)."""
    preferred = set(preferred)
    out = []
    for s in sources_per_fold:
        pos = next((i + 1 for i, cols in enumerate(s) if cols & preferred), None)
        out.append(pos)
    return out
