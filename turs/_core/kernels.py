"""Jitted kernels of the beam search (thesis Section 3.5, "Design for speed"): scoring the
growths of a base rule, the patience buckets and the per-base bookkeeping. The growth
kernel itself (counts of every growth, one pass over the cover per feature) is in
:mod:`turs._core.growth_kernel`; its names stay importable from here.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba import types as nbtypes
from numba.typed import Dict

from .._config import NUMBA_CACHE
from .refinement import (_pair_extremes, _refinement_from_tables, _refinement_model_bits,  # noqa: F401
                         _refinement_tables, _value_op_bits)
from .growth_kernel import (MAX_CALL_WORK, PARALLEL_MIN_WORK, _grow_candidates, _nll_int,  # noqa: F401
                            _grow_candidates_parallel, _grow_candidates_serial, _union_by_bits, _union_by_rows)


@njit(cache=NUMBA_CACHE, nogil=True)
def _rows_in_interval(bins_col, rows, a, e):
    """The rows whose bin of one feature lies in ``[a, e)``. Without a branch: every row is
    written and the count moves on when ``b - a``, as an unsigned integer, is below ``e - a``
    (a row below ``a`` wraps around to a large number). The search's winners' covers and
    prefix covers scan some 10^8 rows an avila fit; 30% less time than the branch
    (``docs/performance.md``)."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    width = np.uint64(e - a) if e > a else np.uint64(0)
    k = 0
    for i in range(rows.shape[0]):
        r = rows[i]
        out[k] = r
        k += np.uint64(np.int64(bins_col[r]) - a) < width
    return out[:k]


