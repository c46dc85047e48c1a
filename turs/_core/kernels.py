"""Jitted kernels of the beam search (thesis Section 3.5, "Design for speed").

One pass over a base rule's cover per feature builds (bin x class) histograms -- for the
whole cover, for the part not covered by the rule set ``M``, and for each overlap group
(instances of the cover that are covered by exactly the same rules of ``M``). Every
candidate literal's counts then follow from cumulative sums over bins; nothing loops over
the data per candidate.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .._config import NUMBA_CACHE, NUMBA_PARALLEL


def _grow_candidates_impl(bins, y, rows, lo, hi, n_bins, n_classes, group_local, disjoint, union_counts):
    """Counts of every one-literal growth of a base rule (Algorithm 4, line 7).

    Parameters (plain arrays)
    -------------------------
    bins : (d, n) uint8       bin codes, ``bin = #{cuts <= x}``
    y : (n,) int64            class codes
    rows : (m,) int64         the base rule's cover
    lo, hi : (d,) int64       the base rule's bin interval per feature
    n_bins : (d,) int64       number of bins per feature
    group_local : (m,) int64  overlap group of each row of ``rows`` (-1: not covered by M)
    disjoint : (G, G) bool    ``disjoint[g, J]``: the rules of groups g and J do not intersect
    union_counts : (G, C) float  class counts of the union of the covers of group g's rules

    Candidate slot ``f * S + 2 * (t - 1) + side`` (``S = 2 * (max n_bins - 1)``) holds the
    literal on feature ``f`` that keeps bins ``[lo_f, t)`` (side 0) or ``[t, hi_f)`` (side 1).

    Returns
    -------
    valid (slots,) bool, new_lo (slots,), new_hi (slots,), counts (slots, C),
    counts_uncovered (slots, C), delta_nll (slots,), k_split (d,)

    ``delta_nll`` is the change in the data code length (bits) of the instances of the
    candidate that M already covers: their class distribution becomes that of the union of
    their rules' covers *and* the candidate's (Eq. 3.5-3.6). ``k_split[f]`` counts the cut
    points of ``f`` that split the base cover into two non-empty parts (``K_value``).
    """
    d = bins.shape[0]
    m = rows.shape[0]
    C = n_classes
    G = disjoint.shape[0]
    max_bins = 0
    for f in range(d):
        if n_bins[f] > max_bins:
            max_bins = n_bins[f]
    S = 2 * max(max_bins - 1, 1)
    n_slots = d * S
    valid = np.zeros(n_slots, dtype=np.bool_)
    new_lo = np.zeros(n_slots, dtype=np.int64)
    new_hi = np.zeros(n_slots, dtype=np.int64)
    counts = np.zeros((n_slots, C), dtype=np.int64)
    counts_unc = np.zeros((n_slots, C), dtype=np.int64)
    delta_nll = np.zeros(n_slots)
    k_split = np.zeros(d, dtype=np.int64)
    union_tot = np.zeros(G)
    for g in range(G):
        for c in range(C):
            union_tot[g] += union_counts[g, c]

    for f in prange(d):
        nb = n_bins[f]
        l = lo[f]
        h = hi[f]
        if h - l < 2:
            continue
        # cumulative histograms: cum[b] = counts of bins < b
        cum_all = np.zeros((nb + 1, C), dtype=np.int64)
        cum_unc = np.zeros((nb + 1, C), dtype=np.int64)
        cum_g = np.zeros((G, nb + 1, C), dtype=np.int64)
        for i in range(m):
            r = rows[i]
            b = bins[f, r]
            cls = y[r]
            cum_all[b + 1, cls] += 1
            g = group_local[i]
            if g < 0:
                cum_unc[b + 1, cls] += 1
            else:
                cum_g[g, b + 1, cls] += 1
        bmin = nb
        bmax = -1
        for b in range(nb):
            tot = 0
            for c in range(C):
                tot += cum_all[b + 1, c]
            if tot > 0:
                if b < bmin:
                    bmin = b
                if b > bmax:
                    bmax = b
        for b in range(1, nb + 1):
            for c in range(C):
                cum_all[b, c] += cum_all[b - 1, c]
                cum_unc[b, c] += cum_unc[b - 1, c]
                for g in range(G):
                    cum_g[g, b, c] += cum_g[g, b - 1, c]
        if bmax < 0:
            continue
        k_split[f] = bmax - bmin
        n_g = np.zeros((G, C))
        add = np.zeros(C)
        for t in range(l + 1, h):
            for side in range(2):
                if side == 0:
                    a = l
                    e = t
                else:
                    a = t
                    e = h
                slot = f * S + 2 * (t - 1) + side
                cov = 0
                for c in range(C):
                    v = cum_all[e, c] - cum_all[a, c]
                    counts[slot, c] = v
                    counts_unc[slot, c] = cum_unc[e, c] - cum_unc[a, c]
                    cov += v
                if cov == 0 or cov == m:
                    continue
                valid[slot] = True
                new_lo[slot] = a
                new_hi[slot] = e
                if G == 0:
                    continue
                for g in range(G):
                    for c in range(C):
                        n_g[g, c] = cum_g[g, e, c] - cum_g[g, a, c]
                delta = 0.0
                for g in range(G):
                    ng_tot = 0.0
                    for c in range(C):
                        ng_tot += n_g[g, c]
                    if ng_tot == 0.0:
                        continue
                    # counts of the candidate outside the union of group g's rules
                    add_tot = 0.0
                    for c in range(C):
                        add[c] = counts_unc[slot, c]
                    for J in range(G):
                        if disjoint[g, J]:
                            for c in range(C):
                                add[c] += n_g[J, c]
                    for c in range(C):
                        add_tot += add[c]
                    for c in range(C):
                        if n_g[g, c] > 0:
                            p_old = union_counts[g, c] / union_tot[g]
                            p_new = (union_counts[g, c] + add[c]) / (union_tot[g] + add_tot)
                            delta += n_g[g, c] * (math.log2(p_old) - math.log2(p_new))
                delta_nll[slot] = delta
    return valid, new_lo, new_hi, counts, counts_unc, delta_nll, k_split


_grow_candidates_serial = njit(cache=NUMBA_CACHE)(_grow_candidates_impl)
_grow_candidates_parallel = njit(cache=NUMBA_CACHE, parallel=True)(_grow_candidates_impl)

PARALLEL_MIN_WORK = 400_000
"""Rows x features below which the serial kernel is used (a thread team costs more)."""


def _grow_candidates(bins, y, rows, lo, hi, n_bins, n_classes, group_local, disjoint, union_counts):
    """Dispatch to the serial or the ``prange`` kernel by the size of the work (see impl)."""
    work = rows.shape[0] * bins.shape[0] * (1 + disjoint.shape[0])
    kernel = (_grow_candidates_parallel if NUMBA_PARALLEL and work >= PARALLEL_MIN_WORK
              else _grow_candidates_serial)
    return kernel(bins, y, rows, lo, hi, n_bins, n_classes, group_local, disjoint, union_counts)


_grow_candidates.__doc__ = _grow_candidates_impl.__doc__


@njit(cache=NUMBA_CACHE)
def _rows_in_interval(bins_col, rows, a, e):
    """The rows whose bin of one feature lies in ``[a, e)``."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    k = 0
    for i in range(rows.shape[0]):
        b = bins_col[rows[i]]
        if b >= a and b < e:
            out[k] = rows[i]
            k += 1
    return out[:k]


@njit(cache=NUMBA_CACHE)
def _bin_range_table(bins_f, bins_g, rows, n_bins_f):
    """Per bin of feature f: the smallest and largest bin of feature g over ``rows``.

    Used to update ``K_value`` of a later literal on g when the literal on f is refined
    (the code length of a literal depends on the literals before it, Section 3.4.3).
    Empty bins get ``(big, -1)``.
    """
    mn = np.full(n_bins_f, 1 << 30, dtype=np.int64)
    mx = np.full(n_bins_f, -1, dtype=np.int64)
    for i in range(rows.shape[0]):
        r = rows[i]
        b = bins_f[r]
        v = bins_g[r]
        if v < mn[b]:
            mn[b] = v
        if v > mx[b]:
            mx[b] = v
    return mn, mx
