"""The local tests of a growth (thesis Eq. 3.22 and 3.25): whether splitting the base rule's
cover (on ``S``, or on its part ``S \\ M`` that the rule set does not cover) into the growth and
the rest codes the data in fewer bits (NML with the regret of each part, plus ``L_split``) than
the base alone. The growth kernel uses them to count the data-code change of the growths a beam
can take only (``turs._core.growth``); ``_score_candidates`` (``turs._core.candidate_score``)
computes the same expression per growth for the trace. ``_nll_int`` is the data code length of
integer class counts both use.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import NUMBA_CACHE


class LocalTests(NamedTuple):
    """What the growth kernel reads to run the local tests on a base's growths."""

    log2_regret: np.ndarray  # (n + 1,) ``log2`` of the NML regret of 0..n rows (read-only)
    base_counts: np.ndarray  # (C,) int64 the base's class counts on S
    base_counts_unc: np.ndarray  # (C,) int64 and on S \ M
    log2_d: float  # ``L_split``'s code of the feature
    binary: np.ndarray  # (d,) bool: a feature of one cut (``L_split`` has no cut code there)
    split_cut_bits: np.ndarray  # (d,) ``L_split``'s per-feature bits (the authors' search), or empty
    split_extra: float  # and its constant


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
    helper called from ``_score_candidates``' per-growth loop makes the avila fit about 10%
    slower; ``tests/test_search.py`` checks that both give the same growths."""
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