@njit(cache=NUMBA_CACHE, nogil=True)
def _score_candidates(counts, counts_unc, delta, model, base_counts, base_counts_unc, else_counts,
                      l_split, log2_regret, nll_covered, regret_rules, model_next, total_m,
                      absolute, log2_int, model_score):
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
    ``L(D, M + S')`` always uses ``model``.
    """
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


# ------------------------------------------------------------- per-base bookkeeping
# The helpers below replace chains of small numpy calls (unique, searchsorted, isin, where)
# that ran once per base rule: on small data (car, chess) they cost more than the counting.


@njit(cache=NUMBA_CACHE, nogil=True)
def _localize_groups(group_of, rows, n_groups):
    """The overlap groups present in a cover, in increasing order, and each row's local group.

    Returns ``present`` (P,) and ``group_local`` (m,) with ``present[group_local[i]] ==
    group_of[rows[i]]`` (-1 for rows not covered by M); the twin of ``np.unique`` followed by
    ``np.searchsorted``.
    """
    local = np.zeros(n_groups, dtype=np.int64)
    m = rows.shape[0]
    for i in range(m):
        g = group_of[rows[i]]
        if g >= 0:
            local[g] = 1
    n_present = 0
    for g in range(n_groups):
        if local[g] > 0:
            n_present += 1
            local[g] = n_present  # local id + 1
    present = np.empty(n_present, dtype=np.int64)
    for g in range(n_groups):
        if local[g] > 0:
            present[local[g] - 1] = g
    group_local = np.empty(m, dtype=np.int64)
    for i in range(m):
        g = group_of[rows[i]]
        group_local[i] = local[g] - 1 if g >= 0 else -1
    return present, group_local


@njit(cache=NUMBA_CACHE, nogil=True)
def _local_subsets(sub_ptr, sub_idx, sub_sign, present, n_sub):
    """The inclusion-exclusion subset lists of the groups ``present``, with the subsets
    renumbered ``0..n_local-1`` in increasing global order (``np.unique``'s inverse).

    Returns ``(ptr, idx, sign, n_local)`` in the CSR layout of ``_grow_candidates``.
    """
    P = present.shape[0]
    ptr = np.zeros(P + 1, dtype=np.int64)
    for p in range(P):
        g = present[p]
        ptr[p + 1] = ptr[p] + sub_ptr[g + 1] - sub_ptr[g]
    local = np.zeros(n_sub, dtype=np.int64)
    for p in range(P):
        g = present[p]
        for s in range(sub_ptr[g], sub_ptr[g + 1]):
            local[sub_idx[s]] = 1
    n_local = 0
    for t in range(n_sub):
        if local[t] > 0:
            n_local += 1
            local[t] = n_local
    idx = np.empty(ptr[P], dtype=np.int64)
    sign = np.empty(ptr[P])
    k = 0
    for p in range(P):
        g = present[p]
        for s in range(sub_ptr[g], sub_ptr[g + 1]):
            idx[k] = local[sub_idx[s]] - 1
            sign[k] = sub_sign[s]
            k += 1
    return ptr, idx, sign, n_local


@njit(cache=NUMBA_CACHE, nogil=True)
def _local_neighbours(nbr_ptr, nbr_idx, nbr_w, present, n_groups):
    """The pair lists (with their weights) of the groups ``present``, restricted to those
    groups and renumbered locally (CSR ``ptr, idx, w``; order kept)."""
    P = present.shape[0]
    local = np.full(n_groups, -1, dtype=np.int64)
    for p in range(P):
        local[present[p]] = p
    ptr = np.zeros(P + 1, dtype=np.int64)
    for p in range(P):
        g = present[p]
        k = 0
        for s in range(nbr_ptr[g], nbr_ptr[g + 1]):
            if local[nbr_idx[s]] >= 0:
                k += 1
        ptr[p + 1] = ptr[p] + k
    idx = np.empty(ptr[P], dtype=np.int64)
    w = np.empty(ptr[P])
    k = 0
    for p in range(P):
        g = present[p]
        for s in range(nbr_ptr[g], nbr_ptr[g + 1]):
            j = local[nbr_idx[s]]
            if j >= 0:
                idx[k] = j
                w[k] = nbr_w[s]
                k += 1
    return ptr, idx, w


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
def _placeholder_model_bits(model, feat, lo, lits, lit_of, base_vo, base_vo_sum, base_k_values,
                            header_old, bins, n_bins, binary, turs2, scan_rows, scan_rows1, bin_min, bin_max,
                            later_k_known, later_known):
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
    empty) it is scanned here.
    """
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
def _finish_growths(valid, new_lo, new_hi, counts, counts_unc, delta, k_split, bins, n_bins, binary,
                    lits, base_vo, base_vo_sum, base_k_values, header_new, header_old, turs2, scan_rows, log2_d,
                    base_counts, base_counts_unc, else_counts, log2_regret, nll_covered, regret_rules,
                    model_next, total_m, absolute, beam_width, split_cut_bits, split_extra, log2_int,
                    placeholder_scores, scan_rows1, bin_min, bin_max, turs2_edges, min_split, ref_tmin, ref_tmax,
                    later_k_known, later_known):
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

    Returns feat, lo, hi, counts, counts_unc, cov, cov_unc, model, value_op, has_refinement,
    later_k, later_vo (m, k: the refined rule's new K_values / value_ops, -1 unchanged),
    total_after, r, R, local_test, aux_local_test, bucket, aux_bucket (-1: no uncovered part),
    splits_uncovered, and the two sides of the local tests (``_score_candidates``): split_bits,
    split_bits_unc (per growth), nml_base, nml_base_unc (the base's).
    """
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
        model_score = _placeholder_model_bits(model, feat, lo, lits, lit_of, base_vo, base_vo_sum,
                                              base_k_values, header_old, bins, n_bins, binary, turs2,
                                              scan_rows, scan_rows1, bin_min, bin_max, later_k_known, later_known)
    total_after, r, R, local, aux_local, split_bits, split_bits_unc, nml_base, nml_base_unc = _score_candidates(
        cts, cts_unc, dl, model, base_counts, base_counts_unc, else_counts, l_split, log2_regret,
        nll_covered, regret_rules, model_next, total_m, absolute, log2_int, model_score)
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
    return (feat, lo, hi, cts, cts_unc, cov, cov_unc, model, value_op, n_ref > 0, later_k, later_vo,
            total_after, r, R, local, aux_local, bucket, aux_bucket, splits_uncovered,
            split_bits, split_bits_unc, nml_base, nml_base_unc)


@njit(cache=NUMBA_CACHE, nogil=True)
def _winners_by_score(best, score):
    """The buckets' winners ``best`` (-1: empty bucket), best score first (ties: lower index)."""
    chosen = np.sort(best[best >= 0])
    return chosen[np.argsort(-score[chosen], kind="mergesort")]


@njit(cache=NUMBA_CACHE, nogil=True)
def _best_per_bucket(score, bucket, eligible, n_buckets):
    """Diverse patience (Eq. 3.23): the best eligible candidate with a finite score in each
    bucket ``0..n_buckets-1`` (ties: the lowest index), ordered by score, best first (ties:
    lower index first)."""
    best = np.full(n_buckets, -1, dtype=np.int64)
    for i in range(score.shape[0]):
        if not eligible[i] or not np.isfinite(score[i]):
            continue
        b = bucket[i]
        if best[b] < 0 or score[i] > score[best[b]]:
            best[b] = i
    return _winners_by_score(best, score)


@njit(cache=NUMBA_CACHE, nogil=True)
def _same_cover(bins, rows, f1, lo1, hi1, f2, lo2, hi2):
    """Whether two one-literal growths of one base rule (literal ``f in [lo, hi)`` on the base's
    ``rows``) cover the same rows."""
    for i in range(rows.shape[0]):
        r = rows[i]
        b1 = bins[f1, r]
        b2 = bins[f2, r]
        if (lo1 <= b1 < hi1) != (lo2 <= b2 < hi2):
            return False
    return True


@njit(cache=NUMBA_CACHE, nogil=True)
def _bucket_winners_first_cover(score, bucket, eligible, n_buckets, cov, feat, lo, hi, bins, rows):
    """Each bucket's winner (-1: none) as the authors' beam fills a bucket: the candidates in
    their order of generation (feature, cut, ``<`` before ``>=``); one that covers the same rows
    as the bucket's current occupant is skipped whatever its score; another replaces the
    occupant on a strictly higher score. ``cov``: the candidates' coverages (rows are compared
    only on equal ones); ``feat``, ``lo``, ``hi``: their literals on the base rule's ``rows``.
    ``best[best >= 0]`` are the winners in bucket order."""
    best = np.full(n_buckets, -1, dtype=np.int64)
    for i in range(score.shape[0]):
        if not eligible[i] or not np.isfinite(score[i]):
            continue
        b = bucket[i]
        o = best[b]
        if o < 0:
            best[b] = i
        elif score[i] > score[o] and not (cov[i] == cov[o] and _same_cover(
                bins, rows, feat[i], lo[i], hi[i], feat[o], lo[o], hi[o])):
            best[b] = i
    return best


MAX_SUBSET_RULES = 12
"""Largest overlap group (in rules) whose rule subsets are enumerated (2^12 - 1 per group)."""
_SUBSET_KEY = nbtypes.UniTuple(nbtypes.int64, MAX_SUBSET_RULES)


@njit(cache=NUMBA_CACHE, nogil=True)
def _group_subsets(masks):
    """CSR lists of the non-empty rule subsets ``T`` of each overlap group, numbered across
    groups in order of first appearance, with the inclusion-exclusion sign ``(-1)^(|T|+1)``.

    masks: (G, K) bool, at most ``MAX_SUBSET_RULES`` rules per group. Subsets of a group are
    enumerated by bitmask over its rules in increasing order; a subset is identified by the
    tuple of its rules, padded with -1. Returns ``(ptr, idx, sign, n)``.
    """
    G, K = masks.shape
    ptr = np.zeros(G + 1, dtype=np.int64)
    for g in range(G):
        m = 0
        for k in range(K):
            if masks[g, k]:
                m += 1
        ptr[g + 1] = ptr[g] + (1 << m) - 1
    idx = np.empty(ptr[G], dtype=np.int64)
    sign = np.empty(ptr[G])
    ids = Dict.empty(key_type=_SUBSET_KEY, value_type=nbtypes.int64)
    rules = np.empty(MAX_SUBSET_RULES, dtype=np.int64)
    key = np.empty(MAX_SUBSET_RULES, dtype=np.int64)
    pos = 0
    for g in range(G):
        m = 0
        for k in range(K):
            if masks[g, k]:
                rules[m] = k
                m += 1
        for bits in range(1, 1 << m):
            size = 0
            key[:] = -1
            for b in range(m):
                if (bits >> b) & 1:
                    key[size] = rules[b]
                    size += 1
            t = (key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7], key[8], key[9],
                 key[10], key[11])
            if t not in ids:
                ids[t] = len(ids)
            idx[pos] = ids[t]
            sign[pos] = 1.0 if size % 2 == 1 else -1.0
            pos += 1
    return ptr, idx, sign, len(ids)
