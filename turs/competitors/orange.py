"""Unordered CN2 (Clark and Boswell 1991) from Orange3, as in the thesis (Section 3.6.1).

Orange's ``CN2UnorderedLearner`` with its defaults learns, for each class, rules against all
other classes (Laplace-accuracy beam search). Its prediction for a row covered by several
rules is the average of their Laplace-smoothed class distributions weighted by their
coverage; an uncovered row gets the default rule's distribution. Random picking
(:meth:`CN2Adapter.predict_proba_random`, Table 3.4's CN2-RP) instead takes, for each covered
row, one of its covering rules uniformly at random and uses that rule's own distribution.

Orange is installed without its GUI dependencies (``--no-deps``, see
``.ci/install-competitors.sh``); ``Orange.classification`` imports without a display.
The DataFrame becomes an Orange ``Table`` of continuous features and a discrete class whose
values are ``classes_`` in order.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..adapter import ExtractedRule
from ._common import CompetitorAdapter, import_or_hint, label_strings

__all__ = ["CN2Adapter"]

_MODULES = ("Orange", "orangecanvas", "bottleneck", "openpyxl", "xlrd", "xlsxwriter", "chardet")
_PACKAGES = "Orange3 (installed --no-deps with orange-canvas-core, bottleneck, openpyxl, xlrd, xlsxwriter, chardet)"


def _orange():
    def imp():
        with warnings.catch_warnings():  # e.g. chardet's DeprecationWarning inside Orange.data
            warnings.simplefilter("ignore", DeprecationWarning)
            from Orange.classification import CN2UnorderedLearner
            from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table

        return CN2UnorderedLearner, ContinuousVariable, DiscreteVariable, Domain, Table

    return import_or_hint("CN2", _PACKAGES, imp)


class CN2Adapter(CompetitorAdapter):
    """CN2 unordered (Orange3 ``CN2UnorderedLearner``; ``params`` go to the learner).

    ``rules()``: every non-empty rule with its whole cover (a rule set), plus the default rule
    (``is_default``) for the rows no rule covers. ``n_literals`` of a rule is its number of
    selectors (Orange's ``rule.length``), as printed.
    """

    name = "CN2"
    kind = "rule_set"
    requires = _MODULES
    packages = _PACKAGES

    def _fit(self, X, y):
        Learner, Cont, Disc, Domain, Table = _orange()
        self.feature_names_in_ = list(X.columns)
        self.labels_ = label_strings(self.classes_)
        self.domain_ = Domain([Cont(str(c)) for c in X.columns], Disc("class", values=self.labels_))
        y_idx = np.searchsorted(self.classes_, y).astype(float)
        table = Table.from_numpy(self.domain_, X.to_numpy(float), y_idx)
        self.model_ = Learner(**self.params)(table)
        values = list(self.model_.domain.class_var.values)
        self.class_order_ = np.array([values.index(lab) for lab in self.labels_])
        rule_list = self.model_.rule_list
        self.rules_ = [r for r in rule_list[:-1] if r.length > 0]  # Orange ignores empty rules
        self.default_rule_ = rule_list[-1]

    def _model_X(self, X):
        _, _, _, _, Table = _orange()
        t = Table.from_numpy(self.domain_, X[self.feature_names_in_].to_numpy(float),
                             np.full(len(X), np.nan))
        return t.transform(self.model_.domain).X

    def _covers(self, X) -> np.ndarray:
        """rows x rules: which (non-empty) rule covers which row."""
        Xm = self._model_X(X)
        if not self.rules_:
            return np.zeros((len(X), 0), dtype=bool)
        return np.column_stack([r.evaluate_data(Xm) for r in self.rules_])

    def predict_proba(self, X):
        _, _, _, _, Table = _orange()
        t = Table.from_numpy(self.domain_, X[self.feature_names_in_].to_numpy(float),
                             np.full(len(X), np.nan))
        P = np.asarray(self.model_(t, ret=self.model_.Probs), dtype=float)
        return P[:, self.class_order_]

    def predict_proba_random(self, X, rng):
        """For a row covered by several rules, the distribution of one picked uniformly at random."""
        rng = np.random.default_rng(rng)
        C = self._covers(X)
        out = np.tile(np.asarray(self.default_rule_.probabilities, dtype=float), (len(X), 1))
        probs = [np.asarray(r.probabilities, dtype=float) for r in self.rules_]
        for i in np.flatnonzero(C.any(axis=1)):
            out[i] = probs[rng.choice(np.flatnonzero(C[i]))]
        return out[:, self.class_order_]

    def rules(self):
        out = []
        for i, r in enumerate(self.rules_):
            out.append(ExtractedRule(str(r).strip(), int(r.length),
                                     (lambda X, i=i: self._covers(X)[:, i])))
        out.append(ExtractedRule(str(self.default_rule_).strip(), 0,
                                 lambda X: ~self._covers(X).any(axis=1), is_default=True))
        return out
