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
from dataclasses import dataclass

import numpy as np

from ._core.codes import log2_factorial, universal_integer_code
from ._core.kernels import (MAX_SUBSET_RULES, _best_per_bucket, _best_per_bucket_first_cover, _finish_growths,
                            _grow_candidates,
                            _group_subsets, _local_neighbours, _local_subsets, _localize_groups,
                            _rows_in_interval)
from ._core.regret import log2_regret_table
from .mdl import check_model_encoding, nll_bits, overlap_groups, rule_header_bits


# ------------------------------------------------------------------------------ data
@dataclass
class SearchData:
    """What the search needs of the training data, as plain arrays."""

    bins: np.ndarray  # (d, n) uint8
    y: np.ndarray  # (n,) int64
    n_bins: np.ndarray  # (d,) int64
    binary: np.ndarray  # (d,) bool
    n_classes: int
    model_encoding: str = "thesis"  # see turs.mdl.literal_value_op_bits

    def __post_init__(self):
        self.turs2 = check_model_encoding(self.model_encoding) == 1
        self.d, self.n = self.bins.shape
        self.log2_regret = log2_regret_table(self.n, self.n_classes)
        self.log2_d = math.log2(self.d)
        cuts_per_column = np.maximum(self.n_bins - 1, 0)
        self.n_cuts_total = int(cuts_per_column.sum())
        # the local test's bits per column in the authors' code: log2 |cuts of X| + 2 (the side
        # of the cut, one cut or two), and 1 bit for a column with a single cut point
        self.turs2_split_bits = np.where(cuts_per_column > 1,
                                         np.log2(np.maximum(cuts_per_column, 1)) + 2.0, 1.0)
        self.all_rows = np.arange(self.n, dtype=np.int64)
        self._header_cache: dict = {}  # k -> header_bits(k)
        self._split_cache: dict = {}  # (k, search) -> split_code(k, search)
        # each feature's smallest and largest bin (the data every first literal reaches)
        self.bin_min = (self.bins.min(axis=1) if self.n else np.zeros(self.d)).astype(np.int64)
        self.bin_max = (self.bins.max(axis=1) if self.n else np.zeros(self.d)).astype(np.int64)
        with np.errstate(divide="ignore"):
            self.log2_int = np.log2(np.arange(self.n + 1, dtype=float))  # log2 of counts
        # rows sorted by bin, per feature: the rows in a bin interval are one slice
        self.rows_by_bin = np.argsort(self.bins, axis=1, kind="stable").astype(np.int64)
        counts = np.zeros((self.d, int(self.n_bins.max(initial=1)) + 1), dtype=np.int64)
        for j in range(self.d):
            counts[j, 1:] = np.bincount(self.bins[j], minlength=counts.shape[1] - 1)[: counts.shape[1] - 1]
        self.bin_ptr = np.cumsum(counts, axis=1)

    def header_bits(self, k: int) -> tuple[float, float]:
        """``rule_header_bits`` for ``k`` and ``k + 1`` literals (0 for none, inf beyond ``d``),
        computed once per ``k``."""
        out = self._header_cache.get(k)
        if out is None:
            old = rule_header_bits(self.d, k, self.model_encoding) if k >= 1 else 0.0
            new = rule_header_bits(self.d, k + 1, self.model_encoding) if k + 1 <= self.d else np.inf
            out = self._header_cache[k] = (old, new)
        return out

    def split_code(self, k: int, search: str):
        """:func:`_local_test_split_code` for a base of ``k`` literals, computed once per ``k``."""
        out = self._split_cache.get((k, search))
        if out is None:
            out = self._split_cache[(k, search)] = _local_test_split_code(self, k, search)
        return out

    def rows_in_bins(self, j: int, a: int, b: int) -> np.ndarray:
        """The rows whose bin of feature ``j`` lies in ``[a, b)`` (in no particular order)."""
        return self.rows_by_bin[j, self.bin_ptr[j, a]:self.bin_ptr[j, b]]


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
        # class counts per group; the union of group g's rules holds exactly the groups that
        # share a rule with g, so its counts are a sum of group counts (float products of
        # 0/1 and integer counts: exact)
        in_group = self.group_of >= 0
        group_counts = np.bincount(self.group_of[in_group] * C + data.y[in_group],
                                   minlength=G * C).reshape(G, C).astype(float)
        m = self.group_masks.astype(np.float32)
        n_shared = m @ m.T  # rules shared by two groups (small integers: exact in float32)
        self.union_counts = (n_shared > 0).astype(float) @ group_counts
        self.union_mode = union_count_mode(G)
        self.sub_ptr, self.sub_idx, self.sub_sign, self.n_sub = union_subsets(self.group_masks, self.union_mode)
        if self.union_mode == "subsets" and self.sub_ptr is None:
            self.union_mode = "neighbours"  # a group has too many rules for its subsets
        self.nbr_ptr, self.nbr_idx, self.nbr_w = union_pairs(n_shared, self.union_mode)
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


