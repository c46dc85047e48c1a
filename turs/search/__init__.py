"""The search for a TURS model (thesis Section 3.5, Algorithms 3 and 4).

Algorithm 3 (:func:`learn_rule_set`) adds rules while the MDL score (Eq. 3.20) decreases.
Algorithm 4 (:func:`learn_single_rule`) grows the next rule with the diverse-patience
dual-beam search:

* main beam: candidates scored by the learning speed score ``r(S)`` (Eq. 3.21), bucketed by
  ``|S'| / |S|`` into ``W`` patience intervals (Eq. 3.23), best per bucket, filtered by the
  MDL local test of Eq. 3.22;
* auxiliary beam: candidates scored by the complementary score ``R(S)`` (Eq. 3.24), which
  ignores the overlap with the rule set, bucketed by ``|S' \\ M| / |S \\ M|``, filtered by
  the local test on the uncovered instances (Eq. 3.25);
* growing stops after ``k_stop`` consecutive iterations in which neither beam improved on
  the previous iteration's best; the rule returned is the candidate with the best ``r``.

Where each part lives (``docs/layout.md``): the beam search, written once, in :mod:`.beam`
(Algorithm 4 in ``search_rule``, Algorithm 3 in ``learn_rule_set``); an iteration's bases and
their proposals to each beam in :mod:`.scoring`; a base's growths in :mod:`.growths`; the local
test in :mod:`.local_test`; diverse patience in :mod:`.diverse_patience`; what differs between
the thesis text (``search="thesis"``) and the authors' implementation (``search="turs2"``) in
:mod:`.policies`; the data and the rule set with its MDL score in :mod:`.state`; the sampled
search for large data in :mod:`.sampled`; the trace in :mod:`.record`; the settings and the
user's constraints in :mod:`.settings`. The counting is done by the kernels of
:mod:`turs._core`, named after the same parts; the switches and thresholds are in
``turs._config``.
"""
from .beam import SEARCHES, learn_rule_set, learn_single_rule, search_rule
from .growths import TURS2_MIN_SPLIT, Candidate, Growths, empty_rule, score_growths
from .policies import POLICIES, BeamPolicy, ThesisPolicy, Turs2Policy
from .record import FIT_STOPS, SEARCH_STOPS, TRACE_MODES, SearchRecorder, describe_numbers
from .settings import SearchConstraints, SearchSettings
from .state import (RuleSetState, SearchData, group_subsets, local_neighbours, local_subsets, union_count_mode,
                    union_subsets)

__all__ = ["SEARCHES", "SearchSettings", "SearchConstraints", "learn_rule_set", "learn_single_rule", "search_rule",
           "TURS2_MIN_SPLIT", "Candidate", "Growths", "empty_rule", "score_growths", "POLICIES", "BeamPolicy", "ThesisPolicy",
           "Turs2Policy", "RuleSetState", "SearchData", "group_subsets", "local_neighbours", "local_subsets",
           "union_count_mode", "union_subsets", "FIT_STOPS", "SEARCH_STOPS", "TRACE_MODES",
           "SearchRecorder", "describe_numbers"]
