"""The scores of a base rule's growths (thesis Eq. 3.13-3.25; Algorithm 4, lines 8-14): each
growth's model code length ``L(S')`` (Eq. 3.13-3.17; a refined literal through
``turs._core.refinement``), the code length of the data and model with it added and its
learning speeds ``r`` and ``R`` (Eq. 3.20-3.21), its local tests (Eq. 3.22, 3.25) and its
patience bucket (Eq. 3.23), computed incrementally from the growth kernel's counts
(``_score_candidates``, ``_finish_growths``). ``_placeholder_model_bits`` and the
``_later_*`` helpers give the model code length the authors' search charges a growth that
refines a literal (``docs/spec-notes.md``).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import NUMBA_CACHE
from .local_test import _nll_int
from .refinement import _refinement_from_tables, _refinement_tables, _value_op_bits


class DataTables(NamedTuple):
    """The training data and the code tables of a fit, as the scoring kernels read them (made
    once per fit from ``turs.search.state.SearchData``)."""

    bins: np.ndarray  # (d, n) uint8 bin codes, ``bin = #{cuts <= x}``
    y: np.ndarray  # (n,) int64 class codes
    n_classes: int
    n_bins: np.ndarray  # (d,) int64 bins per feature
    n_slots: int  # the growth kernel's candidate slots (``turs._core.growth.n_slots``)
    binary: np.ndarray  # (d,) bool: a feature of two bins (one cut)
    turs2: bool  # the authors' model encoding of a literal's form (``_value_op_bits``)
    log2_d: float  # ``log2`` of the number of features: ``L_split``'s choice of feature
    log2_regret: np.ndarray  # (n + 1,) ``log2`` of the NML regret of 0..n rows (read-only)
    log2_int: np.ndarray  # (n + 1,) ``log2`` of 0..n
    bin_min: np.ndarray  # (d,) int64 each feature's smallest bin over all rows
    bin_max: np.ndarray  # (d,) int64 and largest


class BaseRule(NamedTuple):
    """The base rule a beam grows, as the scoring kernels read it (made once per base)."""

    rows: np.ndarray  # (m,) int64 its cover
    lits: np.ndarray  # (k, 3) int64 its literals: feature, lowest bin, bin past the highest
    value_ops: np.ndarray  # (k,) its literals' ``L_value_op`` (Eq. 3.15-3.16)
    value_ops_sum: float
    k_values: np.ndarray  # (k,) int64 its literals' ``K_value``
    header_new: float  # the rule header's bits for k + 1 literals
    header_old: float  # and for k
    counts: np.ndarray  # (C,) int64 its class counts on S
    counts_unc: np.ndarray  # (C,) int64 and on S \ M
    split_extra: float  # ``L_split``'s constant (the authors' search; 0 for the thesis')
    scan_rows: np.ndarray  # rows satisfying literal 0, or a superset (``_refinement_tables``)
    scan_rows1: np.ndarray  # rows satisfying literal 1, or a superset (``_later_k_without``)
    ref_tmin: np.ndarray  # the refinement tables (``turs._core.refinement``), or (0, 0) to
    ref_tmax: np.ndarray  # build them from ``scan_rows``
    later_k_known: np.ndarray  # (k, k) rows of ``_later_k_without`` the caller has
    later_known: np.ndarray  # (k,) bool: which (both empty: none)


class RuleSetCounts(NamedTuple):
    """The rule set ``M`` a growth would join, as ``_score_candidates`` reads it (made once per
    rule set)."""

    else_counts: np.ndarray  # (C,) int64 class counts of the rows no rule covers
    nll_covered: float  # the data code length of the rows ``M`` covers (Eq. 3.6)
    regret_rules: float  # the regrets of ``M``'s rules
    model_next: float  # ``L(M)`` with one more rule, before that rule's own code
    total_m: float  # ``L(D, M)``


class ScoringSettings(NamedTuple):
    """The search settings the scoring kernels read, made once per fit from
    ``turs.search.settings.SearchSettings`` (``turs.search.growths.scoring_settings``)."""

    beam_width: int  # W: the patience buckets (Eq. 3.23)
    absolute: bool  # score ``"absolute"``: r and R not divided by the coverage
    split_cut_bits: np.ndarray  # (d,) ``L_split``'s per-feature bits (the authors' search), or empty
    placeholder_scores: bool  # r and R of a refined literal as the authors' search charges it
    bucket_edges: np.ndarray  # the authors' bucket edges, or empty for the thesis' buckets
    min_split: int  # the authors' smallest uncovered part on each side of a cut


class GrowthScores(NamedTuple):
    """The valid growths of one base rule and their scores, as ``_finish_growths`` returns them:
    one entry per growth (``m`` of them) unless said."""

    feat: np.ndarray  # (m,) int64 the feature of the literal added or refined
    lo: np.ndarray  # (m,) int64 its lowest bin
    hi: np.ndarray  # (m,) int64 the bin past its highest
    counts: np.ndarray  # (m, C) int64 class counts on S'
    counts_unc: np.ndarray  # (m, C) int64 and on S' \ M
    cov: np.ndarray  # (m,) int64 |S'|
    cov_unc: np.ndarray  # (m,) int64 |S' \ M|
    model: np.ndarray  # (m,) L(S') (Eq. 3.13-3.17)
    value_op: np.ndarray  # (m,) the new or refined literal's L_value_op
    has_refinement: bool  # some growth refines a literal of the base
    later_k: np.ndarray  # (m, k) int64 the refined rule's new K_values (-1: unchanged)
    later_vo: np.ndarray  # (m, k) and L_value_ops
    total_after: np.ndarray  # (m,) L(D, M + S') (Eq. 3.20)
    r: np.ndarray  # (m,) the learning speed score (Eq. 3.21)
    R: np.ndarray  # (m,) the complementary score (Eq. 3.24)
    local: np.ndarray  # (m,) bool passes the local test (Eq. 3.22)
    aux_local: np.ndarray  # (m,) bool passes the local test on S \ M (Eq. 3.25)
    bucket: np.ndarray  # (m,) int64 the patience bucket (Eq. 3.23)
    aux_bucket: np.ndarray  # (m,) int64 the auxiliary beam's bucket (-1: no uncovered part)
    splits_uncovered: np.ndarray  # (m,) bool the authors' smallest split on S \ M holds
    split_bits: np.ndarray  # (m,) Eq. 3.22 with the split, in bits
    split_bits_unc: np.ndarray  # (m,) Eq. 3.25 with the split
    nml_base: float  # Eq. 3.22 without the split: the base's -log2 P_NML(y^S)
    nml_base_unc: float  # Eq. 3.25 without the split: on S \ M


@njit(cache=NUMBA_CACHE, nogil=True)
def _score_candidates(counts, counts_unc, delta, model, model_score, l_split, base_counts, base_counts_unc, rule_set,
                      log2_regret, log2_int, absolute):
    r"""Eq. 3.20-3.25 for every candidate: ``L(D, M + S')``, ``r``, ``R`` and the local tests.

    ``L(D, M + S')``: the instances M covers keep their groups except those the candidate
    joins (``delta``), the candidate codes the instances it adds with its own distribution,
    the else-rule shrinks; regrets and ``L(M)`` follow. ``R`` uses ``M + (S' \\ M)``.
    Local tests: Eq. 3.22 on the candidate's base, Eq. 3.25 on its uncovered part; a growth
    passes when the code length without the split (a scalar per base: ``nml_base``,
    ``nml_base_unc``) is strictly larger than the one with it (per growth: ``split_bits``,
    ``split_bits_unc``, ``L_split`` included), and both sides are returned for the trace.
    ``log2_int``: ``log2`` of the counts 0..n (all the counts here are integers).
    ``model_score``: the model code length ``r`` and ``R`` use (``model`` itself, or what the
    authors' search charges a refined literal, see ``_placeholder_model_bits``);
    ``L(D, M + S')`` always uses ``model``. ``rule_set``: :class:`RuleSetCounts`.
    """
    else_counts, nll_covered, regret_rules, model_next, total_m = (
        rule_set.else_counts, rule_set.nll_covered, rule_set.regret_rules, rule_set.model_next, rule_set.total_m)
    m, C = counts.shape
    total_after = np.empty(m)
    r = np.full(m, -np.inf)
    R = np.full(m, -np.inf)
    local = np.zeros(m, dtype=np.bool_)
    aux_local = np.zeros(m, dtype=np.bool_)
    split_bits = np.empty(m)
    split_bits_unc = np.empty(m)
    else_after = np.empty(C, dtype=np.int64)
    rest = np.empty(C, dtype=np.int64)
    nb = 0
    nbu = 0
    for c in range(C):
        nb += base_counts[c]
        nbu += base_counts_unc[c]
    nml_base = _nll_int(base_counts, base_counts, log2_int) + log2_regret[nb]
    nml_base_unc = _nll_int(base_counts_unc, base_counts_unc, log2_int) + log2_regret[nbu]
    for i in range(m):
        cov = 0
        cov_unc = 0
        for c in range(C):
            cov += counts[i, c]
            cov_unc += counts_unc[i, c]
            else_after[c] = else_counts[c] - counts_unc[i, c]
        else_n = 0
        for c in range(C):
            else_n += else_after[c]
        nll_else = _nll_int(else_after, else_after, log2_int)
        common = nll_covered + nll_else + regret_rules + log2_regret[else_n] + model_next
        data_i = delta[i] + _nll_int(counts_unc[i], counts[i], log2_int) + log2_regret[cov]
        total_after[i] = common + model[i] + data_i
        t = common + model_score[i] + data_i
        if cov_unc > 0 and model[i] < np.inf:
            t_aux = (common + model_score[i] + _nll_int(counts_unc[i], counts_unc[i], log2_int)
                     + log2_regret[cov_unc])
            if absolute:
                r[i] = total_m - t
                R[i] = total_m - t_aux
            else:
                r[i] = (total_m - t) / cov_unc
                R[i] = (total_m - t_aux) / cov_unc
        for c in range(C):
            rest[c] = base_counts[c] - counts[i, c]
        nml_split = (_nll_int(counts[i], counts[i], log2_int) + log2_regret[cov]
                     + _nll_int(rest, rest, log2_int) + log2_regret[nb - cov] + l_split[i])
        local[i] = nml_base > nml_split
        split_bits[i] = nml_split
        for c in range(C):
            rest[c] = base_counts_unc[c] - counts_unc[i, c]
        nml_split_unc = (_nll_int(counts_unc[i], counts_unc[i], log2_int) + log2_regret[cov_unc]
                         + _nll_int(rest, rest, log2_int) + log2_regret[nbu - cov_unc] + l_split[i])
        aux_local[i] = nml_base_unc > nml_split_unc
        split_bits_unc[i] = nml_split_unc
    return total_after, r, R, local, aux_local, split_bits, split_bits_unc, nml_base, nml_base_unc


@njit(cache=NUMBA_CACHE, nogil=True)
def _lenient_value_op_bits(binary, two_sided, k_value, turs2):
    """``L_value_op`` as the authors' code charges it while searching: 0 bits where the literal
    does not split the data it reaches (``_value_op_bits`` is undefined there)."""
    vo = _value_op_bits(binary, two_sided, k_value, turs2)
    return vo if vo >= 0.0 else 0.0


@njit(cache=NUMBA_CACHE, nogil=True)
def _later_k_without(bins, lits, p, scan_rows, scan_rows1, bin_min, bin_max):
    """The ``K_value`` of each literal after literal ``p`` counted as if literal ``p`` did not
    restrict the data: its feature's largest minus smallest bin on the rows satisfying the other
    earlier literals; -1 where no row does ((k,) int64, entries ``<= p`` unused).

    ``scan_rows``: a superset of the rows satisfying literal 0 (scanned when ``p > 0``);
    ``scan_rows1``: of those satisfying literal 1 (scanned when ``p == 0``, for the literals
    from 2 on); ``bin_min`` / ``bin_max``: each feature's smallest and largest bin over all
    rows (literal 1 reaches every row when ``p == 0``)."""
    k = lits.shape[0]
    big = 1 << 30
    bmin = np.full(k, big, dtype=np.int64)
    bmax = np.full(k, -1, dtype=np.int64)
    rows = scan_rows if p > 0 else scan_rows1
    for i_row in range(rows.shape[0]):
        r = rows[i_row]
        for q in range(k):
            if q > p:
                b = bins[lits[q, 0], r]
                if b < bmin[q]:
                    bmin[q] = b
                if b > bmax[q]:
                    bmax[q] = b
            if q == k - 1:
                break
            if q != p:
                b = bins[lits[q, 0], r]
                if b < lits[q, 1] or b >= lits[q, 2]:
                    break
    if p == 0 and k > 1:
        bmin[1] = bin_min[lits[1, 0]]
        bmax[1] = bin_max[lits[1, 0]]
    out = np.full(k, -1, dtype=np.int64)
    for q in range(p + 1, k):
        if bmax[q] >= 0:
            out[q] = bmax[q] - bmin[q]
    return out


@njit(cache=NUMBA_CACHE, nogil=True)
def _later_bits_from_k(lits, p, n_bins, binary, turs2, later_k):
    """The code of the literals after literal ``p`` with the ``K_value`` ``later_k``
    (:func:`_later_k_without`); a literal that reaches no row (-1) costs 1e8 bits, as in the
    authors' code."""
    k = lits.shape[0]
    total = 0.0
    for q in range(p + 1, k):
        if later_k[q] < 0:
            total += 1e8
            continue
        fq = lits[q, 0]
        two = lits[q, 1] > 0 and lits[q, 2] < n_bins[fq]
        total += _lenient_value_op_bits(binary[fq], two, later_k[q], turs2)
    return total


@njit(cache=NUMBA_CACHE, nogil=True)
def _later_bits_without(bins, lits, p, n_bins, binary, turs2, scan_rows, scan_rows1, bin_min, bin_max):
    """The code of the literals after literal ``p`` with their ``K_value`` counted as if literal
    ``p`` did not restrict the data (:func:`_later_k_without`, :func:`_later_bits_from_k`)."""
    return _later_bits_from_k(lits, p, n_bins, binary, turs2,
                              _later_k_without(bins, lits, p, scan_rows, scan_rows1, bin_min, bin_max))


@njit(cache=NUMBA_CACHE, nogil=True)
def _placeholder_model_bits(model, feat, lo, lit_of, base, data):
    """The model code length the authors' search charges a growth that refines literal ``p`` of
    its base (``ModelEncoding.cl_model_after_growing_rule_on_icol`` with ``rule_cl_model_dep``;
    ``model`` is returned for the other growths).

    That code marks the grown bound by writing a placeholder (+inf) into the *upper* bound of
    the base's condition matrix when the grown side is empty, and leaves the matrix unchanged
    otherwise; the literal's form and the data the later literals reach are then read from that
    matrix. Hence, with ``K_p`` the base's ``K_value`` of literal ``p``:

    - the same side again (a tighter bound): the base's code, later ``K_value`` unchanged;
    - an upper bound joining a lower one: two cuts among ``K_p``, later ``K_value`` unchanged;
    - a lower bound joining an upper one: still one cut among ``K_p``, and the later literals'
      ``K_value`` counted as if literal ``p`` restricted nothing.

    The rule the growth makes is coded exactly (``model``) once it is built; only its score
    during the search differs. A growth whose exact code is undefined (+inf) stays excluded.

    ``later_k_known`` (k, k), ``later_known`` (k,) bool: row p of :func:`_later_k_without` where
    ``later_known[p]`` (the caller has it, see ``turs.search.prefix_tables``); else (or both
    empty) it is scanned here. ``base``: :class:`BaseRule`, ``data``: :class:`DataTables`.
    """
    lits, base_vo, base_vo_sum, base_k_values, header_old = (base.lits, base.value_ops, base.value_ops_sum,
                                                             base.k_values, base.header_old)
    scan_rows, scan_rows1, later_k_known, later_known = (base.scan_rows, base.scan_rows1, base.later_k_known,
                                                         base.later_known)
    bins, n_bins, binary, turs2, bin_min, bin_max = (data.bins, data.n_bins, data.binary, data.turs2, data.bin_min,
                                                     data.bin_max)
    m = feat.shape[0]
    k = lits.shape[0]
    out = model.copy()
    later = np.full(k, np.nan)
    for i in range(m):
        p = lit_of[feat[i]]
        if p < 0 or not np.isfinite(model[i]):
            continue
        f = feat[i]
        had_lo = lits[p, 1] > 0
        had_hi = lits[p, 2] < n_bins[f]
        grew_lower = lo[i] != lits[p, 1]
        if grew_lower and not had_lo:
            if np.isnan(later[p]):
                if p == k - 1:
                    later[p] = 0.0
                elif later_known.shape[0] > 0 and later_known[p]:
                    later[p] = _later_bits_from_k(lits, p, n_bins, binary, turs2, later_k_known[p])
                else:
                    later[p] = _later_bits_without(bins, lits, p, n_bins, binary, turs2, scan_rows, scan_rows1,
                                                   bin_min, bin_max)
            before = 0.0
            for q in range(p + 1):
                before += base_vo[q]
            out[i] = header_old + before + later[p]
        elif not grew_lower and not had_hi:
            out[i] = (header_old + base_vo_sum - base_vo[p]
                      + _lenient_value_op_bits(np.bool_(False), np.bool_(True), base_k_values[p], turs2))
        else:
            out[i] = header_old + base_vo_sum
    return out


@njit(cache=NUMBA_CACHE, nogil=True)
def _finish_growths(grown, base, rule_set, data, settings):
    """The valid growths of one base rule (the output of ``_grow_candidates``), with their
    model code length ``L(S')`` (Eq. 3.13-3.17), scores (Eq. 3.20-3.25, ``_score_candidates``)
    and patience buckets (Eq. 3.23).

    ``placeholder_scores``: ``r`` and ``R`` of a growth that refines a literal of the base use
    the model code length the authors' search charges it (``_placeholder_model_bits``, which
    takes ``scan_rows1``, ``bin_min`` and ``bin_max``) instead of ``L(S')``; ``model`` and
    ``total_after`` stay exact.

    ``turs2_edges``: empty for the thesis' buckets ``[w/W, (w+1)/W)``; else the authors' bucket
    edges (``linspace(0, 1, W + 1)[1:]``, right-closed buckets by ``searchsorted``), and
    ``splits_uncovered`` then says which growths leave at least ``min_split`` instances of the
    base's uncovered part on each side of their cut (all False without an uncovered part).

    A growth on a new variable adds a literal with ``K_value = k_split[f]`` (one cut, Eq. 3.15);
    one on a variable of the base refines that literal (``_refinement_model_bits``).
    ``lits``: (k, 3) literals of the base, ``base_vo`` their ``L_value_op``, ``base_vo_sum``
    their sum; ``header_new`` / ``header_old``: the rule header for k + 1 / k literals;
    ``scan_rows``: the rows satisfying literal 0 (or a superset), see ``_refinement_tables``;
    ``ref_tmin``, ``ref_tmax``: the base's refinement tables (``turs._core.refinement``), or
    (0, 0) arrays to build them from ``scan_rows``; ``later_k_known``, ``later_known``: see
    ``_placeholder_model_bits``.

    Returns a :class:`GrowthScores` record: each growth's literal, counts, ``L(S')``, scores,
    local tests and buckets, and the two sides of the local tests (``_score_candidates``).

    The records: ``grown`` the growth kernel's outputs (``turs._core.growth.GrowthOutputs``),
    ``base`` :class:`BaseRule`, ``rule_set`` :class:`RuleSetCounts`, ``data``
    :class:`DataTables`, ``settings`` :class:`ScoringSettings` (``placeholder_scores``,
    ``bucket_edges`` (``turs2_edges`` above), ``min_split``, ``beam_width``, ``absolute``,
    ``split_cut_bits``).
    """
    valid, new_lo, new_hi, counts, counts_unc, delta, k_split = grown
    lits, base_vo, base_vo_sum, base_k_values, header_new, header_old = (
        base.lits, base.value_ops, base.value_ops_sum, base.k_values, base.header_new, base.header_old)
    base_counts, base_counts_unc, split_extra, scan_rows, ref_tmin, ref_tmax = (
        base.counts, base.counts_unc, base.split_extra, base.scan_rows, base.ref_tmin, base.ref_tmax)
    bins, n_bins, binary, turs2, log2_d, log2_regret, log2_int = (
        data.bins, data.n_bins, data.binary, data.turs2, data.log2_d, data.log2_regret, data.log2_int)
    absolute, beam_width, split_cut_bits, placeholder_scores, turs2_edges, min_split = (
        settings.absolute, settings.beam_width, settings.split_cut_bits, settings.placeholder_scores,
        settings.bucket_edges, settings.min_split)
    d = n_bins.shape[0]
    S = valid.shape[0] // d
    C = counts.shape[1]
    k = lits.shape[0]
    m = 0
    for s in range(valid.shape[0]):
        if valid[s]:
            m += 1
    idx = np.empty(m, dtype=np.int64)
    i = 0
    for s in range(valid.shape[0]):
        if valid[s]:
            idx[i] = s
            i += 1
    feat = idx // S
    lo = new_lo[idx]
    hi = new_hi[idx]
    cts = counts[idx]
    cts_unc = counts_unc[idx]
    dl = delta[idx]
    lit_of = np.full(d, -1, dtype=np.int64)
    for t in range(k):
        lit_of[lits[t, 0]] = t
    form_binary = 0.0 if turs2 else 1.0
    form_one_cut = 0.0 if turs2 else 2.0
    value_op = np.empty(m)
    model = np.empty(m)
    l_split = np.empty(m)
    n_ref = 0
    for i in range(m):
        f = feat[i]
        if binary[f]:
            vo = form_binary
            l_split[i] = log2_d + 0.0
        else:
            lk = math.log2(max(k_split[f], 1))
            vo = form_one_cut + lk
            l_split[i] = log2_d + lk
        if split_cut_bits.shape[0] > 0:
            l_split[i] = log2_d + split_cut_bits[f] + split_extra
        value_op[i] = vo
        model[i] = header_new + base_vo_sum + vo
        if lit_of[f] >= 0:
            n_ref += 1
    later_k = np.full((m, k), -1, dtype=np.int64)
    later_vo = np.full((m, k), -1.0)
    if n_ref > 0:
        ri = np.empty(n_ref, dtype=np.int64)
        j = 0
        for i in range(m):
            if lit_of[feat[i]] >= 0:
                ri[j] = i
                j += 1
        if ref_tmin.shape[1] > 0:
            tmin, tmax = ref_tmin, ref_tmax
        else:
            tmin, tmax = _refinement_tables(bins, lits, n_bins, scan_rows)
        m_ref, vo_ref, ok_ref, nk, nvo = _refinement_from_tables(
            tmin, tmax, lits, base_vo, base_k_values, binary, n_bins, feat[ri], lo[ri], hi[ri], header_old, turs2)
        for j in range(n_ref):
            i = ri[j]
            model[i] = m_ref[j] if ok_ref[j] else np.inf
            value_op[i] = vo_ref[j]
            for q in range(k):
                later_k[i, q] = nk[j, q]
                later_vo[i, q] = nvo[j, q]
    model_score = model
    if placeholder_scores and n_ref > 0:
        model_score = _placeholder_model_bits(model, feat, lo, lit_of, base, data)
    total_after, r, R, local, aux_local, split_bits, split_bits_unc, nml_base, nml_base_unc = _score_candidates(
        cts, cts_unc, dl, model, model_score, l_split, base_counts, base_counts_unc, rule_set, log2_regret, log2_int,
        absolute)
    cov = np.zeros(m, dtype=np.int64)
    cov_unc = np.zeros(m, dtype=np.int64)
    for i in range(m):
        for c in range(C):
            cov[i] += cts[i, c]
            cov_unc[i] += cts_unc[i, c]
    nb = 0
    nbu = 0
    for c in range(C):
        nb += base_counts[c]
        nbu += base_counts_unc[c]
    W = beam_width
    bucket = np.empty(m, dtype=np.int64)
    aux_bucket = np.full(m, -1, dtype=np.int64)
    splits_uncovered = np.zeros(m, dtype=np.bool_)
    if turs2_edges.shape[0] == 0:
        for i in range(m):
            bucket[i] = min((W * cov[i]) // max(nb, 1), W - 1)
            if nbu > 0:
                aux_bucket[i] = min((W * cov_unc[i]) // nbu, W - 1)
    else:
        for i in range(m):
            bucket[i] = np.searchsorted(turs2_edges, cov[i] / nb)
            if nbu > 0:
                aux_bucket[i] = np.searchsorted(turs2_edges, cov_unc[i] / nbu)
                splits_uncovered[i] = cov_unc[i] >= min_split and nbu - cov_unc[i] >= min_split
    return GrowthScores(feat, lo, hi, cts, cts_unc, cov, cov_unc, model, value_op, n_ref > 0, later_k, later_vo,
                        total_after, r, R, local, aux_local, bucket, aux_bucket, splits_uncovered,
                        split_bits, split_bits_unc, nml_base, nml_base_unc)
