"""The beam search, written once: Algorithm 3 (:func:`learn_rule_set`) around Algorithm 4
(:func:`search_rule`), with the bookkeeping of each variant in a policy
(:mod:`turs.search.policies`).
"""
from __future__ import annotations

import numpy as np

from .. import _config
from .._fit_control import active
from .growths import Candidate, Growths, empty_rule
from .policies import POLICIES, Progress, best_by_r
from .record import SearchRecorder, _num, mdl_change, mdl_parts_with, runner_up
from .scoring import score_bases, scoring_pool
from .settings import SearchConstraints, SearchSettings  # noqa: F401  (also importable from here)
from .state import RuleSetState, SearchData


SEARCHES = tuple(POLICIES)


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
        tested_only = (_config.TESTED_GROWTHS_ONLY and recorder is None and settings.use_local_test
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
            state = after if after is not None else state.extended(best)
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
