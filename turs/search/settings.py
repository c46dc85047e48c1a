"""What the estimator asks of a rule search: its settings (:class:`SearchSettings`) and the
user's constraints on the rules (:class:`SearchConstraints`).

Plain records, below every search module: the beam (:mod:`.beam`) and the scoring of its
bases (:mod:`.scoring`) both read them. ``turs.search`` and ``turs.search.beam`` export them
too.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SearchSettings", "SearchConstraints"]


@dataclass
class SearchSettings:
    """The estimator's search parameters (``TURSClassifier``'s of the same names)."""

    beam_width: int = 10
    use_patience: bool = True
    use_local_test: bool = True
    use_auxiliary_beam: bool = True
    score: str = "learning_speed"
    k_stop: int = 5
    max_iterations: int = 1000
    local_test_fallback: bool = False
    search: str = "thesis"  # or "turs2": the authors' implementation's beam bookkeeping


@dataclass
class SearchConstraints:
    """What a user asks of the rules (human-guided TURS, ``docs/guided.md``), on the encoded columns.

    ``forbidden``: a bool per encoded column, no growth uses a column marked True.
    ``max_rule_length``: a candidate with this many literals is not grown further (neither a new
    literal nor a refinement of one of its literals); the search trace says where that ended a
    search (stop reason ``"max_rule_length"``).
    ``preferred``: ``(name, mask)`` per preferred source column, ``mask`` a bool per encoded
    column (a categorical column's one-hot columns are one source column); before each rule
    search, one search per remaining preferred column, restricted to rules with a literal on it
    (:func:`~turs.search.beam.search_rule`'s ``require``), S-CLASSY's Algorithm 1 for unordered
    rule sets.
    ``preferred_fallback``: when no preferred candidate is accepted, run the unrestricted
    search (True), or, as S-CLASSY prints it, only when no preferred search found any
    candidate, and else end the fit (False).
    """

    forbidden: np.ndarray | None = None
    max_rule_length: int | None = None
    preferred: tuple = ()
    preferred_fallback: bool = True
