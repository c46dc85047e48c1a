"""The growth kernel of the beam search (Algorithm 4, line 7; thesis Section 3.5, "Design for
speed"): the counts and the data-code change of every one-literal growth of a base rule, in
feature chunks.

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
The union builds are in ``turs._core.union_counts``, the local tests in
``turs._core.local_test``. ``_grow_chunk_impl`` stays one long function on purpose: with its
per-feature body as a kernel of its own, warm fits of small data were 30-50% slower
(``docs/compile.md``, "the cost of a call per feature that LLVM did not inline").
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .. import _config
from .._config import (BINS_BUCKET_COST, BINS_FIXED_COST, BINS_SCATTER_COST, BITS_FIXED_COST, BITS_RANK_COST,
                       BITS_RULE_COST, BITS_WORD_COST, NUMBA_CACHE, PATH_AUTO, PATH_BINS, PATH_BITS, PATH_ROWS,
                       ROWS_PREFIX_COST)
from ._cache import _variant
from .local_test import _local_tests_at_cut, _nll_int, _passes_a_local_test
from .local_test import LocalTests
from .overlap_groups import OverlapLists, _group_row_lists
from .union_counts import _union_by_bits, _union_by_buckets, _union_by_rows


class GrowthInputs(NamedTuple):
    """A base rule's cover and the data, as the growth kernel reads them."""

    bins: np.ndarray  # (d, n) uint8 bin codes, ``bin = #{cuts <= x}``
    y: np.ndarray  # (n,) int64 class codes
    rows: np.ndarray  # (m,) int64 the base rule's cover
    lo: np.ndarray  # (d,) int64 the base rule's bin interval per feature (its rows lie inside it)
    hi: np.ndarray  # (d,) int64
    n_bins: np.ndarray  # (d,) int64 number of bins per feature
    n_classes: int
    group_local: np.ndarray  # (m,) int64 overlap group of each row of ``rows`` (-1: not covered by M)
    log2_int: np.ndarray  # (n + 1,) ``log2`` of 0..n (counts; entry 0 unused)


class GrowthOutputs(NamedTuple):
    """The growth kernel's outputs per candidate slot (``_grow_chunk_impl``)."""

    valid: np.ndarray  # (slots,) bool: a candidate (splits the base, adds a row outside M)
    new_lo: np.ndarray  # (slots,) int64 its interval on its feature
    new_hi: np.ndarray  # (slots,) int64
    counts: np.ndarray  # (slots, C) int64 its class counts on S'
    counts_unc: np.ndarray  # (slots, C) int64 and on S' \ M
    delta_nll: np.ndarray  # (slots,) the change of the data code of the rows M covers
    k_split: np.ndarray  # (d,) int64 cut points of each feature that split the base


@njit(cache=NUMBA_CACHE)
def _slot_interval(f, S, l, h, t, side):
    """The bins ``[a, e)`` kept by the literal that cuts feature ``f`` (base interval ``[l, h)``)
    at ``t`` -- side 0 keeps ``[l, t)``, side 1 ``[t, h)`` -- and its candidate slot."""
    if side == 0:
        return l, t, f * S + 2 * (t - 1)
    return t, h, f * S + 2 * (t - 1) + 1


