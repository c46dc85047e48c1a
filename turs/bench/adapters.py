"""The benchmark's built-in adapters: TURS (:class:`TURSAdapter`) and CART (:class:`CARTAdapter`).

The interface they implement, :class:`~turs.adapter.Adapter` with its rules as
:class:`~turs.adapter.ExtractedRule` objects, is :mod:`turs.adapter` (below the harness and the
competitors); it is exported here too.
"""
from __future__ import annotations

import numpy as np

from ..adapter import Adapter, ExtractedRule

__all__ = ["Adapter", "ExtractedRule", "TURSAdapter", "CARTAdapter"]


class TURSAdapter(Adapter):
    """TURS through :class:`turs.TURSClassifier` (``params`` are its constructor arguments)."""

    name = "TURS"
    kind = "rule_set"

    def _fit(self, X, y):
        from ..estimator import TURSClassifier

        self.model_ = TURSClassifier(**self.params).fit(X, y)

    def predict_proba(self, X):
        return self.model_.predict_proba(X)

    def predict_proba_random(self, X, rng):
        return self.model_.predict_proba(X, overlap="random", random_state=rng)

    def rules(self):
        m = self.model_
        out = []
        for i, r in enumerate(m.rules_):
            out.append(ExtractedRule(str(r), len(r), (lambda X, i=i: m.apply(X)[:, i])))
        out.append(ExtractedRule(str(m.else_rule_), 0, lambda X: ~m.apply(X).any(axis=1), True))
        return out

    def extra(self):
        b = self.model_.mdl_breakdown_
        return {"mdl_score": b.total, "mdl_data_bits": b.data_bits, "mdl_regret_bits": b.regret_bits,
                "mdl_model_bits": b.model_bits, "n_rules": len(self.model_.rules_)}


class CARTAdapter(Adapter):
    """scikit-learn's ``DecisionTreeClassifier`` with its defaults (as in the thesis)."""

    name = "CART"
    kind = "tree"

    def _fit(self, X, y):
        from sklearn.tree import DecisionTreeClassifier

        self.columns_ = list(X.columns)
        self.model_ = DecisionTreeClassifier(**{"random_state": 0, **self.params}).fit(X.to_numpy(float), y)

    def predict_proba(self, X):
        return self.model_.predict_proba(X[self.columns_].to_numpy(float))

    def rules(self):
        tree = self.model_.tree_
        depth = np.zeros(tree.node_count, dtype=int)
        stack = [0]
        while stack:
            node = stack.pop()
            for child in (tree.children_left[node], tree.children_right[node]):
                if child >= 0:
                    depth[child] = depth[node] + 1
                    stack.append(child)
        leaves = np.flatnonzero(tree.children_left < 0)
        cols = self.columns_

        def leaf_mask(X, leaf):
            return self.model_.apply(X[cols].to_numpy(float)) == leaf

        return [ExtractedRule(f"leaf {leaf}", int(depth[leaf]), (lambda X, leaf=leaf: leaf_mask(X, leaf)))
                for leaf in leaves]
