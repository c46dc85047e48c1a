"""Diverse patience (thesis Section 3.5.2, Eq. 3.23): the beams keep candidates of different
coverage instead of the ``W`` best, so that a rule that covers few rows now but could grow into
a good one is not crowded out by many similar large ones.

Two places keep it:

* per base rule, the growths fall into ``W`` *patience buckets* by their coverage ratio (the
  bucket edges and each growth's bucket come from the kernels, ``turs._core``), and each bucket
  proposes its best growth (:func:`select_per_bucket`; the authors' variant
  :func:`select_per_bucket_turs2` keeps a bucket's first occupant against an equal cover);
* over all bases of an iteration, the proposals are sorted by coverage, split into ``W``
  clusters and the best of each kept (:func:`reduce_by_coverage`,
  :func:`reduce_by_coverage_turs2`).

The main beam counts coverage on the rule's whole cover ``S'``, the auxiliary beam on the rows
no rule of ``M`` covers (``S' \\ M``). Without patience (``use_patience=False``) both steps keep the
top ``W`` by score. Which variant runs is the search's policy (:mod:`turs.search.policies`).
"""
from __future__ import annotations

import numpy as np

from .._core.kernels import current

# ---------------------------------------------------------------- per-base selection
def select_per_bucket(score: np.ndarray, buckets: np.ndarray, eligible: np.ndarray, width: int,
            use_patience: bool, kernels=None) -> np.ndarray:
    """Indices of the best eligible candidate per bucket (or the top-``width`` overall);
    ``kernels``: the fit's (``SearchData.kernels``; default: this thread's fit's)."""
    if use_patience:
        return (kernels or current())._best_per_bucket(score, buckets, eligible, width)
    idx = np.flatnonzero(eligible & np.isfinite(score))
    return idx[np.argsort(-score[idx], kind="stable")][:width]


def select_per_bucket_turs2(g, score: np.ndarray, buckets: np.ndarray, eligible: np.ndarray, width: int,
                  use_patience: bool, data) -> np.ndarray:
    """:func:`select_per_bucket` as the authors' beam fills its patience buckets, in bucket order (the order
    in which their beam lists them): a growth that covers the same rows as its bucket's current
    occupant never replaces it, whatever its score (their ``DiverseCovBeam`` compares the covers
    before the scores; the main and the auxiliary beam alike, on ``S'``). WDBC folds 1-4 and
    vowels fold 3 of the reference check need this. A bucket has one winner, so the winners in
    bucket order are the buckets' winners as they lie, with no sort."""
    if not use_patience:
        chosen = select_per_bucket(score, buckets, eligible, width, use_patience, data.kernels)
        return chosen[np.argsort(buckets[chosen], kind="stable")]
    best = data.kernels._bucket_winners_first_cover(score, buckets, eligible, width, g.cov, g.feat, g.lo, g.hi,
                                                    data.bins, g.base.rows)
    return best[best >= 0]


# ------------------------------------------------------------------------ reduction
def reduce_by_coverage(selected, width, use_patience):
    """The beam from the proposals ``(score, coverage, key, ...)`` of all bases (Algorithm 4,
    lines 21-22).

    Duplicates (the same set of literals reached from two bases) keep their best proposal.
    With patience, the proposals are sorted by coverage (``|S'|`` for the main beam,
    ``|S' \\ M|`` for the auxiliary one) and split into ``width`` clusters of equal size, and
    the best of each cluster is kept: "we sort all rules in the beam based on their coverage
    and categorize them into W clusters" (Section 3.5.2). Without patience: the top ``width``.
    Returned best first.
    """
    seen, unique = set(), []
    for item in sorted(selected, key=lambda t: -t[0]):
        if item[2] not in seen:
            seen.add(item[2])
            unique.append(item)
    if not use_patience or len(unique) <= width:
        return unique[:width]
    by_coverage = np.argsort(np.array([item[1] for item in unique]), kind="stable")
    best = [max((unique[j] for j in cluster), key=lambda t: t[0])
            for cluster in np.array_split(by_coverage, width)]
    return sorted(best, key=lambda t: -t[0])


def reduce_by_coverage_turs2(selected, width, build):
    """The beam from the proposals ``(score, coverage, _, growths, index)`` of all bases, in
    their order of generation, as the authors' implementation reduces them: sorted by coverage
    (numpy's default sort, so ties keep that implementation's order), split into ``width``
    clusters, the best of each kept (first on ties). A winner is then dropped only if the
    first earlier winner with the same coverage has the same cover as a mask over its base
    (that code compares those masks, so a rule reached from two bases usually stays twice).
    ``build(growths, index)``: the winner as a candidate (built once per iteration, shared by
    the two beams' reductions)."""
    if not selected:
        return []
    order = np.argsort(np.array([t[1] for t in selected]))
    scores = np.array([t[0] for t in selected], dtype=float)
    beam, first_of = [], {}  # first_of: coverage -> (the first winner, its base's rows)
    size, larger = divmod(len(order), width)  # np.array_split(order, width), without its overhead
    end = 0
    for w in range(min(width, len(order))):
        start, end = end, end + size + (w < larger)
        cluster = order[start:end]
        _, _, _, g, i = selected[cluster[int(np.argmax(scores[cluster]))]]
        c = build(g, i)
        same = first_of.get(c.coverage)
        if same is not None and _same_mask(same[0].rows, same[1], c.rows, g.base.rows):
            continue
        first_of.setdefault(c.coverage, (c, g.base.rows))
        beam.append(c)
    return beam


def _same_mask(rows_a, base_a, rows_b, base_b) -> bool:
    """Whether two covers are the same mask over their bases (sorted row indices, each cover
    a subset of its base): bases of one size and covers at the same positions in them."""
    return len(base_a) == len(base_b) and np.array_equal(np.searchsorted(base_a, rows_a),
                                                         np.searchsorted(base_b, rows_b))
