"""The bookkeeping of the two variants of Algorithm 4, as small named policies.

The beam search itself is written once (:func:`turs.search.beam.search_rule`); what differs
between the thesis text (``search="thesis"``) and the authors' implementation
(``search="turs2"``, the default) is a :class:`BeamPolicy`:

======================  ===============================  ==========================================
step                    :class:`ThesisPolicy`            :class:`Turs2Policy`
======================  ===============================  ==========================================
``L_split``, buckets    ``score_growths(.., "thesis")``  ``score_growths(.., "turs2")``
growths considered      all                              those splitting ``S \\ M`` (2 each side)
auxiliary beam          only while ``M`` is not empty    always
per-base selection      best per bucket                  best per bucket, first of equal covers,
                        (``select_per_bucket``)          bucket order (``select_per_bucket_turs2``)
reduction               ``reduce_by_coverage``           ``reduce_by_coverage_turs2``
"worse" iteration       neither best score improves      both drop, or both negative
stop                    ``worse >= k_stop``              ``worse > k_stop``
next bases              both beams, one per rule         both beams, auxiliary first, one per cover
candidates for the end  the main beams, every iteration  the next bases, not the last iteration's
accepting the rule      the MDL score decreases          ``r > 0``
======================  ===============================  ==========================================

The per-base selection and the reduction keep diverse patience
(:mod:`turs.search.diverse_patience`). The final pick is the same for both: the candidate with
the best ``r``, the first on ties.
``docs/spec-notes.md`` says where each turs2 step comes from.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .diverse_patience import (reduce_by_coverage, reduce_by_coverage_turs2, select_per_bucket,
                               select_per_bucket_turs2)


@dataclass
class Progress:
    """The stop rule's memory across the iterations of one rule search."""

    prev_r: float = -np.inf  # the previous iteration's best r (main beam)
    prev_R: float = -np.inf  # and best R (auxiliary beam)
    worse: int = 0  # "worse" iterations in a row


class BeamPolicy:
    """How one variant of Algorithm 4 keeps its books (see the module docstring)."""

    name = ""  # the ``search`` setting, also the local-test code and bucket variant of the kernels
    keyed = False  # whether a proposal carries its set of literals (for duplicate removal)
    acceptance = ""  # the rule of :meth:`accepts`, as the trace names it

    def main_mask(self, g):
        """The growths the main beam may consider before the local test (None: all)."""
        return None

    def aux_mask(self, g) -> np.ndarray:
        """The growths the auxiliary beam may consider before the local test."""
        raise NotImplementedError

    def aux_beam_on(self, state, settings) -> bool:
        """Whether the auxiliary beam is filled for the rule set ``state``."""
        raise NotImplementedError

    def select(self, g, score, bucket, eligible, settings, data) -> np.ndarray:
        """One base's proposals for a beam: indices into ``g``, in proposal order."""
        raise NotImplementedError

    def proposals(self, g, score, cover, bucket, eligible, settings, data) -> list:
        """One base's proposals as ``(score, coverage, literal key or None, growths, index)``."""
        idx = self.select(g, score, bucket, eligible, settings, data).tolist()
        return [(score[i], cover[i], g.key(i) if self.keyed else None, g, i) for i in idx]

    def reduce(self, proposals, width, settings, build) -> list:
        """The beam (candidates built by ``build(growths, index)``) from all bases' proposals."""
        raise NotImplementedError

    def update(self, progress: Progress, beam, aux_beam, best_r, best_R, aux_on) -> None:
        """Count the iteration as "worse" or not and remember its best scores."""
        raise NotImplementedError

    def stops(self, progress: Progress, k_stop: int) -> bool:
        raise NotImplementedError

    def next_bases(self, beam, aux_beam) -> list:
        raise NotImplementedError

    def pool_additions(self, beam, next_bases, stopping: bool) -> list:
        """The candidates of this iteration that the final pick chooses from."""
        raise NotImplementedError

    def accepts(self, best, state) -> bool:
        """Whether Algorithm 3 adds ``best`` to the rule set ``state``."""
        raise NotImplementedError


