"""Multinomial NML regret ``R(n, K)`` (thesis Eq. 3.11), exact and cached.

``R(n, K) = sum over all label sequences z of length n of prod_j (n_j(z)/n)^{n_j(z)}``.
We use the linear-time recurrence of Kontkanen & Myllymaki (2007),

    R(n, 1) = 1,
    R(n, 2) = sum_{k=0}^{n} n! / ((n-k)! n^k)      (the sub-linear series of
                                                     Mononen & Myllymaki 2008),
    R(n, K) = R(n, K-1) + n / (K-2) * R(n, K-2),   K >= 3,

and ``R(0, K) = 1`` (a single empty sequence). The series for ``R(n, 2)`` has terms
``prod_{j<k} (1 - j/n)`` that decay like ``exp(-k^2 / 2n)``; it is summed until a term
drops below ``1e-17`` of the total, i.e. ``O(sqrt(n))`` terms. The recurrence in ``K``
is run in log space, so any number of classes is safe.
"""
from __future__ import annotations

import math
import threading

import numpy as np
from numba import njit, prange

from .._config import NUMBA_CACHE, NUMBA_PARALLEL

_LN2 = math.log(2.0)


@njit(cache=NUMBA_CACHE)
def _log2_regret_one(n, n_classes):
    """log2 R(n, n_classes) for one ``n >= 1`` (Eq. 3.11 via the K&M recurrence)."""
    if n_classes == 1:
        return 0.0
    # R(n, 2): series sum_k prod_{j<k} (n - j) / n
    total = 1.0
    term = 1.0
    for k in range(1, n + 1):
        term *= (n - k + 1) / n
        total += term
        if term < 1e-17 * total:
            break
    # log-space recurrence R(n,K) = R(n,K-1) + n/(K-2) R(n,K-2)
    log_prev2 = 0.0  # ln R(n, 1)
    log_prev1 = math.log(total)  # ln R(n, 2)
    for k in range(3, n_classes + 1):
        a = log_prev1
        b = math.log(n / (k - 2.0)) + log_prev2
        if a > b:
            cur = a + math.log1p(math.exp(b - a))
        else:
            cur = b + math.log1p(math.exp(a - b))
        log_prev2 = log_prev1
        log_prev1 = cur
    return log_prev1 / _LN2


@njit(cache=NUMBA_CACHE, parallel=NUMBA_PARALLEL)
def _log2_regret_table(n_max, n_classes):
    """log2 R(n, n_classes) for n = 0..n_max, each entry by :func:`_log2_regret_one` (so the
    same bits however the entries are shared out). The series of ``n`` has ``O(sqrt(n))``
    terms: the loop takes the ``n`` in the order 1, n_max, 2, n_max - 1, ..., so that the
    contiguous halves ``prange`` gives two threads cost about the same (a 196,045-row table:
    0.75 s in one thread)."""
    out = np.zeros(n_max + 1)
    for i in prange(n_max):
        n = i // 2 + 1 if i % 2 == 0 else n_max - i // 2
        out[n] = _log2_regret_one(n, n_classes)
    return out


_TABLES: dict[int, np.ndarray] = {}
_LOCK = threading.Lock()


def log2_regret_table(n_max: int, n_classes: int) -> np.ndarray:
    """Return ``log2 R(n, n_classes)`` for ``n = 0..n_max`` (cached, grown on demand).

    Thesis Eq. 3.11. The returned array is shared: do not modify it.
    """
    n_max = int(n_max)
    n_classes = int(n_classes)
    if n_max < 0:
        raise ValueError(f"n_max must be >= 0. Got {n_max}.")
    if n_classes < 1:
        raise ValueError(f"n_classes must be >= 1. Got {n_classes}.")
    with _LOCK:
        table = _TABLES.get(n_classes)
        if table is None or len(table) <= n_max:
            size = max(n_max, 2 * (len(table) - 1) if table is not None else 0, 1024)
            table = _log2_regret_table(size, n_classes)
            table.setflags(write=False)
            _TABLES[n_classes] = table
    return table[: n_max + 1]


def log2_regret(n: int, n_classes: int) -> float:
    """``log2 R(n, n_classes)``: the multinomial NML regret in bits (Eq. 3.11)."""
    if n < 0:
        raise ValueError(f"n must be >= 0. Got {n}.")
    return float(log2_regret_table(n, n_classes)[n])