MAX_RULES_FOR_SUBSETS = MAX_SUBSET_RULES
"""Groups covered by more rules than this use the pairwise union counts (see the kernel)."""

UNION_COUNTS = "auto"
"""How the growth kernel counts a candidate inside the union of each overlap group's rules
(``_grow_candidates``); all give the same counts (``tests/test_search.py``):

- ``"rules"``: the counts in each of g's rules, minus ``s - 1`` times the counts in each group
  sharing ``s >= 2`` rules with g;
- ``"neighbours"``: the sum of the counts in the groups sharing a rule with g;
- ``"subsets"``: inclusion-exclusion over the subsets of g's rules (when no group has more
  than ``MAX_RULES_FOR_SUBSETS`` rules, else ``"neighbours"``);
- ``"auto"`` (default): ``"rules"`` from ``RULES_MIN_GROUPS`` overlap groups, else
  ``"neighbours"``.

Work per bin: ``"neighbours"`` adds each present group to every group it shares a rule with,
``"rules"`` only to those it shares two or more with (waveform fold 0, 31 rules, 808 groups:
77 315 of 210 000 pairs), plus one pass over every group's rules. Fold-0 fits, 2-core
machine, 2026-11-22, ``"rules"`` vs ``"neighbours"``: waveform 12.3 vs 12.6 s, magic 19.8 vs
22.2, drybeans 17.9 vs 18.7 (333 to 1473 groups at the end); pendigits 5.2 vs 5.0 (137
groups at the end: the pass over the rules costs more than it saves) and chess 0.64 vs 0.60.
``"subsets"`` was slower than ``"neighbours"`` on every dataset we timed (fold 0,
2026-11-22, 2 other jobs running): car 0.141 vs 0.136 s, chess 0.282 vs 0.265, pendigits
5.93 vs 5.06, drybeans 11.4 vs 10.6, magic 34.1 vs 19.5."""

RULES_MIN_GROUPS = 256
"""Overlap groups from which ``UNION_COUNTS = "auto"`` counts by single rules (see above)."""


def union_count_mode(n_groups: int) -> str:
    """The union-count path for a rule set with ``n_groups`` overlap groups."""
    if UNION_COUNTS == "auto":
        return "rules" if n_groups >= RULES_MIN_GROUPS else "neighbours"
    return UNION_COUNTS


def union_subsets(masks: np.ndarray, mode: str):
    """The rule-subset lists of each overlap group for a union-count ``mode`` (``(ptr, idx,
    sign, n_subsets)``, or Nones when the mode uses none): its single rules (``"rules"``), or
    every non-empty subset with the inclusion-exclusion sign (``"subsets"``,
    :func:`group_subsets`)."""
    if mode == "rules":
        ptr = np.concatenate([[0], np.cumsum(masks.sum(axis=1))]).astype(np.int64)
        idx = np.nonzero(masks)[1].astype(np.int64)
        return ptr, idx, np.ones(len(idx)), masks.shape[1]
    if mode == "subsets":
        return group_subsets(masks)
    return None, None, None, 0


