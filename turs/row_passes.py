"""What a fit computes on all of its training rows once the rules are found, as one pass over
the rows in chunks: the class counts per cover pattern (what prediction reads), the packed
training covers (what the explorer plots) and the MDL score (Eq. 3.20).

The cover matrix of all rows is (n, K) bool: at 10^7 rows and 110 rules, 1.1 GB, and the
sort of its packed rows needs as much again. A chunk of ``CHUNK_ROWS`` rows needs
``CHUNK_ROWS x K`` bytes; the chunks' pattern counts are summed, and the MDL score is computed
from them (:func:`turs.mdl.score_pattern_counts`), to the bit the score of the whole matrix. A
table of at most ``CHUNK_ROWS`` rows (every dataset of the study) takes the whole-matrix path
it always took.
"""
from __future__ import annotations

import numpy as np

from .encoding import BinnedRows
from .mdl import cover_matrix, score_literals, score_pattern_counts
from .union_estimate import pattern_counts

CHUNK_ROWS = 1 << 18  # a multiple of 8: the chunks' packed covers join into those of all rows


def _rows_slice(rows, a: int, b: int):
    """Rows ``a:b`` of a :class:`~turs.encoding.BinnedRows` or of an (n, d) matrix."""
    if isinstance(rows, BinnedRows):
        table = None if rows.table is None else rows.table.iloc[a:b]
        return BinnedRows(rows.encoder, rows.bins[:, a:b], table)
    return rows[a:b]


def fitted_counts(rules_literals, rows, y: np.ndarray, n_classes: int, cuts, binary, model_encoding: str,
                  chunk_rows: int | None = None):
    """``(patterns, counts, packed_covers, breakdown)`` of the rules ``rules_literals`` on the
    training rows ``rows`` (a :class:`~turs.encoding.BinnedRows` or an encoded matrix) with
    class codes ``y``: :func:`~turs.union_estimate.pattern_counts`, ``np.packbits`` of the cover
    matrix along the rows, and :func:`~turs.mdl.score_literals`, made chunk by chunk."""
    chunk = CHUNK_ROWS if chunk_rows is None else int(chunk_rows)
    if chunk % 8:
        raise ValueError(f"chunk_rows must be a multiple of 8 (packed covers). Got {chunk}.")
    n, K = rows.shape[0], len(rules_literals)
    if n <= chunk:
        covers = cover_matrix(rules_literals, rows)
        patterns, counts = pattern_counts(covers, y, n_classes)
        breakdown = score_literals(rules_literals, rows, y, n_classes, cuts, binary, model_encoding, covers=covers)
        return patterns, counts, np.packbits(covers, axis=0), breakdown
    packed = np.empty(((n + 7) // 8, K), dtype=np.uint8)
    found: dict = {}  # a pattern's packed bits -> its class counts
    for a in range(0, n, chunk):
        b = min(a + chunk, n)
        covers = cover_matrix(rules_literals, _rows_slice(rows, a, b))
        packed[a // 8:(b + 7) // 8] = np.packbits(covers, axis=0)
        pats, cnts = pattern_counts(covers, y[a:b], n_classes)
        for key, c in zip(np.packbits(pats, axis=1), cnts):
            key = key.tobytes()
            if key in found:
                found[key] = found[key] + c
            else:
                found[key] = c
        del covers
    keys = list(found)
    pats = np.unpackbits(np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), -1),
                         axis=1, count=K).astype(bool)
    cnts = np.array([found[k] for k in keys], dtype=np.int64).reshape(len(keys), n_classes)
    order = sorted(range(len(pats)), key=lambda p: (int(pats[p].sum()), np.flatnonzero(pats[p]).tolist()))
    patterns, counts = pats[order], cnts[order]
    breakdown = score_pattern_counts(rules_literals, rows, patterns, counts, n_classes, cuts, binary, model_encoding)
    return patterns, counts, packed, breakdown


def packed_covers(rules_literals, rows, chunk_rows: int | None = None) -> np.ndarray:
    """``np.packbits`` of the (n, K) cover matrix of the rules ``rules_literals`` on ``rows``
    along the rows, ``CHUNK_ROWS`` rows at a time (the covers of all rows are never made)."""
    chunk = CHUNK_ROWS if chunk_rows is None else int(chunk_rows)
    if chunk % 8:
        raise ValueError(f"chunk_rows must be a multiple of 8 (packed covers). Got {chunk}.")
    n, K = rows.shape[0], len(rules_literals)
    packed = np.empty(((n + 7) // 8, K), dtype=np.uint8)
    for a in range(0, n, chunk):
        b = min(a + chunk, n)
        packed[a // 8:(b + 7) // 8] = np.packbits(cover_matrix(rules_literals, _rows_slice(rows, a, b)), axis=0)
    return packed


def predict_union(table, encoder, rules_literals, union_probs, chunk_rows: int | None = None) -> np.ndarray:
    """The union estimate's class probabilities (Eq. 3.5) of every row of ``table`` (the user's
    table, checked), ``CHUNK_ROWS`` rows at a time: each chunk encoded, its covers and their
    distinct patterns made, ``union_probs(patterns)`` read for them. The (n, d) encoded table and
    the (n, K) covers of all rows are never made; each row's numbers are those of the whole."""
    chunk = CHUNK_ROWS if chunk_rows is None else int(chunk_rows)
    n = len(table)
    out = None
    known: dict = {}  # a pattern's packed bits -> its probabilities, over the chunks
    for a in range(0, max(n, 1), chunk):
        b = min(a + chunk, n)
        covers = cover_matrix(rules_literals, encoder.transform(table.iloc[a:b], first_row=a))
        if covers.shape[1] == 0:
            probs = union_probs(np.zeros((1, 0), dtype=bool))[np.zeros(b - a, dtype=np.int64)]
        else:
            patterns, inverse = np.unique(covers, axis=0, return_inverse=True)
            keys = [k.tobytes() for k in np.packbits(patterns, axis=1)]
            new = [i for i, k in enumerate(keys) if k not in known]
            if new:  # each pattern's union estimate is made once, in the chunk where it first occurs
                for i, p in zip(new, union_probs(patterns[new])):
                    known[keys[i]] = p
            probs = np.array([known[k] for k in keys])[inverse.ravel()]
        if out is None:
            out = np.empty((n, probs.shape[1]))
        out[a:b] = probs
    return out
