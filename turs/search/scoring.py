"""Scoring one beam iteration's bases (Algorithm 4, lines 7-20): each base's growths
(:func:`turs.search.growths.score_growths`) and its proposals to each beam
(:func:`base_proposals`), for all bases of an iteration at once (:func:`score_bases`): in this
thread, or in two scoring threads (whole bases from one queue, or, for small bases, their
kernel calls alone). Every base is scored on its own, so the proposals, and the search, are
the same in any thread and order.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager

import numpy as np

from .. import _config
from .._fit_control import active, run_for_fit
from .growths import Candidate, GrowthCall, Growths, score_growths
from .settings import SearchConstraints, SearchSettings
from .state import RuleSetState


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
            self.pool = ThreadPoolExecutor(_config.SCORING_THREADS, thread_name_prefix="turs-score")
        return self.pool

    def shutdown(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


_SCORING = threading.local()  # .pool: the _LazyPool of the fit running in this thread


@contextmanager
def scoring_pool():
    """One pool of scoring threads for every beam iteration inside (a fit's rule searches),
    instead of one per iteration, shut down on the way out (also on an error or Ctrl-C).
    Starting and joining a pool per iteration costs the noisy 20k fit about 5%
    (docs/results.md, "Tuning constants")."""
    if getattr(_SCORING, "pool", None) is not None:  # already inside one
        yield
        return
    holder = _SCORING.pool = _LazyPool()
    try:
        yield
    finally:
        _SCORING.pool = None
        holder.shutdown()


def _shared_from(bases: list, state: RuleSetState, bound: float) -> bool:
    """Whether ``bases`` are two or more, there are two scoring threads or more, and the bases'
    rows x cut points (the data's) reach ``bound``."""
    return (_config.SCORING_THREADS >= 2 and len(bases) >= 2
            and sum(base.coverage for base in bases) * state.data.n_cuts_total >= bound)


def in_threads(bases: list, state: RuleSetState) -> bool:
    """Whether :func:`score_bases` scores ``bases`` in ``SCORING_THREADS`` threads: two or more
    bases whose rows x cut points reach ``THREADS_MIN_WORK``."""
    return _shared_from(bases, state, _config.THREADS_MIN_WORK)


def _largest_first(bases: list) -> list:
    """The bases' indices in the order the scoring threads take them (``turs._config.LARGEST_FIRST``)."""
    if _config.LARGEST_FIRST:
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
        if holder is not None and _shared_from(bases, state, _config.SPLIT_MIN_WORK):
            return _score_split(holder.get(), bases, args)
        return [base_proposals(base, *args) for base in bases]
    if holder is None:
        with ThreadPoolExecutor(min(_config.SCORING_THREADS, len(bases)), thread_name_prefix="turs-score") as pool:
            return _score_in(pool, bases, args)
    return _score_in(holder.get(), bases, args)


def _score_in(pool: ThreadPoolExecutor, bases: list, args: tuple) -> list:
    """The bases' proposals in order, scored in ``pool``, the largest covers submitted first
    (``turs._config.LARGEST_FIRST``)."""
    if _config.SHARED_QUEUE:
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

    helpers = [pool.submit(run_for_fit, control, work) for _ in range(_config.SCORING_THREADS - 1)]
    try:
        work()
    finally:
        wait(helpers)
    for h in helpers:
        h.result()  # a helper's error (its Ctrl-C) raises here


def _score_shared(pool: ThreadPoolExecutor, bases: list, args: tuple) -> list:
    """The bases' proposals in order: this thread and the helpers each score whole bases, the
    next of one queue (largest cover first, ``turs._config.LARGEST_FIRST``), on the serial kernel."""
    out = [None] * len(bases)

    def job(i):
        out[i] = base_proposals(bases[i], *args, True)

    _share(pool, _largest_first(bases), job)
    return out


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
