"""The growth kernel of the beam search (thesis Section 3.5, "Design for speed"): the counts and
the data-code change of every one-literal growth of a base rule, in feature chunks.

One pass over a base rule's cover per feature builds (bin x class) histograms -- for the
whole cover, for the part not covered by the rule set ``M``, and for each overlap group
(instances of the cover that are covered by exactly the same rules of ``M``). Every
candidate literal's counts then follow from cumulative sums over bins; nothing loops over
the data per candidate. What grows faster than the cover is the count of the base's rows
inside the union of each overlap group's rules (``cum_union``): three exact builds are
available and the cheapest is chosen per feature (``docs/performance.md``).

A call handles the features ``f_start..f_stop-1`` and writes into arrays the caller
allocated; :func:`_grow_candidates` splits a base's features into calls of bounded work, so
that no single jitted call holds the interpreter for long (Ctrl-C is seen between calls).
"""
from __future__ import annotations

import math
import types

import numpy as np
from numba import njit, prange

from .._config import NUMBA_CACHE, NUMBA_PARALLEL

PATH_AUTO, PATH_ROWS, PATH_BINS, PATH_BITS = 0, 1, 2, 3
"""The ``cum_union`` builds: the cheapest by the cost model (auto), per row over each row's
lists, per bin over the groups' histograms, or by bit sets (``_union_by_bits``)."""

UNION_BUILD = PATH_AUTO
"""The ``cum_union`` build :func:`_grow_candidates` uses by default (tests force each one)."""

BIT_OP_COST = 0.1
"""Cost of one 64-bit word operation of the bit-set build relative to one scattered float
addition of the list builds, in :func:`feature_work`'s estimate of a call's work (measured on
replayed kernel calls of the noisy 5k and 10k fits, see ``docs/performance.md``)."""

# The cost model that picks the ``cum_union`` build per feature, in units of one list entry
# of the per-row build (``row_adds``): each build's cost is linear in what it does, and the
# constants were fitted (non-negative least squares, ``tools/replay_kernel.py fit-costs``) to
# the differences between the builds' times on every feature of the recorded kernel calls that
# leave the choice to the model, each feature timed alone with each build forced, on fold-0
# fits of avila, waveform, magic and the noisy 20k set (2026-11-27, ``docs/performance.md``);
# the per-bucket build's term per bucket, which the fit cannot tell from the
# others, is fixed at 0.5. Before, constants tuned one at a time (``RANK_QUERY_COST``,
# ``BIN_BUILD_COST``, and ``BIT_OP_COST`` there too): the same replays took 4-6% less time on
# avila with the fitted ones, and within 1% of their time on the others.
ROWS_PREFIX_COST = 2.30
"""Per-row build: per (group, bucket, class) of its prefix sums."""
BINS_FIXED_COST = 299.0
"""Per-bucket build: per feature."""
BINS_SCATTER_COST = 0.290
"""Per-bucket build: per estimated list entry it scatters (its additions run over a group's
classes side by side)."""
BINS_BUCKET_COST = 0.50
"""Per-bucket build: per (group, bucket it copies, class)."""
BITS_FIXED_COST = 1054.0
"""Bit-set build: per feature."""
BITS_RULE_COST = 3.03
"""Bit-set build: per (covered row, rule of its group) it sets a bit for."""
BITS_WORD_COST = 0.266
"""Bit-set build: per 64-bit word of the rules' sets and the groups' unions."""
BITS_RANK_COST = 1.41
"""Bit-set build: per rank query, (group, bucket, class of a covered row)."""


@njit(cache=NUMBA_CACHE, nogil=True)
def _nll_int(counts_eval, counts_model, log2_int):
    """``-sum_c e_c log2(m_c / sum m)`` with 0 log 0 = 0, for integer counts, with ``log2`` from
    the table ``log2_int`` (``log2`` of 0..n): one table lookup instead of a logarithm."""
    tot = 0
    for c in range(counts_model.shape[0]):
        tot += counts_model[c]
    out = 0.0
    for c in range(counts_eval.shape[0]):
        if counts_eval[c] > 0:
            out -= counts_eval[c] * (log2_int[counts_model[c]] - log2_int[tot])
    return out


@njit(cache=NUMBA_CACHE)
def _passes_a_local_test(counts, counts_unc, nb, nbu, nml_base, nml_base_unc, base_counts, base_counts_unc,
                         l_split, log2_int, log2_regret, rest):
    """Whether a growth with these class counts (on ``S'`` and on ``S' \\ M``) passes the
    local test of Eq. 3.22 or that of Eq. 3.25, computed as ``_score_candidates`` computes
    them (the kernel counts the data-code change of those growths only, see ``need_tested``,
    and the search keeps only them: ``score_growths(tested_only=True)``). ``nb``, ``nbu``:
    the base's coverage on ``S`` and on ``S \\ M``; ``nml_base``, ``nml_base_unc``: its code
    lengths without the split (the same for every growth, so the caller computes them once).
    ``rest``: a (C,) int64 work buffer. The expression is written twice on purpose: a shared
    helper called from ``_score_candidates``' per-growth loop made the avila fit 10% slower
    (2026-11-26); ``tests/test_search.py`` checks that both give the same growths."""
    C = counts.shape[0]
    cov = 0
    cov_unc = 0
    for c in range(C):
        cov += counts[c]
        cov_unc += counts_unc[c]
        rest[c] = base_counts[c] - counts[c]
    nml_split = (_nll_int(counts, counts, log2_int) + log2_regret[cov]
                 + _nll_int(rest, rest, log2_int) + log2_regret[nb - cov] + l_split)
    if nml_base > nml_split:
        return True
    for c in range(C):
        rest[c] = base_counts_unc[c] - counts_unc[c]
    nml_split_unc = (_nll_int(counts_unc, counts_unc, log2_int) + log2_regret[cov_unc]
                     + _nll_int(rest, rest, log2_int) + log2_regret[nbu - cov_unc] + l_split)
    return nml_base_unc > nml_split_unc


