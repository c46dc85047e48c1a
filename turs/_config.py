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


# ---------------------------------------------------------------- tuning constants of the kernels
# Compiled into the kernels (numba freezes a module-level value at compile time): a change needs
# a recompile, which the cache stamp of turs/_compile.py makes; no test may monkeypatch them
# (tests/test_compile_cache.py).

# the growth kernel's ``cum_union`` builds: the cheapest by the cost model below (auto), per row
# over each row's lists, per bucket over the groups' histograms, or by bit sets
PATH_AUTO, PATH_ROWS, PATH_BINS, PATH_BITS = 0, 1, 2, 3

# The cost model that picks the ``cum_union`` build per feature, in units of one list entry
# of the per-row build (``row_adds``): each build's cost is linear in what it does, and the
# constants were fitted (non-negative least squares, ``tools/replay_kernel.py fit-costs``) to
# the differences between the builds' times on every feature of the recorded kernel calls that
# leave the choice to the model, each feature timed alone with each build forced, on fold-0
# fits of avila, waveform, magic and the noisy 20k set; the per-bucket build's term per bucket,
# which the fit cannot tell from the others, is fixed at 0.5. Fitted constants beat constants
# tuned one at a time on avila and tie on the others (docs/results.md, "Tuning constants").
ROWS_PREFIX_COST = 2.30  # per-row build: per (group, bucket, class) of its prefix sums
BINS_FIXED_COST = 299.0  # per-bucket build: per feature
BINS_SCATTER_COST = 0.290  # per-bucket build: per estimated list entry it scatters (a group's classes side by side)
BINS_BUCKET_COST = 0.50  # per-bucket build: per (group, bucket it copies, class)
BITS_FIXED_COST = 1054.0  # bit-set build: per feature
BITS_RULE_COST = 3.03  # bit-set build: per (covered row, rule of its group) it sets a bit for
BITS_WORD_COST = 0.266  # bit-set build: per 64-bit word of the rules' sets and the groups' unions
BITS_RANK_COST = 1.41  # bit-set build: per rank query, (group, bucket, class of a covered row)

# largest overlap group (in rules) whose rule subsets are enumerated (2^12 - 1 per group; the
# length of the subset key in ``turs._core.overlap_groups._group_subsets``)
MAX_SUBSET_RULES = 12

# regret series summed side by side in one vector loop
REGRET_LANES = 64
"""Consecutive ``n`` whose series ``turs._core.regret._r2_lanes`` sums side by side: 64 lanes make
the regret table about 3.7x faster than one ``n`` at a time, and more lanes gain nothing
(docs/results.md, "Tuning constants")."""


# Read by Python at call time (``_config.NAME``): tests monkeypatch them here.

# the growth kernel's union build: PATH_AUTO (cheapest per feature) or one forced
UNION_BUILD = PATH_AUTO
"""The ``cum_union`` build ``turs._core.growth._grow_candidates`` uses by default (tests force each one)."""

# a bit-set word operation vs a scattered addition, in a kernel call's work estimate
BIT_OP_COST = 0.1
"""Cost of one 64-bit word operation of the bit-set build relative to one scattered float
addition of the list builds, in ``turs._core.growth.feature_work``'s estimate of a call's work (from
replayed kernel calls of the noisy 5k and 10k fits, ``tools/replay_kernel.py``)."""

# a bit-set word vs a shared-rule triple, in the rule set's union counts' choice
UNION_BITS_WORD_COST = 0.25
"""Cost of one 64-bit word of ``_union_counts_by_bits`` (an OR, or a popcount) relative to one
shared-rule triple of ``_union_counts``, in ``turs._core.union_counts.union_counts_cheapest``'s choice."""

# kernel work from which the prange growth kernel is used
PARALLEL_MIN_WORK = 20_000_000
"""Rows x cut points (the data's, an upper bound of the base's) x (1 + groups) below which the
serial kernel is used: waking a thread team (passive OpenMP wait, see above) costs
more than it saves on small covers, and the two threads of a 2-core machine share little (1.4x
at best, on the largest calls). On replayed kernel calls of fold-0 fits this bound beats both
all-serial calls and a bound on rows x features x (1 + groups) on waveform and pendigits and
leaves the small datasets' calls serial (docs/results.md, "Tuning constants")."""

# kernel work per jitted call at most (Ctrl-C is seen between calls)
MAX_CALL_WORK = 20_000_000
"""Estimated work (scattered additions, see ``turs._core.growth.feature_work``) above which a base's features
are split over several kernel calls, and a single feature above it over several ranges of the
overlap groups. numba's loops do not see signals: Python raises ``KeyboardInterrupt`` only
when a call returns, so this bounds how long Ctrl-C waits: about 0.2 s per call on a loaded
2-core machine, less when idle (docs/results.md, "Tuning constants"). Only the pass over the
cover's rows of one feature is not split."""

