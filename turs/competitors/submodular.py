"""Decision rule sets by submodular optimisation (Yang et al., NeurIPS 2021; seed 004), from its equations.

The seed gives the objective, Algorithm 1 (distorted greedy) and the subproblem; the rest is
derived here and written down in ``docs/competitors.md`` ("Submodular rule sets").

**Binarisation.** Every feature column gives threshold literals in both directions, ``x <= t``
and ``x > t``, at up to ``n_thresholds`` (default 9) distinct quantiles of the training column
(a column with at most ``n_thresholds + 1`` values: every value but its maximum). A one-hot 0/1
column gives ``x = 1`` and ``x = 0``, the paper's one-hot literals in both directions; 10 numeric
columns give 10 x 9 x 2 = 180 literals, Table 1's count for magic.

**Objective.** For a rule set ``S`` (rules are sets of literals; a rule covers a row when all
its literals hold) with positives ``X+`` and negatives ``X-``:

``L(S) = b0 sum_R |X-_R| + b1 |X+ \\ X+_S| + b2 (sum_R |X+_R| - |X+_S|) + lam sum_R |R|``,
maximised as ``V(S) = g(S) - sum_R c(R)`` with ``g(S) = (b1 + b2) |X+_S|`` (monotone
submodular) and ``c(R) = b0 |X-_R| + b2 |X+_R| + lam |R|`` (modular in the rules), so
``L(S) = b1 |X+| - V(S)``, under ``|S| <= K``.

**Distorted greedy** (Algorithm 1): at step ``k = 1..K`` maximise
``v_k(R) = (1 - 1/K)^(K-k) g(R | S) - c(R) = sum_i w_i 1[R covers x_i] - lam |R|`` with
``w_i = (1 - 1/K)^(K-k) (b1 + b2) - b2`` for a positive not yet covered by ``S``, ``-b2`` for a
covered positive and ``-b0`` for a negative; add the maximiser when ``v_k > 0``.

**Subproblem by iterative refinement.** With ``h_i(R) = 1[some literal of R is false on x_i]``
(a coverage function, submodular), ``1[R covers x_i] = 1 - h_i(R)`` and ``v(R) = sum_i w_i +
f(R) - u(R)``, ``f(R) = sum_{w_i<0} |w_i| h_i(R)`` (negatives excluded) and ``u(R) = sum_{w_i>0}
w_i h_i(R) + lam |R|`` (positives lost, and complexity): a difference of submodular functions.
From each start ``R_0`` (the top-down greedy rule, and bottom-up rules from a few positive rows;
every start is refined, the best result kept), each step replaces ``f`` by its modular lower
bound along a chain (an ordering of the literals) that starts with the current rule ``R_t``:
literal ``j`` is credited with the negatives it is the first in the chain to exclude, so the
bound equals ``f`` on every prefix of the chain and on ``R_t``. The rest, ``max_S l(S) - u(S)``,
is solved exactly: it is a maximum-weight closure problem (literal ``j`` earns ``l_j - lam`` and
needs every positive row it excludes, each costing ``w_i``), i.e. a minimum s-t cut. As ``v(S)
>= l(S) - u(S) + const`` with equality at ``R_t``, the cut's rule is at least as good as
``R_t``. The chains through ``R_t - j`` (with ``j`` moved last) are solved too, so a literal can
be exchanged. The best candidate replaces ``R_t`` when it raises ``v``; the loop stops when none
does.

**Exact branch-and-bound** (``solver="bnb"``): a set-enumeration tree over the literals; a rule
whose extensions cannot beat the incumbent, ``sum_{covered, w_i > 0} w_i - lam (|R| + 1)``, is
pruned, and so is a literal that removes no covered row (same cover, one literal more) or
repeats a feature and direction of the rule (``x <= a AND x <= b`` equals one of them), or
reaches a cover already reached with as few literals. It starts from the refinement's rule and gives up after ``bnb_max_nodes`` nodes (``bnb_finished_``).

The solvers and the greedy are in :mod:`turs.competitors.submodular_solvers`; this module holds
the binarisation and the estimator.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._rules import Condition, Conjunction
from .submodular_solvers import distorted_greedy, max_closure, objective_value, rule_value, solve_bnb, solve_refine

__all__ = ["SubmodularRuleSetClassifier", "threshold_literals", "literal_matrix", "literal_groups", "rule_value",
           "solve_refine", "solve_bnb", "max_closure", "distorted_greedy", "objective_value"]



# ------------------------------------------------------------------------------ binarisation
def threshold_literals(X: np.ndarray, n_thresholds: int = 9, feature_names=None) -> list[Condition]:
    """The literals of the binarised data: per column ``x <= t`` then ``x > t`` per threshold ``t``.

    Thresholds are the distinct ``method="lower"`` quantiles at levels ``1/(q+1), ..., q/(q+1)``
    (``q = n_thresholds``) below the column's maximum; a column with at most ``q + 1`` distinct
    values gets every value but the maximum. A constant column gives no literal.
    """
    X = np.asarray(X, dtype=float)
    levels = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
    out: list[Condition] = []
    for j in range(X.shape[1]):
        uniq = np.unique(X[:, j])
        if len(uniq) < 2:
            continue
        if len(uniq) <= n_thresholds + 1:
            cuts = uniq[:-1]
        else:
            cuts = np.unique(np.quantile(X[:, j], levels, method="lower"))
            cuts = cuts[cuts < uniq[-1]]
        name = str(feature_names[j]) if feature_names is not None else ""
        out.extend(Condition(j, "<=", float(t), name) for t in cuts)
        out.extend(Condition(j, ">", float(t), name) for t in cuts)
    return out


def literal_matrix(X: np.ndarray, literals: list[Condition]) -> np.ndarray:
    """``Z[i, j]``: literal ``j`` holds on row ``i`` (boolean, rows x literals)."""
    X = np.asarray(X, dtype=float)
    if not literals:
        return np.zeros((X.shape[0], 0), dtype=bool)
    feats = np.array([c.feature for c in literals])
    thr = np.array([c.threshold for c in literals])
    le = np.array([c.op == "<=" for c in literals])
    below = X[:, feats] <= thr[None, :]
    return np.where(le[None, :], below, ~below)


def literal_groups(literals: list[Condition]) -> np.ndarray:
    """One id per (feature, direction): the literals a rule needs at most one of."""
    return np.array([2 * c.feature + (c.op == ">") for c in literals], dtype=np.int64)


# ------------------------------------------------------------------------------ estimator
def _check_param(owner: str, name: str, value, kind, low=None, allow=()):
    """The house error text for a bad constructor argument (checked in ``fit``)."""
    if value in allow and isinstance(value, str):
        return
    ok = isinstance(value, kind) and not isinstance(value, bool)
    if ok and low is not None:
        ok = value >= low
    if not ok:
        what = {numbers.Integral: "an int", numbers.Real: "a float"}.get(kind, str(kind))
        extra = f" >= {low}" if low is not None else ""
        alts = "".join(f" or {a!r}" for a in allow)
        raise ValueError(f"The {name!r} parameter of {owner} must be {what}{extra}{alts}. Got {value!r} instead.")


def binary_target(owner: str, y) -> np.ndarray:
    """Check that ``y`` has exactly two classes (sklearn's wording for binary-only estimators)."""
    check_classification_targets(y)
    y_type = type_of_target(y, input_name="y", raise_unknown=True)
    classes = np.unique(y)
    if len(classes) == 1:
        raise ValueError(f"{owner} needs two classes; y has 1 class ({classes[0]!r}). Pass data with both classes.")
    if y_type != "binary":
        raise ValueError(f"Only binary classification is supported. The type of the target is {y_type} "
                         f"({len(classes)} classes); {owner} learns one DNF for one class against the other.")
    return classes


class SubmodularRuleSetClassifier(ClassifierMixin, BaseEstimator):
    """A DNF rule set learnt by distorted greedy submodular maximisation (Yang et al. 2021).

    Parameters
    ----------
    K : int or "auto", default=20
        Maximum number of rules (the cardinality constraint); "auto": chosen from ``K_grid``
        by validation inside ``fit``.
    lam : float or "auto", default="auto"
        Cost per literal (``lam``), in units of misclassified training rows; "auto": chosen
        from ``lam_grid`` (fractions of the number of training rows) by validation.
    beta0, beta1, beta2 : float, default=1.0, 1.0, 0.1
        Weights of false positives, false negatives and overlap (positives covered twice).
    n_thresholds : int, default=9
        Thresholds per numeric column (two literals each).
    solver : {"refine", "bnb"}, default="refine"
        The subproblem solver: iterative refinement, or exact branch-and-bound started from it.
    max_rule_length : int or None
        A cap on the literals per rule (none in the paper).
    bnb_max_nodes : int, default=200000
        Node budget of one branch-and-bound call.
    K_grid, lam_grid : tuple
        The validation grids (used for the parameters set to "auto").
    cv : "auto", int >= 2 or float in (0, 1), default="auto"
        How the "auto" parameters are chosen, by accuracy (ties: the simpler setting, earlier in
        the grids): an int is the number of folds of a stratified inner cross-validation, a float
        the fraction of a single stratified hold-out; "auto": 3 folds up to 3000 training rows,
        a 25% hold-out above (the grid costs one fit per setting and fold).
    positive_class : label, None or "auto", default="auto"
        The class the DNF describes; None: ``classes_[1]``; "auto": chosen by validation (both
        classes are tried with every setting of the grids).
    random_state : int, default=0
        Seeds the inner cross-validation split and the rows the bottom-up starts grow from.

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_ (DataFrame input), positive_class_
    literals_ : list of Condition -- the binarised features
    rules_ : list of Conjunction -- the DNF's rules
    rule_literals_ : list of list of int -- the rules as literal indices
    best_params_ : dict -- K, lam (absolute), positive class and betas used for the final fit
    cv_results_ : list of dict -- the validation grid (empty when nothing was "auto")
    objective_ : float -- V(S) on the training data
    trace_ : list of dict -- the distorted greedy's steps
    covered_proba_, uncovered_proba_ : float -- P(positive) of covered / uncovered rows
    """

    def __init__(self, K=20, lam="auto", beta0=1.0, beta1=1.0, beta2=0.1, n_thresholds=9,
                 solver="refine", max_rule_length=None, bnb_max_nodes=200_000, K_grid=(10, 20),
                 lam_grid=(0.016, 0.004, 0.001, 0.00025), cv="auto", positive_class="auto", random_state=0):
        self.K = K
        self.lam = lam
        self.beta0 = beta0
        self.beta1 = beta1
        self.beta2 = beta2
        self.n_thresholds = n_thresholds
        self.solver = solver
        self.max_rule_length = max_rule_length
        self.bnb_max_nodes = bnb_max_nodes
        self.K_grid = K_grid
        self.lam_grid = lam_grid
        self.cv = cv
        self.positive_class = positive_class
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _validate_params(self):
        name = type(self).__name__
        _check_param(name, "K", self.K, numbers.Integral, 1, allow=("auto",))
        _check_param(name, "lam", self.lam, numbers.Real, 0, allow=("auto",))
        for p in ("beta0", "beta1", "beta2"):
            _check_param(name, p, getattr(self, p), numbers.Real, 0)
        if self.beta1 <= 0:
            raise ValueError(f"The 'beta1' parameter of {name} must be a float > 0. Got {self.beta1!r} instead.")
        _check_param(name, "n_thresholds", self.n_thresholds, numbers.Integral, 1)
        _check_param(name, "bnb_max_nodes", self.bnb_max_nodes, numbers.Integral, 1)
        if not (self.cv == "auto" or (isinstance(self.cv, numbers.Integral) and not isinstance(self.cv, bool)
                                      and self.cv >= 2)
                or (isinstance(self.cv, numbers.Real) and not isinstance(self.cv, bool) and 0 < self.cv < 1)):
            raise ValueError(f"The 'cv' parameter of {name} must be 'auto', an int >= 2 or a float in (0, 1). "
                             f"Got {self.cv!r} instead.")
        if self.max_rule_length is not None:
            _check_param(name, "max_rule_length", self.max_rule_length, numbers.Integral, 1)
        if self.solver not in ("refine", "bnb"):
            raise ValueError(f"The 'solver' parameter of {name} must be 'refine' or 'bnb'. Got {self.solver!r} instead.")
        for grid, kind, low in (("K_grid", numbers.Integral, 1), ("lam_grid", numbers.Real, 0)):
            values = getattr(self, grid)
            if not len(values):
                raise ValueError(f"The {grid!r} parameter of {name} must be a non-empty sequence. Got {values!r}.")
            for v in values:
                _check_param(name, grid + " entry", v, kind, low)

    def _fit_once(self, Z, literals, positive, K, lam):
        return distorted_greedy(Z, positive, float(self.beta0), float(self.beta1), float(self.beta2), float(lam),
                                int(K), self.solver, self.max_rule_length, int(self.bnb_max_nodes),
                                literal_groups(literals), int(self.random_state))

    def _grid(self, n, classes):
        """(K, lambda, positive class) settings, simplest first (larger lambda, smaller K)."""
        Ks = [self.K] if self.K != "auto" else list(self.K_grid)
        lams = [float(self.lam)] if self.lam != "auto" else [float(f) * n for f in self.lam_grid]
        if isinstance(self.positive_class, str) and self.positive_class == "auto":
            pcs = [classes[1], classes[0]]
        elif self.positive_class is None:
            pcs = [classes[1]]
        else:
            if self.positive_class not in list(classes):
                raise ValueError(f"positive_class={self.positive_class!r} is not one of the classes "
                                 f"{list(classes)}; pass one of them, None or 'auto'.")
            pcs = [self.positive_class]
        return [(K, lam, pc) for lam in lams for K in Ks for pc in pcs]

    def fit(self, X, y):
        """Binarise ``X``, choose the "auto" settings by inner cross-validation, learn the DNF."""
        self._validate_params()
        X, y = validate_data(self, X, y)
        self.classes_ = binary_target(type(self).__name__, y)
        names = getattr(self, "feature_names_in_", None)
        self.literals_ = threshold_literals(X, int(self.n_thresholds), names)
        Z = literal_matrix(X, self.literals_)
        grid = self._grid(len(y), self.classes_)
        self.cv_results_ = []
        if len(grid) > 1:
            scores = np.zeros(len(grid))
            splits = _validation_splits(self.cv, X, y, self.random_state)
            for tr, va in splits:
                lits = threshold_literals(X[tr], int(self.n_thresholds))
                Ztr, Zva = literal_matrix(X[tr], lits), literal_matrix(X[va], lits)
                for g, (K, lam, pc) in enumerate(grid):
                    if self.lam == "auto":
                        lam = lam * len(tr) / len(y)  # lam_grid is a fraction of the training rows
                    pos_tr = y[tr] == pc
                    rules, _ = self._fit_once(Ztr, lits, pos_tr, K, lam)
                    pred = _predict_cover(Ztr, pos_tr, rules, Zva)
                    scores[g] += np.mean(pred == (y[va] == pc)) / len(splits)
            best = int(np.flatnonzero(scores >= scores.max() - 1e-12)[0])
            self.cv_results_ = [{"K": int(K), "lam": float(lam), "positive_class": pc, "accuracy": float(sc)}
                                for (K, lam, pc), sc in zip(grid, scores)]
            K, lam, pc = grid[best]
        else:
            K, lam, pc = grid[0]
        self.positive_class_ = pc
        positive = y == pc
        rules, self.trace_ = self._fit_once(Z, self.literals_, positive, K, lam)
        self.best_params_ = {"K": int(K), "lam": float(lam), "beta0": float(self.beta0),
                             "beta1": float(self.beta1), "beta2": float(self.beta2), "positive_class": pc}
        self.rule_literals_ = rules
        self.rules_ = [Conjunction(tuple(self.literals_[j] for j in r)) for r in rules]
        self.objective_ = objective_value(Z, positive, rules, self.beta0, self.beta1, self.beta2, lam)
        cov = _cover_any(Z, rules)
        self.covered_proba_ = (np.sum(positive & cov) + 1.0) / (np.sum(cov) + 2.0)
        self.uncovered_proba_ = (np.sum(positive & ~cov) + 1.0) / (np.sum(~cov) + 2.0)
        self.bnb_finished_ = all(t["bnb_finished"] is not False for t in self.trace_)
        return self

    # ----------------------------------------------------------------- prediction
    def apply(self, X) -> np.ndarray:
        """``(n, n_rules)`` boolean: which rules cover each row."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        if not self.rules_:
            return np.zeros((X.shape[0], 0), dtype=bool)
        return np.column_stack([r.covers(X) for r in self.rules_])

    def predict_proba(self, X) -> np.ndarray:
        """Training frequencies (Laplace-smoothed) of the positive class among the rows the DNF
        covers and among those it does not; columns in the order of ``classes_``."""
        cov = self.apply(X).any(axis=1)
        p = np.where(cov, self.covered_proba_, self.uncovered_proba_)
        pos_col = int(np.flatnonzero(self.classes_ == self.positive_class_)[0])
        out = np.empty((len(p), 2))
        out[:, pos_col] = p
        out[:, 1 - pos_col] = 1.0 - p
        return out

    def predict(self, X) -> np.ndarray:
        """The class of highest ``predict_proba``: the DNF's own prediction unless the covered
        (uncovered) training rows are mostly negative (positive)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def n_literals(self) -> int:
        check_is_fitted(self)
        return int(sum(len(r) for r in self.rules_))

    def __str__(self) -> str:
        if not hasattr(self, "rules_"):
            return repr(self)
        neg = self.classes_[self.classes_ != self.positive_class_][0]
        body = "\nOR ".join(f"({r})" for r in self.rules_) if self.rules_ else "FALSE"
        return (f"IF {body}\nTHEN {self.positive_class_} (P={self.covered_proba_:.3g})\n"
                f"ELSE {neg} (P({self.positive_class_})={self.uncovered_proba_:.3g})")


def _validation_splits(cv, X, y, random_state) -> list:
    """The (train, validation) index pairs of the inner model selection (see ``cv``); one split
    of everything for validation when a class has fewer than 2 rows."""
    from sklearn.model_selection import StratifiedShuffleSplit

    _, counts = np.unique(y, return_counts=True)
    n_min = int(counts.min())
    everything = [(np.arange(len(y)), np.arange(len(y)))]
    if cv == "auto":
        cv = 3 if len(y) <= 3000 else 0.25
    if isinstance(cv, numbers.Integral):
        k = min(int(cv), n_min)
        if k < 2:
            return everything
        return list(StratifiedKFold(k, shuffle=True, random_state=random_state).split(X, y))
    if n_min < 2:
        return everything
    split = StratifiedShuffleSplit(1, test_size=float(cv), random_state=random_state)
    return list(split.split(X, y))


def _cover_any(Z, rules) -> np.ndarray:
    out = np.zeros(Z.shape[0], dtype=bool)
    for r in rules:
        out |= Z[:, r].all(axis=1) if r else True
    return out


def _predict_cover(Ztr, positive, rules, Zva) -> np.ndarray:
    """Validation predictions as ``predict`` makes them (argmax of the smoothed frequencies)."""
    cov = _cover_any(Ztr, rules)
    p_cov = (np.sum(positive & cov) + 1.0) / (np.sum(cov) + 2.0)
    p_unc = (np.sum(positive & ~cov) + 1.0) / (np.sum(~cov) + 2.0)
    return np.where(_cover_any(Zva, rules), p_cov, p_unc) > 0.5
