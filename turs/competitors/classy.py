"""CLASSY (Proença and van Leeuwen 2020): the original authors' ``rulelist`` 0.2.0.

``rulelist`` 0.2.0 (2021) was written for numpy 1.19 / pandas 1.x. :func:`apply_shims` makes it
run on current numpy and pandas without touching numpy for anyone else:

* ``DataFrame.iteritems`` (removed in pandas 2) is added back as an alias of ``items``;
* in rulelist's own modules the name ``np`` is replaced by a proxy of numpy that adds
  ``np.NINF`` (removed in numpy 2) and accepts ``nanquantile(..., interpolation=...)``
  (renamed ``method`` in numpy 1.22, removed in 2.4);
* rulelist's unconditional ``print("Iteration: ...")`` goes to ``logging`` (debug) instead.

The shims are applied when a :class:`CLASSYAdapter` is fitted, never at ``import turs``.
``RuleList(task="prediction", target_model="categorical")`` runs with the library's defaults
(beam width 100, max depth 5, 5 cut points, static discretization), as the thesis did.
Its probability columns follow the order in which classes appear in the training labels;
the adapter reorders them to ``classes_``.
"""
from __future__ import annotations

import importlib
import logging
import pkgutil
import types

import numpy as np
import pandas as pd

from ..adapter import ExtractedRule
from ._common import CompetitorAdapter, first_match_masks, import_or_hint, label_strings

__all__ = ["CLASSYAdapter", "apply_shims"]

_MODULES = ("rulelist", "gmpy2")
_PACKAGES = "rulelist==0.2.0 (installed --no-deps) and gmpy2"
_log = logging.getLogger(__name__)
_SKIP_MODULES = ("rulelist.util.makegraphs", "rulelist.util.results2folder")  # matplotlib, files
_shimmed = False


class _NumpyShim(types.ModuleType):
    """numpy, plus the two names rulelist 0.2.0 uses that numpy 2 removed."""

    NINF = -np.inf

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def nanquantile(a, q, *args, interpolation=None, **kwargs):
        if interpolation is not None:
            kwargs.setdefault("method", interpolation)
        return np.nanquantile(a, q, *args, **kwargs)


def _quiet_print(*args, **kwargs):
    _log.debug(" ".join(str(a) for a in args))


def apply_shims() -> None:
    """Make ``rulelist`` 0.2.0 work with the installed numpy/pandas (idempotent)."""
    global _shimmed
    if _shimmed:
        return
    rulelist = import_or_hint("CLASSY", _PACKAGES, lambda: importlib.import_module("rulelist"))
    if not hasattr(pd.DataFrame, "iteritems"):
        pd.DataFrame.iteritems = pd.DataFrame.items
    shim = _NumpyShim("numpy")
    for info in pkgutil.walk_packages(rulelist.__path__, "rulelist."):
        if info.name in _SKIP_MODULES:
            continue
        mod = import_or_hint("CLASSY", _PACKAGES, lambda n=info.name: importlib.import_module(n))
        if getattr(mod, "np", None) is np:
            mod.np = shim
        if info.name == "rulelist.search.iterative_rule_search":
            mod.print = _quiet_print
    _shimmed = True


class CLASSYAdapter(CompetitorAdapter):
    """CLASSY rule list (``params`` go to ``rulelist.RuleList``; task and target are fixed).

    ``rules()``: the rules in order, each with the rows it is *used for* (covers them and no
    earlier rule does), then the default rule. A rule's literals are its items; a numeric
    interval ``a <= x < b`` is one item, as TURS counts it.
    """

    name = "CLASSY"
    kind = "rule_list"
    requires = _MODULES
    packages = _PACKAGES

    def _fit(self, X, y):
        apply_shims()
        from rulelist import RuleList

        self.feature_names_in_ = list(X.columns)
        self.labels_ = label_strings(self.classes_)
        Xr = X.copy()
        Xr.columns = [str(c) for c in X.columns]
        self.columns_ = list(Xr.columns)
        ys = pd.Series(np.asarray(self.labels_, dtype=object)[np.searchsorted(self.classes_, y)],
                       index=Xr.index, name="target")
        params = {"target_model": "categorical", "task": "prediction", **self.params}
        self.model_ = RuleList(**params).fit(Xr, ys)
        rl = self.model_._rulelist
        self.patterns_ = [list(s.pattern) for s in rl.subgroups]
        self.rule_probs_ = [self._probs(s.statistics) for s in rl.subgroups]
        self.default_probs_ = self._probs(rl.default_rule_statistics)

    def _probs(self, statistics) -> np.ndarray:
        """A rule's class probabilities in classes_ order (rulelist's Laplace-type estimate)."""
        from rulelist.rulelistmodel.categoricalmodel.prediction_categorical import probability_categorical

        target = next(iter(statistics.usage_per_class))
        keys = [str(k) for k in statistics.usage_per_class[target]]
        p = np.asarray(probability_categorical(statistics, target), dtype=float)
        return p[[keys.index(lab) for lab in self.labels_]]

    def _Xr(self, X):
        Xr = X[self.feature_names_in_].copy()
        Xr.columns = self.columns_
        return Xr.reset_index(drop=True)

    def _covers(self, X) -> list[np.ndarray]:
        Xr = self._Xr(X)
        covers = []
        for pattern in self.patterns_:
            m = np.ones(len(Xr), dtype=bool)
            for item in pattern:
                m &= np.asarray(item.activation_function(Xr), dtype=bool)
            covers.append(m)
        return covers

    def predict_proba_from_rules(self, X) -> np.ndarray:
        """The same probabilities recomputed from the extracted rules (the tests compare)."""
        covers = self._covers(X)
        P = np.tile(self.default_probs_, (len(X), 1))
        taken = np.zeros(len(X), dtype=bool)
        for m, p in zip(covers, self.rule_probs_):
            use = m & ~taken
            P[use] = p
            taken |= m
        return P

    def rules(self):
        out = []
        for i, (pattern, p) in enumerate(zip(self.patterns_, self.rule_probs_)):
            body = " AND ".join(item.description for item in pattern)
            probs = ", ".join(f"P({lab})={q:.3g}" for lab, q in zip(self.labels_, p))
            out.append(ExtractedRule(f"IF {body} THEN {probs}", len(pattern),
                                     (lambda X, i=i: first_match_masks(self._covers(X))[i])))
        probs = ", ".join(f"P({lab})={q:.3g}" for lab, q in zip(self.labels_, self.default_probs_))
        out.append(ExtractedRule(f"ELSE {probs}", 0,
                                 lambda X: ~np.any(self._covers(X), axis=0) if self.patterns_
                                 else np.ones(len(X), dtype=bool), is_default=True))
        return out

    def predict_proba(self, X):
        """rulelist's own ``predict_proba``, columns reordered to ``classes_``."""
        P = np.asarray(self.model_.predict_proba(self._Xr(X)), dtype=float)
        order = [str(k) for k in next(iter(self.model_._rulelist.default_rule_statistics.usage_per_class.values()))]
        return P[:, [order.index(lab) for lab in self.labels_]]
