"""``L(S')`` of the growths that refine a literal of their base (thesis Eq. 3.13-3.17, Section
3.4.3): the literal's new form and value code, and the ``K_value`` of every later literal,
counted on the instances satisfying the literals before it.

The later literals' ``K_value`` come from tables of extremes: for each pair of literals
``p < q``, the smallest and largest bin of q's feature per bin of p's feature, over the rows
satisfying literals ``0..q-1`` (q's subspace). The tables of q depend only on those literals
and on the features of q, so the search computes them once per such prefix
(``turs.search.prefix_tables``) instead of once per base rule; :func:`_refinement_tables`
builds all of them from one scan, as the twin the tests compare with.

Tables are packed: the row of pair ``(p, q)`` is ``q (q - 1) / 2 + p``, so the rows of one
``q`` (``p = 0..q-1``) are contiguous and a rule's tables are its prefixes' tables stacked.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._config import NUMBA_CACHE

NO_BIN = 1 << 30
"""``tmin`` of a bin of literal p's feature that no row of q's subspace has (``tmax``: -1)."""


@njit(cache=NUMBA_CACHE, nogil=True)
def _value_op_bits(binary, two_sided, k_value, turs2):
    """``L_value_op`` of Eq. 3.15/3.16 (see ``turs.mdl.literal_value_op_bits``; ``turs2``: the
    authors' implementation's code, without form and operator bits); -1 if undefined."""
    if binary:
        return 0.0 if turs2 else 1.0
    if two_sided:
        if k_value < 2:
            return -1.0
        return (0.0 if turs2 else 1.0) + math.log2(k_value * (k_value - 1) / 2.0)
    if k_value < 1:
        return -1.0
    return (0.0 if turs2 else 2.0) + math.log2(k_value)


@njit(cache=NUMBA_CACHE, nogil=True)
def _pair_extremes(bins, feats_before, f_q, rows, max_b):
    """The tables of one literal q: for each earlier literal p (feature ``feats_before[p]``) and
    each bin b of p's feature, the smallest and largest bin of feature ``f_q`` over the ``rows``
    (exactly q's subspace: the rows satisfying literals ``0..q-1``) whose p-bin is b.
    Returns tmin, tmax (q, max_b); ``NO_BIN`` / -1 where no row has that bin."""
    q = feats_before.shape[0]
    tmin = np.full((q, max_b), NO_BIN, dtype=np.int64)
    tmax = np.full((q, max_b), -1, dtype=np.int64)
    for i in range(rows.shape[0]):
        r = rows[i]
        bq = bins[f_q, r]
        for p in range(q):
            bp = bins[feats_before[p], r]
            if bq < tmin[p, bp]:
                tmin[p, bp] = bq
            if bq > tmax[p, bp]:
                tmax[p, bp] = bq
    return tmin, tmax


@njit(cache=NUMBA_CACHE, nogil=True)
def _bin_extremes(bins, f, rows):
    """The smallest and largest bin of feature ``f`` over ``rows``; ``(0, -1)`` for no row
    (the twin of ``bins[f][rows].min()`` and ``.max()``, without the gathered copy)."""
    if rows.shape[0] == 0:
        return 0, -1
    lo = bins[f, rows[0]]
    hi = lo
    for i in range(1, rows.shape[0]):
        b = bins[f, rows[i]]
        if b < lo:
            lo = b
        elif b > hi:
            hi = b
    return int(lo), int(hi)


@njit(cache=NUMBA_CACHE, nogil=True)
def _refinement_tables(bins, lits, n_bins, scan_rows):
    """Every pair's tables of a rule (``lits``: (k, 3) rows ``(feature, lo_bin, hi_bin)`` in the
    rule's order), packed (module docstring), from one pass over ``scan_rows``: any superset of
    the rows satisfying literal 0 (the others lie in no later literal's subspace), e.g. all
    rows. Returns tmin, tmax (k (k - 1) / 2, max bins)."""
    d = bins.shape[0]
    k = lits.shape[0]
    max_b = 0
    for f in range(d):
        if n_bins[f] > max_b:
            max_b = n_bins[f]
    n_pairs = k * (k - 1) // 2
    tmin = np.full((n_pairs, max_b), NO_BIN, dtype=np.int64)
    tmax = np.full((n_pairs, max_b), -1, dtype=np.int64)
    if k >= 2:
        for i_row in range(scan_rows.shape[0]):
            r = scan_rows[i_row]
            # how many leading literals the row satisfies
            ff = 0
            while ff < k - 1:
                f = lits[ff, 0]
                b = bins[f, r]
                if b < lits[ff, 1] or b >= lits[ff, 2]:
                    break
                ff += 1
            # the row is in the subspace of literal q for q <= ff
            for q in range(1, ff + 1):
                bq = bins[lits[q, 0], r]
                row0 = q * (q - 1) // 2
                for p in range(q):
                    bp = bins[lits[p, 0], r]
                    if bq < tmin[row0 + p, bp]:
                        tmin[row0 + p, bp] = bq
                    if bq > tmax[row0 + p, bp]:
                        tmax[row0 + p, bp] = bq
    return tmin, tmax


@njit(cache=NUMBA_CACHE, nogil=True)
def _refinement_from_tables(tmin, tmax, lits, base_vo, k_values, binary, n_bins, cand_feat, cand_lo, cand_hi,
                            header, turs2):
    """``L(S')`` (Eq. 3.17) of growths that refine an existing literal of a base rule, from the
    rule's packed tables (:func:`_refinement_tables`).

    Refining literal p (feature f, new bin interval ``[a, e)``) can change its form and the
    ``K_value`` of every later literal q: the largest minus the smallest bin of q's feature over
    the bins ``a..e-1`` of p's feature in q's subspace.
    Returns model (m,), value_op (m,), ok (m,) and new K_values / value_ops of the literals
    (m, k) (-1 where unchanged).
    """
    k = lits.shape[0]
    m = cand_feat.shape[0]
    prefix = np.zeros(k + 1)
    for p in range(k):
        prefix[p + 1] = prefix[p] + base_vo[p]
    model = np.full(m, np.inf)
    value_op = np.zeros(m)
    ok = np.zeros(m, dtype=np.bool_)
    new_k = np.full((m, k), -1, dtype=np.int64)
    new_vo = np.full((m, k), -1.0)
    for i in range(m):
        f = cand_feat[i]
        p = -1
        for t in range(k):
            if lits[t, 0] == f:
                p = t
        a = cand_lo[i]
        e = cand_hi[i]
        two = a > 0 and e < n_bins[f]
        vo = _value_op_bits(np.bool_(False), two, k_values[p], turs2)  # np.bool_: no literal specialization
        if vo < 0:
            continue
        value_op[i] = vo
        total = prefix[p] + vo
        good = True
        for q in range(p + 1, k):
            fq = lits[q, 0]
            if binary[fq]:
                total += base_vo[q]
                continue
            row = q * (q - 1) // 2 + p
            lo_q = NO_BIN
            hi_q = -1
            for b in range(a, e):
                if tmin[row, b] < lo_q:
                    lo_q = tmin[row, b]
                if tmax[row, b] > hi_q:
                    hi_q = tmax[row, b]
            kq = hi_q - lo_q if hi_q >= 0 else 0
            two_q = lits[q, 1] > 0 and lits[q, 2] < n_bins[fq]
            vq = _value_op_bits(np.bool_(False), two_q, kq, turs2)
            if vq < 0:
                good = False
                break
            new_k[i, q] = kq
            new_vo[i, q] = vq
            total += vq
        if good:
            ok[i] = True
            model[i] = header + total
    return model, value_op, ok, new_k, new_vo


@njit(cache=NUMBA_CACHE, nogil=True)
def _refinement_model_bits(bins, lits, base_vo, k_values, binary, n_bins, cand_feat, cand_lo,
                           cand_hi, header, turs2, scan_rows):
    """:func:`_refinement_from_tables` with the tables from one scan of ``scan_rows``
    (:func:`_refinement_tables`)."""
    tmin, tmax = _refinement_tables(bins, lits, n_bins, scan_rows)
    return _refinement_from_tables(tmin, tmax, lits, base_vo, k_values, binary, n_bins, cand_feat, cand_lo,
                                   cand_hi, header, turs2)
