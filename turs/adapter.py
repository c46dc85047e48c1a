"""What the benchmark asks of every algorithm it runs (TURS and the competitors): the
:class:`Adapter` interface and the rules it yields (:class:`ExtractedRule`).

It sits below both the harness (:mod:`turs.bench`, which runs adapters) and the competitors
(:mod:`turs.competitors`, which implement it); ``turs.bench`` and ``turs.bench.adapters``
export the same classes.

An :class:`Adapter` fits on a DataFrame and labels, predicts class probabilities in the
order of ``classes_`` (or documented hard predictions), and yields its rules as
:class:`ExtractedRule` objects, so that ROC-AUC, random picking, ``g`` (Eq. 3.26), total
literals and runtime come out of the same metric code for every algorithm (thesis Section 3.6).

Rule semantics for the metrics:

* rule sets (TURS, CN2 unordered, BRS, IDS, DRS): ``mask`` is the rule's whole cover;
* rule lists (CLASSY, RIPPER, BRL, OneR): ``mask`` is the instances the rule is *used for*
  (it covers them and no earlier rule does);
* trees (CART, C4.5): one rule per leaf, ``mask`` is the leaf's instances, ``n_literals`` the
  depth of the leaf;
* the default / else rule has ``is_default=True`` and ``n_literals=0``;
* additive models (RuleFit, LIRE): ``mask`` is the rule's cover; a row's prediction sums the
  weights of every rule covering it.

:meth:`Adapter.explain` says which rules explain each row's prediction (the local explanation
size), by the adapter's ``explanation`` mode (:data:`turs.metrics.EXPLANATION_MODES`;
by default ``"covering"`` for rule sets, ``"prefix"`` for rule lists, ``"leaf"`` for trees).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from .metrics import explanation_matrix

__all__ = ["Adapter", "ExtractedRule"]


@dataclass(frozen=True)
class ExtractedRule:
    """A rule (or leaf) of a fitted model, as the metrics need it."""

    text: str
    n_literals: int
    mask: Callable[[pd.DataFrame], np.ndarray]  # rows this rule's probability applies to
    is_default: bool = False


class Adapter:
    """Base class: subclasses set ``name``, ``kind`` and implement ``_fit`` and friends."""

    name: str = "?"
    kind: str = "rule_set"  # "rule_set" | "rule_list" | "tree"
    hard_predictions: bool = False  # True when predict_proba returns one-hot predictions
    binary_only: bool = False  # True when the library handles two classes only
    explanation: str | None = None  # None: from kind (rule_set covering, rule_list prefix, tree leaf)

    def __init__(self, **params):
        self.params = params

    def fit(self, X: pd.DataFrame, y: np.ndarray) -> "Adapter":
        self.classes_ = np.unique(y)
        t = time.perf_counter()
        self._fit(X, np.asarray(y))
        self.fit_seconds_ = time.perf_counter() - t
        return self

    def _fit(self, X, y):
        raise NotImplementedError

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        raise NotImplementedError

    def predict_proba_random(self, X: pd.DataFrame, rng: np.random.Generator) -> np.ndarray:
        """Random picking (Section 3.6.3); only rule sets with overlaps implement it."""
        raise NotImplementedError(f"{self.name} has no random picking")

    def rules(self) -> list[ExtractedRule]:
        raise NotImplementedError

    def n_literals(self) -> int:
        return int(sum(r.n_literals for r in self.rules()))

    def explanation_mode(self) -> str:
        """How one prediction is explained (see :data:`turs.metrics.EXPLANATION_MODES`)."""
        if self.explanation is not None:
            return self.explanation
        return {"rule_set": "covering", "rule_list": "prefix", "tree": "leaf"}[self.kind]

    def explain(self, X: pd.DataFrame, rules: list | None = None, masks: list | None = None) -> np.ndarray:
        """``(n, n_rules)`` boolean: which rules of :meth:`rules` explain each row's prediction.

        ``rules`` and their ``masks`` on ``X`` may be passed when already computed.
        """
        rules = list(self.rules()) if rules is None else rules
        masks = [np.asarray(r.mask(X), dtype=bool) for r in rules] if masks is None else masks
        return explanation_matrix(self.explanation_mode(), masks, [r.is_default for r in rules])

    def extra(self) -> dict:
        """Algorithm-specific numbers to store with the result (e.g. TURS's MDL breakdown)."""
        return {}
