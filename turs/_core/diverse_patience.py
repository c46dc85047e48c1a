"""Diverse patience (thesis Eq. 3.23; Algorithm 4, line 14): the beam keeps the best growth of
each coverage bucket, so that it does not fill with near copies of one rule. ``_best_per_bucket``
is the thesis' rule; ``_bucket_winners_first_cover`` the authors' beam, which keeps a bucket's
first growth of a given cover.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .._config import NUMBA_CACHE


@njit(cache=NUMBA_CACHE, nogil=True)
def _winners_by_score(best, score):
    """The buckets' winners ``best`` (-1: empty bucket), best score first (ties: lower index)."""
    chosen = np.sort(best[best >= 0])
    return chosen[np.argsort(-score[chosen], kind="mergesort")]


@njit(cache=NUMBA_CACHE, nogil=True)
def _best_per_bucket(score, bucket, eligible, n_buckets):
    """Diverse patience (Eq. 3.23): the best eligible candidate with a finite score in each
    bucket ``0..n_buckets-1`` (ties: the lowest index), ordered by score, best first (ties:
    lower index first)."""
    best = np.full(n_buckets, -1, dtype=np.int64)
    for i in range(score.shape[0]):
        if not eligible[i] or not np.isfinite(score[i]):
            continue
        b = bucket[i]
        if best[b] < 0 or score[i] > score[best[b]]:
            best[b] = i
    return _winners_by_score(best, score)


@njit(cache=NUMBA_CACHE, nogil=True)
def _same_cover(bins, rows, f1, lo1, hi1, f2, lo2, hi2):
    """Whether two one-literal growths of one base rule (literal ``f in [lo, hi)`` on the base's
    ``rows``) cover the same rows."""
    for i in range(rows.shape[0]):
        r = rows[i]
        b1 = bins[f1, r]
        b2 = bins[f2, r]
        if (lo1 <= b1 < hi1) != (lo2 <= b2 < hi2):
            return False
    return True


@njit(cache=NUMBA_CACHE, nogil=True)
def _bucket_winners_first_cover(score, bucket, eligible, n_buckets, cov, feat, lo, hi, bins, rows):
    """Each bucket's winner (-1: none) as the authors' beam fills a bucket: the candidates in
    their order of generation (feature, cut, ``<`` before ``>=``); one that covers the same rows
    as the bucket's current occupant is skipped whatever its score; another replaces the
    occupant on a strictly higher score. ``cov``: the candidates' coverages (rows are compared
    only on equal ones); ``feat``, ``lo``, ``hi``: their literals on the base rule's ``rows``.
    ``best[best >= 0]`` are the winners in bucket order."""
    best = np.full(n_buckets, -1, dtype=np.int64)
    for i in range(score.shape[0]):
        if not eligible[i] or not np.isfinite(score[i]):
            continue
        b = bucket[i]
        o = best[b]
        if o < 0:
            best[b] = i
        elif score[i] > score[o] and not (cov[i] == cov[o] and _same_cover(
                bins, rows, feat[i], lo[i], hi[i], feat[o], lo[o], hi[o])):
            best[b] = i
    return best
