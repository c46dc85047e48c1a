"""BRS, BRL and RuleFit from ``imodels`` (binary learners; BRL and RuleFit one-vs-rest).

* **BRS** (Wang et al. 2017), the thesis' Bayesian rule set competitor, as imodels'
  ``BayesianRuleSetClassifier`` (a port of the authors' BOA code). Binary only (the thesis
  reports it on binary datasets only); needs 0/1 features, so every numeric column is
  binarized at quantiles (:class:`~turs.competitors._common.QuantileBinarizer`, 5 cuts; BRS adds
  the complements ``x > q`` itself). The rules predict the *positive* class, by default the
  minority class; other rows get the other class. BRS has no probabilities:
  ``hard_predictions=True`` (one-hot rows). ``maxlen`` defaults to 3 (the BOA demo's value):
  imodels' default of 10 makes its pattern-space count enumerate all subsets of up to 10 of the
  2p binary items, which does not finish for a few dozen items. Python's ``random`` (which
  imodels leaves unseeded) is seeded from ``random_state`` for the fit and restored after.
* **BRL** (Letham et al. 2015) as ``BayesianRuleListClassifier`` on the same binary items (both
  directions as columns). Not in the thesis. Binary; with more classes one list per class
  against the rest, probabilities normalized over the classes, ``rules()`` the union of the
  lists (texts prefixed by the class; masks are used-for within each list).
* **RuleFit** (Friedman and Popescu 2008) as ``RuleFitClassifier``: a sparse logistic model
  over tree-derived rules and linear terms. Not in the thesis. Binary; one-vs-rest as for BRL.
  ``rules()`` gives each rule with a nonzero coefficient (mask = its cover) and each nonzero
  linear term as a one-literal "rule" covering every row; a row's probability comes from the
  weighted sum of all of them, not from one rule, so ``g``-type metrics do not apply.

imodels' own ``OneRClassifier`` is not the classic OneR (it is a greedy binary rule list on
one feature); OneR is Weka's (``turs.competitors.weka.OneRAdapter``).
"""
from __future__ import annotations

import random
import warnings

import numpy as np

from ..adapter import ExtractedRule
from ._common import (
    CompetitorAdapter, QuantileBinarizer, first_match_masks, fmt, import_or_hint, label_strings, one_hot,
)

__all__ = ["BRSAdapter", "BRLAdapter", "RuleFitAdapter"]

_MODULES = ("imodels", "mlxtend", "six")
_PACKAGES = "imodels (with mlxtend and six)"


def _brs_class():
    """imodels' BRS with one upstream bug fixed (also in the BOA code it was ported from).

    The "clean" move of ``_propose`` collects *positions* of redundant rules and then calls
    ``rules_norm.remove(position)``, which removes by *value*: a ValueError whenever the rule
    id differs from its position (e.g. a one-rule set whose rule is not rule 0). The fix
    drops the rules at those positions, as intended. The method's source is patched at run
    time (one statement); if a later imodels no longer has the statement, it is used as is.
    """
    global _BRS
    if _BRS is not None:
        return _BRS
    import inspect
    import re
    import textwrap

    base = _imodels("BayesianRuleSetClassifier")
    src = textwrap.dedent(inspect.getsource(base._propose))
    fixed, n = re.subn(r"for x in remove:\n(\s+)rules_norm\.remove\(x\)",
                       lambda m: "rules_norm = [r for j, r in enumerate(rules_norm) if j not in remove]",
                       src)
    cls = type("BayesianRuleSetClassifier", (base,), {"__module__": __name__})
    if n == 1:
        namespace = dict(vars(inspect.getmodule(base)))
        exec(compile(fixed, f"<patched {base.__module__}._propose>", "exec"), namespace)
        cls._propose = namespace["_propose"]
    _BRS = cls
    return cls


_BRS = None


def _imodels(name: str):
    def imp():
        import imodels

        return getattr(imodels, name)

    return import_or_hint("imodels", _PACKAGES, imp)


class _ImodelsAdapter(CompetitorAdapter):
    requires = _MODULES
    packages = _PACKAGES

    def _check_binary(self):
        if len(self.classes_) != 2:
            raise ValueError(
                f"{self.name} handles two classes only; got {len(self.classes_)} classes "
                f"({', '.join(map(str, self.classes_))}). The thesis reports BRS on binary "
                "datasets only."
            )


