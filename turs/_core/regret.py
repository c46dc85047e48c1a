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

from .. import _config
from .._config import NUMBA_CACHE, NUMBA_PARALLEL, REGRET_LANES

_LN2 = math.log(2.0)


@njit(cache=NUMBA_CACHE, nogil=True)
def _log2_from_r2(r2, n, n_classes):
    """log2 R(n, n_classes) from ``r2`` = R(n, 2) by the K&M recurrence in log space."""
    if n_classes == 1:
        return 0.0
    # log-space recurrence R(n,K) = R(n,K-1) + n/(K-2) R(n,K-2)
    log_prev2 = 0.0  # ln R(n, 1)
    log_prev1 = math.log(r2)  # ln R(n, 2)
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


@njit(cache=NUMBA_CACHE)
def _log2_regret_one(n, n_classes):
    """log2 R(n, n_classes) for one ``n >= 1`` (Eq. 3.11 via the K&M recurrence): the plain
    twin of :func:`_log2_regret_table`'s lanes."""
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
    return _log2_from_r2(total, n, n_classes)


@njit(cache=NUMBA_CACHE, nogil=True, error_model="numpy")  # no zero check on the division (n >= 1): it vectorises
def _r2_lanes(n_float, term, total, active):
    """R(n, 2) for the ``n`` of ``n_float`` side by side, into ``total`` (``term`` and ``total``
    start at 1, ``active`` True): for each ``n`` the operations of :func:`_log2_regret_one`'s
    series in its order, so the same bits, but with no branch in the loop over the lanes,
    which the compiler can then run on vector registers. ``n - k + 1`` is ``n - c`` with
    ``c = k - 1`` counted in floats: exact, as both are integers far below 2^53."""
    L = n_float.shape[0]
    c = 0.0
    while True:
        for j in range(L):
            t = term[j] * ((n_float[j] - c) / n_float[j])
            s = total[j] + t
            a = active[j]
            term[j] = t if a else term[j]
            total[j] = s if a else total[j]
            # this was the series' last term: below 1e-17 of the total, or the one of k = n
            active[j] = a & (not ((t < 1e-17 * s) | (c + 1.0 >= n_float[j])))
        n_active = 0
        for j in range(L):
            n_active += active[j]
        if n_active == 0:
            return
        c += 1.0


@njit(cache=NUMBA_CACHE, parallel=NUMBA_PARALLEL)
def _log2_regret_blocks(out, b_start, b_stop, n_classes):
    """Entries ``n`` of blocks ``b_start..b_stop-1`` of ``out`` (block ``b``: the ``n`` from
    ``b L + 1`` to ``b L + L``, ``L = REGRET_LANES``, those up to ``len(out) - 1``), each
    summed by :func:`_r2_lanes` with its block. The loop takes the blocks in the order first,
    last, second, second to last, ..., so that the contiguous halves ``prange`` gives two
    threads cost about the same."""
    L = REGRET_LANES
    n_max = out.shape[0] - 1
    n_blocks = b_stop - b_start
    for i in prange(n_blocks):
        b = b_start + (i // 2 if i % 2 == 0 else n_blocks - 1 - i // 2)
        n_float = np.empty(L)
        for j in range(L):
            n_float[j] = float(b * L + 1 + j)
        term = np.ones(L)
        total = np.ones(L)
        active = np.ones(L, dtype=np.bool_)
        _r2_lanes(n_float, term, total, active)
        for j in range(L):
            n = b * L + 1 + j
            if n <= n_max:
                out[n] = _log2_from_r2(total[j], n, n_classes)


def _log2_regret_table(n_max: int, n_classes: int, known: np.ndarray | None = None) -> np.ndarray:
    """log2 R(n, n_classes) for n = 0..n_max, the same bits as :func:`_log2_regret_one` for
    each entry, however the entries are shared out. The series of ``n`` has about
    ``9 sqrt(n)`` terms; blocks of ``REGRET_LANES`` consecutive ``n`` are summed side by side,
    in jitted calls of at most ``REGRET_CALL_TERMS`` terms each. ``known``: a shorter table of
    the same ``n_classes``, whose entries are kept."""
    out = np.zeros(n_max + 1)
    if n_classes == 1 or n_max == 0:
        return out
    L = REGRET_LANES
    first = 1
    if known is not None and len(known) > 1:
        first = min(len(known), n_max + 1)
        out[:first] = known[:first]
    b_first, n_blocks = (first - 1) // L, (n_max + L - 1) // L
    # each block's terms, 9 sqrt(n) for its middle n; a call ends where their running sum
    # passes a multiple of REGRET_CALL_TERMS
    blocks = np.arange(b_first, n_blocks)
    call_of = (np.cumsum(9.0 * L * np.sqrt(blocks * L + L / 2.0)) // _config.REGRET_CALL_TERMS).astype(np.int64)
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(call_of)) + 1, [len(blocks)]))
    for lo, hi in zip(bounds[:-1], bounds[1:]):  # Ctrl-C raises here, between two calls
        _log2_regret_blocks(out, b_first + int(lo), b_first + int(hi), n_classes)
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
            table = _log2_regret_table(size, n_classes, known=table)
            table.setflags(write=False)
            _TABLES[n_classes] = table
    return table[: n_max + 1]


def log2_regret(n: int, n_classes: int) -> float:
    """``log2 R(n, n_classes)``: the multinomial NML regret in bits (Eq. 3.11)."""
    if n < 0:
        raise ValueError(f"n must be >= 0. Got {n}.")
    return float(log2_regret_table(n, n_classes)[n])


class Regret:
    """``log2 R(m, n_classes)`` (Eq. 3.11) per value ``m``, each computed once by
    :func:`_log2_regret_one` (the bits of the table's entry), or read from a table already made
    that reaches ``m``: for the few coverages a fit on many rows meets, without the table up to
    the number of rows (at 10^7 rows, minutes and 80 MB)."""

    def __init__(self, n_classes: int):
        self.n_classes = int(n_classes)
        self._known: dict = {0: 0.0}

    def __getitem__(self, m) -> float:
        m = int(m)
        out = self._known.get(m)
        if out is None:
            if m < 0:
                raise ValueError(f"m must be >= 0. Got {m}.")
            table = _TABLES.get(self.n_classes)
            if table is not None and len(table) > m:
                out = float(table[m])
            elif self.n_classes == 1:
                out = 0.0
            else:
                out = float(_log2_regret_one(m, self.n_classes))
            self._known[m] = out
        return out
