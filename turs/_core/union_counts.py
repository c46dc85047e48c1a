"""The class counts of the union of each overlap group's rules' covers (thesis Eq. 3.5-3.6:
a row M already covers is coded with the class frequencies of the union of its rules' covers).

For the rule set itself (``group_union_counts``, ``union_counts_cheapest``): from the groups
that share a rule with each group (``_union_counts``) or with bit sets over the covered rows
(``_union_counts_by_bits``), whichever the cost estimate says is cheaper. For a base rule's
growths (``cum_union`` of the growth kernel, ``turs._core.growth``): the same counts restricted
to the base's cover, per bucket of bins and cumulated, by one of three exact builds -- per row
over each row's lists (``_union_by_rows``), per bucket over the groups' histograms
(``_union_by_buckets``), or with bit sets (``_union_by_bits``) -- and the cost model that
picks the cheapest per feature (``docs/performance.md``). All builds give the same integer
counts. The bit-set builds share one OR-accumulate loop (``_rule_bit_sets``) and one trie
step (``_or_rule_sets``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .. import _config
from .._config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE)
def _popcount(x):
    """Set bits of a uint64 (the SWAR sum; LLVM turns it into one ``popcnt``)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=NUMBA_CACHE)
def _or_rule_sets(acc, sets, rules, a0, n_g, prev0, prev_len):
    """The union of a group's rules as a trie step: level q of ``acc`` becomes the OR of the bit
    sets ``sets[k]`` of the group's first q + 1 rules ``rules[a0:a0 + n_g]`` (the union:
    ``acc[n_g - 1]``). The levels its list shares with the group built before
    (``rules[prev0:prev0 + prev_len]``) are kept, so a group ORs only the rules after that
    prefix. Used by ``_union_by_bits`` and ``_union_counts_by_bits``."""
    n_words = sets.shape[1]
    q0 = 0
    while q0 < n_g and q0 < prev_len and rules[a0 + q0] == rules[prev0 + q0]:
        q0 += 1
    for q in range(q0, n_g):
        k = rules[a0 + q]
        if q == 0:
            for w in range(n_words):
                acc[0, w] = sets[k, w]
        else:
            for w in range(n_words):
                acc[q, w] = acc[q - 1, w] | sets[k, w]


@njit(cache=NUMBA_CACHE)
def _rule_bit_sets(seg, grp, n_seg, grp_ptr, grp_rules, n_rules):
    """The bit set of each rule's rows, with the rows put in segment order: row ``i`` (segment
    ``seg[i] < n_seg``, group ``grp[i]``; rows of one segment in the order given) takes position
    ``p`` among the rows, and bit ``p`` is ORed into the set of every rule of its group
    (``grp_rules[grp_ptr[J]:grp_ptr[J + 1]]``, ids ``< n_rules``). Returns ``off`` (segment s
    holds positions ``off[s]..off[s + 1]-1``) and ``sets`` (n_rules, words) uint64. The one
    OR-accumulate loop of ``_union_counts_by_bits`` (segments: classes) and ``_union_by_bits``
    (segments: (class, bucket))."""
    off = np.zeros(n_seg + 1, dtype=np.int64)
    for i in range(seg.shape[0]):
        off[seg[i] + 1] += 1
    for s in range(n_seg):
        off[s + 1] += off[s]
    n_words = (off[n_seg] + 63) >> 6
    sets = np.zeros((n_rules, n_words), dtype=np.uint64)
    nxt = off[:n_seg].copy()
    one = np.uint64(1)
    for i in range(seg.shape[0]):
        s = seg[i]
        p = nxt[s]
        nxt[s] = p + 1
        bit = one << np.uint64(p & 63)
        w = p >> 6
        J = grp[i]
        for a in range(grp_ptr[J], grp_ptr[J + 1]):
            sets[grp_rules[a], w] |= bit
    return off, sets


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
    n_cov = 0
    for i in range(row_group.shape[0]):
        if row_group[i] >= 0:
            n_cov += 1
    seg = np.empty(n_cov, dtype=np.int64)  # the covered rows' classes and groups
    grp = np.empty(n_cov, dtype=np.int64)
    k = 0
    for i in range(row_group.shape[0]):
        if row_group[i] >= 0:
            seg[k] = row_class[i]
            grp[k] = row_group[i]
            k += 1
    off, sets = _rule_bit_sets(seg, grp, C, g_ptr, g_rules, n_rules)  # class c's rows at off[c]..off[c + 1]-1
    n_words = sets.shape[1]
    one = np.uint64(1)
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
    words = _config.UNION_BITS_WORD_COST * (ki.shape[0] + K) * (rows / 64.0 + 1.0) + rows * ki.shape[0] / G
    if words < triples:
        g_ptr = np.concatenate([[0], np.cumsum(np.bincount(gi, minlength=G))]).astype(np.int64)
        return _union_counts_by_bits(np.ascontiguousarray(row_group, dtype=np.int64),
                                     np.ascontiguousarray(row_class, dtype=np.int64), g_ptr,
                                     ki.astype(np.int64), K, int(C))
    return group_union_counts(group_masks, group_counts)