class BRSAdapter(_ImodelsAdapter):
    """Bayesian rule sets (imodels ``BayesianRuleSetClassifier``) on quantile-binarized features.

    ``params``: ``n_cuts`` (quantile cut points per numeric column, default 5),
    ``positive`` (``"minority"`` or a class label), ``random_state`` (default 0); the rest go
    to the classifier (``maxlen`` defaults to 3).
    """

    name = "BRS"
    kind = "rule_set"
    hard_predictions = True
    binary_only = True

    def _fit(self, X, y):
        self._check_binary()
        Cls = _brs_class()
        p = dict(self.params)
        n_cuts = p.pop("n_cuts", 5)
        positive = p.pop("positive", "minority")
        seed = p.pop("random_state", 0)
        p.setdefault("maxlen", 3)
        if positive == "minority":
            n0, n1 = ((y == c).sum() for c in self.classes_)
            self.positive_index_ = 0 if n0 < n1 else 1  # ties: the second class
        else:
            matches = np.flatnonzero(self.classes_ == positive)
            if len(matches) != 1:
                raise ValueError(f"BRS: positive={positive!r} is not one of the classes {list(self.classes_)}.")
            self.positive_index_ = int(matches[0])
        self.feature_names_in_ = list(X.columns)
        self.binarizer_ = QuantileBinarizer(n_cuts=n_cuts).fit(X)
        B = self.binarizer_.transform(X)
        target = (y == self.classes_[self.positive_index_]).astype(int)
        state = random.getstate()
        random.seed(seed)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.model_ = Cls(**p).fit(B, target)
        finally:
            random.setstate(state)
        # each rule: list of (item, negated)
        self.rule_items_ = []
        for rule in self.model_.rules_:
            items = []
            for name in rule:
                neg = name.endswith("_neg")
                item, _ = self.binarizer_.describe(name[:-4] if neg else name)
                items.append((item, neg))
            self.rule_items_.append(items)

    def _covers(self, X) -> list[np.ndarray]:
        out = []
        for items in self.rule_items_:
            m = np.ones(len(X), dtype=bool)
            for item, neg in items:
                h = item.holds(X)
                m &= ~h if neg else h
            out.append(m)
        return out

    def predict_proba(self, X):
        B = self.binarizer_.transform(X[self.feature_names_in_])
        pos = np.asarray(self.model_.predict(B), dtype=int)
        idx = np.where(pos == 1, self.positive_index_, 1 - self.positive_index_)
        return one_hot(idx, 2)

    def rules(self):
        pos = label_strings(self.classes_)[self.positive_index_]
        neg = label_strings(self.classes_)[1 - self.positive_index_]
        out = []
        for i, items in enumerate(self.rule_items_):
            body = " AND ".join(item.text(n) for item, n in items)
            out.append(ExtractedRule(f"IF {body} THEN {pos}", len(items),
                                     (lambda X, i=i: self._covers(X)[i])))
        out.append(ExtractedRule(f"ELSE {neg}", 0,
                                 lambda X: ~np.any(self._covers(X), axis=0) if self.rule_items_
                                 else np.ones(len(X), dtype=bool), is_default=True))
        return out


class _OneVsRest(_ImodelsAdapter):
    """One binary model (two classes) or one per class against the rest (more classes)."""

    def _binary_models(self, X, y, make):
        if len(self.classes_) == 2:
            return [(None, make(X, (y == self.classes_[1]).astype(int)))]
        return [(k, make(X, (y == c).astype(int))) for k, c in enumerate(self.classes_)]

    def _positive_prob(self, model, X) -> np.ndarray:
        raise NotImplementedError

    def predict_proba(self, X):
        if len(self.models_) == 1:
            p1 = self._positive_prob(self.models_[0][1], X)
            return np.column_stack([1 - p1, p1])
        P = np.column_stack([self._positive_prob(m, X) for _, m in self.models_])
        s = P.sum(axis=1, keepdims=True)
        uniform = np.full_like(P, 1.0 / P.shape[1])
        return np.where(s > 0, P / np.where(s > 0, s, 1), uniform)

    def _prefix(self, k):
        return "" if k is None else f"[{label_strings(self.classes_)[k]} vs rest] "


