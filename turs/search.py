"""The search for a TURS model (thesis Section 3.5, Algorithms 3 and 4).

Algorithm 3 (:func:`learn_rule_set`) adds rules while the MDL score (Eq. 3.20) decreases.
Algorithm 4 (:func:`learn_single_rule`) grows the next rule with the diverse-patience
dual-beam search:

* main beam: candidates scored by the learning speed score ``r(S)`` (Eq. 3.21), bucketed by
  ``|S'| / |S|`` into ``W`` patience intervals (Eq. 3.23), best per bucket, filtered by the
  MDL local test of Eq. 3.22;
* auxiliary beam: candidates scored by the complementary score ``R(S)`` (Eq. 3.24), which
  ignores the overlap with the rule set, bucketed by ``|S' \\ M| / |S \\ M|``, filtered by
  the local test on the uncovered instances (Eq. 3.25);
* growing stops after ``k_stop`` consecutive iterations in which neither beam improved on
  the previous iteration's best; the rule returned is the candidate of the main beams with
  the best ``r``.

Everything here is Python orchestration over the kernels of :mod:`turs._core.kernels`;
the counts of all candidates of a base rule come from one pass per feature.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ._core.codes import log2_comb, log2_factorial, universal_integer_code
from ._core.kernels import _bin_range_table, _grow_candidates, _rows_in_interval
from ._core.regret import log2_regret_table
from .mdl import literal_value_op_bits, nll_bits, overlap_groups


# ------------------------------------------------------------------------------ data
@dataclass
class SearchData:
    """What the search needs of the training data, as plain arrays."""

    bins: np.ndarray  # (d, n) uint8
    y: np.ndarray  # (n,) int64
    n_bins: np.ndarray  # (d,) int64
    binary: np.ndarray  # (d,) bool
    n_classes: int

    def __post_init__(self):
        self.d, self.n = self.bins.shape
        self.log2_regret = log2_regret_table(self.n, self.n_classes)
        self.log2_d = math.log2(self.d)
        self.all_rows = np.arange(self.n, dtype=np.int64)

    def nml_bits(self, counts: np.ndarray) -> np.ndarray:
        """``-log2 P^NML`` of the labels with these counts as one rule (Eq. 3.10)."""
        counts = np.asarray(counts)
        return nll_bits(counts, counts) + self.log2_regret[counts.sum(axis=-1).astype(np.int64)]


@dataclass
class Candidate:
    """A (partial) rule during the search; literals are ``(column, lo_bin, hi_bin)``."""

    literals: tuple
    value_ops: tuple
    k_values: tuple
    rows: np.ndarray
    counts: np.ndarray
    counts_uncovered: np.ndarray
    model_bits: float
    r: float = -np.inf
    R: float = -np.inf
    total_after: float = np.inf  # L(D, M + S)
    bucket: int = -1
    aux_bucket: int = -1
    local_test: bool = True
    aux_local_test: bool = True
    _subspaces: list = field(default=None, repr=False)

    @property
    def coverage(self) -> int:
        return int(self.rows.shape[0])

    @property
    def coverage_uncovered(self) -> int:
        return int(self.counts_uncovered.sum())

    @property
    def key(self) -> tuple:
        return tuple(sorted((int(j), int(a), int(b)) for j, a, b in self.literals))

    def intervals(self, data: SearchData):
        lo = np.zeros(data.d, dtype=np.int64)
        hi = data.n_bins.copy()
        for j, a, b in self.literals:
            lo[j], hi[j] = a, b
        return lo, hi

    def subspace_rows(self, data: SearchData, q: int) -> np.ndarray:
        """Rows satisfying literals ``0..q-1`` (where the ``K_value`` of literal q is counted)."""
        if self._subspaces is None:
            subs = [data.all_rows]
            for j, a, b in self.literals[:-1]:
                subs.append(_rows_in_interval(data.bins[j], subs[-1], a, b))
            self._subspaces = subs
        return self._subspaces[q]


def empty_rule(data: SearchData, state: "RuleSetState") -> Candidate:
    counts = np.bincount(data.y, minlength=data.n_classes)
    return Candidate((), (), (), data.all_rows, counts, state.else_counts.copy(), 0.0)


# ------------------------------------------------------------------------ rule set
class RuleSetState:
    """The current rule set ``M`` with everything the candidate scores need."""

    def __init__(self, data: SearchData, rules: list):
        self.data = data
        self.rules = list(rules)
        n, C = data.n, data.n_classes
        K = len(self.rules)
        covers = np.zeros((n, K), dtype=bool)
        for i, r in enumerate(self.rules):
            covers[r.rows, i] = True
        self.covers = covers
        self.group_of, self.group_masks = overlap_groups(covers)
        G = len(self.group_masks)
        self.union_counts = np.zeros((G, C))
        group_counts = np.zeros((G, C))
        for g in range(G):
            union = covers[:, self.group_masks[g]].any(axis=1)
            self.union_counts[g] = np.bincount(data.y[union], minlength=C)
            group_counts[g] = np.bincount(data.y[self.group_of == g], minlength=C)
        if G:
            m = self.group_masks.astype(np.int64)
            self.disjoint = (m @ m.T) == 0
        else:
            self.disjoint = np.zeros((0, 0), dtype=bool)
        self.uncovered = self.group_of < 0
        self.else_counts = np.bincount(data.y[self.uncovered], minlength=C)
        self.else_n = int(self.else_counts.sum())
        self.nll_covered = float(nll_bits(group_counts, self.union_counts).sum()) if G else 0.0
        self.nll_else = float(nll_bits(self.else_counts, self.else_counts))
        lr = data.log2_regret
        self.regret_rules = float(sum(lr[r.coverage] for r in self.rules))
        self.model_rules = float(sum(r.model_bits for r in self.rules))
        self.K = K
        self.total = (self.nll_covered + self.nll_else + self.regret_rules + lr[self.else_n]
                      + universal_integer_code(K) + self.model_rules - log2_factorial(K))
        # model-length constant of M + one more rule
        self.model_next = universal_integer_code(K + 1) + self.model_rules - log2_factorial(K + 1)

    @property
    def coverage(self) -> int:
        return int(self.data.n - self.else_n)


# -------------------------------------------------------------------- candidates
@dataclass
class Growths:
    """All one-literal growths of one base rule, scored (arrays over candidates)."""

    base: Candidate
    feat: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    counts: np.ndarray
    counts_unc: np.ndarray
    cov: np.ndarray
    cov_unc: np.ndarray
    model_bits: np.ndarray
    value_op: np.ndarray  # of the new / refined literal
    later_k: list  # per candidate: updated K_values of later literals (refinements) or None
    total_after: np.ndarray
    r: np.ndarray
    R: np.ndarray
    local_test: np.ndarray
    aux_local_test: np.ndarray
    bucket: np.ndarray
    aux_bucket: np.ndarray

    def materialize(self, i: int, data: SearchData) -> Candidate:
        base = self.base
        j, a, b = int(self.feat[i]), int(self.lo[i]), int(self.hi[i])
        lits = list(base.literals)
        vops = list(base.value_ops)
        kvs = list(base.k_values)
        pos = [p for p, lit in enumerate(lits) if lit[0] == j]
        if pos:
            p = pos[0]
            lits[p] = (j, a, b)
            vops[p] = float(self.value_op[i])
            for q, (kq, vq) in (self.later_k[i] or {}).items():
                kvs[q], vops[q] = kq, vq
        else:
            lits.append((j, a, b))
            vops.append(float(self.value_op[i]))
            kvs.append(int(self._k_new[j]))
        rows = _rows_in_interval(data.bins[j], base.rows, a, b)
        return Candidate(
            tuple(lits), tuple(vops), tuple(kvs), rows, self.counts[i].copy(),
            self.counts_unc[i].copy(), float(self.model_bits[i]), float(self.r[i]),
            float(self.R[i]), float(self.total_after[i]), int(self.bucket[i]),
            int(self.aux_bucket[i]), bool(self.local_test[i]), bool(self.aux_local_test[i]),
        )


def score_growths(base: Candidate, state: RuleSetState, beam_width: int, score: str) -> Growths | None:
    """Enumerate and score every one-literal growth of ``base`` (Algorithm 4, lines 7-15)."""
    data = state.data
    d, C = data.d, data.n_classes
    rows = base.rows
    gl_global = state.group_of[rows]
    present = np.unique(gl_global[gl_global >= 0])
    if len(present):
        gl = np.where(gl_global >= 0, np.searchsorted(present, gl_global), -1).astype(np.int64)
        disjoint = np.ascontiguousarray(state.disjoint[np.ix_(present, present)])
        union = np.ascontiguousarray(state.union_counts[present])
    else:
        gl = np.full(len(rows), -1, dtype=np.int64)
        disjoint = np.zeros((0, 0), dtype=np.bool_)
        union = np.zeros((0, C))
    lo, hi = base.intervals(data)
    valid, new_lo, new_hi, counts, counts_unc, delta, k_split = _grow_candidates(
        data.bins, data.y, rows, lo, hi, data.n_bins, C, gl, disjoint, union)
    idx = np.flatnonzero(valid)
    if idx.size == 0:
        return None
    S = counts.shape[0] // d
    feat = (idx // S).astype(np.int64)
    new_lo, new_hi = new_lo[idx], new_hi[idx]
    counts, counts_unc, delta = counts[idx], counts_unc[idx], delta[idx]
    cov = counts.sum(axis=1)
    cov_unc = counts_unc.sum(axis=1)

    # ---- model code length L(S') (Eq. 3.13-3.17)
    k = len(base.literals)
    lit_pos = {lit[0]: p for p, lit in enumerate(base.literals)}
    base_vo = np.array(base.value_ops, dtype=float)
    n_cand = len(idx)
    model = np.empty(n_cand)
    value_op = np.empty(n_cand)
    later_k = [None] * n_cand
    ok = np.ones(n_cand, dtype=bool)
    header_new = data.log2_d + log2_comb(d, k + 1) if k + 1 <= d else np.inf
    header_old = data.log2_d + log2_comb(d, k) if k >= 1 else 0.0
    tables = {}
    for i in range(n_cand):
        j = int(feat[i])
        if j not in lit_pos:
            vo = 1.0 if data.binary[j] else 2.0 + math.log2(k_split[j])
            value_op[i] = vo
            model[i] = header_new + base_vo.sum() + vo
            continue
        p = lit_pos[j]
        a, e = int(new_lo[i]), int(new_hi[i])
        two = a > 0 and e < data.n_bins[j]
        kp = base.k_values[p]
        if two and kp < 2:
            ok[i] = False
            continue
        vo = literal_value_op_bits(False, two, kp)
        value_op[i] = vo
        total_vo = base_vo[:p].sum() + vo
        upd = {}
        for q in range(p + 1, k):
            jq = base.literals[q][0]
            if data.binary[jq]:
                total_vo += base_vo[q]
                continue
            key = (p, q)
            if key not in tables:
                sub = base.subspace_rows(data, q)
                tables[key] = _bin_range_table(data.bins[j], data.bins[jq], sub, int(data.n_bins[j]))
            mn, mx = tables[key]
            lo_q, hi_q = int(mn[a:e].min()), int(mx[a:e].max())
            kq = hi_q - lo_q if hi_q >= 0 else 0
            two_q = base.literals[q][1] > 0 and base.literals[q][2] < data.n_bins[jq]
            if kq < (2 if two_q else 1):
                ok[i] = False
                break
            vq = literal_value_op_bits(False, two_q, kq)
            upd[q] = (kq, vq)
            total_vo += vq
        if not ok[i]:
            continue
        later_k[i] = upd
        model[i] = header_old + total_vo
    model = np.where(ok, model, np.inf)

    # ---- the score of M + S' (Eq. 3.20) and of M + (S' \ M) (Eq. 3.24)
    lr = data.log2_regret
    else_after = state.else_counts[None, :] - counts_unc
    else_n_after = state.else_n - cov_unc
    nll_else_after = nll_bits(else_after, else_after)
    nll_new = nll_bits(counts_unc, counts)
    model_after = state.model_next + model
    total_after = (state.nll_covered + delta + nll_new + nll_else_after + state.regret_rules
                   + lr[cov] + lr[else_n_after] + model_after)
    total_aux = (state.nll_covered + nll_bits(counts_unc, counts_unc) + nll_else_after
                 + state.regret_rules + lr[cov_unc] + lr[else_n_after] + model_after)
    gain = state.total - total_after
    gain_aux = state.total - total_aux
    has_new = cov_unc > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        if score == "learning_speed":
            r = np.where(has_new & ok, gain / cov_unc, -np.inf)
            R = np.where(has_new & ok, gain_aux / cov_unc, -np.inf)
        else:  # "absolute"
            r = np.where(has_new & ok, gain, -np.inf)
            R = np.where(has_new & ok, gain_aux, -np.inf)

    # ---- MDL local tests (Eq. 3.22, 3.25)
    l_split = data.log2_d + np.where(data.binary[feat], 0.0, np.log2(np.maximum(k_split[feat], 1)))
    cnt_b = base.counts[None, :]
    local = data.nml_bits(base.counts) > (
        data.nml_bits(counts) + data.nml_bits(cnt_b - counts) + l_split)
    cnt_bu = base.counts_uncovered[None, :]
    aux_local = data.nml_bits(base.counts_uncovered) > (
        data.nml_bits(counts_unc) + data.nml_bits(cnt_bu - counts_unc) + l_split)

    # ---- patience buckets (Eq. 3.23)
    W = beam_width
    bucket = np.minimum((W * cov) // max(base.coverage, 1), W - 1).astype(np.int64)
    bu = base.coverage_uncovered
    aux_bucket = (np.minimum((W * cov_unc) // bu, W - 1).astype(np.int64) if bu > 0
                  else np.full(n_cand, -1, dtype=np.int64))
    g = Growths(base, feat, new_lo, new_hi, counts, counts_unc, cov, cov_unc, model, value_op,
                later_k, total_after, r, R, local, aux_local, bucket, aux_bucket)
    g._k_new = k_split
    return g


def _select(score: np.ndarray, buckets: np.ndarray, eligible: np.ndarray, width: int,
            use_patience: bool) -> np.ndarray:
    """Indices of the best eligible candidate per bucket (or the top-``width`` overall)."""
    idx = np.flatnonzero(eligible & np.isfinite(score))
    if idx.size == 0:
        return idx
    order = idx[np.argsort(-score[idx], kind="stable")]
    if not use_patience:
        return order[:width]
    _, first = np.unique(buckets[order], return_index=True)
    chosen = order[np.sort(first)]
    return chosen


# ------------------------------------------------------------------------ Algorithm 4
@dataclass
class SearchSettings:
    beam_width: int = 10
    use_patience: bool = True
    use_local_test: bool = True
    use_auxiliary_beam: bool = True
    score: str = "learning_speed"
    k_stop: int = 5
    max_iterations: int = 1000


def learn_single_rule(state: RuleSetState, settings: SearchSettings, describe=None):
    """Grow the next rule (Algorithm 4). Returns ``(best_candidate_or_None, iterations)``.

    ``iterations`` is the search trace of this rule: per beam iteration, the main and the
    auxiliary beam (and the best candidates the local test rejected), as dicts.
    """
    data = state.data
    W = settings.beam_width
    bases = [empty_rule(data, state)]
    pool: list[Candidate] = []
    iterations = []
    prev_r = prev_R = -np.inf
    worse = 0
    for it in range(settings.max_iterations):
        main_sel: list[tuple[float, int, Candidate]] = []
        aux_sel: list[tuple[float, int, Candidate]] = []
        rejected: list[Candidate] = []
        for base in bases:
            g = score_growths(base, state, W, settings.score)
            if g is None:
                continue
            lt = g.local_test if settings.use_local_test else np.ones_like(g.local_test)
            for i in _select(g.r, g.bucket, lt, W, settings.use_patience):
                main_sel.append(g.materialize(int(i), data))
            if settings.use_local_test:
                for i in _select(g.r, g.bucket, ~g.local_test, W, settings.use_patience)[:3]:
                    rejected.append(g.materialize(int(i), data))
            if settings.use_auxiliary_beam and state.K > 0:
                alt = g.aux_local_test if settings.use_local_test else np.ones_like(g.aux_local_test)
                for i in _select(g.R, g.aux_bucket, alt & (g.aux_bucket >= 0), W, settings.use_patience):
                    aux_sel.append(g.materialize(int(i), data))
        beam = _reduce(main_sel, "r", "bucket", W, settings.use_patience)
        aux_beam = _reduce(aux_sel, "R", "aux_bucket", W, settings.use_patience)
        if not beam and not aux_beam:
            break
        best_r = max((c.r for c in beam), default=-np.inf)
        best_R = max((c.R for c in aux_beam), default=-np.inf)
        improved = best_r > prev_r or (settings.use_auxiliary_beam and state.K > 0 and best_R > prev_R)
        worse = 0 if improved else worse + 1
        prev_r, prev_R = best_r, best_R
        pool.extend(beam)
        if describe is not None:
            rejected = sorted(rejected, key=lambda c: -c.r)[:W]
            iterations.append({
                "iteration": it,
                "main_beam": [describe(c) for c in beam],
                "aux_beam": [describe(c) for c in aux_beam],
                "rejected_by_local_test": [describe(c) for c in rejected],
                "best_r": _num(best_r), "best_R": _num(best_R), "worse_in_a_row": worse,
            })
        if worse >= settings.k_stop:
            break
        bases = _dedupe(beam + aux_beam)
    if not pool:
        return None, iterations
    best = max(pool, key=lambda c: c.r)
    return best, iterations


def _reduce(selected, score_attr, bucket_attr, width, use_patience):
    cands = sorted(_dedupe(sorted(selected, key=lambda c: -getattr(c, score_attr))),
                   key=lambda c: -getattr(c, score_attr))
    if not use_patience:
        return cands[:width]
    seen, out = set(), []
    for c in cands:
        b = getattr(c, bucket_attr)
        if b not in seen:
            seen.add(b)
            out.append(c)
    return out


def _dedupe(cands):
    seen, out = set(), []
    for c in cands:
        if c.key not in seen:
            seen.add(c.key)
            out.append(c)
    return out


def _num(v):
    v = float(v)
    return v if math.isfinite(v) else None


# ------------------------------------------------------------------------ Algorithm 3
def learn_rule_set(data: SearchData, settings: SearchSettings, max_rules=None, describe=None,
                   progress=None):
    """Add rules while the MDL score decreases (Algorithm 3).

    Returns ``(rules, trace)`` where ``trace`` is a list with one dict per rule search.
    """
    state = RuleSetState(data, [])
    searches = []
    while max_rules is None or state.K < max_rules:
        best, iterations = learn_single_rule(state, settings, describe)
        accepted = best is not None and best.total_after < state.total
        entry = {"rule_index": state.K, "iterations": iterations,
                 "chosen": describe(best) if (describe and best is not None) else None,
                 "accepted": bool(accepted), "mdl_before": state.total}
        if accepted:
            state = RuleSetState(data, state.rules + [best])
            entry["mdl_after"] = state.total
            entry["coverage_after"] = state.coverage
        searches.append(entry)
        if progress is not None:
            progress(state)
        if not accepted:
            break
    return state, searches