def union_pairs(n_shared: np.ndarray, mode: str):
    """The weighted pair lists of each overlap group for a union-count ``mode`` (CSR ``ptr,
    idx, w``): the groups sharing ``s >= 2`` rules with weight ``-(s - 1)`` (``"rules"``), none
    (``"subsets"``), or every group sharing a rule, weight 1 (``"neighbours"``)."""
    if mode == "rules":
        pairs, weight = n_shared >= 2, 1.0 - n_shared
    elif mode == "subsets":
        pairs, weight = np.zeros(n_shared.shape, dtype=bool), n_shared
    else:
        pairs, weight = n_shared > 0, np.ones_like(n_shared)
    ptr = np.concatenate([[0], np.cumsum(pairs.sum(axis=1))]).astype(np.int64)
    rows, cols = np.nonzero(pairs)
    return ptr, cols.astype(np.int64), weight[rows, cols].astype(float)


def group_subsets(masks: np.ndarray):
    """CSR lists of the non-empty subsets of each overlap group's rules, with signs.

    ``counts(S' outside the union of g's rules)`` follows by inclusion-exclusion from the
    counts of ``S'`` in every intersection ``T`` of g's rules, and those are sums over the
    groups that contain ``T``. Returns ``(ptr, idx, sign, n_subsets)`` (``_group_subsets``),
    or Nones when a group has more than ``MAX_RULES_FOR_SUBSETS`` rules.
    """
    G = len(masks)
    if G == 0:
        return np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0
    if masks.sum(axis=1).max() > MAX_RULES_FOR_SUBSETS:
        return None, None, None, 0
    return _group_subsets(np.ascontiguousarray(masks, dtype=np.bool_))


def local_neighbours(state: "RuleSetState", present: np.ndarray):
    """The weighted pair lists of the groups ``present`` in a base rule, restricted to those
    groups and renumbered locally (CSR ``ptr, idx, w``)."""
    if len(present) == 0:
        return np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return _local_neighbours(state.nbr_ptr, state.nbr_idx, state.nbr_w, present, len(state.group_masks))