@njit(cache=NUMBA_CACHE)
def _scatter_bin_counts(cum_g, b, ptr, idx, weight, out, v):
    """Add ``weight[s] *`` the class counts of every group J in bin ``b`` (from its cumulative
    histogram ``cum_g[J]``) to the rows ``out[idx[s]]``, ``s`` in ``ptr[J]:ptr[J + 1]``: the
    rule subsets of J (inclusion-exclusion) or the groups J shares rules with (pair lists).
    ``v``: a (C,) int64 work buffer; the weights are integers (signs, pair weights), so ``out``
    (int64) holds exact counts."""
    G, _, C = cum_g.shape
    for J in range(G):
        nj = 0
        for c in range(C):
            x = cum_g[J, b + 1, c] - cum_g[J, b, c]
            v[c] = x
            nj += x
        if nj == 0:
            continue
        for s2 in range(ptr[J], ptr[J + 1]):
            t = idx[s2]
            w = np.int64(weight[s2])
            for c in range(C):
                out[t, c] += w * v[c]


@njit(cache=NUMBA_CACHE)
def _union_by_rows(cum_union, bins_f, bucket, y, rows, group_local, lists, bmin, bmax):
    """``cum_union`` (G, nb + 1, C) int64 of the growth kernel built row by row, over buckets of
    bins (``bucket[b]``: the bucket of bin ``b``, ``nb`` buckets; the identity for plain bins): each
    covered row adds ``w`` to the groups its group's pair list names and 1 to its rule subsets;
    the subsets then enter their groups with their signs, and the buckets are cumulated. Cheaper
    than the per-bucket build when a group has few rows per bucket (``bmin``..``bmax``: the
    rows' buckets). ``lists``: the groups' pair and subset lists (``OverlapLists``)."""
    nbr_ptr, nbr_idx, nbr_w = lists.nbr_ptr, lists.nbr_idx, lists.nbr_w
    sub_ptr, sub_idx, sub_sign, n_sub = lists.sub_ptr, lists.sub_idx, lists.sub_sign, lists.n_sub
    G, nb1, C = cum_union.shape
    has_pairs = nbr_idx.shape[0] > 0
    sc = np.zeros((n_sub, nb1, C), dtype=np.int64)
    for i in range(rows.shape[0]):
        J = group_local[i]
        if J < 0:
            continue
        r = rows[i]
        b1 = bucket[bins_f[r]] + 1
        cls = y[r]
        if has_pairs:
            for s2 in range(nbr_ptr[J], nbr_ptr[J + 1]):
                cum_union[nbr_idx[s2], b1, cls] += np.int64(nbr_w[s2])
        if n_sub > 0:
            for s2 in range(sub_ptr[J], sub_ptr[J + 1]):
                sc[sub_idx[s2], b1, cls] += 1
    for g in range(G):
        if n_sub > 0:
            for s2 in range(sub_ptr[g], sub_ptr[g + 1]):
                t2 = sub_idx[s2]
                w = np.int64(sub_sign[s2])
                for b in range(bmin + 1, bmax + 2):
                    for c in range(C):
                        cum_union[g, b, c] += w * sc[t2, b, c]
        for b in range(1, nb1):
            for c in range(C):
                cum_union[g, b, c] += cum_union[g, b - 1, c]


@njit(cache=NUMBA_CACHE)
def _union_by_buckets(cum_union, cum_g, lists, sub_ones, kmin, kmax):
    """``cum_union`` (G, nbk + 1, C) int64 of the growth kernel built bucket by bucket from the
    groups' cumulative histograms ``cum_g`` (G, nbk + 1, C): in each bucket ``kmin..kmax`` that
    holds the base's rows, the rule subsets' counts are scattered from the groups that list them
    (``sub_ones``: weight 1 per entry) and enter their groups with their signs, and the pair
    lists add ``w`` times each listed group's counts (``_scatter_bin_counts``). Cheaper than the
    per-row build when the groups have many rows per bucket. ``lists``: the groups' pair and
    subset lists (``OverlapLists``)."""
    nbr_ptr, nbr_idx, nbr_w = lists.nbr_ptr, lists.nbr_idx, lists.nbr_w
    sub_ptr, sub_idx, sub_sign, n_sub = lists.sub_ptr, lists.sub_idx, lists.sub_sign, lists.n_sub
    G, nb1, C = cum_union.shape
    nbk = nb1 - 1
    has_pairs = nbr_idx.shape[0] > 0
    sc = np.zeros((n_sub, C), dtype=np.int64)
    vbuf = np.empty(C, dtype=np.int64)
    for k in range(nbk):
        for g in range(G):
            for c in range(C):
                cum_union[g, k + 1, c] = cum_union[g, k, c]
        if k < kmin or k > kmax:
            continue
        if n_sub > 0:
            for t2 in range(n_sub):
                for c in range(C):
                    sc[t2, c] = 0
            _scatter_bin_counts(cum_g, k, sub_ptr, sub_idx, sub_ones, sc, vbuf)
            for g in range(G):
                for s2 in range(sub_ptr[g], sub_ptr[g + 1]):
                    t2 = sub_idx[s2]
                    w = np.int64(sub_sign[s2])
                    for c in range(C):
                        cum_union[g, k + 1, c] += w * sc[t2, c]
        if has_pairs:
            _scatter_bin_counts(cum_g, k, nbr_ptr, nbr_idx, nbr_w, cum_union[:, k + 1, :], vbuf)


