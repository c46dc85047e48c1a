"""The sample order of every sampled fit (:mod:`turs.search.sampled`), in memory or over a
table in partitions: a key per row from a counter-based hash of the seed and the row's index
in the training table, the rows of each class ranked by key, the classes interleaved so that
every prefix is a stratified sample (``docs/performance.md``, "The sample's rows, and a table
in partitions").

Because a row's key depends on the seed and its global index alone, and the order on the keys
and the class counts alone, a table cut into partitions anyhow draws the same sample: each
partition keeps, per class, its rows with the smallest keys (:func:`partition_smallest`), and
merging those (:func:`merge_prefix`) gives the same rows in the same order as the table in
memory (:func:`stratified_prefix`, which is that merge over chunks of rows).

* **Key** of row ``i`` (0-based, in the whole training table) for ``seed``: the ``i``-th
  output of a SplitMix64 generator whose state starts at ``mix(seed)``, that is
  ``mix(mix(seed) + (i + 1) * GAMMA)`` in uint64 arithmetic (wrapping), with ``GAMMA =
  0x9E3779B97F4A7C15`` and ``mix`` SplitMix64's finaliser (:func:`mix64`). Ties (two equal
  64-bit keys) are broken by the row index.
* **Order**: a class with ``n_c`` rows ranks them by (key, index); its rank-0 row gets the
  priority -1, its rank-``i`` row ``(i + 0.5) / n_c``; all rows sorted by (priority, index).
  The first row of every class comes first, every prefix holds each class's share (to within
  a row) and a longer prefix keeps the rows of a shorter one.
* **Quota**: the first ``size`` rows of the order take from class ``c`` at most
  ``(size + C) * n_c // n + 2`` of its rows (:func:`class_quota`; ``C`` classes, ``n`` rows),
  so that many smallest keys per class, from every partition, are all a merge needs.
"""
from __future__ import annotations

import numpy as np

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
CHUNK_ROWS = 1 << 20  # rows hashed at a time by stratified_prefix


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on uint64 values (a new array)."""
    z = np.array(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z ^= z >> np.uint64(30)
        z *= _M1
        z ^= z >> np.uint64(27)
        z *= _M2
        z ^= z >> np.uint64(31)
    return z


def row_keys(rows: np.ndarray, seed: int = 0) -> np.ndarray:
    """The uint64 key of each global row index in ``rows`` for ``seed`` (module docstring)."""
    start = mix64(np.uint64(int(seed) % (1 << 64)))
    with np.errstate(over="ignore"):
        state = (np.asarray(rows, dtype=np.uint64) + np.uint64(1)) * GAMMA + start
    return mix64(state)


def class_quota(class_counts: np.ndarray, size: int) -> np.ndarray:
    """Per class, how many of its smallest keys the first ``size`` rows of the order can use:
    ``min(n_c, (size + C) * n_c // n + 2)`` (``C`` classes with rows).

    Why it suffices: with ``p = (size + C) / n``, each class with rows has at least
    ``p * n_c - 0.5`` rows of priority at most ``p`` (its rank-0 row and the ranks ``i`` with
    ``(i + 0.5) / n_c <= p``), so at least ``size`` rows in all and the ``size``-th priority is
    at most ``p``; and a class has at most ``p * n_c + 1`` rows of priority at most ``p``."""
    counts = np.asarray(class_counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return np.zeros_like(counts)
    c = int(np.count_nonzero(counts))
    return np.minimum(counts, (int(size) + c) * counts // n + 2)


def _smallest(classes, keys, rows, quota):
    """Per class, the ``quota[c]`` rows of smallest (key, row): the three arrays, by class."""
    out_c, out_k, out_r = [], [], []
    for c in np.unique(classes):
        at = np.flatnonzero(classes == c)
        take = at[np.lexsort((rows[at], keys[at]))[:int(quota[c])]]
        out_c.append(classes[take])
        out_k.append(keys[take])
        out_r.append(rows[take])
    if not out_c:
        return (np.empty(0, np.int64), np.empty(0, np.uint64), np.empty(0, np.int64))
    return np.concatenate(out_c), np.concatenate(out_k), np.concatenate(out_r)


def partition_smallest(y_part: np.ndarray, rows_part: np.ndarray, quota: np.ndarray, seed: int = 0):
    """What one partition contributes: its rows' class codes ``y_part`` (0..C-1) and global
    indices ``rows_part`` -> per class its ``quota[c]`` rows of smallest key, as the arrays
    (class code, key, global index)."""
    y_part = np.asarray(y_part, dtype=np.int64)
    rows_part = np.asarray(rows_part, dtype=np.int64)
    return _smallest(y_part, row_keys(rows_part, seed), rows_part, quota)


def merge_prefix(parts, class_counts: np.ndarray, size: int) -> np.ndarray:
    """The first ``size`` rows (global indices, int64) of the stratified order, from the
    partitions' smallest keys ``parts`` (an iterable of (class code, key, global index)
    arrays, each holding at least a partition's ``class_quota(class_counts, size)`` smallest
    per class, or all its rows of a class if fewer) and the whole table's rows per class."""
    counts = np.asarray(class_counts, dtype=np.int64)
    quota = class_quota(counts, size)
    held = (np.empty(0, np.int64), np.empty(0, np.uint64), np.empty(0, np.int64))
    for part in parts:  # a running merge: at most sum(quota) rows held besides one part
        held = _smallest(*(np.concatenate([a, np.asarray(b, dtype=a.dtype)]) for a, b in zip(held, part)), quota)
    classes, keys, rows = held
    priority = np.empty(len(rows))
    for c in np.unique(classes):
        at = np.flatnonzero(classes == c)
        at = at[np.lexsort((rows[at], keys[at]))]
        priority[at] = (np.arange(len(at)) + 0.5) / counts[c]
        priority[at[0]] = -1.0
    return rows[np.lexsort((rows, priority))[:int(size)]].astype(np.int64)


def stratified_prefix(y: np.ndarray, size: int, seed: int = 0, chunk: int = CHUNK_ROWS) -> np.ndarray:
    """The first ``size`` rows of the stratified order of the class codes ``y`` (0..C-1), the
    table in memory: :func:`merge_prefix` over chunks of ``chunk`` rows, so it holds one
    chunk's keys and the quota's rows, not a key per row."""
    y = np.asarray(y, dtype=np.int64)
    n = y.shape[0]
    size = min(int(size), n)
    counts = np.bincount(y) if n else np.zeros(0, np.int64)
    quota = class_quota(counts, size)
    parts = (partition_smallest(y[s:s + chunk], np.arange(s, min(s + chunk, n)), quota, seed)
             for s in range(0, n, chunk))
    return merge_prefix(parts, counts, size)


def stratified_order(y: np.ndarray, seed: int = 0) -> np.ndarray:
    """All row indices in the stratified order (:func:`stratified_prefix` of every row)."""
    return stratified_prefix(y, len(y), seed)
