"""The overlap groups of a rule set (thesis Section 3.3: the instances covered by exactly the
same rules of ``M``) as lists the kernels walk: which groups share rules (``_shared_rule_pairs``,
without a dense groups x groups matrix), the rule subsets of each group for inclusion-exclusion
(``_group_subsets``), and, per base rule, the groups its cover holds with their lists
renumbered locally (``_localize_groups``, ``_local_subsets``, ``_local_neighbours``,
``_local_rule_lists``) and a cover's rows split by group (``_group_row_lists``). These replace chains of small numpy calls (unique, searchsorted, isin,
where) that ran once per base rule: on small data (car, chess) they cost more than the
counting.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba import types as nbtypes
from numba.typed import Dict

from .._config import MAX_SUBSET_RULES, NUMBA_CACHE  # noqa: F401  (MAX_SUBSET_RULES: the search imports it from here)


class OverlapLists(NamedTuple):
    """The overlap groups' lists of a rule set as the kernels read them, for all its groups
    (made once per rule set, ``turs.search.growths``): the union counts and the CSR lists the
    growth kernel's union builds walk. A rule set that keeps no pair or subset lists has empty
    ones there and ``has_nbr`` / ``has_sub`` False."""

    union_counts: np.ndarray  # (G, C) float class counts of the union of each group's rules' covers
    nbr_ptr: np.ndarray  # per group J, the groups g it adds ``w`` times its rows to (pair lists)
    nbr_idx: np.ndarray
    nbr_w: np.ndarray
    has_nbr: bool
    sub_ptr: np.ndarray  # per group, its rule subsets (indices < n_sub) with their signs
    sub_idx: np.ndarray
    sub_sign: np.ndarray
    n_sub: int
    has_sub: bool
    grp_ptr: np.ndarray  # per group, its rules (ids < n_rules): the bit-set build's lists
    grp_rules: np.ndarray
    n_rules: int


@njit(cache=NUMBA_CACHE, nogil=True)
def _shared_rule_pairs(g_ptr, g_rules, k_ptr, k_groups, group_counts, min_shared, rules_weight):
    """For each overlap group g (its rules ``g_rules[g_ptr[g]:g_ptr[g + 1]]``; the groups of
    rule k: ``k_groups[k_ptr[k]:k_ptr[k + 1]]``): the class counts of the union of its rules'
    covers (the sum of the counts of every group sharing a rule with g) and the CSR list, in
    increasing order, of the groups J sharing ``s >= min_shared`` rules with g, with weight
    ``1 - s`` (``rules_weight``) or 1. ``min_shared = 0``: no list.

    Work: the (g, J, shared rule) triples, ``sum_k |groups of k|^2``, and memory the pairs
    listed; the dense ``masks @ masks.T`` it replaces takes groups^2 floats.
    Returns ``(union_counts (G, C), ptr, idx, w)``.
    """
    G = g_ptr.shape[0] - 1
    C = group_counts.shape[1]
    shared = np.zeros(G, dtype=np.int64)
    touched = np.empty(G, dtype=np.int64)
    union = np.zeros((G, C))
    ptr = np.zeros(G + 1, dtype=np.int64)
    cap = max(16, G)
    idx = np.empty(cap, dtype=np.int64)
    w = np.empty(cap)
    n = 0
    for g in range(G):
        nt = 0
        for a in range(g_ptr[g], g_ptr[g + 1]):
            k = g_rules[a]
            for b in range(k_ptr[k], k_ptr[k + 1]):
                J = k_groups[b]
                if shared[J] == 0:
                    touched[nt] = J
                    nt += 1
                shared[J] += 1
        order = np.sort(touched[:nt])
        for t in range(nt):
            J = order[t]
            for c in range(C):
                union[g, c] += group_counts[J, c]
            s = shared[J]
            shared[J] = 0
            if min_shared > 0 and s >= min_shared:
                if n == cap:
                    cap *= 2
                    idx2 = np.empty(cap, dtype=np.int64)
                    w2 = np.empty(cap)
                    idx2[:n] = idx[:n]
                    w2[:n] = w[:n]
                    idx = idx2
                    w = w2
                idx[n] = J
                w[n] = 1.0 - s if rules_weight else 1.0
                n += 1
        ptr[g + 1] = n
    return union, ptr, idx[:n].copy(), w[:n].copy()


@njit(cache=NUMBA_CACHE, nogil=True)
def _local_rule_lists(g_ptr, g_rules, present):
    """The rule lists of the groups ``present`` (CSR ``ptr, rules``; rule ids unchanged)."""
    P = present.shape[0]
    ptr = np.zeros(P + 1, dtype=np.int64)
    for p in range(P):
        g = present[p]
        ptr[p + 1] = ptr[p] + g_ptr[g + 1] - g_ptr[g]
    rules = np.empty(ptr[P], dtype=np.int64)
    for p in range(P):
        g = present[p]
        rules[ptr[p]:ptr[p + 1]] = g_rules[g_ptr[g]:g_ptr[g + 1]]
    return ptr, rules


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


@njit(cache=NUMBA_CACHE)
def _group_row_lists(group_local, g_start, n_groups):
    """The cover's rows (local indices) of the groups ``g_start .. g_start + n_groups - 1``, group
    by group (a counting sort; increasing order within a group): group ``g_start + j``'s rows are
    ``idx[ptr[j]:ptr[j + 1]]``. Returns ``ptr`` (n_groups + 1,) and ``idx``."""
    ptr = np.zeros(n_groups + 1, dtype=np.int64)
    for i in range(group_local.shape[0]):
        j = group_local[i] - g_start  # -1 (not covered) is outside every range: g_start >= 0
        if 0 <= j < n_groups:
            ptr[j + 1] += 1
    for j in range(n_groups):
        ptr[j + 1] += ptr[j]
    idx = np.empty(ptr[n_groups], dtype=np.int64)
    fill = ptr[:n_groups].copy()
    for i in range(group_local.shape[0]):
        j = group_local[i] - g_start
        if 0 <= j < n_groups:
            idx[fill[j]] = i
            fill[j] += 1
    return ptr, idx


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