def local_subsets(state: "RuleSetState", present: np.ndarray):
    """The subset lists of the groups ``present``, renumbered locally."""
    if state.sub_ptr is None or len(present) == 0:
        return np.zeros(len(present) + 1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0
    return _local_subsets(state.sub_ptr, state.sub_idx, state.sub_sign, present, state.n_sub)


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
    later_k: np.ndarray | None  # (cand, k): new K_value of each literal after a refinement, -1 unchanged
    later_vo: np.ndarray | None  # (cand, k): its new L_value_op
    total_after: np.ndarray
    r: np.ndarray
    R: np.ndarray
    local_test: np.ndarray
    aux_local_test: np.ndarray
    bucket: np.ndarray
    aux_bucket: np.ndarray
    splits_uncovered: np.ndarray | None = None  # search="turs2" only (_turs2_bucket_edges)

    def key(self, i: int) -> tuple:
        """The candidate's set of literals (the same rule reached from two bases is one rule)."""
        j = int(self.feat[i])
        lits = {lit[0]: lit for lit in self.base.literals}
        lits[j] = (j, int(self.lo[i]), int(self.hi[i]))
        return tuple(sorted(lits.values()))

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
            if self.later_k is not None:
                for q in np.flatnonzero(self.later_k[i] >= 0):
                    kvs[q], vops[q] = int(self.later_k[i, q]), float(self.later_vo[i, q])
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


def score_growths(base: Candidate, state: RuleSetState, beam_width: int, score: str,
                  search: str = "thesis") -> Growths | None:
    """Enumerate and score every one-literal growth of ``base`` (Algorithm 4, lines 7-15)."""
    data = state.data
    d = data.d
    present, gl = _localize_groups(state.group_of, base.rows, len(state.group_masks))
    union = state.union_counts[present]
    sub_ptr, sub_idx, sub_sign, n_sub = local_subsets(state, present)
    nbr_ptr, nbr_idx, nbr_w = local_neighbours(state, present)
    lo, hi = base.intervals(data)
    valid, new_lo, new_hi, counts, counts_unc, delta, k_split = _grow_candidates(
        data.bins, data.y, base.rows, lo, hi, data.n_bins, data.n_classes, gl, nbr_ptr, nbr_idx, nbr_w,
        union, sub_ptr, sub_idx, sub_sign, n_sub, data.log2_int, data.n_cuts_total)
    # ---- L(S') (Eq. 3.13-3.17), L(D, M + S') (Eq. 3.20), r (Eq. 3.21), R (Eq. 3.24), local
    # tests (Eq. 3.22, 3.25) and patience buckets (Eq. 3.23), all in one kernel
    k = len(base.literals)
    header_old, header_new = data.header_bits(k)
    base_vo = np.asarray(base.value_ops, dtype=float)
    lits = np.array(base.literals, dtype=np.int64).reshape(k, 3)
    scan_rows = data.rows_in_bins(*base.literals[0]) if k >= 2 else data.all_rows[:0]
    turs2 = search == "turs2"  # the authors' buckets, smallest split and refined-literal scores
    (feat, new_lo, new_hi, counts, counts_unc, cov, cov_unc, model, value_op, has_ref, later_k, later_vo,
     total_after, r, R, local, aux_local, bucket, aux_bucket, splits) = _finish_growths(
        valid, new_lo, new_hi, counts, counts_unc, delta, k_split, data.bins, data.n_bins, data.binary,
        lits, base_vo, float(base_vo.sum()), np.asarray(base.k_values, dtype=np.int64), header_new,
        header_old, data.turs2, scan_rows, data.log2_d, base.counts.astype(np.int64, copy=False),
        base.counts_uncovered.astype(np.int64, copy=False), state.else_counts.astype(np.int64, copy=False),
        data.log2_regret,
        state.nll_covered, state.regret_rules, state.model_next, state.total, score == "absolute",
        beam_width, *data.split_code(k, search), data.log2_int, turs2,
        data.rows_in_bins(*base.literals[1]) if k >= 3 else data.all_rows[:0], data.bin_min, data.bin_max,
        _turs2_bucket_edges(beam_width) if turs2 else _NO_EDGES, TURS2_MIN_SPLIT)
    if feat.size == 0:
        return None
    if not has_ref:
        later_k = later_vo = None
    g = Growths(base, feat, new_lo, new_hi, counts, counts_unc, cov, cov_unc, model, value_op,
                later_k, later_vo, total_after, r, R, local, aux_local, bucket, aux_bucket,
                splits if turs2 else None)
    g._k_new = k_split
    return g


def _local_test_split_code(data: SearchData, k: int, search: str):
    """``L_split`` of the local test, as the kernel takes it: per-column bits and a constant.

    ``"thesis"`` (empty array): ``log2 K_col + log2 K_value(S, X)`` (Eq. 3.22). ``"turs2"``: what
    the authors' implementation charges, ``log2 K_col + log2 |cuts of X| + 2`` (one bit for the
    side of the cut, one for one cut or two; ``|cuts of X|`` is the column's whole candidate set,
    not the ones that split ``S``; a column with a single cut point pays 1 bit in all) plus
    ``L_univ(k + 1) - L_univ(k)`` for the longer rule.
    """
    if search == "turs2":
        return data.turs2_split_bits, universal_integer_code(k + 1) - universal_integer_code(k)
    return np.zeros(0), 0.0


TURS2_MIN_SPLIT = 2
"""The fewest uncovered instances (``S \\ M``) each side of a cut must keep for the authors'
search to consider it: ``min_sample_each_rule = 2`` in the configuration of their runs
(``run_all.py``); with 1 their code does not reproduce those runs' scores on glass."""

_BUCKET_EDGES: dict = {}  # width -> the reference's bucket edges, linspace(0, 1, W + 1)[1:]
_NO_EDGES = np.zeros(0)


def _turs2_bucket_edges(width: int) -> np.ndarray:
    """The authors' patience-bucket edges ``linspace(0, 1, W + 1)[1:]``: a growth with coverage
    ratio ``x`` falls in bucket ``searchsorted(edges, x)``, i.e. ``(w/W, (w+1)/W]`` (the thesis:
    ``[w/W, (w+1)/W)``). The kernel also marks which growths leave at least
    ``TURS2_MIN_SPLIT`` instances of the base's uncovered part ``S \\ M`` on each side of their
    cut (that code skips a cut otherwise, for both beams)."""
    edges = _BUCKET_EDGES.get(width)
    if edges is None:
        edges = _BUCKET_EDGES.setdefault(width, np.linspace(0, 1, width + 1)[1:])
    return edges


def _select(score: np.ndarray, buckets: np.ndarray, eligible: np.ndarray, width: int,
            use_patience: bool) -> np.ndarray:
    """Indices of the best eligible candidate per bucket (or the top-``width`` overall)."""
    if use_patience:
        return _best_per_bucket(score, buckets, eligible, width)
    idx = np.flatnonzero(eligible & np.isfinite(score))
    return idx[np.argsort(-score[idx], kind="stable")][:width]


def _select_turs2(g: "Growths", score: np.ndarray, buckets: np.ndarray, eligible: np.ndarray, width: int,
                  use_patience: bool, data: SearchData) -> np.ndarray:
    """:func:`_select` as the authors' beam fills its patience buckets: a growth that covers the
    same rows as its bucket's current occupant never replaces it, whatever its score (their
    ``DiverseCovBeam`` compares the covers before the scores; the main and the auxiliary beam
    alike, on ``S'``). WDBC folds 1-4 and vowels fold 3 of the reference check need this."""
    if not use_patience:
        return _select(score, buckets, eligible, width, use_patience)
    return _best_per_bucket_first_cover(score, buckets, eligible, width, g.cov, g.feat, g.lo, g.hi, data.bins,
                                        g.base.rows)


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
    local_test_fallback: bool = False
    search: str = "thesis"  # or "turs2": the authors' implementation's beam bookkeeping


SEARCHES = ("thesis", "turs2")


def _main_beam_eligible(g: Growths, base: Candidate, state: RuleSetState, settings: SearchSettings,
                        mask: np.ndarray | None = None) -> np.ndarray:
    """Which growths of ``base`` the main beam may take: those that pass the local test (all of
    them without it), within ``mask``. With ``local_test_fallback``, when none is left, those
    whose MDL score beats the base's (the empty rule: that improve on M), as the authors' code
    does."""
    ok = g.local_test if settings.use_local_test else np.ones_like(g.local_test)
    if mask is not None:
        ok = ok & mask
    if settings.use_local_test and settings.local_test_fallback and not ok.any():
        bar = base.total_after if np.isfinite(base.total_after) else state.total
        ok = g.total_after < bar
        if mask is not None:
            ok = ok & mask
    return ok


def learn_single_rule(state: RuleSetState, settings: SearchSettings, describe=None):
    """Grow the next rule (Algorithm 4). Returns ``(best_candidate_or_None, iterations)``.

    ``iterations`` is the search trace of this rule: per beam iteration, the main and the
    auxiliary beam (and the best candidates the local test rejected), as dicts.
    """
    if settings.search == "turs2":
        return _learn_single_rule_turs2(state, settings, describe)
    data = state.data
    W = settings.beam_width
    bases = [empty_rule(data, state)]
    pool: list[Candidate] = []
    iterations = []
    prev_r = prev_R = -np.inf
    worse = 0
    for it in range(settings.max_iterations):
        main_sel: list[tuple] = []  # (score, coverage, key, growths, index): materialized after reduction
        aux_sel: list[tuple] = []
        rejected: list[tuple] = []
        for base in bases:
            g = score_growths(base, state, W, settings.score)
            if g is None:
                continue
            lt = _main_beam_eligible(g, base, state, settings)
            for i in _select(g.r, g.bucket, lt, W, settings.use_patience):
                main_sel.append((g.r[i], g.cov[i], g.key(i), g, i))
            if describe is not None and settings.use_local_test:
                for i in _select(g.r, g.bucket, ~g.local_test, W, settings.use_patience)[:3]:
                    rejected.append((g.r[i], g.cov[i], g.key(i), g, i))
            if settings.use_auxiliary_beam and state.K > 0:
                alt = g.aux_local_test if settings.use_local_test else np.ones_like(g.aux_local_test)
                for i in _select(g.R, g.aux_bucket, alt & (g.aux_bucket >= 0), W, settings.use_patience):
                    aux_sel.append((g.R[i], g.cov_unc[i], g.key(i), g, i))
        beam = [g.materialize(i, data) for *_, g, i in _reduce(main_sel, W, settings.use_patience)]
        aux_beam = [g.materialize(i, data) for *_, g, i in _reduce(aux_sel, W, settings.use_patience)]
        if not beam and not aux_beam:
            break
        best_r = max((c.r for c in beam), default=-np.inf)
        best_R = max((c.R for c in aux_beam), default=-np.inf)
        improved = best_r > prev_r or (settings.use_auxiliary_beam and state.K > 0 and best_R > prev_R)
        worse = 0 if improved else worse + 1
        prev_r, prev_R = best_r, best_R
        pool.extend(beam)
        if describe is not None:
            rejected = [g.materialize(i, data) for *_, g, i in _reduce(rejected, W, False)]
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


def _learn_single_rule_turs2(state: RuleSetState, settings: SearchSettings, describe=None):
    """Algorithm 4 with the beam bookkeeping of the authors' implementation (``search="turs2"``).

    The differences from :func:`learn_single_rule`, each read from that code (see
    ``docs/spec-notes.md``): the local test's ``L_split`` (:func:`_local_test_split_code`); the
    bucket boundaries and the rule that a growth must split ``S \\ M`` with at least
    ``TURS2_MIN_SPLIT`` instances each side (:func:`_turs2_bucket_edges`); the scores ``r`` and ``R`` of
    a growth that refines a literal, with the model code that code charges while searching
    (``_placeholder_model_bits`` in ``turs._core.kernels``);
    the auxiliary beam is filled while ``M`` is empty too; the proposals of all bases are
    reduced in their order of generation, duplicates included (:func:`_reduce_turs2`); the next
    bases and the final candidates are both beams, auxiliary first, without repeated covers,
    and the rule returned is the best ``r`` among them (first on ties); an iteration is
    "worse" when both beams' best scores drop (or both are negative), and the search stops
    after more than ``k_stop`` such iterations in a row, before the last beams join the
    candidates.
    """
    data = state.data
    W = settings.beam_width
    bases = [empty_rule(data, state)]
    pool: list[Candidate] = []
    iterations = []
    prev_r = prev_R = -np.inf
    worse = 0
    for it in range(settings.max_iterations):
        main_sel: list[tuple] = []
        aux_sel: list[tuple] = []
        for base in bases:
            g = score_growths(base, state, W, settings.score, "turs2")
            if g is None:
                continue
            lt = _main_beam_eligible(g, base, state, settings, g.splits_uncovered)
            chosen = _select_turs2(g, g.r, g.bucket, lt, W, settings.use_patience, data)
            chosen = chosen[np.argsort(g.bucket[chosen], kind="stable")]  # in bucket order, as generated
            main_sel.extend((g.r[i], g.cov[i], None, g, i) for i in chosen.tolist())
            if settings.use_auxiliary_beam:
                alt = g.aux_local_test if settings.use_local_test else np.ones_like(g.aux_local_test)
                chosen = _select_turs2(g, g.R, g.aux_bucket, alt & g.splits_uncovered, W, settings.use_patience, data)
                chosen = chosen[np.argsort(g.aux_bucket[chosen], kind="stable")]
                aux_sel.extend((g.R[i], g.cov_unc[i], None, g, i) for i in chosen.tolist())
        made: dict = {}  # (growths, index) -> Candidate: a growth in both beams is built once
        beam = _reduce_turs2(main_sel, W, data, made)
        aux_beam = _reduce_turs2(aux_sel, W, data, made)
        if not beam and not aux_beam:
            break
        best_r = max((c.r for c in beam), default=-np.inf)
        best_R = max((c.R for c in aux_beam), default=-np.inf)
        drop_main = bool(beam) and best_r < prev_r
        drop_aux = bool(aux_beam) and best_R < prev_R
        negative = bool(beam) and bool(aux_beam) and best_r < 0 and best_R < 0
        worse = worse + 1 if ((drop_main and drop_aux) or negative) else 0
        if beam:
            prev_r = best_r
        if aux_beam:
            prev_R = best_R
        if describe is not None:
            iterations.append({
                "iteration": it,
                "main_beam": [describe(c) for c in beam],
                "aux_beam": [describe(c) for c in aux_beam],
                "rejected_by_local_test": [],
                "best_r": _num(best_r), "best_R": _num(best_R), "worse_in_a_row": worse,
            })
        if worse > settings.k_stop:
            break
        seen, bases = set(), []
        for c in aux_beam + beam:
            cover = c.rows.tobytes()
            if cover not in seen:
                seen.add(cover)
                bases.append(c)
        pool.extend(bases)
    if not pool:
        return None, iterations
    return pool[int(np.argmax([c.r for c in pool]))], iterations


def _reduce_turs2(selected, width, data, made=None):
    """The beam from the proposals ``(score, coverage, _, growths, index)`` of all bases, in
    their order of generation, as the authors' implementation reduces them: sorted by coverage
    (numpy's default sort, so ties keep that implementation's order), split into ``width``
    clusters, the best of each kept (first on ties). A winner is then dropped only if the
    first earlier winner with the same coverage has the same cover as a mask over its base
    (that code compares those masks, so a rule reached from two bases usually stays twice).
    ``made``: candidates already built this iteration, shared by the two beams' reductions."""
    if not selected:
        return []
    made = {} if made is None else made
    order = np.argsort(np.array([t[1] for t in selected]))
    scores = np.array([t[0] for t in selected], dtype=float)
    beam, first_of = [], {}  # first_of: coverage -> (the first winner, its base's rows)
    size, larger = divmod(len(order), width)  # np.array_split(order, width), without its overhead
    end = 0
    for w in range(min(width, len(order))):
        start, end = end, end + size + (w < larger)
        cluster = order[start:end]
        _, _, _, g, i = selected[cluster[int(np.argmax(scores[cluster]))]]
        c = made.get((id(g), i))
        if c is None:
            c = made[id(g), i] = g.materialize(i, data)
        same = first_of.get(c.coverage)
        if same is not None and _same_mask(same[0].rows, same[1], c.rows, g.base.rows):
            continue
        first_of.setdefault(c.coverage, (c, g.base.rows))
        beam.append(c)
    return beam


def _same_mask(rows_a, base_a, rows_b, base_b) -> bool:
    """Whether two covers are the same mask over their bases (sorted row indices, each cover
    a subset of its base): bases of one size and covers at the same positions in them."""
    return len(base_a) == len(base_b) and np.array_equal(np.searchsorted(base_a, rows_a),
                                                         np.searchsorted(base_b, rows_b))


def _reduce(selected, width, use_patience):
    """The beam from the proposals ``(score, coverage, key, ...)`` of all bases (Algorithm 4,
    lines 21-22).

    Duplicates (the same set of literals reached from two bases) keep their best proposal.
    With patience, the proposals are sorted by coverage (``|S'|`` for the main beam,
    ``|S' \\ M|`` for the auxiliary one) and split into ``width`` clusters of equal size, and
    the best of each cluster is kept: "we sort all rules in the beam based on their coverage
    and categorize them into W clusters" (Section 3.5.2). Without patience: the top ``width``.
    Returned best first.
    """
    seen, unique = set(), []
    for item in sorted(selected, key=lambda t: -t[0]):
        if item[2] not in seen:
            seen.add(item[2])
            unique.append(item)
    if not use_patience or len(unique) <= width:
        return unique[:width]
    by_coverage = np.argsort(np.array([item[1] for item in unique]), kind="stable")
    best = [max((unique[j] for j in cluster), key=lambda t: t[0])
            for cluster in np.array_split(by_coverage, width)]
    return sorted(best, key=lambda t: -t[0])


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
    """Add rules while the MDL score decreases (Algorithm 3). With ``search="turs2"``: while the
    chosen rule's ``r`` is positive, as the authors' code decides; ``r`` of a refined literal
    uses the model code that code charges while searching (``_placeholder_model_bits``), so
    the exact score can rise a little with a rule it accepts.

    Returns ``(rules, trace)`` where ``trace`` is a list with one dict per rule search.
    """
    state = RuleSetState(data, [])
    searches = []
    while max_rules is None or state.K < max_rules:
        best, iterations = learn_single_rule(state, settings, describe)
        if settings.search == "turs2":  # the authors' code: a positive score (r, Eq. 3.21)
            accepted = best is not None and best.r > 0
        else:
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
