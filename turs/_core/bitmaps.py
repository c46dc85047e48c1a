"""Sets of training rows as bitmaps (bit ``i`` of word ``i >> 6``: row ``i``), for the covers of
literal prefixes on all rows that the sampled search's confirmation reads
(``turs.search.row_store.LocalRows``).

A feature's bitmaps are nested: ``at_least[a]`` holds the rows whose bin is ``>= a``, so a
literal ``[a, b)`` selects ``at_least[a] & ~at_least[b]``, and the smallest and largest bin a
set of rows reaches on the feature are found by bisection over them. A prefix's cover then
costs ``n / 64`` word operations per literal, where filtering its rows costs one read per row
(a 10^6-row fit reads some 10^9 rows that way).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .._config import NUMBA_CACHE
from .union_counts import _popcount


@njit(cache=NUMBA_CACHE, nogil=True)
def _at_least_bitmaps(bins_col, n_bins):
    """``(n_bins + 1, words)`` bitmaps of one feature: row ``a`` holds the rows whose bin is
    ``>= a`` (row 0 every row, row ``n_bins`` none)."""
    n = bins_col.shape[0]
    n_words = (n + 63) >> 6
    out = np.zeros((n_bins + 1, n_words), dtype=np.uint64)
    one = np.uint64(1)
    for i in range(n):
        out[bins_col[i], i >> 6] |= one << np.uint64(i & 63)
    for a in range(n_bins - 1, -1, -1):  # bin == a, then >= a
        for w in range(n_words):
            out[a, w] |= out[a + 1, w]
    return out


@njit(cache=NUMBA_CACHE, nogil=True)
def _all_rows_bitmap(n):
    """The bitmap of rows ``0..n-1``."""
    n_words = (n + 63) >> 6
    out = np.full(n_words, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    if n & 63:
        out[n_words - 1] = (np.uint64(1) << np.uint64(n & 63)) - np.uint64(1)
    return out


@njit(cache=NUMBA_CACHE, nogil=True)
def _in_interval(rows, at_least, a, b):
    """The rows of bitmap ``rows`` whose bin lies in ``[a, b)`` (``at_least``: the feature's
    :func:`_at_least_bitmaps`)."""
    out = np.empty_like(rows)
    for w in range(rows.shape[0]):
        out[w] = rows[w] & at_least[a, w] & ~at_least[b, w]
    return out


@njit(cache=NUMBA_CACHE, nogil=True)
def _meets(rows, at_least, a, below):
    """Whether a row of bitmap ``rows`` has a bin ``>= a`` (``below`` False) or ``< a`` (True)."""
    for w in range(rows.shape[0]):
        m = at_least[a, w]
        if below:
            m = ~m
        if rows[w] & m:
            return True
    return False


@njit(cache=NUMBA_CACHE, nogil=True)
def _bin_extremes_of_bitmap(rows, at_least):
    """The smallest and largest bin of the feature over the rows of bitmap ``rows``;
    ``(0, -1)`` for no row (the twin of ``turs._core.refinement._bin_extremes``): the largest
    ``a`` with a row at ``>= a``, and the smallest ``a`` with a row below ``a + 1``, each by
    bisection (both properties are monotone in ``a``)."""
    n_bins = at_least.shape[0] - 1
    # np.int64 / np.bool_ rather than literals, which numba would compile _meets for once more each
    if not _meets(rows, at_least, np.int64(0), np.bool_(False)):
        return 0, -1
    lo, hi = 0, n_bins - 1  # the largest bin: the last a with a row at >= a
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if _meets(rows, at_least, mid, np.bool_(False)):
            lo = mid
        else:
            hi = mid - 1
    largest = lo
    lo, hi = 0, largest  # the smallest bin: the first a with a row below a + 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if _meets(rows, at_least, mid + 1, np.bool_(True)):
            hi = mid
        else:
            lo = mid + 1
    return lo, largest


@njit(cache=NUMBA_CACHE, nogil=True)
def _bitmap_rows(rows):
    """The row indices of bitmap ``rows``, increasing (a set bit's position: the set bits
    below it, ``popcount(lowest - 1)``)."""
    count = 0
    for w in range(rows.shape[0]):
        count += _popcount(rows[w])
    out = np.empty(count, dtype=np.int64)
    k = 0
    one = np.uint64(1)
    for w in range(rows.shape[0]):
        x = rows[w]
        base = w << 6
        while x:
            low = x & (~x + one)  # the lowest set bit
            out[k] = base + _popcount(low - one)
            k += 1
            x ^= low
    return out
