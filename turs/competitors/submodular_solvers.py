"""The optimisation of the submodular rule-set learner (``turs.competitors.submodular``, seed
004): the subproblem ``max_R v(R)`` by iterative refinement (:func:`solve_refine`) or exact
branch-and-bound (:func:`solve_bnb`), and the distorted greedy over rules
(:func:`distorted_greedy`). The derivations are in ``turs.competitors.submodular``'s docstring
and ``docs/competitors.md`` ("Submodular rule sets"). Plain numpy on the literal matrix ``Z``
(rows x literals, bool).
"""
from __future__ import annotations

import numpy as np

_TOL = 1e-9


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
