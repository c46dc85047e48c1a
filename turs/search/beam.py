"""The beam search, written once: Algorithm 3 (:func:`learn_rule_set`) around Algorithm 4
(:func:`search_rule`), with the bookkeeping of each variant in a policy
(:mod:`turs.search.policies`).
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .._fit_control import active, run_for_fit
from .growths import Candidate, GrowthCall, Growths, empty_rule, score_growths
from .policies import POLICIES, Progress, best_by_r
from .record import SearchRecorder, _num, mdl_change, mdl_parts_with, runner_up
from .state import RuleSetState, SearchData


@dataclass
class SearchSettings:
    beam_width: int = 10
    use_patience: bool = True
    use_local_test: bool = True
    use_auxiliary_beam: bool = True
    score: str = "learning_speed"
    k_stop: int = 5
    max_iterations: int = 1000
    local_test_fallback: bool = False
    search: str = "thesis"  # or "turs2": the authors' implementation's beam bookkeeping


SEARCHES = tuple(POLICIES)


@dataclass
class SearchConstraints:
    """What a user asks of the rules (issue 20, ``docs/guided.md``), on the encoded columns.

    ``forbidden``: a bool per encoded column, no growth uses a column marked True.
    ``max_rule_length``: a candidate with this many literals is not grown further (neither a new
    literal nor a refinement of one of its literals); the search trace says where that ended a
    search (stop reason ``"max_rule_length"``).
    ``preferred``: ``(name, mask)`` per preferred source column, ``mask`` a bool per encoded
    column (a categorical column's one-hot columns are one source column); before each rule
    search, one search per remaining preferred column, restricted to rules with a literal on it
    (:func:`search_rule`'s ``require``), S-CLASSY's Algorithm 1 for unordered rule sets.
    ``preferred_fallback``: when no preferred candidate is accepted, run the unrestricted
    search (True), or, as S-CLASSY prints it, only when no preferred search found any
    candidate, and else end the fit (False).
    """

    forbidden: np.ndarray | None = None
    max_rule_length: int | None = None
    preferred: tuple = ()
    preferred_fallback: bool = True


def _allowed_growths(g: Growths, base: Candidate, constraints: SearchConstraints | None,
                     require: np.ndarray | None) -> np.ndarray | None:
    """Which growths of ``base`` the constraints let either beam take (None: all): none on a
    forbidden column, and, for a search restricted to a preferred column (``require``, a bool
    per encoded column), from the empty rule only growths on that column, so that every
    candidate of the search has a literal on it (literals are never removed)."""
    mask = None
    if constraints is not None and constraints.forbidden is not None:
        mask = ~constraints.forbidden[g.feat]
    if require is not None and not base.literals:
        first = require[g.feat]
        mask = first if mask is None else mask & first
    return mask


def _main_beam_eligible(g: Growths, base: Candidate, state: RuleSetState, settings: SearchSettings,
                        mask: np.ndarray | None = None) -> np.ndarray:
    """Which growths of ``base`` the main beam may take: those that pass the local test (all of
    them without it), within ``mask``. With ``local_test_fallback``, when none is left, those
    whose MDL score beats the base's (the empty rule: that improve on M), as the authors' code
    does."""
    ok = g.local_test if settings.use_local_test else np.ones_like(g.local_test)
    if mask is not None:
        ok = ok & mask
    if settings.use_local_test and settings.local_test_fallback and not ok.any():
        bar = base.total_after if np.isfinite(base.total_after) else state.total
        ok = g.total_after < bar
        if mask is not None:
            ok = ok & mask
    return ok


def _builder(data: SearchData, recorder=None):
    """``build(growths, index)``: the growth as a :class:`Candidate`, built once per iteration
    (a growth chosen by both beams is one candidate), named by ``recorder`` if any;
    ``with_rows=False`` for a growth only the trace keeps (never a base: the beams are built
    first)."""
    made: dict = {}

    def build(g: Growths, i: int, with_rows: bool = True) -> Candidate:
        c = made.get((id(g), i))
        if c is None:
            c = made[id(g), i] = g.materialize(i, data, with_rows)
            if recorder is not None:
                recorder.tag(c, g, i)
        return c
    return build


SCORING_THREADS = 2
"""Threads that score the bases of one beam iteration at once (1: one after the other). The
kernels release the GIL (``nogil``); each base's growths are computed as in one thread, so
the search is the same step for step."""

THREADS_MIN_WORK = 3_000_000
"""Rows x cut points (the data's) of an iteration's bases below which they are scored in this
thread: a thread hand-off costs tens of microseconds, more than a small base's kernel call.
Fold-0 fits, idle 2-core machine, 2026-11-25, best of two to five, this bound vs 1e7 vs no
threads: vehicle 0.26 / 0.27 / 0.26 s (1e6: 0.39), chess 0.61 / - / 0.62, pendigits
4.8 / 5.6 / 5.9, waveform 7.6 / 8.8 / 9.0, magic 9.4 / 9.8 / 10.7; rows x features >= 2e5
instead made chess 0.69 s. With the shared queue (:data:`SHARED_QUEUE`) and the one call per base
(``turs.search.growths.ONE_CALL_PER_BASE``), 1e6 and 3e5 were within the noise of this bound
(2026-11-26, alternating twice in one process, this bound / 1e6 / 3e5: vehicle 0.28-0.29 /
0.26 / 0.23-0.25 s, chess 0.72-0.75 / 0.71-0.77 / 0.72-0.73, pendigits 4.7-5.2 / 4.6-5.5 /
4.2-4.4, waveform 5.1-5.2 / 5.0-5.1 / 5.1, avila 21.9-22.9 / 21.1-21.8 / 21.3-22.3, noisy 20k
11.7-11.8 / 11.5-11.8 / 11.6-11.7), with more CPU time for the smaller bounds: kept."""


LARGEST_FIRST = True
"""Submit an iteration's bases to the scoring threads largest cover first (the longest
processing time first rule): a large base submitted last keeps one thread busy while the
other waits for the iteration to end. Each base is scored on its own, so the proposals, and
the search, are the same in any order. On the noisy 20k fit, alternating three times in one
process (2026-11-26), wall / CPU time 0.60-0.61 against 0.62-0.63 in submission order."""


TESTED_GROWTHS_ONLY = True
"""Score only the growths that pass a local test (Eq. 3.22 or 3.25), the only ones either beam
can take (``score_growths(tested_only=True)``): the growth kernel tests each growth first and
counts the data-code change on the rows ``M`` covers (most of its work) for those alone, and
``_finish_growths`` scores only them (75% of magic's growths and 59% of avila's fail both
tests). The growths kept get the very numbers of a full count, in the same order, so the
search is the same step for step. Off when a trace is recorded (it shows every growth's
numbers), with ``local_test_fallback`` (it reads every growth's score) and without the local
test (every growth is eligible)."""


def base_proposals(base: Candidate, state: RuleSetState, settings: SearchSettings, policy, aux_on: bool,
                   constraints: SearchConstraints | None, require: np.ndarray | None, tested_only: bool,
                   serial: bool = False):
    """One base's growths and its proposals to each beam (Algorithm 4, lines 7-20):
    ``(growths, main proposals, aux proposals, main mask, aux mask)``, None without growths.
    ``tested_only``: only the growths that pass a local test are scored
    (:data:`TESTED_GROWTHS_ONLY`)."""
    g = score_growths(base, state, settings.beam_width, settings.score, policy.name, serial, tested_only)
    return _proposals(g, base, state, settings, policy, aux_on, constraints, require)


def _proposals(g: Growths | None, base: Candidate, state: RuleSetState, settings: SearchSettings, policy,
               aux_on: bool, constraints: SearchConstraints | None, require: np.ndarray | None):
    """:func:`base_proposals` of the base's scored growths ``g``."""
    if g is None:
        return None
    data = state.data
    main_mask, aux_mask = policy.main_mask(g), policy.aux_mask(g)
    allowed = _allowed_growths(g, base, constraints, require)
    if allowed is not None:
        main_mask = allowed if main_mask is None else main_mask & allowed
        aux_mask = aux_mask & allowed
    ok = _main_beam_eligible(g, base, state, settings, main_mask)
    aux = []
    if aux_on:
        alt = g.aux_local_test if settings.use_local_test else np.ones_like(g.aux_local_test)
        aux = policy.proposals(g, g.R, g.cov_unc, g.aux_bucket, alt & aux_mask, settings, data)
    main = policy.proposals(g, g.r, g.cov, g.bucket, ok, settings, data)
    return g, main, aux, main_mask, aux_mask


class _LazyPool:
    """A pool of ``SCORING_THREADS`` scoring threads, started when first needed."""

    def __init__(self):
        self.pool = None

    def get(self) -> ThreadPoolExecutor:
        if self.pool is None:
            self.pool = ThreadPoolExecutor(SCORING_THREADS, thread_name_prefix="turs-score")
        return self.pool

    def shutdown(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


_SCORING = threading.local()  # .pool: the _LazyPool of the fit running in this thread


@contextmanager
def scoring_pool():
    """One pool of scoring threads for every beam iteration inside (a fit's rule searches),
    instead of one per iteration, shut down on the way out (also on an error or Ctrl-C).
    Starting and joining a pool per iteration cost the noisy 20k fit about 5%: 10.6-11.2 s
    with one pool against 11.1-12.1 s, alternating three times (2026-11-26)."""
    if getattr(_SCORING, "pool", None) is not None:  # already inside one
        yield
        return
    holder = _SCORING.pool = _LazyPool()
    try:
        yield
    finally:
        _SCORING.pool = None
        holder.shutdown()


def in_threads(bases: list, state: RuleSetState) -> bool:
    """Whether :func:`score_bases` scores ``bases`` in ``SCORING_THREADS`` threads: two or more
    bases whose rows x cut points reach ``THREADS_MIN_WORK``."""
    n_rows = sum(base.coverage for base in bases)
    return SCORING_THREADS >= 2 and len(bases) >= 2 and n_rows * state.data.n_cuts_total >= THREADS_MIN_WORK


def _largest_first(bases: list) -> list:
    """The bases' indices in the order the scoring threads take them (:data:`LARGEST_FIRST`)."""
    if LARGEST_FIRST:
        return sorted(range(len(bases)), key=lambda i: -bases[i].coverage)
    return list(range(len(bases)))


def score_bases(bases: list, state: RuleSetState, settings: SearchSettings, policy, aux_on: bool,
                constraints=None, require=None, tested_only: bool = False) -> list:
    """:func:`base_proposals` of each base, in order; with ``SCORING_THREADS`` threads when
    there are two or more bases with enough work (``THREADS_MIN_WORK``), each on the serial
    kernel, in the pool of :func:`scoring_pool` if one is open (else in a pool of this call).
    Below that work, inside a pool of :func:`scoring_pool`, the bases' kernel calls alone are
    shared with the pool's threads (:func:`_score_split`, from ``SPLIT_MIN_WORK`` on).
    A Ctrl-C during the fit stops every thread at its next kernel call; no scoring thread is
    still running when this returns or raises."""
    args = (state, settings, policy, aux_on, constraints, require, tested_only)
    holder = getattr(_SCORING, "pool", None)
    if not in_threads(bases, state):
        if holder is not None and _split_kernels(bases, state):
            return _score_split(holder.get(), bases, args)
        return [base_proposals(base, *args) for base in bases]
    if holder is None:
        with ThreadPoolExecutor(min(SCORING_THREADS, len(bases)), thread_name_prefix="turs-score") as pool:
            return _score_in(pool, bases, args)
    return _score_in(holder.get(), bases, args)


def _score_in(pool: ThreadPoolExecutor, bases: list, args: tuple) -> list:
    """The bases' proposals in order, scored in ``pool``, the largest covers submitted first
    (:data:`LARGEST_FIRST`)."""
    if SHARED_QUEUE:
        return _score_shared(pool, bases, args)
    control = active()
    futures = [None] * len(bases)
    for i in _largest_first(bases):
        futures[i] = pool.submit(run_for_fit, control, base_proposals, bases[i], *args, True)
    try:
        return [f.result() for f in futures]
    except BaseException:
        for f in futures:
            f.cancel()
        wait(futures)  # the running ones stop at their next kernel call
        raise


SHARED_QUEUE = True
"""Score an iteration's bases from one queue in this thread and ``SCORING_THREADS - 1`` pool
threads (:func:`_score_shared`), instead of one pool task per base while this thread waits:
one hand-off per iteration, not one per base. Each base is scored on its own, so the search
is the same. Alternating twice in one process (2026-11-26, with
``turs.search.growths.ONE_CALL_PER_BASE``), without / with: magic 7.31, 7.23 / 6.64, 6.84 s;
avila 22.51, 23.13 / 21.74, 22.47 s; chess 0.70-0.73 s both."""


def _share(pool: ThreadPoolExecutor, order: list, job) -> None:
    """``job(i)`` for each ``i`` of ``order``, taken from one queue by this thread and
    ``SCORING_THREADS - 1`` helpers of ``pool``: one task per helper, and no thread waits idle
    while the queue holds work. An error (a Ctrl-C at a kernel call) in any of them stops the
    others at their next item; none is still running when this returns or raises."""
    control = active()
    queue = iter(order)
    lock = threading.Lock()
    stop = []

    def work():
        try:
            while not stop:
                with lock:
                    i = next(queue, None)
                if i is None:
                    return
                job(i)
        except BaseException:
            stop.append(True)  # the other threads stop at their next item
            raise

    helpers = [pool.submit(run_for_fit, control, work) for _ in range(SCORING_THREADS - 1)]
    try:
        work()
    finally:
        wait(helpers)
    for h in helpers:
        h.result()  # a helper's error (its Ctrl-C) raises here


def _score_shared(pool: ThreadPoolExecutor, bases: list, args: tuple) -> list:
    """The bases' proposals in order: this thread and the helpers each score whole bases, the
    next of one queue (largest cover first, :data:`LARGEST_FIRST`), on the serial kernel."""
    out = [None] * len(bases)

    def job(i):
        out[i] = base_proposals(bases[i], *args, True)

    _share(pool, _largest_first(bases), job)
    return out


SPLIT_MIN_WORK = 300_000
"""Rows x cut points (the data's) of an iteration's bases from which :func:`score_bases` shares
their kernel calls with the pool's threads when they are below ``THREADS_MIN_WORK``
(:func:`_score_split`). Fold-0 fits, alternating in one process (2026-11-27), the time of the
iterations it applies to, without / with: avila 7.48, 6.07 / 5.69, 5.00 s; noisy 20k 1.32,
1.10 / 0.96, 0.82; magic 0.69, 0.65 / 0.54, 0.54; waveform 0.70-0.79 / 0.55-0.56; whole fits of
vehicle 0.27 / 0.21 s and chess 0.66-0.69 / 0.63-0.65. 1e5 and 0 gave vehicle's time of this
bound; a higher ``THREADS_MIN_WORK`` (1e7, the split for more iterations) made magic 6.1 ->
8.0 s and avila 17.2 -> 18.7 s: where the kernels outweigh the Python, whole bases in two
threads are faster."""


def _split_kernels(bases: list, state: RuleSetState) -> bool:
    """Whether :func:`score_bases` scores ``bases`` (below ``THREADS_MIN_WORK``) with
    :func:`_score_split`: two or more bases whose rows x cut points reach ``SPLIT_MIN_WORK``."""
    n_rows = sum(base.coverage for base in bases)
    return SCORING_THREADS >= 2 and len(bases) >= 2 and n_rows * state.data.n_cuts_total >= SPLIT_MIN_WORK


def _score_split(pool: ThreadPoolExecutor, bases: list, args: tuple) -> list:
    """The bases' proposals in order, for bases whose Python costs as much as their kernels
    (small covers: two threads scoring whole bases wait for each other's Python, which holds
    the GIL): this thread makes every base's kernel inputs (:class:`~turs.search.growths.GrowthCall`),
    the bases whose kernel work fits one call run those calls from one queue here and in the
    pool's threads (largest cover first), the others run here on the parallel kernel, and this
    thread then builds each base's growths and proposals. The same calls on the same inputs as
    :func:`base_proposals`, so the same proposals."""
    state, settings, policy, aux_on, constraints, require, tested_only = args
    calls = [GrowthCall(base, state, settings.beam_width, settings.score, policy.name, False, tested_only)
             for base in bases]
    results = [None] * len(bases)

    def job(i):
        results[i] = calls[i].run()

    _share(pool, [i for i in _largest_first(bases) if calls[i].one_call], job)
    out = []
    for i, call in enumerate(calls):
        result = results[i] if results[i] is not None else call.run()
        out.append(_proposals(call.finish(result), bases[i], state, settings, policy, aux_on, constraints, require))
    return out


def search_rule(state: RuleSetState, settings: SearchSettings, recorder: SearchRecorder | None = None,
                constraints: SearchConstraints | None = None, require: np.ndarray | None = None):
    """Grow the next rule (Algorithm 4) with the policy of ``settings.search``. Returns
    ``(best_candidate_or_None, pool)``, ``pool`` the candidates the best was chosen from.
    ``constraints`` (:class:`SearchConstraints`) and ``require`` (a bool per encoded column:
    the first literal must be on one of them) mask growths before both beams; without them
    the search is the unconstrained one, step for step.

    Per iteration: every base's growths are scored (``score_growths``); each beam takes the
    base's proposals (best per patience bucket among the growths that pass its local test) and
    reduces the proposals of all bases to ``beam_width``; the stop rule counts "worse"
    iterations; the beams give the next bases and the candidates for the final pick (the best
    ``r``). ``recorder`` (:class:`~turs.search.record.SearchRecorder`) sees every step and
    the reason the search stopped.
    """
    policy = POLICIES[settings.search]
    data = state.data
    W = settings.beam_width
    aux_on = policy.aux_beam_on(state, settings)
    bases = [empty_rule(data, state)]
    if recorder is not None:
        recorder.start(bases[0])
    pool: list[Candidate] = []
    progress = Progress()
    limit = constraints.max_rule_length if constraints is not None else None
    for it in range(settings.max_iterations):
        main_sel: list[tuple] = []  # (score, coverage, key, growths, index): built after reduction
        aux_sel: list[tuple] = []
        if recorder is not None:
            recorder.start_iteration(it)
        at_limit = 0  # bases with max_rule_length literals: not grown
        grown = [base for base in bases if limit is None or len(base.literals) < limit]
        tested_only = (TESTED_GROWTHS_ONLY and recorder is None and settings.use_local_test
                    and not settings.local_test_fallback)
        scored = iter(score_bases(grown, state, settings, policy, aux_on, constraints, require, tested_only))
        for base in bases:
            if limit is not None and len(base.literals) >= limit:
                at_limit += 1
                continue
            out = next(scored)
            if out is None:
                continue
            g, main, aux, main_mask, aux_mask = out
            main_sel.extend(main)
            aux_sel.extend(aux)
            if recorder is not None:
                recorder.base(g, main_mask, aux_mask, aux_on, policy, settings, data)
        build = _builder(data, recorder)
        beam = policy.reduce(main_sel, W, settings, build)
        aux_beam = policy.reduce(aux_sel, W, settings, build)
        best_r = max((c.r for c in beam), default=-np.inf)
        best_R = max((c.R for c in aux_beam), default=-np.inf)
        if not beam and not aux_beam:
            if recorder is not None:
                recorder.end_iteration(beam, aux_beam, main_sel, aux_sel, best_r, best_R, progress.worse, build)
                rejected = recorder.iterations[-1].n_rejected + recorder.iterations[-1].n_aux_rejected
                recorder.stop = {"reason": "all_growths_rejected" if rejected else "beam_empty", "iteration": it}
                if at_limit:
                    if at_limit == len(bases):
                        recorder.stop["reason"] = "max_rule_length"
                    recorder.stop.update(max_rule_length=limit, bases_at_max_rule_length=at_limit,
                                         n_bases=len(bases))
            break
        policy.update(progress, beam, aux_beam, best_r, best_R, aux_on)
        stopping = policy.stops(progress, settings.k_stop)
        next_bases = policy.next_bases(beam, aux_beam)
        pool.extend(policy.pool_additions(beam, next_bases, stopping))
        if recorder is not None:
            recorder.end_iteration(beam, aux_beam, main_sel, aux_sel, best_r, best_R, progress.worse, build)
            if stopping:
                recorder.stop = {"reason": "no_improvement_k_stop", "iteration": it,
                                 "worse_in_a_row": progress.worse, "k_stop": settings.k_stop}
        if stopping:
            break
        bases = next_bases
    else:
        if recorder is not None:
            recorder.stop = {"reason": "max_iterations", "iteration": settings.max_iterations - 1}
    return best_by_r(pool), pool


def learn_single_rule(state: RuleSetState, settings: SearchSettings, describe=None, trace=None):
    """Grow the next rule (Algorithm 4). Returns ``(best_candidate_or_None, iterations)``:
    ``iterations`` is the search trace of this rule (a list of dicts, ``docs/trace.md``),
    recorded in mode ``trace`` (``"full"`` or ``"compact"``; default ``"full"`` when
    ``describe`` is given, else none)."""
    mode = trace or ("full" if describe is not None else None)
    recorder = SearchRecorder(state.K, mode, describe) if mode else None
    best, pool = search_rule(state, settings, recorder)
    if recorder is None:
        return best, []
    return best, recorder.finish(best, runner_up(pool, best))[0]


# ------------------------------------------------------------------------ Algorithm 3
def learn_rule_set(data: SearchData, settings: SearchSettings, max_rules=None, describe=None,
                   progress=None, trace=None, initial_rules=(), constraints: SearchConstraints | None = None,
                   sampler=None, sample_when=None):
    """Add rules while the MDL score decreases (Algorithm 3). With ``search="turs2"``: while the
    chosen rule's ``r`` is positive, as the authors' code decides; ``r`` of a refined literal
    uses the model code that code charges while searching (``_placeholder_model_bits``), so
    the exact score can rise a little with a rule it accepts.

    Returns ``(state, searches)``: the final rule set and one dict per rule search, the search
    trace (``docs/trace.md``) when ``trace`` is ``"full"`` or ``"compact"`` (``"full"`` when
    only ``describe`` is given), else the acceptance decisions only. ``describe(candidate)``
    turns a candidate into a dict (default: its numbers, no condition text).

    ``initial_rules``: rules the search starts from (``M`` before the first search; objects with
    ``rows``, ``coverage`` and ``model_bits``, e.g. :class:`turs.parse.ResolvedRule` or the
    rules of an earlier state); they stay in the rule set and count towards ``max_rules``.
    Under a fit control with a time budget (``TURSClassifier(max_time=...)``), no rule search
    starts once the budget is spent; the trace's fit stop is then ``"max_time"``.

    ``constraints`` (:class:`SearchConstraints`): forbidden columns, a rule-length limit and
    preferred columns. With preferred columns, each rule search first runs one search per
    remaining preferred column (S-CLASSY's Algorithm 1, lines 4-6) and takes the best
    candidate by ``r``; if the policy accepts it, it is added, else the unrestricted search
    runs (``preferred_fallback``; see :class:`SearchConstraints`). A column leaves the
    preferred set when a rule with a literal on it enters the rule set (given rules too).
    Each search's entry then says which search found its rule (``"search"``: ``"preferred"``
    or ``"full"``, ``"preferred_feature"``) and what each preferred search found
    (``"preferred_searches"``).

    ``sampler`` (:class:`turs.search.sampled.SampledSearch`, None: the exact search): each rule
    search runs on the sampler's sample and its best candidates are confirmed on all rows
    (:meth:`~turs.search.sampled.SampledSearch.confirm`); when none holds there, the sample grows
    and the search runs again (:meth:`~turs.search.sampled.SampledSearch.grow`, no entry for the
    search that found none); ``M`` and its score stay exact. ``sample_when(state)``
    (:func:`turs.search.sampled.sample_when_costly`), for a fit that starts exact, is asked
    before each rule search and returns the sampler from which that search and every later one
    run on a sample (None: the exact search again). The trace of such a fit holds the
    sample's search (its candidates and numbers on the sample, ``"sample_rows"``);
    ``"mdl_before"`` and ``"mdl_after"`` are the exact scores.
    """
    with scoring_pool():  # one pool of scoring threads for all the fit's searches
        return _learn_rule_set(data, settings, max_rules, describe, progress, trace, initial_rules, constraints,
                               sampler, sample_when)


def _learn_rule_set(data: SearchData, settings: SearchSettings, max_rules=None, describe=None,
                   progress=None, trace=None, initial_rules=(), constraints: SearchConstraints | None = None,
                   sampler=None, sample_when=None):
    """:func:`learn_rule_set` inside its pool of scoring threads."""
    policy = POLICIES[settings.search]
    mode = trace or ("full" if describe is not None else None)
    state = RuleSetState(data, list(initial_rules)) if sampler is None else sampler.full_state(initial_rules)
    remaining = list(constraints.preferred) if constraints is not None else []
    remaining = _unused(remaining, state.rules)
    searches = []
    control = active()  # the running fit's control (turs._fit_control): its time budget
    timed_out = False
    while max_rules is None or state.K < max_rules:
        if control is not None and control.time_is_up():
            timed_out = True
            break
        if sampler is None and sample_when is not None:
            sampler = sample_when(state)
            if sampler is not None:  # the rest of the fit searches on a sample: M on all rows, its counts only
                state = sampler.full_state(state.rules)
        log = chosen_from = None
        run_full = True
        on = state if sampler is None else sampler.on_sample(state)  # the rule set the search sees

        def decide(best, pool):
            """(the rule to add or report, accepted?, M with it or None)"""
            if sampler is None:
                return best, policy.accepts(best, on), None
            full, after = sampler.confirm(state, pool if best is not None else [], policy)
            return full, after is not None, after

        if remaining:
            found, pool, recorder, log, chosen_from = _preferred_search(on, settings, constraints, remaining,
                                                                         mode, describe)
            best, accepted, after = decide(found, pool)
            # accepted: added; not accepted: the full search (the fallback, or no preferred
            # candidate at all), or, as S-CLASSY prints it, the end of the fit
            run_full = not accepted and (constraints.preferred_fallback or best is None)
            if run_full:
                chosen_from = None
        if run_full:
            recorder = SearchRecorder(state.K, mode, describe) if mode else None
            found, pool = search_rule(on, settings, recorder, constraints)
            best, accepted, after = decide(found, pool)
        entry = {"rule_index": state.K, "iterations": [], "chosen": None,
                 "accepted": bool(accepted), "mdl_before": state.total}
        if log is not None:
            entry.update(search="preferred" if chosen_from is not None else "full", preferred_feature=chosen_from,
                         preferred_searches=log)
        if sampler is not None:
            if not accepted and sampler.grow():
                continue  # no candidate of the sample holds on all rows: search a sample twice as large
            entry["sample_rows"] = int(sampler.data.n)
        before = on
        if accepted:
            state = after if after is not None else RuleSetState(data, state.rules + [best])
            entry["mdl_after"] = state.total
            entry["coverage_after"] = state.coverage
            remaining = _unused(remaining, [best])
        if recorder is not None:
            # the trace of a sampled search is the sample's: its candidates and rule set
            shown = state if sampler is None else sampler.on_sample(state)
            _record_search(entry, recorder, before, shown if accepted else None, found, pool, policy)
            if chosen_from is not None and not accepted:  # S-CLASSY as printed: the fit ends here
                entry["fit_stop"]["reason"] = "preferred_rule_not_accepted"
                entry["fit_stop"]["preferred_feature"] = chosen_from
        searches.append(entry)
        if progress is not None:
            progress(state)
        if not accepted:
            break
    if mode and searches and searches[-1]["accepted"]:
        searches[-1]["fit_stop"] = ({"reason": "max_time", "max_time": control.max_time, "seconds": control.elapsed}
                                    if timed_out else {"reason": "max_rules", "max_rules": max_rules})
    return state, searches


def _unused(preferred, rules):
    """The preferred ``(name, mask)`` pairs none of ``rules`` has a literal on."""
    used = {int(lit[0]) for r in rules for lit in r.literals}
    return [(name, mask) for name, mask in preferred if not any(mask[j] for j in used)]


def _preferred_search(state, settings, constraints, remaining, mode, describe):
    """One search per remaining preferred column, restricted to rules with a literal on it.
    Returns ``(best, pool, recorder, log, feature)``: the best candidate by ``r`` (the first
    column on ties), its search's pool and recorder, one dict per search (``feature``,
    ``found``, ``r``, ``mdl_after``, ``literals``) and the column of the best (None: no
    candidate)."""
    best = pool = recorder = feature = None
    log = []
    for name, mask in remaining:
        rec = SearchRecorder(state.K, mode, describe) if mode else None
        cand, cand_pool = search_rule(state, settings, rec, constraints, require=mask)
        log.append({"feature": name, "found": cand is not None,
                    "r": _num(cand.r) if cand is not None else None,
                    "mdl_after": _num(cand.total_after) if cand is not None else None,
                    "literals": [[int(j), int(a), int(b)] for j, a, b in cand.literals] if cand is not None else None,
                    "stop": dict(rec.stop) if rec is not None else None})
        if cand is not None and (best is None or cand.r > best.r):
            best, pool, recorder, feature = cand, cand_pool, rec, name
    return best, pool, recorder, log, feature


def _record_search(entry, recorder, before, after, best, pool, policy):
    """Fill a rule search's trace entry: iterations, the chosen rule and the runner-up with
    their MDL change by part, the stop reason; and the fit's, when the rule is not accepted."""
    second = runner_up(pool, best)
    entry["iterations"], fields = recorder.finish(best, second)
    parts = before.parts()
    entry["mdl_parts_before"] = parts
    if best is not None:
        after_parts = after.parts() if after is not None else mdl_parts_with(before, best)
        entry["chosen"] = recorder.entry(best, mdl_change=mdl_change(parts, after_parts))
    entry["runner_up"] = (recorder.entry(second, mdl_change=mdl_change(parts, mdl_parts_with(before, second)))
                          if second is not None else None)
    entry.update(fields)
    if best is None:
        entry["fit_stop"] = {"reason": "no_candidate", "search_stop": fields["stop"].get("reason")}
    elif after is None:
        entry["fit_stop"] = {"reason": "rule_not_accepted", "criterion": policy.acceptance,
                             "r": _num(best.r), "mdl_change": entry["chosen"]["mdl_change"]}
