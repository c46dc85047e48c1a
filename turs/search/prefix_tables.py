"""The refinement tables of the search's base rules, each computed once per literal prefix.

A growth that refines literal p of its base changes the ``K_value`` of the later literals
(Eq. 3.15, Section 3.4.3), read from tables of extremes over each later literal q's subspace
(``turs._core.refinement``). q's tables depend only on literals ``0..q-1`` and q's feature,
and the bases of a search share their first literals (a beam's candidates are growths of
few bases, and each rule search starts again from the empty rule). Scanning the rows of the
base's literal 0 for every base was about three quarters of ``_finish_growths`` on magic;
here each table is computed once, over exactly its subspace, from the rows of the prefix one
literal shorter (the cover of the base it was grown from, when that base was scored).

The numbers are those of the full scan (the same extremes over the same rows); the tests
compare both.
"""
from __future__ import annotations

import numpy as np

from .. import _config


_NO_TABLES = np.zeros((0, 0), dtype=np.int64)
_NO_LATER = (_NO_TABLES, np.zeros(0, dtype=np.bool_))


def rows_in_bins(rows_by_bin: np.ndarray, bin_ptr: np.ndarray, j: int, a: int, b: int) -> np.ndarray:
    """The rows whose bin of feature ``j`` lies in ``[a, b)``, in bin order: a view of
    ``rows_by_bin`` (the rows sorted by their bin of each feature, ``bin_ptr`` where each bin
    starts), the cover of the one-literal rule ``(j, a, b)``."""
    return rows_by_bin[j, bin_ptr[j, a]:bin_ptr[j, b]]


class PrefixTables:
    """The refinement tables and the prefix covers of one fit's training data
    (a :class:`turs.search.state.SearchData`); safe to call from the scoring threads (a
    table two threads miss at once is computed twice, with the same result)."""

    def __init__(self, data, cache_bytes: int | None = None):
        # the data's arrays, not the data: no reference cycle, so the caches go with the fit
        self.bins, self.bin_min, self.bin_max = data.bins, data.bin_min, data.bin_max
        self._rows_by_bin, self._bin_ptr = data.rows_by_bin, data.bin_ptr
        self._fit_kernels = data.fit_kernels  # the fit's kernel set (turs._core.kernels)
        self.max_b = data.max_bins
        self.cache_bytes = _config.CACHE_BYTES if cache_bytes is None else cache_bytes
        self._rows: dict = {}  # literal prefix -> the rows satisfying it
        self._packed: dict = {}  # (literals but the last, last feature) -> a rule's packed tables
        self._extremes: dict = {}  # (literal prefix, feature) -> its smallest and largest bin there
        self._bytes = 0
        self.misses = 0  # tables computed (for the tests and the profile)

    def _keep(self, store: dict, key, value, nbytes: int) -> None:
        if self._bytes + nbytes > self.cache_bytes:
            self._rows.clear()
            self._packed.clear()
            self._extremes.clear()
            self._bytes = 0
        store[key] = value
        self._bytes += nbytes

    def note_cover(self, literals: tuple, rows: np.ndarray) -> None:
        """Remember a base rule's cover (the rows satisfying ``literals``): its growths' tables
        read it."""
        if len(literals) >= 2 and literals not in self._rows:
            self._keep(self._rows, literals, rows, rows.nbytes)

    def rows(self, prefix: tuple) -> np.ndarray:
        """The rows satisfying every literal of ``prefix`` (at least one)."""
        out = self._rows.get(prefix)
        if out is None:
            if len(prefix) == 1:
                return rows_in_bins(self._rows_by_bin, self._bin_ptr, *prefix[0])
            j, a, b = prefix[-1]
            out = self._fit_kernels.kernels._rows_in_interval(self.bins[j], self.rows(prefix[:-1]), a, b)
            self._keep(self._rows, prefix, out, out.nbytes)
        return out

    def tables(self, literals: tuple) -> tuple[np.ndarray, np.ndarray]:
        """The packed tables (``tmin``, ``tmax``) of a rule with ``literals`` in its order, as
        ``turs._core.refinement._refinement_tables`` scans them; (0, 0) arrays for fewer than
        two literals. Those of the rule one literal shorter, then the last literal's (the rows
        of the literals before it, its feature): a base grown by a new literal computes one
        table and reads its parent's from the cache."""
        k = len(literals)
        if k < 2:
            return _NO_TABLES, _NO_TABLES
        head = literals[:-1]
        key = (head, literals[-1][0])
        packed = self._packed.get(key)
        if packed is not None:
            return packed
        feats = np.array([lit[0] for lit in head], dtype=np.int64)
        tmin, tmax = self._fit_kernels.kernels._pair_extremes(self.bins, feats, key[1], self.rows(head), self.max_b)
        self.misses += 1
        if k > 2:
            before = self.tables(head)
            tmin, tmax = np.concatenate((before[0], tmin)), np.concatenate((before[1], tmax))
        packed = (tmin, tmax)
        self._keep(self._packed, key, packed, tmin.nbytes * 2)
        return packed

    def later_k_without(self, literals: tuple, needed) -> tuple[np.ndarray, np.ndarray]:
        """For each literal p in ``needed``: the ``K_value`` of the literals after it counted as if
        p did not restrict the data (``turs._core.candidate_score._later_k_without``, the model code the
        authors' search charges a growth that gives p a lower bound), as ``(later_k (k, k),
        known (k,))``; each literal q's from its feature's extremes over the rows satisfying the
        literals before it but p, computed once per such prefix."""
        if not needed:
            return _NO_LATER
        k = len(literals)
        later_k = np.full((k, k), -1, dtype=np.int64)
        known = np.zeros(k, dtype=np.bool_)
        for p in needed:
            known[p] = True
            rest = literals[:p] + literals[p + 1:]
            for q in range(p + 1, k):
                f = literals[q][0]
                prefix = rest[:q - 1]
                if not prefix:
                    later_k[p, q] = self.bin_max[f] - self.bin_min[f]
                    continue
                ext = self._extremes.get((prefix, f))
                if ext is None:
                    ext = self._fit_kernels.kernels._bin_extremes(self.bins, f, self.rows(prefix))
                    self._keep(self._extremes, (prefix, f), ext, 64)
                if ext[1] >= 0:
                    later_k[p, q] = ext[1] - ext[0]
        return later_k, known
