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
"""
from __future__ import annotations

import logging
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from ._rules import Condition, Conjunction

__all__ = ["SubmodularRuleSetClassifier", "threshold_literals", "literal_matrix", "rule_value",
           "solve_refine", "solve_bnb", "distorted_greedy", "objective_value"]

_log = logging.getLogger(__name__)
_TOL = 1e-9


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


def rule_value(Z: np.ndarray, w: np.ndarray, lam: float, rule) -> float:
    """``v(R) = sum_i w_i 1[R covers x_i] - lam |R|`` (the subproblem's objective)."""
    rule = list(rule)
    cov = Z[:, rule].all(axis=1) if rule else np.ones(Z.shape[0], dtype=bool)
    return float(w[cov].sum() - lam * len(rule))


# ------------------------------------------------------------------------------- subproblem
class _Data:
    """The literal matrix in the forms the solvers use (bool, float 0/1 and its complement)."""

    def __init__(self, Z: np.ndarray, groups=None):
        self.Z = np.asarray(Z, dtype=bool)
        # literals of one feature and direction (x <= a, x <= b): a rule never needs two of them
        self.groups = np.arange(self.Z.shape[1]) if groups is None else np.asarray(groups)
        self.Zf = self.Z.astype(np.float32)
        self.Nf = 1.0 - self.Zf
        self.n, self.d = self.Z.shape
        self.cover_count = self.Z.sum(axis=0)


def _greedy_grow(D: _Data, w: np.ndarray, lam: float, max_len) -> list[int]:
    """Top-down start: add the literal that raises ``v`` most while one does."""
    rule: list[int] = []
    Zc, wc = D.Zf, w.astype(np.float32)  # the covered rows
    covered_sum = float(w.sum())
    while max_len is None or len(rule) < max_len:
        s = wc @ Zc  # sum of w over the cover and literal j
        gain = s - lam - covered_sum
        gain[rule] = -np.inf
        j = int(np.argmax(gain))
        if not gain[j] > _TOL:
            break
        rule.append(j)
        keep = Zc[:, j] > 0
        Zc, wc = Zc[keep], wc[keep]
        covered_sum = float(s[j])
    return rule


def max_closure(profit: np.ndarray, cost: np.ndarray, excludes: np.ndarray, enumerate_below: int = 13) -> np.ndarray:
    """Exact ``argmax_S sum_{k in S} profit_k - sum_i cost_i 1[some k in S excludes row i]``.

    ``profit`` (m,) > 0 per literal, ``cost`` (r,) >= 0 per row, ``excludes`` (m, r) boolean.
    Rows excluded by the same literals are merged first. With fewer than ``enumerate_below``
    literals every subset is scored; otherwise the maximum-weight closure problem is solved as
    a minimum s-t cut (source -> literal k with capacity ``profit_k``, literal -> each row group
    it excludes with infinite capacity, row group -> sink with capacity its cost; the chosen
    literals are those on the source side), capacities scaled to integers for scipy's max-flow
    (costs rounded up). Returns the boolean mask of chosen literals (ties: fewer literals).
    """
    m = excludes.shape[0]
    if m == 0:
        return np.zeros(0, dtype=bool)
    E, c = _merge_rows(excludes, cost)
    if m < enumerate_below:
        subsets = np.arange(2 ** m, dtype=np.int64)
        bits = ((subsets[:, None] >> np.arange(m)) & 1).astype(bool)
        codes = (E.T.astype(np.int64) << np.arange(m)).sum(axis=1)
        score = bits @ profit - ((subsets[:, None] & codes[None, :]) != 0) @ c
        best = np.flatnonzero(score >= score.max() - 1e-9)
        return bits[best[np.argmin(bits[best].sum(axis=1))]]
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import breadth_first_order, maximum_flow

    r = E.shape[1]
    scale = float(2 ** 29) / (float(profit.sum()) + float(c.sum()) + 1.0)
    P = np.floor(profit * scale).astype(np.int64)
    C = np.ceil(c * scale).astype(np.int64)
    k_idx, i_idx = np.nonzero(E)
    snk = m + r + 1
    rows = np.concatenate([np.zeros(m, np.int64), 1 + k_idx, 1 + m + np.arange(r)])
    cols = np.concatenate([1 + np.arange(m), 1 + m + i_idx, np.full(r, snk)])
    caps = np.concatenate([P, np.full(len(k_idx), int(P.sum()) + 1), C]).astype(np.int32)
    G = csr_array((caps, (rows, cols)), shape=(m + r + 2, m + r + 2))
    residual = (G - maximum_flow(G, 0, snk).flow).tocsr()
    residual.data = (residual.data > 0).astype(np.int32)
    residual.eliminate_zeros()
    reach = breadth_first_order(residual, 0, directed=True, return_predecessors=False)
    chosen = np.zeros(m, dtype=bool)
    chosen[reach[(reach >= 1) & (reach <= m)] - 1] = True
    return chosen


def _merge_rows(excludes: np.ndarray, cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Columns (rows of the data) with the same exclusion pattern merged, their costs summed;
    rows no literal excludes dropped."""
    hit = excludes.any(axis=0)
    E, cost = excludes[:, hit], cost[hit]
    m = E.shape[0]
    if E.shape[1] == 0:
        return E, cost
    if m <= 62:
        codes = (E.T.astype(np.int64) << np.arange(m, dtype=np.int64)).sum(axis=1)
        uniq, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        return E[:, first], np.bincount(inverse, weights=cost, minlength=len(uniq))
    uniq, inverse = np.unique(E, axis=1, return_inverse=True)
    return uniq, np.bincount(inverse.ravel(), weights=cost, minlength=uniq.shape[1])


def _chain_candidate(D: _Data, w: np.ndarray, lam: float, prefix: list[int], last: list[int], max_len,
                     neg_false: np.ndarray, pos_false: np.ndarray) -> list[int]:
    """Maximise ``l(S) - u(S)``: ``l`` the modular lower bound of ``f`` along the chain ``prefix``,
    then the other literals by decreasing ``v``-marginal after ``prefix``, then ``last``.
    ``neg_false`` / ``pos_false`` (literals x rows): which literals are false on the rows with
    ``w < 0`` / ``w > 0``."""
    if prefix:
        rows = np.flatnonzero(D.Z[:, prefix].all(axis=1))
        marg = -w[rows] @ D.Nf[rows]  # v(prefix + j) - v(prefix) + lam
    else:
        marg = -w @ D.Nf
    marg[prefix + last] = np.inf
    marg[last] = -np.inf
    chain = np.argsort(-marg, kind="stable")  # prefix, then the rest by marginal, then last
    wneg = -w[w < 0]
    remaining = np.ones(len(wneg), dtype=bool)
    left = float(wneg.sum())
    lits, credits = [], []
    for j in chain:  # credit: the negatives j is the first in the chain to exclude
        if left <= lam + _TOL:  # no later literal can earn more than lam
            break
        hit = remaining & neg_false[j]
        c = float(wneg[hit].sum())
        if c > 0:
            remaining &= ~hit
            left -= c
            if c - lam > _TOL:
                lits.append(int(j))
                credits.append(c)
    if not lits:
        return []
    lits = np.asarray(lits)
    chosen = max_closure(np.asarray(credits) - lam, w[w > 0], pos_false[lits])
    S = [int(j) for j in lits[chosen]]
    return S[:max_len] if max_len is not None else S  # too long: the chain's first literals


def _cell(D: _Data, row: int) -> list[int]:
    """The most specific rule covering ``row``: per feature and direction its tightest true literal."""
    true = np.flatnonzero(D.Z[row])
    true = true[np.lexsort((D.cover_count[true], D.groups[true]))]
    first = np.r_[True, D.groups[true][1:] != D.groups[true][:-1]]
    return [int(j) for j in true[first]]


def _greedy_drop(D: _Data, w: np.ndarray, lam: float, rule: list[int], max_len) -> list[int]:
    """Bottom-up start: drop the literal whose removal raises ``v`` most while one does (and
    while the rule is longer than ``max_len``)."""
    rule = list(rule)
    cnt = (~D.Z[:, rule]).sum(axis=1)
    while rule:
        one = np.flatnonzero(cnt == 1)
        gain = w[one] @ D.Nf[np.ix_(one, rule)] + lam  # v(R - j) - v(R)
        k = int(np.argmax(gain))
        if not (gain[k] > _TOL or (max_len is not None and len(rule) > max_len)):
            break
        cnt -= ~D.Z[:, rule[k]]
        del rule[k]
    return rule


def solve_refine(D: _Data, w: np.ndarray, lam: float, max_len=None, max_iter: int = 30, n_seeds: int = 5,
                 rng=None) -> tuple[list[int], float, int]:
    """Approximate ``argmax_R v(R)`` by iterative refinement of the DS decomposition, from several starts.

    Starts: the top-down greedy rule, and the bottom-up rules from ``n_seeds`` positive rows
    (``rng`` picks them; their most specific rule, then greedy drops). Every distinct start is
    refined (:func:`_refine`) and the best result is kept: the refinement is a local method, and
    the start of best value is often not the one whose refinement is best (late in the greedy,
    every start has ``v < 0`` and the best is often a rule covering nothing, where the
    refinement cannot move).
    Returns ``(rule, v(rule), refinement steps taken over all starts)``.
    """
    starts = [_greedy_grow(D, w, lam, max_len)]
    positives = np.flatnonzero(w > 0)
    if n_seeds and len(positives):
        rng = np.random.default_rng(0) if rng is None else rng
        for row in rng.choice(positives, min(n_seeds, len(positives)), replace=False):
            starts.append(_greedy_drop(D, w, lam, _cell(D, int(row)), max_len))
    neg_false = np.ascontiguousarray(~D.Z[w < 0].T)  # literals x rows
    pos_false = np.ascontiguousarray(~D.Z[w > 0].T)
    best, best_v, steps, seen = [], -np.inf, 0, set()
    for start in starts:
        key = tuple(sorted(start))
        if key in seen:
            continue
        seen.add(key)
        rule, value, n = _refine(D, w, lam, start, max_len, max_iter, neg_false, pos_false)
        steps += n
        if value > best_v + _TOL:
            best, best_v = rule, value
    return best, best_v, steps


def _refine(D: _Data, w: np.ndarray, lam: float, rule: list[int], max_len, max_iter: int,
            neg_false: np.ndarray, pos_false: np.ndarray) -> tuple[list[int], float, int]:
    """Iterative refinement from ``rule``: at ``R_t``, ``f`` is replaced by its modular lower bound
    along a chain through ``R_t`` (tight there) and ``max_S l(S) - u(S)`` is solved exactly
    (:func:`max_closure`); so are the chains through ``R_t - j`` (``j`` moved last), which let a
    literal be exchanged. The best candidate is kept when it raises ``v``; the loop stops when
    none does. Returns ``(rule, v(rule), steps)``."""
    rule = list(rule)
    value = rule_value(D.Z, w, lam, rule)
    steps = 0
    for steps in range(1, max_iter + 1):
        chains = [(list(rule), [])] + [([i for i in rule if i != j], [j]) for j in rule]
        best, best_v = None, value
        for prefix, last in chains:
            cand = _chain_candidate(D, w, lam, prefix, last, max_len, neg_false, pos_false)
            v = rule_value(D.Z, w, lam, cand)
            if v > best_v + _TOL:
                best, best_v = cand, v
        if best is None:
            break
        rule, value = best, best_v
    return [int(j) for j in rule], value, steps


def solve_bnb(D: _Data, w: np.ndarray, lam: float, max_len=None, max_nodes: int = 200_000,
              incumbent=None) -> tuple[list[int], float, bool]:
    """Exact ``argmax_R v(R)`` by branch-and-bound; returns ``(rule, value, finished)``.

    ``finished`` is False when ``max_nodes`` nodes were expanded first (the rule is then the best
    found, at least ``incumbent``'s).
    """
    wpos = np.maximum(w, 0.0)
    best, best_v = [], float(w.sum())
    if incumbent is not None:
        v = rule_value(D.Z, w, lam, incumbent)
        if v > best_v:
            best, best_v = list(incumbent), v
    stack = [((), np.arange(D.n), -1, np.inf)]
    seen: dict = {}
    nodes = 0
    while stack:
        rule, rows, last, ub = stack.pop()
        if ub <= best_v + _TOL:
            continue
        if max_len is not None and len(rule) >= max_len:
            continue
        nodes += 1
        if nodes > max_nodes:
            return best, best_v, False
        cand = np.arange(last + 1, D.d)
        if len(cand) == 0 or len(rows) == 0:
            continue
        Zs = D.Zf[np.ix_(rows, cand)]
        counts = Zs.sum(axis=0)
        keep = (counts < len(rows)) & (counts > 0) & ~np.isin(D.groups[cand], D.groups[list(rule)])
        vals = w[rows] @ Zs - lam * (len(rule) + 1)
        ubs = wpos[rows] @ Zs - lam * (len(rule) + 2)
        vals[~keep] = -np.inf
        j = int(np.argmax(vals))
        if vals[j] > best_v + _TOL:
            best, best_v = [*rule, int(cand[j])], float(vals[j])
        order = np.flatnonzero(keep & (ubs > best_v + _TOL))
        order = order[np.argsort(ubs[order], kind="stable")]  # best bound popped first
        for k in order:
            c = int(cand[k])
            child = rows[D.Z[rows, c]]
            key = child.tobytes()
            if seen.get(key, np.inf) <= len(rule) + 1:  # this cover was reached with as few literals
                continue
            seen[key] = len(rule) + 1
            stack.append(((*rule, c), child, c, float(ubs[k])))
    return [int(j) for j in best], best_v, True


# ------------------------------------------------------------------------------ rule set
def objective_value(Z: np.ndarray, positive: np.ndarray, rules, beta0: float, beta1: float, beta2: float,
                    lam: float) -> float:
    """``V(S) = (b1 + b2) |X+_S| - sum_R (b0 |X-_R| + b2 |X+_R| + lam |R|)``."""
    positive = np.asarray(positive, dtype=bool)
    union = np.zeros(len(positive), dtype=bool)
    cost = 0.0
    for rule in rules:
        cov = Z[:, list(rule)].all(axis=1) if len(rule) else np.ones(len(positive), dtype=bool)
        union |= cov
        cost += beta0 * np.sum(cov & ~positive) + beta2 * np.sum(cov & positive) + lam * len(rule)
    return float((beta1 + beta2) * np.sum(union & positive) - cost)


def distorted_greedy(Z: np.ndarray, positive: np.ndarray, beta0: float, beta1: float, beta2: float, lam: float,
                     K: int, solver: str = "refine", max_len=None, bnb_max_nodes: int = 200_000, groups=None,
                     seed: int = 0):
    """Algorithm 1 of the paper. Returns ``(rules, trace)``; ``trace`` has one dict per step
    (``k``, ``value`` of ``v_k`` at the chosen rule, ``added``, ``bnb_finished``, ``refine_steps``).
    ``groups``: :func:`literal_groups` of the literals (pruning in branch-and-bound and the
    bottom-up starts); ``seed`` seeds the choice of the bottom-up starts' rows."""
    D = _Data(Z, groups)
    positive = np.asarray(positive, dtype=bool)
    covered = np.zeros(D.n, dtype=bool)
    rules: list[list[int]] = []
    trace = []
    for k in range(1, K + 1):
        factor = (1.0 - 1.0 / K) ** (K - k)
        w = np.where(positive, np.where(covered, -beta2, factor * (beta1 + beta2) - beta2), -beta0)
        rule, value, steps = solve_refine(D, w, lam, max_len, rng=np.random.default_rng([seed, k]))
        finished = None
        if solver == "bnb":
            rule, value, finished = solve_bnb(D, w, lam, max_len, bnb_max_nodes, incumbent=rule)
        added = value > _TOL and sorted(rule) not in [sorted(r) for r in rules]
        if added:
            rules.append(sorted(rule))
            covered |= D.Z[:, rule].all(axis=1) & positive if rule else positive
        trace.append({"k": k, "value": value, "added": bool(added), "bnb_finished": finished,
                      "refine_steps": steps})
    return rules, trace


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
