"""The union estimate (thesis Eq. 3.5) of a fitted rule set: a row covered by several rules gets
the class distribution of the union of their covers. What a fitted model keeps of its training
rows for it is the class counts per cover pattern (:func:`pattern_counts`); the union of any set
of rules is a sum of them (:func:`union_counts`), exactly.

During the search the same estimate is counted per overlap group by the kernels
(``turs._core``); ``turs.mdl.data_bits`` codes the data with it.

The estimator computes them when it fits, its predictions (:func:`union_probabilities`) and
explanations read them, the editing functions update them and model files store them.
"""
from __future__ import annotations

import numpy as np

__all__ = ["else_counts", "pattern_counts", "union_counts", "union_probabilities"]


def pattern_counts(covers: np.ndarray, y: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct cover patterns of the rows and the class counts of the rows with each.

    ``covers``: (n, K) bool, ``y``: (n,) class codes. Returns ``(patterns, counts)``: (P, K)
    bool, the empty pattern (the else-rule's rows) included when a row has it, ordered by the
    number of rules, then the rule indices; (P, n_classes) int64. Nothing else about the rows
    is needed for the union estimate of any set of rules (:func:`union_counts`).
    """
    n, K = covers.shape
    if K == 0:
        patterns, inverse = np.zeros((1 if n else 0, 0), dtype=bool), np.zeros(n, dtype=np.int64)
    else:  # the rows as byte strings: one sort of n keys, not numpy's row-wise unique (a lexsort)
        packed = np.ascontiguousarray(np.packbits(covers, axis=1))
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
        uniq, inverse = np.unique(keys, return_inverse=True)
        patterns = np.unpackbits(uniq.view(np.uint8).reshape(len(uniq), -1), axis=1, count=K).astype(bool)
    counts = np.bincount(inverse.ravel() * n_classes + y, minlength=len(patterns) * n_classes)
    counts = counts.reshape(len(patterns), n_classes).astype(np.int64)
    order = sorted(range(len(patterns)),
                   key=lambda p: (int(patterns[p].sum()), np.flatnonzero(patterns[p]).tolist()))
    return patterns[order].astype(bool), counts[order]


def union_counts(queries: np.ndarray, patterns: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Class counts of the training rows in the union of the covers of each query's rules (Eq. 3.5).

    A training row is in the union of the covers of the rules ``q`` exactly when its own cover
    pattern shares a rule with ``q``: the counts are the sums of the pattern counts over those
    patterns, exact also for a ``q`` no training row had. (q, K) bool -> (q, C) float64 holding
    integers (exact below 2^53 rows). The empty query gives zeros.
    """
    q = np.asarray(queries, dtype=np.float64)
    p = np.asarray(patterns, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    out = np.empty((len(q), c.shape[1]))
    # bounds the (queries x patterns) intermediate to 2^24 entries (128 MB): at a million
    # training rows there are 10^5 patterns, and 4096 queries at once held 2.3 GB
    step = max(1, min(4096, (1 << 24) // max(1, p.shape[0])))
    for a in range(0, len(q), step):
        shares = (q[a:a + step] @ p.T) > 0
        out[a:a + step] = shares.astype(np.float64) @ c
    return out


def else_counts(patterns: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The class counts the else-rule predicts with: those of the rows no rule covers, or of all
    training rows when no row is left to it (:class:`turs.rules.ElseRule`). (C,) int64."""
    rest = counts[~patterns.any(axis=1)].sum(axis=0)
    return rest if rest.sum() else counts.sum(axis=0)


def union_probabilities(queries: np.ndarray, patterns: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Class probabilities of rows covered by each query's rules (Eq. 3.5): the class distribution
    of the training rows in the union of their covers (:func:`union_counts`); for the empty query
    (no rule covers the row) the else-rule's (:func:`else_counts`). (q, K) bool -> (q, C)."""
    queries = np.asarray(queries, dtype=bool)
    union = union_counts(queries, patterns, counts)
    out = np.empty(union.shape)
    empty = ~queries.any(axis=1)
    fallback = else_counts(patterns, counts).astype(float)
    out[empty] = fallback / fallback.sum()
    out[~empty] = union[~empty] / union[~empty].sum(axis=1, keepdims=True)
    return out
