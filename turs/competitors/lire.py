"""Locally interpretable rule ensembles (Kanamori, ECML-PKDD 2023; seed 002), from its equations.

A rule ensemble predicts ``sgn(f(x))`` with ``f(x) = b + sum_m alpha_m r_m(x)`` over 0/1 rules
``r_m``. LIRE learns the weights by minimising (Problem 2)

``G(alpha) = L(alpha) + gamma |supp(alpha)| + lam Omega_L(alpha)``,
``L = (1/N) sum_n exp(-y_n f(x_n))`` (the exponential loss, ``y`` in {-1, +1}),
``Omega_L = (1/N) sum_n |lsupp(alpha | x_n)| / |supp(alpha)|``,

where the local support ``lsupp(alpha | x)`` is the non-zero-weight rules ``x`` satisfies. As
``sum_n |lsupp(x_n)| = N sum_{m in supp} p_m`` (``p_m`` the fraction of rows rule ``m``
covers), ``Omega_L`` is the mean coverage of the support's rules (0 for an empty support).

* **Candidate rules** (Section 2.1, 5.1): a random forest of ``n_estimators`` (100) trees of
  depth ``max_depth`` (3); every non-root node gives the conjunction of the conditions on its
  path (``x <= t`` to the left, ``x > t`` to the right). Here two conditions on one feature in
  one direction are merged into the tighter one, and rules with the same training cover are
  kept once (the shortest); rules covering no or every training row are dropped.
* **Initial weights** ``alpha^(0)``: Problem 1 (RuleFit: logistic loss + ``gamma ||alpha||_1``)
  by scikit-learn's L1 logistic regression (liblinear, ``C = 1 / (N gamma)``) on the rule
  matrix, halved (the exponential loss' minimiser is half the logistic one's log-odds).
* **Coordinate descent with local search** (Algorithm 1, Section 4.1), until the support stops
  changing or ``max_iter`` iterations: (1) each rule of the support gets the weight that
  minimises ``G`` in its coordinate (Theorem 1); when that is 0 the rule leaves and the
  iteration goes to step 3; (2) otherwise each support rule ``m`` is compared with every rule
  ``m'`` outside, with ``alpha_m' = alpha*_m'`` of Theorem 1 for the support without ``m``;
  the swap with the lowest ``G`` is made when it lowers ``G`` (the paper takes the first
  improving ``m'``; the best is one matrix-vector product too); (3) when the support changed,
  the support's weights and the intercept are refitted to minimise ``L`` (damped Newton).
* **Theorem 1**: for a rule outside the support, with ``e+`` / ``e-`` the loss terms
  ``(1/N) exp(-y f)`` of the positive / negative rows it covers, the step
  ``alpha' = 1/2 ln(e+ / e-)`` lowers ``L`` by ``e+ + e- - 2 sqrt(e+ e-)``; the rule enters when
  that exceeds ``C_m = gamma + lam (p_m - Omega_L) / (1 + |supp|)`` (Lemma 1).
* **Smoothing** (not in the paper): a rule covering rows of one class only gets an infinite
  ``alpha'``, and on separable rules step 3 diverges. Every step here minimises
  ``L_s = L + s sum_{m in supp} (e^alpha_m + e^-alpha_m - 2)`` instead, ``s = 1/(2N)``: its
  coordinate minimiser is ``1/2 ln((e+ + s) / (e- + s))`` (Schapire and Singer's smoothed
  AdaBoost step) with decrease ``e+ + e- + 2s - 2 sqrt((e+ + s)(e- + s))``; ``s -> 0`` gives the
  paper's formulas. ``objective_`` is ``G`` with this term (:func:`lire_objective`), and every
  step of the algorithm lowers it.
* The intercept ``b`` is unpenalised and not a rule (it is in no local support); it is
  updated like a rule covering every row.

``predict_proba`` is ``1 / (1 + exp(-2 f))``, the probability the exponential loss estimates;
``local_support(X)`` counts, per row, the non-zero-weight rules it satisfies.
``solver="l1"`` stops after the initial weights: RuleFit as the LIRE paper defines it
(Problem 1, logistic), on the same candidate rules, with ``predict_proba = 1/(1 + exp(-f))``.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from ._rules import Condition, Conjunction
from .submodular import _check_param, binary_target

__all__ = ["LIREClassifier", "extract_rules", "rule_matrix", "lire_objective", "fit_weights"]


# ------------------------------------------------------------------------------ candidate rules
def _merge(conds: list[Condition]) -> tuple[Condition, ...]:
    """Conditions on one feature in one direction merged into the tightest."""
    best: dict = {}
    for c in conds:
        key = (c.feature, c.op)
        old = best.get(key)
        if old is None or (c.threshold < old.threshold if c.op == "<=" else c.threshold > old.threshold):
            best[key] = c
    return tuple(sorted(best.values(), key=lambda c: (c.feature, c.op, c.threshold)))


def extract_rules(forest, feature_names=None) -> list[Conjunction]:
    """Every non-root node of every tree of a fitted scikit-learn forest, as a rule (distinct
    condition sets, in tree and node order)."""
    out, seen = [], set()
    for est in forest.estimators_:
        t = est.tree_
        stack = [(0, ())]
        while stack:
            node, conds = stack.pop()
            if conds:
                rule = _merge(list(conds))
                if rule not in seen:
                    seen.add(rule)
                    out.append(Conjunction(rule))
            left, right = t.children_left[node], t.children_right[node]
            if left < 0:
                continue
            f, thr = int(t.feature[node]), float(t.threshold[node])
            name = str(feature_names[f]) if feature_names is not None else ""
            stack.append((right, conds + (Condition(f, ">", thr, name),)))
            stack.append((left, conds + (Condition(f, "<=", thr, name),)))
    return out


def rule_matrix(X: np.ndarray, rules: list[Conjunction]) -> np.ndarray:
    """``R[m, n] = r_m(x_n)`` as float32 (rules x rows: each rule's row is contiguous)."""
    X = np.asarray(X, dtype=float)
    if not rules:
        return np.zeros((0, X.shape[0]), dtype=np.float32)
    return np.stack([r.covers(X) for r in rules]).astype(np.float32)


# ------------------------------------------------------------------------------ objective
def lire_objective(R: np.ndarray, y: np.ndarray, alpha: np.ndarray, b: float, gamma: float, lam: float,
                   s: float = 0.0) -> float:
    """``G(alpha) = L + gamma |supp| + lam Omega_L`` (``y`` in {-1, +1}, ``R`` rules x rows),
    plus the smoothing term ``s sum_m (e^alpha_m + e^-alpha_m - 2)`` when ``s > 0``."""
    f = b + alpha @ R
    supp = np.flatnonzero(alpha)
    omega = float(R[supp].mean()) if len(supp) else 0.0
    smooth = s * float(np.sum(2.0 * np.cosh(alpha[supp]) - 2.0))
    return float(np.mean(np.exp(-y * f)) + smooth + gamma * len(supp) + lam * omega)


def _theorem1(e_pos, e_neg, C, s):
    """Theorem 1 (vectorised) for the smoothed loss: the weight ``1/2 ln((e+ + s) / (e- + s))``
    and its decrease ``e+ + e- + 2s - 2 sqrt((e+ + s)(e- + s))``; weight 0 (decrease 0) when the
    decrease does not exceed ``C``. ``s = 0`` is the paper's formula."""
    a = 0.5 * np.log((e_pos + s) / (e_neg + s))
    dec = e_pos + e_neg + 2.0 * s - 2.0 * np.sqrt((e_pos + s) * (e_neg + s))
    take = dec > C
    return np.where(take, a, 0.0), np.where(take, dec, 0.0)


def fit_weights(R: np.ndarray, y: np.ndarray, alpha0: np.ndarray, b0: float, gamma: float, lam: float,
                max_iter: int = 5000, s: float | None = None, tune_iter: int = 50,
                tol: float = 1e-9) -> tuple[np.ndarray, float, int]:
    """Algorithm 1 (coordinate descent with local search) from ``alpha0``, ``b0``.

    ``R``: rules x rows (0/1 float32), ``y`` in {-1, +1}; ``s`` the smoothing pseudo-count
    (default ``1 / (2N)``). Every step lowers :func:`lire_objective` with that ``s`` (a swap or
    deletion only when it lowers it by more than ``tol``). Returns ``(alpha, b, iterations)``.
    """
    M, N = R.shape
    s = 0.5 / N if s is None else float(s)
    ypos = y > 0
    yf = y.astype(float)
    alpha = np.asarray(alpha0, dtype=float).copy()
    b = float(b0)
    p = R.mean(axis=1).astype(float)
    rows = [np.flatnonzero(r).astype(np.int32) for r in R > 0]
    w = np.exp(-yf * (b + alpha @ R)) / N  # loss terms: L = w.sum()

    def set_weight(m, value):  # alpha_m = value, with the loss terms
        c = rows[m]
        w[c] *= np.exp(-yf[c] * (value - alpha[m]))
        alpha[m] = value

    def parts(m):  # (e+, e-) of rule m without its own weight
        c = rows[m]
        wc = w[c] * np.exp(yf[c] * alpha[m])
        pos = ypos[c]
        return float(wc[pos].sum()), float(wc[~pos].sum())

    def tune():  # step 3: minimise the smoothed L over the intercept and the support's weights
        nonlocal b, w
        supp = np.flatnonzero(alpha)
        A = np.vstack([np.ones(N), R[supp]])  # intercept first
        x = np.concatenate([[b], alpha[supp]])

        def value(x):
            return np.exp(-yf * (x @ A)).sum() / N + s * np.sum(2 * np.cosh(x[1:]) - 2)

        current = value(x)
        for _ in range(tune_iter):  # damped Newton (the smoothed loss is strictly convex in x)
            e = np.exp(-yf * (x @ A)) / N
            g = -(A @ (yf * e))
            g[1:] += 2 * s * np.sinh(x[1:])
            if np.max(np.abs(g)) < 1e-12:
                break
            H = (A * e) @ A.T
            H[np.diag_indices_from(H)] += np.r_[1e-12, 2 * s * np.cosh(x[1:])]
            step = np.linalg.solve(H, g)
            t = 1.0
            while t > 1e-10:
                trial = value(x - t * step)
                if trial <= current - 1e-4 * t * float(g @ step):
                    break
                t *= 0.5
            if t <= 1e-10 or current - trial < 1e-15:
                break
            x, current = x - t * step, trial
        b = float(x[0])
        alpha[supp] = np.where(x[1:] == 0.0, 1e-12, x[1:])  # stays in the support
        w = np.exp(-yf * (b + alpha @ R)) / N

    def omega_of(support):
        return float(p[support].mean()) if len(support) else 0.0

    def G():
        supp = np.flatnonzero(alpha)
        return float(w.sum() + s * np.sum(2 * np.cosh(alpha[supp]) - 2) + gamma * len(supp) + lam * omega_of(supp))

    tune()
    it = 0
    for it in range(1, max_iter + 1):
        changed = False
        # step 1: each support coordinate to its G-minimising value (Theorem 1 without it)
        for m in np.flatnonzero(alpha):
            rest = np.flatnonzero(alpha)
            rest = rest[rest != m]
            C = gamma + lam * (p[m] - omega_of(rest)) / (1 + len(rest))
            e_pos, e_neg = parts(m)
            a, _ = _theorem1(e_pos, e_neg, C + tol, s)
            set_weight(m, float(a))
            if a == 0.0:
                changed = True
                break
        # step 2: swaps
        if not changed:
            wf = np.empty(N, dtype=np.float32)
            for m in np.flatnonzero(alpha):
                if alpha[m] == 0.0:
                    continue
                current = G()
                old = alpha[m]
                set_weight(m, 0.0)
                rest = np.flatnonzero(alpha)
                omega = omega_of(rest)
                C = gamma + lam * (p - omega) / (1 + len(rest))
                wf[:] = w * ypos
                e_pos = (R @ wf).astype(float)
                wf[:] = w * ~ypos
                e_neg = (R @ wf).astype(float)
                a, dec = _theorem1(e_pos, e_neg, C, s)
                base = G()
                new_G = base - dec + C  # G after adding m' with its Theorem-1 weight
                new_G[(a == 0.0) | (alpha != 0.0)] = np.inf
                new_G[m] = np.inf
                k = int(np.argmin(new_G))
                if new_G[k] < current - tol:
                    set_weight(k, float(a[k]))
                    changed = True
                else:
                    set_weight(m, old)
        if not changed:
            break
        tune()  # step 3
    return alpha, b, it


# ------------------------------------------------------------------------------ estimator
class LIREClassifier(ClassifierMixin, BaseEstimator):
    """A locally interpretable rule ensemble (Kanamori 2023): see the module docstring.

    Parameters
    ----------
    gamma : float or "auto", default="auto"
        Weight of the global regulariser ``|supp(alpha)|``; "auto": chosen from ``gamma_grid``
        by hold-out validation AUC (the paper's Table 3).
    lam : float or "auto", default="auto"
        Weight of the local regulariser ``Omega_L``; "auto": ``lam_ratio * gamma`` (Table 3).
    n_estimators, max_depth : int, default=100, 3
        The random forest that gives the candidate rules.
    max_iter : int, default=5000
        Iterations of Algorithm 1 (the paper's I).
    gamma_grid : tuple, default=(0.001, 0.002, 0.003, 0.004, 0.005)
    lam_ratio : float, default=2.0
    solver : {"cdls", "l1"}, default="cdls"
        "cdls": LIRE; "l1": stop at Problem 1 (RuleFit on the same rules, logistic loss).
    validation_fraction : float, default=0.25
        The stratified hold-out that chooses "auto" gamma.
    random_state : int, default=0
        Seeds the forest and the hold-out split.

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_ (DataFrame input)
    rules_ : list of Conjunction -- the support's rules, by decreasing |weight|
    coef_ : ndarray -- their weights; intercept_ : float
    n_candidates_ : int -- candidate rules M after de-duplication
    n_iter_ : int -- iterations of Algorithm 1
    best_params_ : dict -- gamma, lam; cv_results_ : list of dict (validation AUCs)
    """

    def __init__(self, gamma="auto", lam="auto", n_estimators=100, max_depth=3, max_iter=5000,
                 gamma_grid=(0.001, 0.002, 0.003, 0.004, 0.005), lam_ratio=2.0, solver="cdls",
                 validation_fraction=0.25, random_state=0):
        self.gamma = gamma
        self.lam = lam
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.max_iter = max_iter
        self.gamma_grid = gamma_grid
        self.lam_ratio = lam_ratio
        self.solver = solver
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _validate_params(self):
        name = type(self).__name__
        _check_param(name, "gamma", self.gamma, numbers.Real, 0, allow=("auto",))
        _check_param(name, "lam", self.lam, numbers.Real, 0, allow=("auto",))
        _check_param(name, "n_estimators", self.n_estimators, numbers.Integral, 1)
        _check_param(name, "max_depth", self.max_depth, numbers.Integral, 1)
        _check_param(name, "max_iter", self.max_iter, numbers.Integral, 0)
        _check_param(name, "lam_ratio", self.lam_ratio, numbers.Real, 0)
        if self.solver not in ("cdls", "l1"):
            raise ValueError(f"The 'solver' parameter of {name} must be 'cdls' or 'l1'. Got {self.solver!r} instead.")
        vf = self.validation_fraction
        if not (isinstance(vf, numbers.Real) and not isinstance(vf, bool) and 0 < vf < 1):
            raise ValueError(f"The 'validation_fraction' parameter of {name} must be a float in (0, 1). "
                             f"Got {vf!r} instead.")
        if not len(self.gamma_grid):
            raise ValueError(f"The 'gamma_grid' parameter of {name} must be a non-empty sequence. Got {self.gamma_grid!r}.")
        for g in self.gamma_grid:
            _check_param(name, "gamma_grid entry", g, numbers.Real, 0)

    def _candidates(self, X, y, names=None):
        """The forest's rules on ``X`` (rules with the same cover kept once: the shortest)."""
        from sklearn.ensemble import RandomForestClassifier

        rf = RandomForestClassifier(n_estimators=int(self.n_estimators), max_depth=int(self.max_depth),
                                    random_state=self.random_state, n_jobs=1)
        rf.fit(X, y)
        rules = extract_rules(rf, names)
        R = rule_matrix(X, rules)
        counts = R.sum(axis=1)
        seen: dict = {}
        for i in np.argsort([len(r) for r in rules], kind="stable"):  # shortest first
            if 0 < counts[i] < R.shape[1]:
                seen.setdefault(np.packbits(R[i] > 0).tobytes(), i)
        keep = np.sort(np.fromiter(seen.values(), dtype=np.int64, count=len(seen)))
        return [rules[i] for i in keep], R[keep]

    def _weights(self, R, y, gamma, lam):
        """Problem 1 by L1 logistic regression, then Algorithm 1 (unless solver="l1")."""
        from sklearn.linear_model import LogisticRegression

        N = R.shape[1]
        alpha, b = np.zeros(R.shape[0]), 0.0
        if R.shape[0]:
            lr = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=1.0 / (N * max(gamma, 1e-12)),
                                    max_iter=1000, random_state=0)
            lr.fit(R.T, y)
            alpha, b = lr.coef_.ravel().astype(float), float(lr.intercept_[0])
        if self.solver == "l1":
            return alpha, b, 0
        # Algorithm 1 multiplies matrices of (support x rows): far too small for BLAS threads,
        # which only spin, and on a busy machine (a benchmark's other workers) cost 10x or more
        # (3,000 rows of campaign: 120 s with OpenBLAS' 2 threads at load 5, 8.8 s with one)
        with threadpool_limits(limits=1, user_api="blas"):
            return fit_weights(R, y, alpha / 2, b / 2, gamma, lam, int(self.max_iter))

    def fit(self, X, y):
        """Candidate rules from a random forest, "auto" gamma by hold-out AUC, then the weights."""
        from sklearn.metrics import roc_auc_score
        from sklearn.model_selection import StratifiedShuffleSplit

        self._validate_params()
        X, y = validate_data(self, X, y)
        self.classes_ = binary_target(type(self).__name__, y)
        ys = np.where(y == self.classes_[1], 1.0, -1.0)
        names = getattr(self, "feature_names_in_", None)
        gammas = list(self.gamma_grid) if self.gamma == "auto" else [float(self.gamma)]
        settings = [(float(g), float(self.lam_ratio) * float(g) if self.lam == "auto" else float(self.lam))
                    for g in gammas]
        self.cv_results_ = []
        if len(settings) > 1 and min(np.sum(ys > 0), np.sum(ys < 0)) >= 2:
            split = StratifiedShuffleSplit(1, test_size=self.validation_fraction, random_state=self.random_state)
            tr, va = next(split.split(X, ys))
            rules, R = self._candidates(X[tr], ys[tr])
            Rva = rule_matrix(X[va], rules)
            for g, lam in settings:
                alpha, b, _ = self._weights(R, ys[tr], g, lam)
                auc = roc_auc_score(ys[va], b + alpha @ Rva) if len(np.unique(ys[va])) == 2 else 0.5
                self.cv_results_.append({"gamma": g, "lam": lam, "auc": float(auc), "support": int(np.sum(alpha != 0))})
            gamma, lam = settings[int(np.argmax([r["auc"] for r in self.cv_results_]))]
        else:
            gamma, lam = settings[0]
        rules, R = self._candidates(X, ys, names)
        alpha, b, n_iter = self._weights(R, ys, gamma, lam)
        self.n_iter_ = max(int(n_iter), 1)
        self.n_candidates_ = len(rules)
        self.best_params_ = {"gamma": gamma, "lam": lam}
        self.objective_ = (lire_objective(R, ys, alpha, b, gamma, lam, 0.5 / len(ys)) if self.solver == "cdls"
                           else float("nan"))
        order = np.flatnonzero(alpha)[np.argsort(-np.abs(alpha[alpha != 0]), kind="stable")]
        self.rules_ = [rules[i] for i in order]
        self.coef_ = alpha[order]
        self.intercept_ = b
        return self

    # ----------------------------------------------------------------- prediction
    def apply(self, X) -> np.ndarray:
        """``(n, n_rules)`` boolean: which rules of ``rules_`` each row satisfies."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return rule_matrix(X, self.rules_).T > 0

    def decision_function(self, X) -> np.ndarray:
        """``f(x) = intercept_ + sum_m coef_m r_m(x)``; positive: ``classes_[1]``."""
        A = self.apply(X)
        return self.intercept_ + A.astype(float) @ self.coef_

    def predict_proba(self, X) -> np.ndarray:
        f = self.decision_function(X)
        scale = 1.0 if self.solver == "l1" else 2.0
        p1 = 1.0 / (1.0 + np.exp(-scale * f))
        return np.column_stack([1.0 - p1, p1])

    def predict(self, X) -> np.ndarray:
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def local_support(self, X) -> np.ndarray:
        """Per row, the number of non-zero-weight rules it satisfies (``|lsupp(alpha | x)|``)."""
        return self.apply(X).sum(axis=1)

    def __str__(self) -> str:
        if not hasattr(self, "rules_"):
            return repr(self)
        lines = [f"intercept {self.intercept_:+.4g} (f > 0: {self.classes_[1]})"]
        lines += [f"{c:+.4g}  IF {r}" for r, c in zip(self.rules_, self.coef_)]
        return "\n".join(lines)
