"""A base rule's growths in one jitted call (Algorithm 4, lines 7-15): the overlap groups' lists
restricted to the base's cover, the growth kernel and ``_finish_growths``, for a base whose
kernel work fits one serial call.

The search scores a base with half a dozen small jitted helpers, the growth kernel and
``_finish_growths``, with Python between them: on avila that Python was about as long as the
kernel on the small covers that make up most of its bases, and it holds the GIL, so the two
scoring threads wait for each other there (``docs/performance.md``). Here the same
functions run in the same order on the same arrays, in one call that holds no GIL, so every
number is the one of the separate calls, to the bit (``tests/test_search.py`` compares both).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .._config import NUMBA_CACHE
from .candidate_score import BaseRule, DataTables, RuleSetCounts, ScoringSettings, _finish_growths
from .growth import GrowthInputs, GrowthOutputs, _grow_chunk_serial
from .local_test import LocalTests
from .overlap_groups import OverlapLists, _local_neighbours, _local_rule_lists, _local_subsets


@njit(cache=NUMBA_CACHE, nogil=True)
def _list_lengths(present, nbr_ptr, has_nbr, sub_ptr, has_sub, grp_ptr):
    """The entries of the present groups' lists (the ``OverlapLists`` fields of those names):
    pair lists (an upper bound of the local ones, which keep only the pairs of present groups),
    subset lists and rule lists; what ``turs._core.growth.feature_work`` needs to bound a kernel
    call's work. It takes the arrays, not the record: it runs once per base, and numba types a
    record argument field by field on every call (see :func:`_score_base_fields`)."""
    n_nbr = 0
    n_sub = 0
    n_rules = 0
    for p in range(present.shape[0]):
        g = present[p]
        if has_nbr:
            n_nbr += nbr_ptr[g + 1] - nbr_ptr[g]
        if has_sub:
            n_sub += sub_ptr[g + 1] - sub_ptr[g]
        n_rules += grp_ptr[g + 1] - grp_ptr[g]
    return n_nbr, n_sub, n_rules


@njit(cache=NUMBA_CACHE, nogil=True)
def _score_base(data, lists, base, present, group_local, rule_set, settings, path, tested_only):
    """``score_growths``' numeric work on one base, in one call: the base's intervals from its
    literals, the present groups (``present``; each row's local group ``group_local``) with
    their union counts and lists restricted to them (``_local_subsets``, ``_local_neighbours``,
    ``_local_rule_lists``), one call of the serial growth kernel on every feature and every
    present group (``tested_only``: only the growths that pass a local test get their data-code
    change, and only they are kept; ``path``: the union build), and ``_finish_growths``.
    The records: ``data`` (``DataTables``), ``lists`` (``OverlapLists``, all the rule set's
    groups), ``base`` (``BaseRule``), ``rule_set`` (``RuleSetCounts``), ``settings``
    (``ScoringSettings``). Returns ``k_split`` and ``_finish_growths``' outputs."""
    y, rows, C, n_slots, bins, n_bins = data.y, base.rows, data.n_classes, data.n_slots, data.bins, data.n_bins
    log2_int, log2_regret, log2_d, binary = data.log2_int, data.log2_regret, data.log2_d, data.binary
    union_counts_all, nbr_ptr, nbr_idx, nbr_w, has_nbr = (lists.union_counts, lists.nbr_ptr, lists.nbr_idx,
                                                          lists.nbr_w, lists.has_nbr)
    sub_ptr, sub_idx, sub_sign, n_sub, has_sub = (lists.sub_ptr, lists.sub_idx, lists.sub_sign, lists.n_sub,
                                                  lists.has_sub)
    grp_ptr, grp_rules, n_rules = lists.grp_ptr, lists.grp_rules, lists.n_rules
    lits, base_counts, base_counts_unc, split_extra = base.lits, base.counts, base.counts_unc, base.split_extra
    split_cut_bits = settings.split_cut_bits
    d = n_bins.shape[0]
    k = lits.shape[0]
    lo = np.zeros(d, dtype=np.int64)
    hi = n_bins.copy()
    for t in range(k):
        lo[lits[t, 0]] = lits[t, 1]
        hi[lits[t, 0]] = lits[t, 2]
    P = present.shape[0]
    union = np.empty((P, union_counts_all.shape[1]))
    for p in range(P):
        union[p] = union_counts_all[present[p]]
    if has_sub and P > 0:
        l_sub_ptr, l_sub_idx, l_sub_sign, l_n_sub = _local_subsets(sub_ptr, sub_idx, sub_sign, present, n_sub)
    else:
        l_sub_ptr, l_sub_idx, l_sub_sign, l_n_sub = (np.zeros(P + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                                                     np.zeros(0), 0)
    if has_nbr and P > 0:
        l_nbr_ptr, l_nbr_idx, l_nbr_w = _local_neighbours(nbr_ptr, nbr_idx, nbr_w, present, union_counts_all.shape[0])
    else:
        l_nbr_ptr, l_nbr_idx, l_nbr_w = np.zeros(P + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    if n_rules > 0:
        l_grp_ptr, l_grp_rules = _local_rule_lists(grp_ptr, grp_rules, present)
    else:
        l_grp_ptr, l_grp_rules = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    tested = tested_only and P > 0
    valid = np.zeros(n_slots, dtype=np.bool_)
    new_lo = np.zeros(n_slots, dtype=np.int64)
    new_hi = np.zeros(n_slots, dtype=np.int64)
    counts = np.zeros((n_slots, C), dtype=np.int64)
    counts_unc = np.zeros((n_slots, C), dtype=np.int64)
    delta = np.zeros(n_slots)
    k_split = np.zeros(d, dtype=np.int64)
    need = np.zeros(n_slots, dtype=np.bool_) if tested else np.ones(n_slots, dtype=np.bool_)
    # np.int64(0), not the literal 0: the separate kernel calls pass int64 there, and numba
    # compiles a kernel once per argument type (a literal is a type of its own)
    grown = GrowthOutputs(valid, new_lo, new_hi, counts, counts_unc, delta, k_split)
    local_lists = OverlapLists(union, l_nbr_ptr, l_nbr_idx, l_nbr_w, has_nbr, l_sub_ptr, l_sub_idx, l_sub_sign, l_n_sub,
                               has_sub, l_grp_ptr, l_grp_rules, n_rules)
    tests = LocalTests(log2_regret, base_counts, base_counts_unc, log2_d, binary, split_cut_bits, split_extra)
    _grow_chunk_serial(GrowthInputs(bins, y, rows, lo, hi, n_bins, C, group_local, log2_int), local_lists,
                       np.int64(0), d, np.int64(0), P, path, need, tested, tests, grown)
    if tested:
        for s in range(n_slots):
            valid[s] = valid[s] and need[s]
    out = _finish_growths(grown, base, rule_set, data, settings)
    return k_split, out



@njit(cache=NUMBA_CACHE, nogil=True)
def _score_base_fields(bins, y, n_classes, n_bins, n_slots, binary, turs2, log2_d, log2_regret, log2_int, bin_min,
                       bin_max,
                       union_counts, nbr_ptr, nbr_idx, nbr_w, has_nbr, sub_ptr, sub_idx, sub_sign, n_sub, has_sub,
                       grp_ptr, grp_rules, n_rules,
                       rows, lits, value_ops, value_ops_sum, k_values, header_new, header_old, counts, counts_unc,
                       split_extra, scan_rows, scan_rows1, ref_tmin, ref_tmax, later_k_known, later_known,
                       present, group_local,
                       else_counts, nll_covered, regret_rules, model_next, total_m,
                       beam_width, absolute, split_cut_bits, placeholder_scores, bucket_edges, min_split,
                       path, tested_only):
    """:func:`_score_base` on the fields of its records, each record's in its order (the search
    passes ``*data, *lists, *base, present, group_local, *rule_set, *settings, path,
    tested_only``); the records are rebuilt here, so the kernels below take them as before.

    numba types every argument of a call from Python before it runs: an array passed on its own
    takes a table lookup, a record (a named tuple) a fingerprint of each of its fields, and
    more for the record itself. ``_score_base`` runs once per base, about a thousand times in
    a fit of vehicle and two thousand in one of car, which take a quarter of a second: with
    the five records the typing took about 10 microseconds more per call than with the
    fields, 20-30 ms of a car fit (``docs/performance.md``, "Less Python around the
    kernels")."""
    return _score_base(
        DataTables(bins, y, n_classes, n_bins, n_slots, binary, turs2, log2_d, log2_regret, log2_int, bin_min,
                   bin_max),
        OverlapLists(union_counts, nbr_ptr, nbr_idx, nbr_w, has_nbr, sub_ptr, sub_idx, sub_sign, n_sub, has_sub,
                     grp_ptr, grp_rules, n_rules),
        BaseRule(rows, lits, value_ops, value_ops_sum, k_values, header_new, header_old, counts, counts_unc,
                 split_extra, scan_rows, scan_rows1, ref_tmin, ref_tmax, later_k_known, later_known),
        present, group_local,
        RuleSetCounts(else_counts, nll_covered, regret_rules, model_next, total_m),
        ScoringSettings(beam_width, absolute, split_cut_bits, placeholder_scores, bucket_edges, min_split),
        path, tested_only)
