"""The beam search, written once: Algorithm 3 (:func:`learn_rule_set`) around Algorithm 4
(:func:`search_rule`), with the bookkeeping of each variant in a policy
(:mod:`turs.search.policies`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .growths import Candidate, Growths, empty_rule, score_growths
from .policies import POLICIES, Progress, _reduce, _select, best_by_r
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


def _builder(data: SearchData):
    """``build(growths, index)``: the growth as a :class:`Candidate`, built once per iteration
    (a growth chosen by both beams is one candidate)."""
    made: dict = {}

    def build(g: Growths, i: int) -> Candidate:
        c = made.get((id(g), i))
        if c is None:
            c = made[id(g), i] = g.materialize(i, data)
        return c
    return build


def search_rule(state: RuleSetState, settings: SearchSettings, describe=None):
    """Grow the next rule (Algorithm 4) with the policy of ``settings.search``. Returns
    ``(best_candidate_or_None, iterations)``: ``iterations`` is the search trace of this rule,
    per beam iteration the main and the auxiliary beam (and the best candidates the local
    test rejected), as dicts.

    Per iteration: every base's growths are scored (``score_growths``); each beam takes the
    base's proposals (best per patience bucket among the growths that pass its local test) and
    reduces the proposals of all bases to ``beam_width``; the stop rule counts "worse"
    iterations; the beams give the next bases and candidates for the final pick, the best
    ``r``.
    """
    policy = POLICIES[settings.search]
    data = state.data
    W = settings.beam_width
    aux_on = policy.aux_beam_on(state, settings)
    bases = [empty_rule(data, state)]
    pool: list[Candidate] = []
    iterations = []
    progress = Progress()
    for it in range(settings.max_iterations):
        main_sel: list[tuple] = []  # (score, coverage, key, growths, index): built after reduction
        aux_sel: list[tuple] = []
        rejected: list[tuple] = []
        for base in bases:
            g = score_growths(base, state, W, settings.score, policy.name)
            if g is None:
                continue
            ok = _main_beam_eligible(g, base, state, settings, policy.main_mask(g))
            main_sel.extend(policy.proposals(g, g.r, g.cov, g.bucket, ok, settings, data))
            if describe is not None and settings.use_local_test and policy.name == "thesis":
                for i in _select(g.r, g.bucket, ~g.local_test, W, settings.use_patience)[:3]:
                    rejected.append((g.r[i], g.cov[i], g.key(i), g, i))
            if aux_on:
                alt = g.aux_local_test if settings.use_local_test else np.ones_like(g.aux_local_test)
                aux_sel.extend(policy.proposals(g, g.R, g.cov_unc, g.aux_bucket, alt & policy.aux_mask(g),
                                                settings, data))
        build = _builder(data)
        beam = policy.reduce(main_sel, W, settings, build)
        aux_beam = policy.reduce(aux_sel, W, settings, build)
        if not beam and not aux_beam:
            break
        best_r = max((c.r for c in beam), default=-np.inf)
        best_R = max((c.R for c in aux_beam), default=-np.inf)
        policy.update(progress, beam, aux_beam, best_r, best_R, aux_on)
        stopping = policy.stops(progress, settings.k_stop)
        next_bases = policy.next_bases(beam, aux_beam)
        pool.extend(policy.pool_additions(beam, next_bases, stopping))
        if describe is not None:
            rejected = [build(g, i) for *_, g, i in _reduce(rejected, W, False)]
            iterations.append({
                "iteration": it,
                "main_beam": [describe(c) for c in beam],
                "aux_beam": [describe(c) for c in aux_beam],
                "rejected_by_local_test": [describe(c) for c in rejected],
                "best_r": _num(best_r), "best_R": _num(best_R), "worse_in_a_row": progress.worse,
            })
        if stopping:
            break
        bases = next_bases
    return best_by_r(pool), iterations


def learn_single_rule(state: RuleSetState, settings: SearchSettings, describe=None):
    """Grow the next rule (Algorithm 4). Returns ``(best_candidate_or_None, iterations)``
    (see :func:`search_rule`)."""
    return search_rule(state, settings, describe)


def _num(v):
    v = float(v)
    return v if math.isfinite(v) else None


# ------------------------------------------------------------------------ Algorithm 3
def learn_rule_set(data: SearchData, settings: SearchSettings, max_rules=None, describe=None,
                   progress=None):
    """Add rules while the MDL score decreases (Algorithm 3). With ``search="turs2"``: while the
    chosen rule's ``r`` is positive, as the authors' code decides; ``r`` of a refined literal
    uses the model code that code charges while searching (``_placeholder_model_bits``), so
    the exact score can rise a little with a rule it accepts.

    Returns ``(rules, trace)`` where ``trace`` is a list with one dict per rule search.
    """
    policy = POLICIES[settings.search]
    state = RuleSetState(data, [])
    searches = []
    while max_rules is None or state.K < max_rules:
        best, iterations = search_rule(state, settings, describe)
        accepted = policy.accepts(best, state)
        entry = {"rule_index": state.K, "iterations": iterations,
                 "chosen": describe(best) if (describe and best is not None) else None,
                 "accepted": bool(accepted), "mdl_before": state.total}
        if accepted:
            state = RuleSetState(data, state.rules + [best])
            entry["mdl_after"] = state.total
            entry["coverage_after"] = state.coverage
        searches.append(entry)
        if progress is not None:
            progress(state)
        if not accepted:
            break
    return state, searches