class BRLAdapter(_OneVsRest):
    """Bayesian rule lists (imodels ``BayesianRuleListClassifier``) on quantile-binarized features.

    ``params``: ``n_cuts`` (default 5); the rest go to the classifier (imodels' defaults, e.g.
    ``max_iter=50000``, 3 chains, ``random_state=42``).
    """

    name = "BRL"
    kind = "rule_list"

    def _fit(self, X, y):
        Cls = _imodels("BayesianRuleListClassifier")
        p = dict(self.params)
        n_cuts = p.pop("n_cuts", 5)
        self.feature_names_in_ = list(X.columns)
        self.binarizer_ = QuantileBinarizer(n_cuts=n_cuts, both_directions=True).fit(X)
        B = self.binarizer_.transform(X)

        def make(B, t):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return Cls(**p).fit(B.to_numpy(), t, feature_names=list(B.columns))

        self.models_ = self._binary_models(B, y, make)
        self.lists_ = []  # per model: list of (items, P(positive)), default last
        for k, m in self.models_:
            entries = []
            for j, idx in enumerate(m.d_star):
                itemset = m.itemsets[idx]
                items = [] if itemset == "null" else [
                    self.binarizer_.describe(m.feature_dict_[name]) for name in itemset]
                entries.append((items, float(m.theta[j])))
            self.lists_.append((k, entries))

    def _positive_prob(self, model, X):
        B = self.binarizer_.transform(X[self.feature_names_in_])
        return np.asarray(model.predict_proba(B.to_numpy()), dtype=float)[:, 1]

    @staticmethod
    def _cover(items, X):
        m = np.ones(len(X), dtype=bool)
        for item, neg in items:
            h = item.holds(X)
            m &= ~h if neg else h
        return m

    def rules(self):
        out = []
        for k, entries in self.lists_:
            pos = label_strings(self.classes_)[1 if k is None else k]
            for i, (items, theta) in enumerate(entries):
                body = " AND ".join(item.text(n) for item, n in items)
                text = f"{self._prefix(k)}{'IF ' + body + ' THEN' if items else 'ELSE'} P({pos})={theta:.3g}"

                def mask(X, entries=entries, i=i):
                    return first_match_masks([self._cover(it, X) for it, _ in entries])[i]

                out.append(ExtractedRule(text, len(items), mask, is_default=not items))
        return out


class RuleFitAdapter(_OneVsRest):
    """RuleFit (imodels ``RuleFitClassifier``; ``params`` go to it, ``random_state`` defaults to 0)."""

    name = "RuleFit"
    kind = "rule_set"
    explanation = "additive"  # the covering rules and every linear term (they cover all rows)

    def _fit(self, X, y):
        Cls = _imodels("RuleFitClassifier")
        p = {"random_state": 0, **self.params}
        self.feature_names_in_ = list(X.columns)
        A = X.to_numpy(float)

        def make(A, t):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return Cls(**p).fit(A, t)

        self.models_ = self._binary_models(A, y, make)

    def _positive_prob(self, model, X):
        return np.asarray(model.predict_proba(X[self.feature_names_in_].to_numpy(float)), dtype=float)[:, 1]

    def rules(self):
        cols = self.feature_names_in_
        out = []
        for k, m in self.models_:
            for j, c in enumerate(m.coef[: len(cols)]):
                if c != 0:
                    out.append(ExtractedRule(f"{self._prefix(k)}linear {cols[j]} (coef {c:.3g})", 1,
                                             lambda X: np.ones(len(X), dtype=bool)))
            for r in m.rules_without_feature_names_:
                conds = [(int(f.split("_")[1]), op, float(v)) for (f, op), v in r.agg_dict.items()]
                body = " AND ".join(f"{cols[a]} {op} {fmt(v)}" for a, op, v in conds)

                def mask(X, conds=conds):
                    A = X[cols].to_numpy(float)
                    mm = np.ones(len(A), dtype=bool)
                    for a, op, v in conds:
                        mm &= (A[:, a] <= v) if op == "<=" else (A[:, a] > v)
                    return mm

                out.append(ExtractedRule(f"{self._prefix(k)}IF {body} (coef {r.args[0]:.3g})", len(conds), mask))
        return out
