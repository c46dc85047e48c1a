"""Jitted bookkeeping of the overlap groups of a rule set (``turs.search.state``): which groups
share rules, without a dense groups x groups matrix, and each group's rules restricted to the
groups a base rule's cover holds."""
from __future__ import annotations

import numpy as np
from numba import njit

from .._config import NUMBA_CACHE
from .growth_kernel import _or_rule_sets, _popcount
from .kernels import _localize_groups


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


@njit(cache=NUMBA_CACHE, nogil=True)
def _union_counts_by_bits(row_group, row_class, g_ptr, g_rules, n_rules, n_classes):
    """The class counts of the union of each overlap group's rules' covers, counted over rows
    with bit sets (``_union_counts``' twin: the same integer counts, another way).

    ``row_group[i]``: the group of row i (-1: no rule covers it); ``row_class[i]`` its class;
    group g's rules ``g_rules[g_ptr[g]:g_ptr[g + 1]]`` (ids ``< n_rules``, increasing). The
    covered rows are put in class order, each rule gets the bit set of its rows, a group's union
    is the OR of its rules' sets (a trie over consecutive groups, which share their first rules
    when the groups are sorted by their rule patterns, as ``turs.mdl.overlap_groups`` sorts
    them) and its count of class c the set bits in class c's segment. Work: per group, its rules
    after the prefix it shares with the group before, times rows / 64 words; the shared-rule
    triples of ``_union_counts`` grow with the square of each rule's groups instead (the
    rule sets of noisy data: hundreds of groups per rule). Returns (G, C) float counts."""
    G = g_ptr.shape[0] - 1
    C = n_classes
    off = np.zeros(C + 1, dtype=np.int64)  # class c's rows at positions off[c]..off[c + 1]-1
    for i in range(row_group.shape[0]):
        if row_group[i] >= 0:
            off[row_class[i] + 1] += 1
    for c in range(C):
        off[c + 1] += off[c]
    n_words = (off[C] + 63) >> 6
    sets = np.zeros((n_rules, n_words), dtype=np.uint64)
    nxt = off[:C].copy()
    one = np.uint64(1)
    for i in range(row_group.shape[0]):
        J = row_group[i]
        if J < 0:
            continue
        p = nxt[row_class[i]]
        nxt[row_class[i]] = p + 1
        bit = one << np.uint64(p & 63)
        w = p >> 6
        for a in range(g_ptr[J], g_ptr[J + 1]):
            sets[g_rules[a], w] |= bit
    depth = 1
    for g in range(G):
        depth = max(depth, g_ptr[g + 1] - g_ptr[g])
    acc = np.zeros((depth, n_words), dtype=np.uint64)
    union = np.zeros((G, C))
    prev0 = np.int64(0)  # not literals: _or_rule_sets would compile once more for them
    prev_len = np.int64(0)
    for g in range(G):
        a0 = g_ptr[g]
        n_g = g_ptr[g + 1] - a0
        if n_g == 0:
            continue
        _or_rule_sets(acc, sets, g_rules, a0, n_g, prev0, prev_len)
        prev0 = a0
        prev_len = n_g
        top = acc[n_g - 1]
        for c in range(C):
            lo = off[c]
            hi = off[c + 1]
            if hi == lo:
                continue
            w0 = lo >> 6
            w1 = (hi - 1) >> 6
            total = 0
            for w in range(w0, w1 + 1):
                x = top[w]
                if w == w0:
                    x &= ~((one << np.uint64(lo & 63)) - one)
                if w == w1 and (hi & 63) != 0:
                    x &= (one << np.uint64(hi & 63)) - one
                total += _popcount(x)
            union[g, c] = total
    return union


UNION_BITS_WORD_COST = 0.25
"""Cost of one 64-bit word of ``_union_counts_by_bits`` (an OR, or a popcount) relative to one
shared-rule triple of ``_union_counts``, in :func:`union_counts_cheapest`'s choice."""


def union_counts_cheapest(group_masks: np.ndarray, group_counts: np.ndarray, row_group: np.ndarray,
                          row_class: np.ndarray) -> np.ndarray:
    """``(G, C)`` union counts of the overlap groups (:func:`group_union_counts`) by the cheaper
    of its two ways: the shared-rule triples (``sum_k |groups of k|^2``) or bit sets over the
    groups' rows ``row_group`` (-1: none) with classes ``row_class`` (about rows / 64 words per
    rule of each group). Both give the same integer counts."""
    G, K = group_masks.shape
    C = group_counts.shape[1]
    if G == 0:
        return np.zeros((0, C))
    gi, ki = np.nonzero(group_masks)
    per_rule = np.bincount(ki, minlength=K).astype(np.float64)
    triples = float(per_rule @ per_rule)
    rows = row_group.shape[0]
    words = UNION_BITS_WORD_COST * (ki.shape[0] + K) * (rows / 64.0 + 1.0) + rows * ki.shape[0] / G
    if words < triples:
        g_ptr = np.concatenate([[0], np.cumsum(np.bincount(gi, minlength=G))]).astype(np.int64)
        return _union_counts_by_bits(np.ascontiguousarray(row_group, dtype=np.int64),
                                     np.ascontiguousarray(row_class, dtype=np.int64), g_ptr,
                                     ki.astype(np.int64), K, int(C))
    return group_union_counts(group_masks, group_counts)


@njit(cache=NUMBA_CACHE, nogil=True)
def _rows_by_group(group_of, y, rows, n_groups, n_classes):
    """A new rule's rows (``rows``) by the overlap groups of ``M`` they fall in: the groups
    present, increasing (``present``, P, from ``_localize_groups``); which rows ``M`` covers
    (``inside``, m); the covered rows' local group and class (``local``, ``y_inside``); the
    class counts of the covered rows per present group (``in_rule``, (P, C)) and of all the
    rows (``rule_counts``, (C,)), as floats, in one more pass over the rows. The twin of
    ``_localize_groups`` followed by numpy's gathers and ``bincount``
    (``turs.search.state.RuleSetState._split_by``)."""
    present, group_local = _localize_groups(group_of, rows, n_groups)
    m = rows.shape[0]
    rule_counts = np.zeros(n_classes)
    inside = group_local >= 0
    local = np.empty(m, dtype=np.int64)
    y_inside = np.empty(m, dtype=np.int64)
    counts = np.zeros((present.shape[0], n_classes), dtype=np.int64)
    k = 0
    for i in range(m):
        c = y[rows[i]]
        rule_counts[c] += 1.0
        loc = group_local[i]
        if loc >= 0:
            local[k] = loc
            y_inside[k] = c
            counts[loc, c] += 1
            k += 1
    return present, inside, local[:k], y_inside[:k], counts.astype(np.float64), rule_counts