@njit(cache=NUMBA_CACHE)
def _union_by_bits(cum_union, bins_f, bucket, y, rows, group_local, covered, lists, g_start=0):
    """``cum_union`` (G, nb + 1, C) int64 built with bit sets, over buckets of bins (``bucket[b]``: the
    bucket of bin ``b``, ``nb`` buckets; the identity for plain bins; "bin" below is a bucket):
    the covered rows of the base are put in (class, bin) order, each rule of ``M`` gets the bit
    set of its rows in that order, the union of group g's rules (``lists``, an
    ``OverlapLists``: ``grp_rules[grp_ptr[g]:grp_ptr[g + 1]]``, in increasing order) is the OR
    of its rules' sets, built as a trie (a group ORs only the rules after the ones it shares
    with the group before it), and its count of class c in bins ``< b`` the set bits before the start
    of segment (c, b) minus those before (c, 0): two rank queries (popcounts of the words before
    a position, cumulated once per group, plus one masked word). Work: the rows' rules, plus per
    group its rules outside the shared prefix x (covered rows / 64) words, the popcounts of its
    words and one rank query per (bin, class): no list that grows with the groups.
    ``cum_union[j]`` is group ``g_start + j`` (a range of the groups, see ``_grow_chunk_impl``);
    ``covered``: the indices ``i`` of the rows ``M`` covers (``group_local[i] >= 0``)."""
    grp_ptr, grp_rules, n_rules = lists.grp_ptr, lists.grp_rules, lists.n_rules
    G, nb1, C = cum_union.shape
    nb = nb1 - 1
    n_seg = nb * C
    mc = covered.shape[0]
    seg = np.empty(mc, dtype=np.int64)
    grp = np.empty(mc, dtype=np.int64)
    for q in range(mc):
        i = covered[q]
        r = rows[i]
        seg[q] = y[r] * nb + bucket[bins_f[r]]
        grp[q] = group_local[i]
    off, sets = _rule_bit_sets(seg, grp, n_seg, grp_ptr, grp_rules, n_rules)  # segment (c, b) starts at off[c * nb + b]
    n_words = sets.shape[1]
    one = np.uint64(1)
    # the unions as a trie over the groups' rule lists: the groups come in the order of their
    # rule patterns, so groups that share their first q rules are consecutive, and level q of
    # ``acc`` (the OR of a group's first q + 1 rules) serves all of them; a group ORs only the
    # rules after the prefix it shares with the group before (0.37-0.39 of all its rules'
    # words on magic and the noisy 20k set)
    depth = 1
    for g in range(g_start, g_start + G):
        depth = max(depth, grp_ptr[g + 1] - grp_ptr[g])
    acc = np.zeros((depth, n_words + 1), dtype=np.uint64)  # one spare word: a rank query at mc
    before = np.zeros(n_words + 1, dtype=np.int64)  # set bits in the words before w
    prev0 = np.int64(0)  # not literals: _or_rule_sets would compile once more for them
    prev_len = np.int64(0)  # the rule list of the last group built (acc's levels 0..prev_len-1 hold it)
    for g in range(G):
        gg = g + g_start
        a0 = grp_ptr[gg]
        n_g = grp_ptr[gg + 1] - a0
        if n_g == 0:
            continue
        _or_rule_sets(acc, sets, grp_rules, a0, n_g, prev0, prev_len)
        prev0 = a0
        prev_len = n_g
        top = acc[n_g - 1]
        for w in range(n_words):
            before[w + 1] = before[w] + _popcount(top[w])
        for c in range(C):
            p0 = off[c * nb]
            p1 = off[c * nb + nb]
            if p1 == p0:
                continue  # no covered row of class c in the base: its counts stay 0
            rank0 = before[p0 >> 6] + _popcount(top[p0 >> 6] & ((one << np.uint64(p0 & 63)) - one))
            rank1 = before[p1 >> 6] + _popcount(top[p1 >> 6] & ((one << np.uint64(p1 & 63)) - one))
            if rank1 == rank0:
                continue  # the union holds none of them: the same
            for b in range(1, nb + 1):
                p = off[c * nb + b]
                rank = before[p >> 6] + _popcount(top[p >> 6] & ((one << np.uint64(p & 63)) - one))
                cum_union[g, b, c] = rank - rank0
