"""The beam search, written once: Algorithm 3 (:func:`learn_rule_set`) around Algorithm 4
(:func:`search_rule`), with the bookkeeping of each variant in a policy
(:mod:`turs.search.policies`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .growths import Candidate, Growths, empty_rule, score_growths
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


def search_rule(state: RuleSetState, settings: SearchSettings, recorder: SearchRecorder | None = None):
    """Grow the next rule (Algorithm 4) with the policy of ``settings.search``. Returns
    ``(best_candidate_or_None, pool)``, ``pool`` the candidates the best was chosen from.

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
    for it in range(settings.max_iterations):
        main_sel: list[tuple] = []  # (score, coverage, key, growths, index): built after reduction
        aux_sel: list[tuple] = []
        if recorder is not None:
            recorder.start_iteration(it)
        for base in bases:
            g = score_growths(base, state, W, settings.score, policy.name)
            if g is None:
                continue
            main_mask, aux_mask = policy.main_mask(g), policy.aux_mask(g)
            ok = _main_beam_eligible(g, base, state, settings, main_mask)
            main_sel.extend(policy.proposals(g, g.r, g.cov, g.bucket, ok, settings, data))
            if aux_on:
                alt = g.aux_local_test if settings.use_local_test else np.ones_like(g.aux_local_test)
                aux_sel.extend(policy.proposals(g, g.R, g.cov_unc, g.aux_bucket, alt & aux_mask, settings, data))
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
                   progress=None, trace=None, initial_rules=()):
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
    """
    policy = POLICIES[settings.search]
    mode = trace or ("full" if describe is not None else None)
    state = RuleSetState(data, list(initial_rules))
    searches = []
    while max_rules is None or state.K < max_rules:
        recorder = SearchRecorder(state.K, mode, describe) if mode else None
        best, pool = search_rule(state, settings, recorder)
        accepted = policy.accepts(best, state)
        entry = {"rule_index": state.K, "iterations": [], "chosen": None,
                 "accepted": bool(accepted), "mdl_before": state.total}
        before = state
        if accepted:
            state = RuleSetState(data, state.rules + [best])
            entry["mdl_after"] = state.total
            entry["coverage_after"] = state.coverage
        if recorder is not None:
            _record_search(entry, recorder, before, state if accepted else None, best, pool, policy)
        searches.append(entry)
        if progress is not None:
            progress(state)
        if not accepted:
            break
    if mode and searches and searches[-1]["accepted"]:
        searches[-1]["fit_stop"] = {"reason": "max_rules", "max_rules": max_rules}
    return state, searches


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