@njit(cache=NUMBA_CACHE, nogil=True)
def _local_tests_at_cut(counts_a, counts_a_unc, counts_b, counts_b_unc, test_a, test_b, nb, nbu, nml_base,
                        nml_base_unc, l_split, log2_int, log2_regret):
    """:func:`_passes_a_local_test` for both growths of one cut point at once: ``A`` keeps the
    base's rows below the cut (side 0), ``B`` those above (side 1), and each is the other's rest
    (the caller checks that ``A + B`` is the base, on ``S`` and on ``S \\ M``). Each part's
    code lengths are counted once instead of once per side, and each side's sum is taken in
    the order ``_passes_a_local_test`` takes it (its part, then its rest), so both give the
    same bits. ``test_a``, ``test_b``: which sides to test (the other returns False); the
    parts' code lengths on ``S \\ M`` are counted only if a tested side fails Eq. 3.22."""
    C = counts_a.shape[0]
    cov_a = 0
    cov_a_unc = 0
    for c in range(C):
        cov_a += counts_a[c]
        cov_a_unc += counts_a_unc[c]
    cov_b = nb - cov_a
    cov_b_unc = nbu - cov_a_unc
    nll_a = _nll_int(counts_a, counts_a, log2_int)
    nll_b = _nll_int(counts_b, counts_b, log2_int)
    pass_a = test_a and nml_base > nll_a + log2_regret[cov_a] + nll_b + log2_regret[cov_b] + l_split
    pass_b = test_b and nml_base > nll_b + log2_regret[cov_b] + nll_a + log2_regret[cov_a] + l_split
    if (test_a and not pass_a) or (test_b and not pass_b):
        nll_a = _nll_int(counts_a_unc, counts_a_unc, log2_int)
        nll_b = _nll_int(counts_b_unc, counts_b_unc, log2_int)
        if test_a and not pass_a:
            pass_a = nml_base_unc > (nll_a + log2_regret[cov_a_unc] + nll_b + log2_regret[cov_b_unc] + l_split)
        if test_b and not pass_b:
            pass_b = nml_base_unc > (nll_b + log2_regret[cov_b_unc] + nll_a + log2_regret[cov_a_unc] + l_split)
    return pass_a, pass_b


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
def _union_by_rows(cum_union, bins_f, bucket, y, rows, group_local, nbr_ptr, nbr_idx, nbr_w, sub_ptr, sub_idx,
                   sub_sign, n_sub, bmin, bmax):
    """``cum_union`` (G, nb + 1, C) int64 of ``_grow_candidates_impl`` built row by row, over buckets of
    bins (``bucket[b]``: the bucket of bin ``b``, ``nb`` buckets; the identity for plain bins): each
    covered row adds ``w`` to the groups its group's pair list names and 1 to its rule subsets;
    the subsets then enter their groups with their signs, and the buckets are cumulated. Cheaper
    than the per-bucket build when a group has few rows per bucket (``bmin``..``bmax``: the
    rows' buckets)."""
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
    prefix. Used by ``_union_by_bits`` and ``turs._core.groups._union_counts_by_bits``."""
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
def _union_by_bits(cum_union, bins_f, bucket, y, rows, group_local, covered, grp_ptr, grp_rules, n_rules, g_start=0):
    """``cum_union`` (G, nb + 1, C) int64 built with bit sets, over buckets of bins (``bucket[b]``: the
    bucket of bin ``b``, ``nb`` buckets; the identity for plain bins; "bin" below is a bucket):
    the covered rows of the base are put in (class, bin) order, each rule of ``M`` gets the bit
    set of its rows in that order, the union of group g's rules
    (``grp_rules[grp_ptr[g]:grp_ptr[g + 1]]``, in increasing order) is the OR of its rules'
    sets, built as a trie (a group ORs only the rules after the ones it shares with
    the group before it), and its count of class c in bins ``< b`` the set bits before the start
    of segment (c, b) minus those before (c, 0): two rank queries (popcounts of the words before
    a position, cumulated once per group, plus one masked word). Work: the rows' rules, plus per
    group its rules outside the shared prefix x (covered rows / 64) words, the popcounts of its
    words and one rank query per (bin, class): no list that grows with the groups.
    ``cum_union[j]`` is group ``g_start + j`` (a range of the groups, see ``_grow_chunk_impl``);
    ``covered``: the indices ``i`` of the rows ``M`` covers (``group_local[i] >= 0``)."""
    G, nb1, C = cum_union.shape
    nb = nb1 - 1
    n_seg = nb * C
    off = np.zeros(n_seg + 1, dtype=np.int64)  # segment (c, b) starts at off[c * nb + b]
    for i in covered:
        r = rows[i]
        off[y[r] * nb + bucket[bins_f[r]] + 1] += 1
    for s in range(n_seg):
        off[s + 1] += off[s]
    mc = off[n_seg]
    n_words = (mc + 63) >> 6
    sets = np.zeros((n_rules, n_words), dtype=np.uint64)
    nxt = off[:n_seg].copy()
    one = np.uint64(1)
    for i in covered:
        J = group_local[i]
        r = rows[i]
        s = y[r] * nb + bucket[bins_f[r]]
        p = nxt[s]
        nxt[s] = p + 1
        bit = one << np.uint64(p & 63)
        w = p >> 6
        for a in range(grp_ptr[J], grp_ptr[J + 1]):
            sets[grp_rules[a], w] |= bit
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


@njit(cache=NUMBA_CACHE)
def _rows_by_group(group_local, g_start, n_groups):
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


@njit(cache=NUMBA_CACHE)
def _slot_interval(f, S, l, h, t, side):
    """The bins ``[a, e)`` kept by the literal that cuts feature ``f`` (base interval ``[l, h)``)
    at ``t`` -- side 0 keeps ``[l, t)``, side 1 ``[t, h)`` -- and its candidate slot."""
    if side == 0:
        return l, t, f * S + 2 * (t - 1)
    return t, h, f * S + 2 * (t - 1) + 1


def _grow_chunk_impl(bins, y, rows, lo, hi, n_bins, n_classes, group_local, nbr_ptr, nbr_idx, nbr_w,
                     union_counts, sub_ptr, sub_idx, sub_sign, n_sub, log2_int, grp_ptr, grp_rules, n_rules,
                     f_start, f_stop, g_start, g_stop, path, need, need_tested, log2_regret, base_counts,
                     base_counts_unc, log2_d, binary, split_cut_bits, split_extra, valid, new_lo, new_hi, counts,
                     counts_unc, delta_nll, k_split):
    r"""Counts of every one-literal growth of a base rule (Algorithm 4, line 7) on the features
    ``f_start..f_stop-1``, written into ``valid`` .. ``k_split`` (see :func:`_grow_candidates`),
    with the data-code terms of the groups ``g_start..g_stop-1`` only: a feature whose work is
    too large for one call is done in several calls over consecutive group ranges (each call
    adds its groups' terms to ``delta_nll``, so every slot still sums its groups in increasing
    order). A call over part of the groups uses the bit-set build (it needs ``n_rules > 0``).

    Parameters (plain arrays)
    -------------------------
    bins : (d, n) uint8       bin codes, ``bin = #{cuts <= x}``
    y : (n,) int64            class codes
    rows : (m,) int64         the base rule's cover
    lo, hi : (d,) int64       the base rule's bin interval per feature (its rows lie inside it)
    n_bins : (d,) int64       number of bins per feature
    group_local : (m,) int64  overlap group of each row of ``rows`` (-1: not covered by M)
    nbr_ptr, nbr_idx, nbr_w : CSR lists, per group J, of groups g with a weight ``w``
    union_counts : (G, C) float  class counts of the union of the covers of group g's rules
    sub_ptr, sub_idx, sub_sign : CSR lists, per group, of rule subsets ``T`` (indices ``< n_sub``)
        with a sign
    log2_int : (n + 1,) float    ``log2`` of 0..n (counts; entry 0 unused)
    grp_ptr, grp_rules : CSR lists of each group's rules (ids ``< n_rules``); empty (``n_rules
        = 0``) when the caller has none, which rules out the bit-set build
    path : ``PATH_AUTO`` (the cheapest build of ``cum_union`` per feature by the cost model
        below), or one build forced (``PATH_ROWS``, ``PATH_BINS``, ``PATH_BITS``; tests)
    need : (slots,) bool      the slots whose ``delta_nll`` is wanted: the others keep 0, and a
        feature without one skips the groups' work (the union counts and the per-slot loop)
        altogether; the counts of every slot are written whatever ``need`` says
    need_tested : bool       also count the data-code change of every valid growth that passes
        a local test (Eq. 3.22 or 3.25, ``_passes_a_local_test``; the only growths a beam can
        take), marking it in ``need`` (written in place: on return ``need`` says which slots
        have ``delta_nll``); the local tests need ``log2_regret``, the base's class counts
        ``base_counts`` and ``base_counts_unc`` (on ``S \\ M``) and ``L_split`` per feature:
        ``log2_d + split_cut_bits[f] + split_extra`` if ``split_cut_bits`` is not empty, else
        ``log2_d + log2 max(k_split[f], 1)`` (0 for a ``binary`` feature), as ``_finish_growths``

    The counts of a candidate ``S'`` inside the union of group g's rules (per bin, cumulated) are
    ``sum over g's subsets T of sign * |S' in every rule of T| + sum over groups J listing g of
    w * |S' in J|``. The caller chooses the lists (``turs.search.state.UNION_COUNTS``), e.g.
    inclusion-exclusion (all subsets of g's rules, sign ``(-1)^(|T|+1)``, no pairs); pairs only
    (no subsets; J lists every group it shares a rule with, ``w = 1``); or single rules
    (each rule of g, sign 1) corrected by the pairs that share ``s >= 2`` rules,
    ``w = -(s - 1)``: a row of J is counted ``s`` times by the single rules and once in the union.
    The bit-set build needs only each group's rules (``_union_by_bits``). All builds give the
    same integer counts, so the result does not depend on the build.

    Candidate slot ``f * S + 2 * (t - 1) + side`` (``S = 2 * (max n_bins - 1)``) holds the
    literal on feature ``f`` that keeps bins ``[lo_f, t)`` (side 0) or ``[t, hi_f)`` (side 1).
    Writes valid (slots,) bool, new_lo (slots,), new_hi (slots,), counts (slots, C),
    counts_uncovered (slots, C), delta_nll (slots,), k_split (d,) for the chunk's features;
    the other entries are left as they are. The caller passes zeros (``delta_nll`` is
    accumulated in place).

    ``delta_nll`` is the change in the data code length (bits) of the instances of the
    candidate that M already covers: their class distribution becomes that of the union of
    their rules' covers *and* the candidate's (Eq. 3.5-3.6). ``k_split[f]`` counts the cut
    points of ``f`` that split the base cover into two non-empty parts (``K_value``).
    """
    d = bins.shape[0]
    m = rows.shape[0]
    C = n_classes
    G = union_counts.shape[0]
    max_bins = 0
    for f in range(d):
        if n_bins[f] > max_bins:
            max_bins = n_bins[f]
    S = 2 * max(max_bins - 1, 1)
    # the union's class counts as integers, and log2 of its class frequencies (from the table)
    union_int = np.zeros((G, C), dtype=np.int64)
    union_tot_int = np.zeros(G, dtype=np.int64)
    log_p_old = np.zeros((G, C))
    for g in range(G):
        for c in range(C):
            union_int[g, c] = int(union_counts[g, c])
            union_tot_int[g] += union_int[g, c]
        for c in range(C):
            if union_int[g, c] > 0:
                log_p_old[g, c] = log2_int[union_int[g, c]] - log2_int[union_tot_int[g]]

    sub_ones = np.ones(sub_idx.shape[0])
    has_pairs = nbr_idx.shape[0] > 0
    # additions the per-row union build makes (the same for every feature), the rules the rows
    # carry and the words the groups' rules OR together in the bit-set build
    row_adds = 0
    rule_adds = 0
    m_covered = 0
    class_covered = np.zeros(C, dtype=np.bool_)  # the classes of the rows M covers
    for i in range(m if G > 0 else 0):
        J = group_local[i]
        if J >= 0:
            m_covered += 1
            class_covered[y[rows[i]]] = True
            if has_pairs:
                row_adds += nbr_ptr[J + 1] - nbr_ptr[J]
            if n_sub > 0:
                row_adds += sub_ptr[J + 1] - sub_ptr[J]
            if n_rules > 0:
                rule_adds += grp_ptr[J + 1] - grp_ptr[J]
    group_rules = grp_ptr[G] if n_rules > 0 else 0
    n_classes_covered = 0  # the bit-set build makes no rank query for the other classes
    for c in range(C):
        n_classes_covered += class_covered[c]
    n_words = (m_covered + 63) // 64
    # the base's code lengths without a split, for the local tests (the same for every growth)
    nb_base = np.int64(0)  # not the literal 0: callees would compile a second time for it
    nbu_base = np.int64(0)
    nml_base = 0.0
    nml_base_unc = 0.0
    if need_tested:
        for c in range(C):
            nb_base += base_counts[c]
            nbu_base += base_counts_unc[c]
        nml_base = _nll_int(base_counts, base_counts, log2_int) + log2_regret[nb_base]
        nml_base_unc = _nll_int(base_counts_unc, base_counts_unc, log2_int) + log2_regret[nbu_base]
    g0 = g_start
    Gr = g_stop - g_start  # the groups of this call: local index j is group g0 + j
    part = Gr < G
    # the rows of each group, so that a feature's pass over them builds one group's histogram
    # after the other (4.5-7% less kernel time than one pass in row order on replayed calls of
    # the noisy 20k and magic fits, 2026-11-27: the scattered counts stay in one small block)
    grp_row_ptr, grp_row_idx = _rows_by_group(group_local, g0, Gr)
    covered = np.flatnonzero(group_local >= 0)  # the bit-set build's rows, without a test per row
    for f in prange(f_start, f_stop):
        nb = n_bins[f]
        l = lo[f]
        h = hi[f]
        if h - l < 2:
            continue
        wanted = False  # a slot of this feature whose data-code change is asked for
        for slot in range(f * S + 2 * l, f * S + 2 * (h - 1)):
            if need[slot]:
                wanted = True
        # cumulative histograms: cum[b] = counts of bins < b
        cum_all = np.zeros((nb + 1, C), dtype=np.int64)
        cum_unc = np.zeros((nb + 1, C), dtype=np.int64)
        for i in range(m):
            r = rows[i]
            b = bins[f, r]
            cls = y[r]
            cum_all[b + 1, cls] += 1
            cum_unc[b + 1, cls] += group_local[i] < 0  # no branch: covered and not are mixed
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
        if bmax < 0:
            continue
        k_split[f] = bmax - bmin
        cov_slot = np.zeros(2 * nb, dtype=np.int64)  # the coverage of slot (t, side) at 2 t + side
        for t in range(l + 1, h):
            for side in range(2):
                a, e, slot = _slot_interval(f, S, l, h, t, side)
                cov = 0
                cov_unc = 0
                for c in range(C):
                    v = cum_all[e, c] - cum_all[a, c]
                    counts[slot, c] = v
                    counts_unc[slot, c] = cum_unc[e, c] - cum_unc[a, c]
                    cov += v
                    cov_unc += counts_unc[slot, c]
                cov_slot[2 * t + side] = cov
                # a growth equal to its base, empty, or adding no instance outside M has no
                # learning speed (Eq. 3.21 divides by the new coverage): not a candidate
                if cov == 0 or cov == m or cov_unc == 0:
                    continue
                valid[slot] = True
                new_lo[slot] = a
                new_hi[slot] = e
        if need_tested and Gr > 0:
            if split_cut_bits.shape[0] > 0:
                l_split = log2_d + split_cut_bits[f] + split_extra
            elif binary[f]:
                l_split = log2_d + 0.0
            else:
                l_split = log2_d + math.log2(max(k_split[f], 1))
            rest = np.empty(C, dtype=np.int64)
            # the two sides of a cut point split the base into the same two parts, so each part's
            # code lengths are counted once per cut point (``_local_tests_at_cut``); that needs
            # the base's rows to be exactly those in [l, h), which the caller's class counts say
            paired = True
            for c in range(C):
                if (base_counts[c] != cum_all[h, c] - cum_all[l, c]
                        or base_counts_unc[c] != cum_unc[h, c] - cum_unc[l, c]):
                    paired = False
            for t in range(l + 1, h):
                s0 = f * S + 2 * (t - 1)
                test0 = valid[s0] and not need[s0]
                test1 = valid[s0 + 1] and not need[s0 + 1]
                if not (test0 or test1):
                    continue
                if paired:
                    pass0, pass1 = _local_tests_at_cut(
                        counts[s0], counts_unc[s0], counts[s0 + 1], counts_unc[s0 + 1], test0, test1, nb_base,
                        nbu_base, nml_base, nml_base_unc, l_split, log2_int, log2_regret)
                else:
                    pass0 = test0 and _passes_a_local_test(
                        counts[s0], counts_unc[s0], nb_base, nbu_base, nml_base, nml_base_unc, base_counts,
                        base_counts_unc, l_split, log2_int, log2_regret, rest)
                    pass1 = test1 and _passes_a_local_test(
                        counts[s0 + 1], counts_unc[s0 + 1], nb_base, nbu_base, nml_base, nml_base_unc, base_counts,
                        base_counts_unc, l_split, log2_int, log2_regret, rest)
                if pass0:
                    need[s0] = True
                    wanted = True
                if pass1:
                    need[s0 + 1] = True
                    wanted = True
        if not wanted or Gr == 0:
            continue
        # the cut points t whose slot wants its data-code change, per side, in increasing order
        n_want = np.zeros(2, dtype=np.int64)
        want_t = np.empty((2, max(h - l - 1, 1)), dtype=np.int64)
        # the groups' work reads their counts only at the base's ends l and h and at those cut
        # points: the bins between two of them are one bucket, ``bucket[b]`` (the work on the
        # groups x bins x classes is then on buckets, ``nbk`` of them, not bins), and a read at
        # bin t is at ``at[t]``, the buckets before it (docs/performance.md)
        read = np.zeros(nb + 1, dtype=np.bool_)
        read[l] = True
        for t in range(l + 1, h):
            for side in range(2):
                slot = _slot_interval(f, S, l, h, t, side)[2]
                if valid[slot] and need[slot]:
                    want_t[side, n_want[side]] = t
                    n_want[side] += 1
                    read[t] = True
        at = np.empty(nb + 1, dtype=np.int64)
        bucket = np.zeros(nb, dtype=np.int64)
        nbk = -1
        for b in range(l, h):  # a read bin starts a bucket (l is one)
            if read[b]:
                nbk += 1
                at[b] = nbk
            bucket[b] = nbk
        nbk += 1
        at[h] = nbk
        kmin = bucket[bmin]
        kmax = bucket[bmax]
        # the groups' histograms over the buckets (cumulated: cum_g[g, k] = rows in buckets < k),
        # with the first and last bin holding a row of each group
        cum_g = np.zeros((Gr, nbk + 1, C), dtype=np.int64)
        g_first = np.full(Gr, nb, dtype=np.int64)
        g_last = np.full(Gr, -1, dtype=np.int64)
        for g in range(Gr):  # group by group: each group's histogram is contiguous
            first = nb
            last = -1
            for s2 in range(grp_row_ptr[g], grp_row_ptr[g + 1]):
                r = rows[grp_row_idx[s2]]
                b = bins[f, r]
                cum_g[g, bucket[b] + 1, y[r]] += 1
                if b < first:
                    first = b
                if b > last:
                    last = b
            g_first[g] = first
            g_last[g] = last
            for k in range(1, nbk + 1):
                for c in range(C):
                    cum_g[g, k, c] += cum_g[g, k - 1, c]
        # cum_union[g, k]: counts of the base rows in buckets < k inside the union of group g's
        # rules (subset sums and weighted pair sums per bucket, see above), built per bucket from
        # the groups' histograms, per row from each row's lists, or with bit sets, whichever
        # costs the least
        cum_union = np.zeros((Gr, nbk + 1, C), dtype=np.int64)  # integer counts: every build is exact
        n_used = kmax - kmin + 1
        cost_rows = row_adds + ROWS_PREFIX_COST * G * nbk * C
        cost_bins = (BINS_FIXED_COST + BINS_BUCKET_COST * n_used * G * C
                     + BINS_SCATTER_COST * C * min(m_covered, G * n_used) * row_adds / max(m_covered, 1))
        cost_bits = (BITS_FIXED_COST + BITS_RULE_COST * rule_adds + BITS_WORD_COST * (n_rules + group_rules) * n_words
                     + BITS_RANK_COST * G * nbk * n_classes_covered
                     if n_rules > 0 else np.inf)
        use = path
        if use == PATH_AUTO:
            use = PATH_ROWS if cost_rows < cost_bins else PATH_BINS
            if cost_bits < min(cost_rows, cost_bins):
                use = PATH_BITS
        if part or (use == PATH_BITS and n_rules > 0):
            _union_by_bits(cum_union, bins[f], bucket, y, rows, group_local, covered, grp_ptr, grp_rules, n_rules,
                           g0)
        elif use == PATH_ROWS or use == PATH_BITS:
            _union_by_rows(cum_union, bins[f], bucket, y, rows, group_local, nbr_ptr, nbr_idx, nbr_w, sub_ptr,
                           sub_idx, sub_sign, n_sub, kmin, kmax)
        else:
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
        # the data-code change, group by group (each group's histograms stay in cache); every
        # slot still adds its groups' terms in increasing group order, as one sum per slot, and
        # a group's terms in increasing class order. A side-0 slot [l, t) holds a row of group g
        # iff t > its first bin, a side-1 slot [t, h) iff t <= its last. Only the classes the
        # group has rows of give terms: their list is taken once per group (avila's groups have
        # rows of a few of its 12 classes). Each group visits only the slots that want the
        # change (replayed kernel calls, 2026-11-26: 4-8% less time on avila, waveform and noisy
        # 20k, the same arrays). A slot's count inside the union comes from the group's union
        # counts summed over the classes once per bucket (``cum_union_all``), not per slot: 1-5%
        # less (the same replays). The sums are of integers, so exact.
        group_classes = np.empty(C, dtype=np.int64)
        cum_union_all = np.empty(nbk + 1, dtype=np.int64)  # cum_union[j, k] summed over the classes
        g_lp = np.empty(C)  # the group's log2 class frequencies and union counts, per class it has
        g_ui = np.empty(C, dtype=np.int64)
        for j in range(Gr):
            g = g0 + j
            if g_last[j] < 0:
                continue  # no row of group g in this cover
            n_gcl = 0
            for c in range(C):
                if cum_g[j, nbk, c] > 0:
                    group_classes[n_gcl] = c
                    n_gcl += 1
            for k in range(nbk + 1):
                tot = 0
                for c in range(C):
                    tot += cum_union[j, k, c]
                cum_union_all[k] = tot
            ut = union_tot_int[g]
            for q in range(n_gcl):
                c = group_classes[q]
                g_lp[q] = log_p_old[g, c]
                g_ui[q] = union_int[g, c]
            # per slot (its index as ``_slot_interval`` gives it): the candidate's count outside
            # the union of group g's rules (``add_tot``, ``add_c``); the group's rows are then
            # coded with the frequencies of union + candidate. Each side is a loop of its own:
            # side 0 keeps [l, t), whose counts start at bucket at[l] = 0, where every cumulated
            # count is 0; side 1 keeps [t, h), whose counts end at bucket at[h] = nbk, the
            # group's totals (2-3% less kernel time than one loop over both sides on replayed
            # calls of the noisy 20k, magic, waveform and avila fits, 2026-11-27; the same arrays)
            t0 = max(l + 1, g_first[j] + 1)
            for w in range(n_want[0]):
                t = want_t[0, w]
                if t < t0:
                    continue
                slot = f * S + 2 * (t - 1)
                ke = at[t]
                add_tot = cov_slot[2 * t] - cum_union_all[ke]
                log_tot = log2_int[ut + add_tot]
                for q in range(n_gcl):
                    c = group_classes[q]
                    n_gc = cum_g[j, ke, c]
                    if n_gc > 0:
                        add_c = counts[slot, c] - cum_union[j, ke, c]
                        delta_nll[slot] += n_gc * (g_lp[q] - log2_int[g_ui[q] + add_c] + log_tot)
            t1 = min(h, g_last[j] + 1)
            for w in range(n_want[1]):
                t = want_t[1, w]
                if t >= t1:
                    break
                slot = f * S + 2 * (t - 1) + 1
                ka = at[t]
                add_tot = cov_slot[2 * t + 1] - (cum_union_all[nbk] - cum_union_all[ka])
                log_tot = log2_int[ut + add_tot]
                for q in range(n_gcl):
                    c = group_classes[q]
                    n_gc = cum_g[j, nbk, c] - cum_g[j, ka, c]
                    if n_gc > 0:
                        add_c = counts[slot, c] - (cum_union[j, nbk, c] - cum_union[j, ka, c])
                        delta_nll[slot] += n_gc * (g_lp[q] - log2_int[g_ui[q] + add_c] + log_tot)


def _variant(func, name):
    """A copy of ``func`` under another name.

    numba's on-disk cache keys a compiled function by its module, qualified name and line, not
    by its ``parallel`` flag: two ``njit`` variants of one Python function share one cache entry,
    and the second loads the first's machine code. Each variant therefore gets its own name.
    """
    copy = types.FunctionType(func.__code__, func.__globals__, name, func.__defaults__, func.__closure__)
    copy.__qualname__ = name
    copy.__doc__ = func.__doc__
    return copy


# nogil: the search scores the bases of one beam iteration in two threads (``turs.search.beam``)
_grow_chunk_serial = njit(cache=NUMBA_CACHE, nogil=True)(_variant(_grow_chunk_impl, "_grow_chunk_serial"))
_grow_chunk_parallel = njit(cache=NUMBA_CACHE, parallel=True, nogil=True)(
    _variant(_grow_chunk_impl, "_grow_chunk_parallel"))


def n_slots(n_bins: np.ndarray, max_bins: int | None = None) -> int:
    """The candidate slots of a kernel call on columns with ``n_bins`` bins each: two per cut
    point of the column with the most bins (``max_bins``, if the caller has it), per column
    (``_grow_chunk_impl``)."""
    d = n_bins.shape[0]
    if max_bins is None:
        max_bins = int(n_bins.max()) if d else 1
    return d * 2 * max(max_bins - 1, 1)


def _outputs(n_bins, C, S):
    d = n_bins.shape[0]
    return (np.zeros(S, dtype=np.bool_), np.zeros(S, dtype=np.int64), np.zeros(S, dtype=np.int64),
            np.zeros((S, C), dtype=np.int64), np.zeros((S, C), dtype=np.int64), np.zeros(S),
            np.zeros(d, dtype=np.int64))


def _grow_candidates_serial(bins, y, rows, lo, hi, n_bins, n_classes, group_local, nbr_ptr, nbr_idx, nbr_w,
                            union_counts, sub_ptr, sub_idx, sub_sign, n_sub, log2_int):
    """:func:`_grow_candidates` on the serial kernel, in one call, without the groups' rule lists
    (the signature the growth kernel had before the chunks)."""
    return _grow_candidates(bins, y, rows, lo, hi, n_bins, n_classes, group_local, nbr_ptr, nbr_idx, nbr_w,
                            union_counts, sub_ptr, sub_idx, sub_sign, n_sub, log2_int, max_work=np.inf,
                            kernel=_grow_chunk_serial)


def _grow_candidates_parallel(bins, y, rows, lo, hi, n_bins, n_classes, group_local, nbr_ptr, nbr_idx, nbr_w,
                              union_counts, sub_ptr, sub_idx, sub_sign, n_sub, log2_int):
    """:func:`_grow_candidates` on the ``prange`` kernel, in one call (``turs.warmup`` calls it:
    it compiles that kernel for the argument types the search passes)."""
    return _grow_candidates(bins, y, rows, lo, hi, n_bins, n_classes, group_local, nbr_ptr, nbr_idx, nbr_w,
                            union_counts, sub_ptr, sub_idx, sub_sign, n_sub, log2_int, max_work=np.inf,
                            kernel=_grow_chunk_parallel)


PARALLEL_MIN_WORK = 20_000_000
"""Rows x cut points (the data's, an upper bound of the base's) x (1 + groups) below which the
serial kernel is used: waking a thread team (passive OpenMP wait, see ``turs._config``) costs
more than it saves on small covers, and the two threads of this machine share little (1.4x at
best, on the largest calls). Measured on every 10th (waveform, 684 calls) or 2nd kernel call
of fold-0 fits, replayed serial and parallel (2-core machine, 2026-11-22), kernel seconds, with
the base's own cut points in the rule: waveform serial 1.229, former rule (rows x features x
(1 + groups) >= 1e7) 1.035, this rule 0.889; pendigits 1.364, 1.363, 1.299; chess,
mammography and vehicle the same under all three (0.105, 0.026, 0.052): their calls stay
serial. With the data's cut points as the bound (``make bench``, 2026-11-22, whole fits, 1
thread vs 2): waveform 16.4 vs 13.5 s, pendigits 5.0 vs 5.4 s, Vehicle 0.22 s both."""

MAX_CALL_WORK = 20_000_000
"""Estimated work (scattered additions, see :func:`feature_work`) above which a base's features
are split over several kernel calls, and a single feature above it over several ranges of the
overlap groups. numba's loops do not see signals: Python raises ``KeyboardInterrupt`` only
when a call returns, so this bounds how long Ctrl-C waits: the estimate ran at 1.2e8 units
per second (median over the 30 slowest kernel calls of the noisy 10k fit, 2-core machine at
load 8), i.e. about 0.17 s per call under that load and less when idle
(``docs/performance.md``). Only the pass over the cover's rows of one
feature is not split."""


def feature_work(m, n_groups, n_list, n_group_rules, nb, C, slots):
    """The estimated work of one feature of a growth-kernel call (scattered-addition units):
    the pass over the ``m`` rows, the groups' histograms and prefix sums, the cheapest union
    build (``n_list``: list entries per row, ``n_group_rules``: rules summed over the groups;
    0: no bit-set build) and the per-slot loop over the groups."""
    base = 2.0 * m + 3.0 * n_groups * (nb + 1) * C
    union = min(m * n_list, n_groups * nb * C + m * n_list)
    if n_group_rules > 0:
        union = min(union, BIT_OP_COST * n_group_rules * m / 64.0 + n_groups * nb * C + 2 * m)
    return base + union + 4.0 * slots * n_groups * C


def _read_only(value):
    """An array as a read-only view (other values as they are)."""
    if isinstance(value, np.ndarray) and value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value


def _writable(value):
    """An array as a writable array (a copy of a read-only one; other values as they are)."""
    if isinstance(value, np.ndarray) and not value.flags.writeable:
        value = value.copy()
    return value


def _as_score_base_passes(local_tests):
    """``local_tests`` with the array flags ``_score_base`` passes them to the kernel: the regret
    table read-only (as the search keeps it), the base's counts and the split's tables writable.
    numba compiles a kernel once per set of array flags: with these, the separate kernel calls
    and ``_score_base`` share one compiled serial kernel."""
    return (_read_only(local_tests[0]), *(_writable(v) for v in local_tests[1:]))


_NO_LOCAL_TESTS = _as_score_base_passes((
    np.zeros(1), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 0.0, np.zeros(0, dtype=np.bool_),
    np.zeros(0), 0.0))


def _grow_candidates(bins, y, rows, lo, hi, n_bins, n_classes, group_local, nbr_ptr, nbr_idx, nbr_w, union_counts,
                     sub_ptr, sub_idx, sub_sign, n_sub, log2_int, n_cuts=None, grp_ptr=None, grp_rules=None,
                     n_rules=0, path=None, max_work=None, between_calls=None, kernel=None, need=None,
                     local_tests=None, max_bins=None):
    """Counts of every one-literal growth of a base rule (see ``_grow_chunk_impl``).

    Returns valid (slots,) bool, new_lo (slots,), new_hi (slots,), counts (slots, C),
    counts_uncovered (slots, C), delta_nll (slots,), k_split (d,).

    The features are split into chunks of at most ``max_work`` (default ``MAX_CALL_WORK``)
    estimated work, each one kernel call, serial or ``prange`` by its size
    (``PARALLEL_MIN_WORK``); ``between_calls()``, if given, runs before each call (a progress
    or cancellation hook). ``n_cuts``: the cut points the base's intervals hold, or an upper
    bound; computed when None. ``grp_ptr``, ``grp_rules``, ``n_rules``: each group's rules
    (CSR, rule ids ``< n_rules``), which enable the bit-set build of the union counts;
    ``path``: the build (default ``UNION_BUILD``, the cheapest per feature); ``kernel``: the
    serial or the parallel chunk kernel for every call (default: by the work of the call);
    ``need``: the slots whose ``delta_nll`` is wanted (``_grow_chunk_impl``; None: all);
    ``local_tests``: ``(log2_regret, base_counts, base_counts_unc, log2_d, binary,
    split_cut_bits, split_extra)`` to also count it for every growth that passes a local test
    (``need_tested``); ``need`` then says on return which slots have it.
    Every argument reaches the kernel with the same types whatever the caller passed, so that
    ``turs.warmup`` compiles what the search runs. ``max_bins``: ``n_bins.max()``, if the caller
    has it (the search keeps it with the data).
    """
    d = bins.shape[0]
    C = int(n_classes)
    n_sub = int(n_sub)
    if max_bins is None:
        max_bins = int(n_bins.max()) if d else 1
    out = _outputs(n_bins, C, n_slots(n_bins, max_bins))
    if need is None:
        need = np.ones(out[0].shape[0], dtype=np.bool_)
    need_tested = local_tests is not None
    # the flags _score_base passes (a second compile of the kernel would hold up Ctrl-C)
    local_tests = _NO_LOCAL_TESTS if local_tests is None else _as_score_base_passes(local_tests)
    if grp_ptr is None or n_rules == 0:
        grp_ptr, grp_rules, n_rules = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), 0
    n_rules = int(n_rules)
    path = int(UNION_BUILD if path is None else path)
    if n_cuts is None:
        n_cuts = int(np.maximum(hi - lo - 1, 0).sum())
    m = rows.shape[0]
    G = union_counts.shape[0]
    max_work = MAX_CALL_WORK if max_work is None else max_work
    n_list = (nbr_idx.shape[0] + sub_idx.shape[0]) / max(G, 1)  # list entries per group (a row's, roughly)
    per_feature = feature_work(m, G, n_list, grp_ptr[-1] if n_rules else 0, max_bins, C, 2 * (max_bins - 1))
    step = d if per_feature * d <= max_work else max(1, int(max_work // per_feature))
    # a feature too large for one call is split over group ranges (bit-set build only)
    n_parts = 1
    if per_feature > max_work and n_rules > 0 and G > 1:
        n_parts = min(G, int(np.ceil(per_feature / max_work)))
    bounds = np.linspace(0, G, n_parts + 1).round().astype(np.int64) if n_parts > 1 else (0, G)
    for f0 in range(0, d, step):
        f1 = min(d, f0 + step)
        work = m * n_cuts * (f1 - f0) / max(d, 1) * (1 + G)
        chunk = kernel
        if chunk is None:
            chunk = _grow_chunk_parallel if NUMBA_PARALLEL and work >= PARALLEL_MIN_WORK else _grow_chunk_serial
        if n_parts > 1 and not (hi[f0:f1] - lo[f0:f1] >= 2).any():
            continue  # no cut inside the base's interval: nothing to count
        for p in range(n_parts):
            if between_calls is not None:
                between_calls()
            chunk(bins, y, rows, lo, hi, n_bins, C, group_local, nbr_ptr, nbr_idx, nbr_w, union_counts, sub_ptr,
                  sub_idx, sub_sign, n_sub, log2_int, grp_ptr, grp_rules, n_rules, f0, f1, int(bounds[p]),
                  int(bounds[p + 1]), path, need, need_tested, *local_tests, *out)
    return out
