"""Jitted bookkeeping of the overlap groups of a rule set (``turs.search.state``): which groups
share rules, without a dense groups x groups matrix, and each group's rules restricted to the
groups a base rule's cover holds."""
from __future__ import annotations

import numpy as np
from numba import njit

from .._config import NUMBA_CACHE


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
def _union_counts(g_ptr, g_rules, k_ptr, k_groups, group_counts):
    """The class counts of the union of each overlap group's rules' covers: the sum of the counts
    of every group sharing a rule with it, each group once (``_shared_rule_pairs``' union
    counts without its pair lists and their sorting). The sums are of integer-valued floats,
    so their order does not matter (exact below 2^53 rows). Work: the (g, J, shared rule)
    triples, ``sum_k |groups of k|^2``; memory O(G)."""
    G = g_ptr.shape[0] - 1
    C = group_counts.shape[1]
    stamp = np.full(G, -1, dtype=np.int64)
    union = np.zeros((G, C))
    for g in range(G):
        for a in range(g_ptr[g], g_ptr[g + 1]):
            k = g_rules[a]
            for b in range(k_ptr[k], k_ptr[k + 1]):
                J = k_groups[b]
                if stamp[J] != g:
                    stamp[J] = g
                    for c in range(C):
                        union[g, c] += group_counts[J, c]
    return union


def group_union_counts(group_masks: np.ndarray, group_counts: np.ndarray) -> np.ndarray:
    """``(G, C)`` class counts of the union of the rules of each overlap group (its (K,) bool
    mask in ``group_masks``), from the groups' class counts ``(G, C)``: a row lies in the union
    of a group's rules exactly when its own group shares a rule with it (Eq. 3.5)."""
    G, K = group_masks.shape
    if G == 0:
        return np.zeros((0, group_counts.shape[1]))
    gi, ki = np.nonzero(group_masks)
    g_ptr = np.concatenate([[0], np.cumsum(np.bincount(gi, minlength=G))]).astype(np.int64)
    by_rule = np.argsort(ki, kind="stable")
    k_ptr = np.concatenate([[0], np.cumsum(np.bincount(ki, minlength=K))]).astype(np.int64)
    return _union_counts(g_ptr, ki.astype(np.int64), k_ptr, gi[by_rule].astype(np.int64),
                         np.ascontiguousarray(group_counts, dtype=np.float64))