# regret series terms per jitted call at most (Ctrl-C is seen between calls)
REGRET_CALL_TERMS = 3e8
"""Series terms one jitted call of ``turs._core.regret._log2_regret_table`` sums at most (about 0.1 s on a
2-core machine): a large table is made in calls of bounded work, so that Ctrl-C is seen
between them (in one call, a table of 3 * 10^6 entries holds a KeyboardInterrupt for seconds)."""

# score a base that fits one serial kernel call in one jitted call without the GIL
ONE_CALL_PER_BASE = True
"""Score a base whose growth-kernel work fits one serial call (``MAX_CALL_WORK``, and below
``PARALLEL_MIN_WORK`` unless ``serial``) in one jitted call without the GIL
(``turs._core.score_base._score_base``): the same kernels on the same arrays, so the same numbers
to the bit. False: the separate calls with Python between them (the tests compare both)."""

# threads that score the bases of one beam iteration
SCORING_THREADS = 2
"""Threads that score the bases of one beam iteration at once (1: one after the other). The
kernels release the GIL (``nogil``); each base's growths are computed as in one thread, so
the search is the same step for step."""

# bases' work from which whole bases go to the scoring threads
THREADS_MIN_WORK = 3_000_000
"""Rows x cut points (the data's) of an iteration's bases below which they are scored in this
thread: a thread hand-off costs tens of microseconds, more than a small base's kernel call.
On fold-0 fits this bound is faster than 1e7 and than no threads on pendigits, waveform and
magic and as fast on vehicle and chess; with the shared queue and one call per base, 1e6 and
3e5 are within the noise of it and take more CPU time (docs/results.md, "Tuning constants")."""

# the scoring threads take the largest cover first
LARGEST_FIRST = True
"""Submit an iteration's bases to the scoring threads largest cover first (the longest
processing time first rule): a large base submitted last keeps one thread busy while the
other waits for the iteration to end. Each base is scored on its own, so the proposals, and
the search, are the same in any order; on the noisy 20k fit it saves a few percent of the
scoring time (docs/results.md, "Tuning constants")."""

# the scoring threads take bases from one queue
SHARED_QUEUE = True
"""Score an iteration's bases from one queue in this thread and ``SCORING_THREADS - 1`` pool
threads (``turs.search.scoring._score_shared``), instead of one pool task per base while this thread waits:
one hand-off per iteration, not one per base. Each base is scored on its own, so the search
is the same. It saves 3-7% on magic and avila and nothing on small fits such as chess
(docs/results.md, "Tuning constants")."""

# bases' work from which their kernel calls are shared with the scoring threads
SPLIT_MIN_WORK = 300_000
"""Rows x cut points (the data's) of an iteration's bases from which ``turs.search.scoring.score_bases`` shares
their kernel calls with the pool's threads when they are below ``THREADS_MIN_WORK``
(``turs.search.scoring._score_split``). It makes the iterations it applies to 15-25% faster
on avila, the noisy 20k set, magic and waveform; a higher ``THREADS_MIN_WORK`` (the split for
more iterations) is slower on magic and avila: where the kernels outweigh the Python, whole
bases in two threads are faster (docs/results.md, "Tuning constants")."""

# memory the prefix tables' caches may hold
CACHE_BYTES = 64 * 2**20
"""Memory the cached rows and tables of ``turs.search.prefix_tables`` may hold; beyond it both caches start again empty."""


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
# "subsets" enumerates the rule subsets of groups of at most this many rules (at most the
# kernels' MAX_SUBSET_RULES); a larger group makes the rule set use "neighbours".
MAX_RULES_FOR_SUBSETS = MAX_SUBSET_RULES

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
# The seed of the sample's hash order (turs.search.sample_keys): 0 makes every fit repeatable.
SEARCH_SAMPLE_SEED = 0
# Candidates (distinct rules, best r on the sample first) scored exactly on all rows per search.
CONFIRM_CANDIDATES = 20
# Memory for the all-row bitmaps of the candidates' literal prefixes, kept over a fit's searches.
PREFIX_CACHE_BYTES = 128 * 2**20
# ... and at most this many bytes per training row (at least 16 MB): 48 MB at 10^6 rows, where
# the cache was a third of the fit's peak (docs/performance.md, "Memory per row").
PREFIX_CACHE_BYTES_PER_ROW = 48
