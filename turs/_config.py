"""Numba options for every jitted kernel of `turs`, in one place.

``TURS_NUMBA_CACHE=0`` turns numba's on-disk cache off (useful when debugging kernels);
``TURS_NUMBA_PARALLEL=0`` runs the ``prange`` loops serially (for 1- vs 2-thread timings).
``OMP_WAIT_POLICY`` defaults to ``PASSIVE`` (see below).
"""
import os

# numba's OpenMP threads spin while they wait for work by default: when other processes keep
# the cores busy (a benchmark on the other core, the harness' second worker), the spinning
# steals the working thread's time and a waveform fit went from 17 s (serial) to 94 s.
# Passive waiting costs microseconds per parallel call. Set before libgomp starts; a user's
# own OMP_WAIT_POLICY wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
NUMBA_CACHE = os.environ.get("TURS_NUMBA_CACHE", "1") != "0"
NUMBA_PARALLEL = os.environ.get("TURS_NUMBA_PARALLEL", "1") != "0"
NUMBA_FASTMATH = False  # code lengths are compared to the bit; keep IEEE semantics


# ---------------------------------------------------------------------------------------------
# The search's switches and thresholds. Python reads them when a fit runs (as ``_config.NAME``),
# so a test or a benchmark may change them for one fit; docs/performance.md says how each value
# was chosen.

# Score only the growths that pass a local test (Eq. 3.22 or 3.25), the only ones either beam
# may take: the kernel tests each growth first and counts the data-code change on the rows M
# covers for those alone. The growths kept get the very numbers of a full count, so the search
# is the same step for step; False scores every growth. A recorded trace (it shows every
# growth), local_test_fallback and use_local_test=False score every growth whatever this says.
TESTED_GROWTHS_ONLY = True

# How the growth kernel counts a candidate inside the union of each overlap group's rules
# (turs.search.state.union_count_mode); every choice gives the same counts:
#   "rules"       the counts in each of g's rules, minus s - 1 times those in each group that
#                 shares s >= 2 rules with g;
#   "neighbours"  the sum of the counts in the groups that share a rule with g;
#   "subsets"     inclusion-exclusion over the subsets of g's rules (groups of at most
#                 MAX_RULES_FOR_SUBSETS rules, else "neighbours");
#   "bits"        no lists: the kernel ORs the bit sets of each group's rules;
#   "auto"        "bits" from BITS_MIN_GROUPS overlap groups, else "neighbours" ("rules" from
#                 RULES_MIN_GROUPS groups when BITS_MIN_GROUPS is raised above it).
UNION_COUNTS = "auto"
# Overlap groups from which "auto" counts unions by bit sets and builds no pair lists (below it
# the lists are cheaper than the bit sets).
BITS_MIN_GROUPS = 256
# Overlap groups from which "auto" counts by single rules when bit sets are off.
RULES_MIN_GROUPS = 256

# The sampled search (turs.search.sampled): fits on more training rows than this search on a
# sample unless exact=True ...
SAMPLED_MIN_ROWS = 80_000
# ... and fits on SAMPLE_WHEN_MIN_ROWS to SAMPLED_MIN_ROWS rows switch to it from the first rule
# search where training rows x overlap groups of the rule set reach SAMPLE_WHEN_ROWS_X_GROUPS.
SEARCH_SAMPLE_ROWS = 10_000  # rows of the sample the rule searches start on
SAMPLE_WHEN_MIN_ROWS = 2 * SEARCH_SAMPLE_ROWS  # so the sample is at most half the rows
SAMPLE_WHEN_ROWS_X_GROUPS = 4_000_000
# When no candidate of a search on the sample is accepted on all rows, the sample doubles and
# the search runs again, up to this many rows.
SEARCH_SAMPLE_MAX = 20_000
# Candidates (distinct rules, best r on the sample first) scored exactly on all rows per search.
CONFIRM_CANDIDATES = 20
# Memory for the all-row bitmaps of the candidates' literal prefixes, kept over a fit's searches.
PREFIX_CACHE_BYTES = 128 * 2**20
