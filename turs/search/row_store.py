"""The rows of a sampled fit behind one interface: what the search asks of ALL training rows.

A sampled fit (:mod:`turs.search.sampled`) runs each rule search on a sample and does three
things on all rows: it draws the sample, it confirms the search's best candidates (each one's
cover, class counts per overlap group of the rule set ``M`` and outside it, each literal's bin
extremes) and it adds the accepted rule (its rows move to new overlap groups). Each of those is
an integer count or a min/max per row, which does not depend on how the rows are split into
parts; every float (union counts, NLL, regret, the MDL total) is made by the caller from those
integers. So a store of rows in memory (:class:`LocalRows`) and one over partitions (the Dask
backend, a :class:`LocalRows` per partition, the counts summed and the extremes min/maxed)
give the same fit, bit for bit.

The store keeps each row's overlap group of ``M`` (``int32``, -1 for no rule); the caller keeps
the groups' counts and numbers the groups, and tells the store how they change
(:meth:`RowStore.add_rule`).

A literal is ``(column, lo_bin, hi_bin)``: a row is in it when ``lo_bin <= bin < hi_bin`` (the
search's literal form); a candidate is a tuple of literals, read in their order.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

import numpy as np

from .. import _config
from .._core.kernels import current
from .sample_keys import stratified_prefix

CHUNK_ROWS = 1 << 20  # rows relabelled at a time by LocalRows.add_rule


class CandidateCounts(NamedTuple):
    """What a store answers for one candidate (a tuple of literals) on its rows.

    ``coverage``: its rows. ``extremes`` (k, 2) int64: row ``q`` the smallest and largest bin of
    feature ``literals[q][0]`` over the rows that satisfy ``literals[:q]`` (row 0: all rows),
    (-1, -1) when no row reaches it. ``present`` (P,) int64: the overlap groups (>= 0) of ``M``
    holding at least one of its rows, ascending; ``in_group`` (P, C) int64 the class counts of
    its rows in each; ``outside`` (C,) int64 those of its rows in no rule of ``M``."""

    coverage: int
    extremes: np.ndarray
    present: np.ndarray
    in_group: np.ndarray
    outside: np.ndarray


class RowStore(ABC):
    """All training rows of a fit as bins, with each row's overlap group of ``M`` (module
    docstring). Attributes: ``n``, ``d``, ``n_classes``, ``n_bins`` (d,) int64, ``binary`` (d,)
    bool, ``class_counts`` (C,) int64, ``bin_min`` and ``bin_max`` (d,) int64 (each feature's
    smallest and largest bin over all rows; 0 when there is no row)."""

    n: int
    d: int
    n_classes: int
    n_bins: np.ndarray
    binary: np.ndarray
    class_counts: np.ndarray
    bin_min: np.ndarray
    bin_max: np.ndarray

    @abstractmethod
    def sample(self, size: int, seed: int = 0):
        """``(rows, bins, y)``: the first ``size`` rows of the stratified hash order
        (:func:`turs.search.sample_keys.stratified_prefix`), ``rows`` their global indices sorted
        ascending, ``bins`` (d, size) uint8 C-contiguous, ``y`` (size,) int64."""

    @abstractmethod
    def candidate_counts(self, candidates, n_groups: int) -> list:
        """A :class:`CandidateCounts` per candidate of ``candidates`` (tuples of literals), the
        rule set having ``n_groups`` overlap groups."""

    @abstractmethod
    def add_rule(self, literals, new_group: np.ndarray, renumber: np.ndarray | None) -> None:
        """Every row covered by ``literals`` in group ``g`` (-1: no rule) moves to group
        ``new_group[g]`` (``new_group[-1]`` for ``g = -1``: ``G + 1`` entries); then, when
        ``renumber`` is given, every row of a group ``g >= 0`` moves to ``renumber[g]``."""

    def close(self) -> None:
        """Free what the store holds."""


def _checked_literals(literals, d: int, n_bins: np.ndarray) -> tuple:
    out = []
    for lit in literals:
        j, a, b = (int(v) for v in lit)
        if not (0 <= j < d and 0 <= a < b <= int(n_bins[j])):
            raise ValueError(f"A literal (column, lo_bin, hi_bin) must have 0 <= column < {d} and "
                             f"0 <= lo_bin < hi_bin <= the column's bins. Got {tuple(lit)!r}.")
        out.append((j, a, b))
    return tuple(out)


class LocalRows(RowStore):
    """The rows in memory: ``bins`` (d, n) uint8, ``y`` (n,) class codes 0..C-1, ``first_row``
    the global index of the first row (a partition of a larger table; 0 for the whole table).

    Covers are bitmaps of the rows (:mod:`turs._core.bitmaps`: ``n / 64`` words a literal),
    each literal prefix's kept with its bin extremes across calls (a search's candidates share
    their first literals, and so do a fit's searches), :meth:`cache_bytes` at most."""

    def __init__(self, bins, y, n_bins, binary, n_classes: int, first_row: int = 0):
        self.bins = np.ascontiguousarray(bins, dtype=np.uint8)
        if self.bins.ndim != 2:
            raise ValueError(f"bins must be a (d, n) array. Got shape {self.bins.shape}.")
        self.d, self.n = (int(s) for s in self.bins.shape)
        self.y = np.asarray(y, dtype=np.int64)
        if self.y.shape != (self.n,):
            raise ValueError(f"y must hold one class code per row ({self.n}). Got shape {self.y.shape}.")
        self.n_bins = np.asarray(n_bins, dtype=np.int64)
        self.binary = np.asarray(binary, dtype=bool)
        self.n_classes = int(n_classes)
        self.first_row = int(first_row)
        self.class_counts = np.bincount(self.y, minlength=self.n_classes).astype(np.int64)
        if self.n:
            self.bin_min = self.bins.min(axis=1).astype(np.int64)
            self.bin_max = self.bins.max(axis=1).astype(np.int64)
        else:
            self.bin_min = np.zeros(self.d, np.int64)
            self.bin_max = np.zeros(self.d, np.int64)
        self.group_ids = np.full(self.n, -1, dtype=np.int32)
        self._cache: dict = {}
        self._cache_bytes = 0

    # ------------------------------------------------------------------ the sample
    def sample(self, size: int, seed: int = 0):
        """The table's own sample (``first_row`` 0); a partition's share of a larger table's
        sample is drawn by the backend from :func:`turs.search.sample_keys.partition_smallest`."""
        if self.first_row:
            raise ValueError("LocalRows.sample draws the sample of a whole table (first_row=0); "
                             f"this store holds rows from {self.first_row} on.")
        rows = np.sort(stratified_prefix(self.y, size, seed))
        return rows, np.ascontiguousarray(self.bins[:, rows]), self.y[rows]

    # ------------------------------------------------------------------ covers
    def cache_bytes(self) -> int:
        """The cache's budget: ``PREFIX_CACHE_BYTES``, and ``PREFIX_CACHE_BYTES_PER_ROW`` a row
        (at least 16 MB) when that is less."""
        per_row = max(16 * 2**20, _config.PREFIX_CACHE_BYTES_PER_ROW * self.n)
        return int(min(_config.PREFIX_CACHE_BYTES, per_row))

    def _remember(self, key, value, nbytes: int) -> None:
        budget = self.cache_bytes()
        if nbytes > budget:
            return
        if self._cache_bytes + nbytes > budget:
            self._cache.clear()
            self._cache_bytes = 0
        self._cache_bytes += nbytes
        self._cache[key] = value

    def _feature_bitmaps(self, j: int) -> np.ndarray:
        key = ("bins", j)
        out = self._cache.get(key)
        if out is None:
            out = current()._at_least_bitmaps(self.bins[j], int(self.n_bins[j]))
            self._remember(key, out, out.nbytes)
        return out

    def _cover(self, literals: tuple, extremes: np.ndarray | None = None) -> np.ndarray:
        """The bitmap of the rows in every literal of ``literals``; each literal's extremes into
        ``extremes`` when given."""
        kernels = current()
        words = self._cache.get(())
        if words is None:
            words = kernels._all_rows_bitmap(self.n)
            self._remember((), words, words.nbytes)
        for q, (j, a, b) in enumerate(literals):
            if extremes is not None:
                if q == 0:
                    ext = (int(self.bin_min[j]), int(self.bin_max[j])) if self.n else (-1, -1)
                else:
                    key = ("x", literals[:q], j)
                    ext = self._cache.get(key)
                    if ext is None:
                        lo, hi = kernels._bin_extremes_of_bitmap(words, self._feature_bitmaps(j))
                        ext = (int(lo), int(hi)) if hi >= 0 else (-1, -1)
                        self._remember(key, ext, 64)
                extremes[q] = ext
            key = literals[:q + 1]
            nxt = self._cache.get(key)
            if nxt is None:
                nxt = kernels._in_interval(words, self._feature_bitmaps(j), a, b)
                self._remember(key, nxt, nxt.nbytes)
            words = nxt
        return words

    def covered_rows(self, literals) -> np.ndarray:
        """The rows (int64, ascending, local indices) in every literal of ``literals``."""
        lits = _checked_literals(literals, self.d, self.n_bins)
        return current()._bitmap_rows(self._cover(lits))

    def _counts(self, rows: np.ndarray, extremes: np.ndarray, n_groups: int) -> CandidateCounts:
        C, G = self.n_classes, int(n_groups)
        # one count per (group + 1, class): group -1 (outside M) first
        codes = (self.group_ids[rows].astype(np.int64) + 1) * C + self.y[rows]
        counts = np.bincount(codes, minlength=(G + 1) * C).reshape(-1, C)
        if counts.shape[0] > G + 1:
            raise ValueError(f"n_groups={G} is below the store's groups ({counts.shape[0] - 1}).")
        present = np.flatnonzero(counts[1:].any(axis=1)).astype(np.int64)
        return CandidateCounts(int(rows.shape[0]), extremes, present, counts[1:][present].astype(np.int64),
                               counts[0].astype(np.int64))

    def candidate_counts(self, candidates, n_groups: int) -> list:
        out = []
        for literals in candidates:
            lits = _checked_literals(literals, self.d, self.n_bins)
            extremes = np.full((len(lits), 2), -1, dtype=np.int64)
            rows = current()._bitmap_rows(self._cover(lits, extremes))
            out.append(self._counts(rows, extremes, n_groups))
        return out

    def rows_counts(self, rows, n_groups: int) -> CandidateCounts:
        """:meth:`candidate_counts` of a rule given by its rows (local indices, no literal: no
        extremes), for a rule whose thresholds are not on the cut points (in memory only)."""
        return self._counts(np.asarray(rows, dtype=np.int64), np.zeros((0, 2), np.int64), n_groups)

    # ------------------------------------------------------------------ groups
    def add_rule(self, literals, new_group: np.ndarray, renumber: np.ndarray | None) -> None:
        self.add_rows(self.covered_rows(literals), new_group, renumber)

    def add_rows(self, rows, new_group: np.ndarray, renumber: np.ndarray | None) -> None:
        """:meth:`add_rule` of a rule given by its rows (local indices)."""
        rows = np.asarray(rows, dtype=np.int64)
        new_group = np.asarray(new_group, dtype=np.int32)
        self.group_ids[rows] = new_group[self.group_ids[rows]]  # index -1: new_group[-1]
        if renumber is not None:
            renumber = np.asarray(renumber, dtype=np.int32)
            for s in range(0, self.n, CHUNK_ROWS):  # no temporary of n rows
                part = self.group_ids[s:s + CHUNK_ROWS]
                inside = part >= 0
                part[inside] = renumber[part[inside]]

    def close(self) -> None:
        """Free the cache (the store stays readable)."""
        self._cache.clear()
        self._cache_bytes = 0