class ThesisPolicy(BeamPolicy):
    """Algorithm 4 as the thesis text describes it (``search="thesis"``)."""

    name = "thesis"
    keyed = True
    acceptance = "mdl_decreases"

    def aux_mask(self, g):
        return g.aux_bucket >= 0

    def aux_beam_on(self, state, settings):
        return settings.use_auxiliary_beam and state.K > 0

    def select(self, g, score, bucket, eligible, settings, data):
        return select_per_bucket(score, bucket, eligible, settings.beam_width, settings.use_patience, data.kernels)

    def reduce(self, proposals, width, settings, build):
        return [build(g, i) for *_, g, i in reduce_by_coverage(proposals, width, settings.use_patience)]

    def update(self, progress, beam, aux_beam, best_r, best_R, aux_on):
        improved = best_r > progress.prev_r or (aux_on and best_R > progress.prev_R)
        progress.worse = 0 if improved else progress.worse + 1
        progress.prev_r, progress.prev_R = best_r, best_R

    def stops(self, progress, k_stop):
        return progress.worse >= k_stop

    def next_bases(self, beam, aux_beam):
        return _dedupe(beam + aux_beam)

    def pool_additions(self, beam, next_bases, stopping):
        return beam

    def accepts(self, best, state):
        return best is not None and best.total_after < state.total


class Turs2Policy(BeamPolicy):
    """Algorithm 4 with the beam bookkeeping of the authors' implementation (``search="turs2"``).

    Each difference from :class:`ThesisPolicy` was read from that code (``docs/spec-notes.md``):
    the local test's ``L_split`` (``turs.search.local_test.split_code``); the bucket
    boundaries and the rule that a growth must split ``S \\ M`` with at least
    ``TURS2_MIN_SPLIT`` instances each side (``turs.search.growths._turs2_bucket_edges``); the
    scores ``r`` and ``R`` of a growth that refines a literal, with the model code that code
    charges while searching (``_placeholder_model_bits`` in ``turs._core.candidate_score``); the
    auxiliary beam is filled while ``M`` is empty too; a bucket keeps its first occupant against
    an equal cover (``select_per_bucket_turs2``); the proposals of all bases are reduced in
    their order of generation, duplicates included (``reduce_by_coverage_turs2``); the next bases and the
    final candidates are both beams, auxiliary first, without repeated covers; an iteration is
    "worse" when both beams' best scores drop (or both are negative), and the search stops
    after more than ``k_stop`` such iterations in a row, before the last beams join the
    candidates; the rule is accepted when its ``r`` is positive.
    """

    name = "turs2"
    acceptance = "r_positive"

    def main_mask(self, g):
        return g.splits_uncovered

    def aux_mask(self, g):
        return g.splits_uncovered

    def aux_beam_on(self, state, settings):
        return settings.use_auxiliary_beam

    def select(self, g, score, bucket, eligible, settings, data):
        return select_per_bucket_turs2(g, score, bucket, eligible, settings.beam_width, settings.use_patience, data)

    def reduce(self, proposals, width, settings, build):
        return reduce_by_coverage_turs2(proposals, width, build)

    def update(self, progress, beam, aux_beam, best_r, best_R, aux_on):
        drop_main = bool(beam) and best_r < progress.prev_r
        drop_aux = bool(aux_beam) and best_R < progress.prev_R
        negative = bool(beam) and bool(aux_beam) and best_r < 0 and best_R < 0
        progress.worse = progress.worse + 1 if ((drop_main and drop_aux) or negative) else 0
        if beam:
            progress.prev_r = best_r
        if aux_beam:
            progress.prev_R = best_R

    def stops(self, progress, k_stop):
        return progress.worse > k_stop

    def next_bases(self, beam, aux_beam):
        """The beams' candidates, the auxiliary beam's first, without repeated covers (a cover
        is compared only with the earlier ones of its size: hashing every cover's bytes cost
        more, ``docs/performance.md``)."""
        by_size, bases = {}, []
        for c in aux_beam + beam:
            same_size = by_size.setdefault(c.rows.shape[0], [])
            if not any(np.array_equal(c.rows, rows) for rows in same_size):
                same_size.append(c.rows)
                bases.append(c)
        return bases

    def pool_additions(self, beam, next_bases, stopping):
        return [] if stopping else next_bases

    def accepts(self, best, state):
        return best is not None and best.r > 0  # the authors' code: a positive score (Eq. 3.21)


POLICIES = {"thesis": ThesisPolicy(), "turs2": Turs2Policy()}


def best_by_r(pool):
    """The candidate with the best ``r`` (the first on ties): the rule a search returns."""
    best = None
    for c in pool:
        if best is None or c.r > best.r:
            best = c
    return best


def _dedupe(cands):
    """The candidates without repeated sets of literals, in order."""
    seen, out = set(), []
    for c in cands:
        if c.key not in seen:
            seen.add(c.key)
            out.append(c)
    return out
