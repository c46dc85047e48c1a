"""The seed papers' learners as benchmark adapters, and the seed check's extra datasets.

* ``submodular`` (:class:`SubmodularAdapter`): :class:`~turs.competitors.submodular.SubmodularRuleSetClassifier`
  (Yang et al. 2021, seed 004); a DNF rule set, binary only.
* ``lire`` (:class:`LIREAdapter`): :class:`~turs.competitors.lire.LIREClassifier` (Kanamori 2023,
  seed 002); a rule ensemble, binary only.
* ``lire-rulefit`` (:class:`LIRERuleFitAdapter`): the same candidate rules with Problem 1 only
  (L1 logistic regression: RuleFit as the LIRE paper defines it), LIRE's baseline.

Both are written in this package (numpy, scikit-learn), so they need no extra library.
``params`` go to the estimator. The datasets of the seed check that the thesis registry does not
have are loaders in :data:`SEED_DATASETS`, which :func:`turs.bench.register_seed_datasets` registers:
``seed-heart`` (``heartcleveland`` with its label binarised, 0 vs > 0: the 303 rows of seed
004's "heart") and ``seed-campaign`` (ADBench's 41,188-row bank-marketing data in
``$TURS_DATA_DIR/large``, the nearest the project has to seed 002's "Bank").
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..adapter import Adapter, ExtractedRule

__all__ = ["SubmodularAdapter", "LIREAdapter", "LIRERuleFitAdapter", "SEED_DATASETS", "load_seed_heart",
           "load_seed_campaign"]


class _EstimatorAdapter(Adapter):
    """Shared fit / predict for the re-implemented estimators (rules from ``rules_``)."""

    binary_only = True
    requires: tuple[str, ...] = ()

    def _make(self):
        raise NotImplementedError

    def _fit(self, X, y):
        self.feature_names_in_ = list(X.columns)
        self.model_ = self._make().fit(X, y)

    def _A(self, X) -> np.ndarray:
        return X[self.feature_names_in_].to_numpy(float)

    def predict_proba(self, X):
        return self.model_.predict_proba(X[self.feature_names_in_])


class SubmodularAdapter(_EstimatorAdapter):
    """Submodular DNF rule set (seed 004, re-implemented): the rules, then the default rule."""

    name = "submodular"
    kind = "rule_set"

    def _make(self):
        from .submodular import SubmodularRuleSetClassifier

        return SubmodularRuleSetClassifier(**self.params)

    def rules(self):
        m = self.model_
        pos = str(m.positive_class_)
        neg = str(m.classes_[m.classes_ != m.positive_class_][0])
        out = [ExtractedRule(f"IF {r} THEN {pos}", len(r), (lambda X, r=r: r.covers(self._A(X))))
               for r in m.rules_]

        def uncovered(X):
            A = self._A(X)
            covered = np.zeros(len(A), dtype=bool)
            for r in m.rules_:
                covered |= r.covers(A)
            return ~covered

        out.append(ExtractedRule(f"ELSE {neg}", 0, uncovered, is_default=True))
        return out

    def extra(self):
        m = self.model_
        return {"K": m.best_params_["K"], "lam": m.best_params_["lam"], "positive_class": str(m.positive_class_),
                "objective": m.objective_, "n_binary_features": len(m.literals_), "n_rules": len(m.rules_),
                "bnb_finished": bool(m.bnb_finished_)}


class LIREAdapter(_EstimatorAdapter):
    """LIRE rule ensemble (seed 002, re-implemented): its non-zero-weight rules, each with its cover."""

    name = "lire"
    kind = "rule_set"
    explanation = "additive"

    def _make(self):
        from .lire import LIREClassifier

        return LIREClassifier(**self.params)

    def rules(self):
        m = self.model_
        return [ExtractedRule(f"{c:+.4g} IF {r}", len(r), (lambda X, r=r: r.covers(self._A(X))))
                for r, c in zip(m.rules_, m.coef_)]

    def extra(self):
        m = self.model_
        return {"gamma": m.best_params_["gamma"], "lam": m.best_params_["lam"], "support": len(m.rules_),
                "n_candidates": m.n_candidates_, "n_iter": m.n_iter_, "objective": m.objective_}


class LIRERuleFitAdapter(LIREAdapter):
    """RuleFit as the LIRE paper defines it (Problem 1: L1 logistic) on LIRE's candidate rules."""

    name = "lire-rulefit"

    def _make(self):
        from .lire import LIREClassifier

        params = dict(self.params)
        params.setdefault("gamma_grid", (0.0005, 0.00075, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05))
        return LIREClassifier(solver="l1", **params)


# ------------------------------------------------------------------------------ datasets
def load_seed_heart() -> tuple[pd.DataFrame, pd.Series]:
    """``heartcleveland`` (303 rows) with the label 0 (no disease) vs 1 (the levels 1-4)."""
    from ..datasets import load

    X, y = load("heartcleveland")
    return X, pd.Series((np.asarray(y) > 0).astype(int), name="disease")


def _large_dir() -> Path:
    root = os.environ.get("TURS_DATA_DIR")
    if not root:
        raise FileNotFoundError(
            "seed-campaign reads $TURS_DATA_DIR/large/campaign.npz, and TURS_DATA_DIR is not set. "
            "Set it to the datasets folder (e.g. ../shared/datasets), as for the paper profile.")
    return Path(root) / "large"


def load_seed_campaign() -> tuple[pd.DataFrame, pd.Series]:
    """ADBench's campaign (bank marketing, 41,188 x 62, 11% positive), checked against the
    SHA-256 in ``large/MANIFEST.csv``."""
    from ..datasets import sha256_file

    folder = _large_dir()
    path = folder / "campaign.npz"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist; seed-campaign needs ADBench's 5_campaign.npz there "
                                f"(see {folder / 'MANIFEST.csv'}).")
    manifest = pd.read_csv(folder / "MANIFEST.csv").set_index("dataset")
    expected = str(manifest.at["campaign", "sha256"])
    got = sha256_file(path)
    if got != expected:
        raise ValueError(f"{path} has SHA-256 {got}, the manifest says {expected}. Replace the file with "
                         f"the one at {manifest.at['campaign', 'source']}.")
    data = np.load(path, allow_pickle=False)
    X = pd.DataFrame(np.asarray(data["X"], dtype=float), columns=[f"x{i}" for i in range(data["X"].shape[1])])
    return X, pd.Series(np.asarray(data["y"]).astype(int), name="y")


#: name -> loader of the seed check's extra datasets.
SEED_DATASETS = {"seed-heart": load_seed_heart, "seed-campaign": load_seed_campaign}