def _grow_chunk_impl(inputs, lists, f_start, f_stop, g_start, g_stop, path, need, need_tested, tests, out):
    r"""Counts of every one-literal growth of a base rule (Algorithm 4, line 7) on the features
    ``f_start..f_stop-1``, written into ``out`` (:class:`GrowthOutputs`; see :func:`_grow_candidates`),
    with the data-code terms of the groups ``g_start..g_stop-1`` only: a feature whose work is
    too large for one call is done in several calls over consecutive group ranges (each call
    adds its groups' terms to ``delta_nll``, so every slot still sums its groups in increasing
    order). A call over part of the groups uses the bit-set build (it needs ``n_rules > 0``).

    Parameters
    ----------
    inputs : :class:`GrowthInputs`  the data, the base's cover and intervals, each covered row's
        overlap group
    lists : ``OverlapLists``  the present groups' lists, numbered locally: union counts (G, C),
        pair lists ``nbr_ptr, nbr_idx, nbr_w`` (per group J, the groups g it adds ``w`` times its
        rows to), subset lists ``sub_ptr, sub_idx, sub_sign`` (per group, its rule subsets ``T``,
        indices ``< n_sub``, with a sign) and rule lists ``grp_ptr, grp_rules`` (ids ``< n_rules``;
        empty, ``n_rules = 0``, when the caller has none, which rules out the bit-set build)
    path : ``PATH_AUTO`` (the cheapest build of ``cum_union`` per feature by the cost model
        below), or one build forced (``PATH_ROWS``, ``PATH_BINS``, ``PATH_BITS``; tests)
    need : (slots,) bool      the slots whose ``delta_nll`` is wanted: the others keep 0, and a
        feature without one skips the groups' work (the union counts and the per-slot loop)
        altogether; the counts of every slot are written whatever ``need`` says
    need_tested : bool       also count the data-code change of every valid growth that passes
        a local test (Eq. 3.22 or 3.25, ``_passes_a_local_test``; the only growths a beam can
        take), marking it in ``need`` (written in place: on return ``need`` says which slots
        have ``delta_nll``); the local tests read ``tests`` (``LocalTests``): ``log2_regret``,
        the base's class counts ``base_counts`` and ``base_counts_unc`` (on ``S \\ M``) and
        ``L_split`` per feature: ``log2_d + split_cut_bits[f] + split_extra`` if
        ``split_cut_bits`` is not empty, else ``log2_d + log2 max(k_split[f], 1)`` (0 for a
        ``binary`` feature), as ``_finish_growths``

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
    bins, y, rows, lo, hi, n_bins, n_classes, group_local, log2_int = (
        inputs.bins, inputs.y, inputs.rows, inputs.lo, inputs.hi, inputs.n_bins, inputs.n_classes, inputs.group_local,
        inputs.log2_int)
    union_counts, nbr_ptr, nbr_idx, nbr_w = lists.union_counts, lists.nbr_ptr, lists.nbr_idx, lists.nbr_w
    sub_ptr, sub_idx, sub_sign, n_sub = lists.sub_ptr, lists.sub_idx, lists.sub_sign, lists.n_sub
    grp_ptr, grp_rules, n_rules = lists.grp_ptr, lists.grp_rules, lists.n_rules
    log2_regret, base_counts, base_counts_unc, log2_d, binary, split_cut_bits, split_extra = (
        tests.log2_regret, tests.base_counts, tests.base_counts_unc, tests.log2_d, tests.binary, tests.split_cut_bits,
        tests.split_extra)
    valid, new_lo, new_hi, counts, counts_unc, delta_nll, k_split = (
        out.valid, out.new_lo, out.new_hi, out.counts, out.counts_unc, out.delta_nll, out.k_split)
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
    # after the other: the scattered counts stay in one small block (less kernel time than one
    # pass in row order; docs/results.md, "Tuning constants")
    grp_row_ptr, grp_row_idx = _group_row_lists(group_local, g0, Gr)
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
            _union_by_bits(cum_union, bins[f], bucket, y, rows, group_local, covered, lists, g0)
        elif use == PATH_ROWS or use == PATH_BITS:
            _union_by_rows(cum_union, bins[f], bucket, y, rows, group_local, lists, kmin, kmax)
        else:
            _union_by_buckets(cum_union, cum_g, lists, sub_ones, kmin, kmax)
        # the data-code change, group by group (each group's histograms stay in cache); every
        # slot still adds its groups' terms in increasing group order, as one sum per slot, and
        # a group's terms in increasing class order. A side-0 slot [l, t) holds a row of group g
        # iff t > its first bin, a side-1 slot [t, h) iff t <= its last. Only the classes the
        # group has rows of give terms: their list is taken once per group (avila's groups have
        # rows of a few of its 12 classes). Each group visits only the slots that want the
        # change. A slot's count inside the union comes from the group's union counts summed
        # over the classes once per bucket (``cum_union_all``), not per slot. Both save kernel
        # time on the same arrays (docs/results.md, "Tuning constants"); the sums are of
        # integers, so exact.
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
            # group's totals (a little less kernel time than one loop over both sides, on the
            # same arrays; docs/results.md, "Tuning constants")
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
    return GrowthOutputs(np.zeros(S, dtype=np.bool_), np.zeros(S, dtype=np.int64), np.zeros(S, dtype=np.int64),
                         np.zeros((S, C), dtype=np.int64), np.zeros((S, C), dtype=np.int64), np.zeros(S),
                         np.zeros(d, dtype=np.int64))


def growth_records(*, bins, y, rows, lo, hi, n_bins, n_classes, group_local, nbr_ptr, nbr_idx, nbr_w, union_counts,
                   sub_ptr, sub_idx, sub_sign, n_sub, log2_int, grp_ptr=None, grp_rules=None, n_rules=0):
    """The growth kernel's :class:`GrowthInputs` and ``OverlapLists`` from plain arrays, each
    passed by its field's name (see ``_grow_chunk_impl``), with the types the search passes (no
    rule lists: empty ones)."""
    if grp_ptr is None or n_rules == 0:
        grp_ptr, grp_rules, n_rules = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), 0
    inputs = GrowthInputs(bins, y, rows, lo, hi, n_bins, int(n_classes), group_local, log2_int)
    lists = OverlapLists(union_counts, nbr_ptr, nbr_idx, nbr_w, nbr_idx.shape[0] > 0, sub_ptr, sub_idx, sub_sign,
                         int(n_sub), int(n_sub) > 0, grp_ptr, grp_rules, int(n_rules))
    return inputs, lists


def _grow_candidates_serial(inputs, lists):
    """:func:`_grow_candidates` on the serial kernel, in one call."""
    return _grow_candidates(inputs, lists, max_work=np.inf, kernel=_grow_chunk_serial)


def _grow_candidates_parallel(inputs, lists):
    """:func:`_grow_candidates` on the ``prange`` kernel, in one call (``turs.warmup`` calls it:
    it compiles that kernel for the argument types the search passes)."""
    return _grow_candidates(inputs, lists, max_work=np.inf, kernel=_grow_chunk_parallel)


def feature_work(m, n_groups, n_list, n_group_rules, nb, C, slots):
    """The estimated work of one feature of a growth-kernel call (scattered-addition units):
    the pass over the ``m`` rows, the groups' histograms and prefix sums, the cheapest union
    build (``n_list``: list entries per row, ``n_group_rules``: rules summed over the groups;
    0: no bit-set build) and the per-slot loop over the groups."""
    base = 2.0 * m + 3.0 * n_groups * (nb + 1) * C
    union = min(m * n_list, n_groups * nb * C + m * n_list)
    if n_group_rules > 0:
        union = min(union, _config.BIT_OP_COST * n_group_rules * m / 64.0 + n_groups * nb * C + 2 * m)
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
    """``local_tests`` as the ``LocalTests`` record ``_score_base`` passes the kernel, with its
    array flags: the regret table read-only (as the search keeps it), the base's counts and the
    split's tables writable. numba compiles a kernel once per set of array flags: with these,
    the separate kernel calls and ``_score_base`` share one compiled serial kernel."""
    return LocalTests(_read_only(local_tests[0]), *(_writable(v) for v in local_tests[1:]))


_NO_LOCAL_TESTS = _as_score_base_passes((
    np.zeros(1), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), 0.0, np.zeros(0, dtype=np.bool_),
    np.zeros(0), 0.0))


def _grow_candidates(inputs, lists, n_cuts=None, path=None, max_work=None, between_calls=None, kernel=None, need=None,
                     local_tests=None, max_bins=None):
    """Counts of every one-literal growth of a base rule (see ``_grow_chunk_impl``), from its
    :class:`GrowthInputs` and the present groups' ``OverlapLists`` (:func:`growth_records`).

    Returns :class:`GrowthOutputs`: valid (slots,) bool, new_lo (slots,), new_hi (slots,),
    counts (slots, C), counts_uncovered (slots, C), delta_nll (slots,), k_split (d,).

    The features are split into chunks of at most ``max_work`` (default
    ``turs._config.MAX_CALL_WORK``) estimated work, each one kernel call, serial or ``prange`` by its size
    (``PARALLEL_MIN_WORK``); ``between_calls()``, if given, runs before each call (a progress
    or cancellation hook). ``n_cuts``: the cut points the base's intervals hold, or an upper
    bound; computed when None. The groups' rule lists (``lists.n_rules > 0``) enable the
    bit-set build of the union counts; ``path``: the build (default
    ``turs._config.UNION_BUILD``, the cheapest per feature); ``kernel``: the serial or the
    parallel chunk kernel for every call (default: by the work of the call);
    ``need``: the slots whose ``delta_nll`` is wanted (``_grow_chunk_impl``; None: all);
    ``local_tests``: ``(log2_regret, base_counts, base_counts_unc, log2_d, binary,
    split_cut_bits, split_extra)`` to also count it for every growth that passes a local test
    (``need_tested``); ``need`` then says on return which slots have it.
    Every argument reaches the kernel with the same types whatever the caller passed, so that
    ``turs.warmup`` compiles what the search runs. ``max_bins``: ``n_bins.max()``, if the caller
    has it (the search keeps it with the data).
    """
    bins, rows, lo, hi, n_bins, C = inputs.bins, inputs.rows, inputs.lo, inputs.hi, inputs.n_bins, inputs.n_classes
    d = bins.shape[0]
    if max_bins is None:
        max_bins = int(n_bins.max()) if d else 1
    out = _outputs(n_bins, C, n_slots(n_bins, max_bins))
    if need is None:
        need = np.ones(out[0].shape[0], dtype=np.bool_)
    need_tested = local_tests is not None
    # the flags _score_base passes (a second compile of the kernel would hold up Ctrl-C)
    local_tests = _NO_LOCAL_TESTS if local_tests is None else _as_score_base_passes(local_tests)
    n_rules = lists.n_rules
    path = int(_config.UNION_BUILD if path is None else path)
    if n_cuts is None:
        n_cuts = int(np.maximum(hi - lo - 1, 0).sum())
    m = rows.shape[0]
    G = lists.union_counts.shape[0]
    max_work = _config.MAX_CALL_WORK if max_work is None else max_work
    n_list = (lists.nbr_idx.shape[0] + lists.sub_idx.shape[0]) / max(G, 1)  # list entries per group (a row's, roughly)
    per_feature = feature_work(m, G, n_list, lists.grp_ptr[-1] if n_rules else 0, max_bins, C, 2 * (max_bins - 1))
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
            parallel = _config.NUMBA_PARALLEL and work >= _config.PARALLEL_MIN_WORK
            chunk = _grow_chunk_parallel if parallel else _grow_chunk_serial
        if n_parts > 1 and not (hi[f0:f1] - lo[f0:f1] >= 2).any():
            continue  # no cut inside the base's interval: nothing to count
        for p in range(n_parts):
            if between_calls is not None:
                between_calls()
            chunk(inputs, lists, f0, f1, int(bounds[p]), int(bounds[p + 1]), path, need, need_tested, local_tests, out)
    return out
