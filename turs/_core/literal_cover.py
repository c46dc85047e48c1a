"""A literal's cover as row indices: the rows of a base rule's cover whose bin of one feature lies
in the literal's interval (the winners' covers of the beam search, Algorithm 4, line 15, and the
literal prefixes' covers of ``turs.search.prefix_tables``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .._config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE, nogil=True)
def _rows_in_interval(bins_col, rows, a, e):
    """The rows whose bin of one feature lies in ``[a, e)``. Without a branch: every row is
    written and the count moves on when ``b - a``, as an unsigned integer, is below ``e - a``
    (a row below ``a`` wraps around to a large number). The search's winners' covers and
    prefix covers scan some 10^8 rows an avila fit; 30% less time than the branch
    (``docs/performance.md``)."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    width = np.uint64(e - a) if e > a else np.uint64(0)
    k = 0
    for i in range(rows.shape[0]):
        r = rows[i]
        out[k] = r
        k += np.uint64(np.int64(bins_col[r]) - a) < width
    return out[:k]
