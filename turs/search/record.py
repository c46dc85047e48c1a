"""The search trace of one rule search, recorded while the search runs (``record_trace``).

The search hands the recorder its candidates (:class:`~turs.search.growths.Candidate`); the
recorder names them, keeps them, and turns them into plain dicts when the search has ended and
its chosen rule is known. ``docs/trace.md`` documents every field.

Ids: the empty rule of rule search ``k`` is ``"r{k}-empty"``; the ``n``-th growth scored in
iteration ``t`` of that search (counted over the bases in order, then the growths of each base
in the kernel's order) is ``"r{k}-i{t}-{n}"``. The same growth has the same id in both beams and
in both trace modes, and every id is unique within a fit.

Modes: ``"full"`` keeps, per iteration, both beams, the best ``beam_width`` growths each local
test kept out of its beam (a base's best growth of a patience bucket that fails the test; one
per set of literals); ``"compact"``
keeps the best candidate of each beam and the best rejected growth per iteration, the chosen
rule's and the runner-up's lineages, and the ancestors of everything kept (so every
``parent_id`` resolves in both modes).
"""
from __future__ import annotations

import math

import numpy as np

from .state import RuleSetState

TRACE_MODES = ("full", "compact")

#: The reasons a rule search stops (``stop["reason"]``).
SEARCH_STOPS = ("beam_empty", "all_growths_rejected", "no_improvement_k_stop", "max_iterations", "max_rule_length")
#: The reasons the fit stops (``fit_stop["reason"]`` of the last search).
FIT_STOPS = ("rule_not_accepted", "no_candidate", "max_rules", "max_time", "preferred_rule_not_accepted")


def _num(v):
    v = float(v)
    return v if math.isfinite(v) else None


def describe_numbers(c) -> dict:
    """A candidate's numbers as a dict (the keys of the estimator's ``describe`` but its
    ``conditions``, which need the encoder: :func:`turs.trace.describe_candidate`)."""
    return {
        "literals": [[int(j), int(a), int(b)] for j, a, b in c.literals],
        "coverage": c.coverage, "coverage_uncovered": c.coverage_uncovered,
        "class_counts": [int(v) for v in c.counts],
        "r": _num(c.r), "R": _num(c.R), "bucket": int(c.bucket),
        "aux_bucket": int(c.aux_bucket), "local_test": bool(c.local_test),
        "aux_local_test": bool(c.aux_local_test), "model_bits": float(c.model_bits),
        "mdl_after": _num(c.total_after),
    }


def growth_info(g, i: int) -> dict:
    """What the trace keeps of growth ``i`` of ``g`` beyond the candidate itself: the literal it
    adds (or the literal it refines, ``refined``) and both sides of both local tests in bits
    (Eq. 3.22, 3.25): it passes when the bits without the split exceed those with it."""
    j = int(g.feat[i])
    return {
        "added_literal": [j, int(g.lo[i]), int(g.hi[i])],
        "refined": any(int(lit[0]) == j for lit in g.base.literals),
        "local_test_bits": {"passed": bool(g.local_test[i]), "bits_with_split": float(g.split_bits[i]),
                            "bits_without_split": float(g.nml_base)},
        "aux_local_test_bits": {"passed": bool(g.aux_local_test[i]),
                                "bits_with_split": float(g.split_bits_unc[i]),
                                "bits_without_split": float(g.nml_base_unc)},
    }


def mdl_change(before: dict, after: dict) -> dict:
    """``after - before`` per part of :meth:`RuleSetState.parts` (``total`` included)."""
    return {k: after[k] - before[k] for k in ("total", "data_bits", "regret_bits", "model_bits")}


class _Iteration:
    """One beam iteration's candidates and counts, as the search left them."""

    def __init__(self, it: int):
        self.it = it
        self.beam: list = []
        self.aux_beam: list = []
        self.rejected: list = []  # (score, growths, index) of the main test, then candidates
        self.aux_rejected: list = []
        self.n_bases = self.n_growths = self.n_rejected = self.n_aux_rejected = 0
        self.n_proposals = self.n_aux_proposals = 0
        self.best_r = self.best_R = None
        self.worse = 0


class SearchRecorder:
    """Records rule search ``rule_index`` in ``mode`` (:data:`TRACE_MODES`); ``describe(c)``
    turns a candidate into a dict (default :func:`describe_numbers`)."""

    def __init__(self, rule_index: int, mode: str = "full", describe=None):
        if mode not in TRACE_MODES:
            raise ValueError(f"The trace mode must be one of {TRACE_MODES}. Got {mode!r} instead.")
        self.k = rule_index
        self.mode = mode
        self.full = mode == "full"
        self.describe = describe or describe_numbers
        self.iterations: list[_Iteration] = []
        self.stop: dict = {}
        self.root = None
        self.width = 1  # the beam width: how many rejected growths full mode keeps per iteration

    # ---------------------------------------------------------------- while searching
    def start(self, empty) -> None:
        empty.cid = f"r{self.k}-empty"
        self.root = empty

    def start_iteration(self, it: int) -> None:
        self.iterations.append(_Iteration(it))

    def base(self, g, main_mask, aux_mask, aux_on: bool, policy, settings, data) -> None:
        """Number the growths of one base and note the local tests' rejections: how many
        growths each test rejected (among those its beam considers), and the growths it kept
        out of the beam -- those the base would have proposed without the test (the best of
        their patience bucket) that fail it."""
        cur = self.iterations[-1]
        self.width = settings.beam_width
        g.offset = cur.n_growths
        cur.n_bases += 1
        cur.n_growths += len(g.feat)
        if not settings.use_local_test:
            return
        considered = np.isfinite(g.r) if main_mask is None else np.isfinite(g.r) & main_mask
        cur.n_rejected += int((considered & ~g.local_test).sum())
        for i in policy.select(g, g.r, g.bucket, considered, settings, data).tolist():
            if not g.local_test[i]:
                cur.rejected.append((g.r[i], g, i))
        if aux_on:
            considered = np.isfinite(g.R) & aux_mask
            cur.n_aux_rejected += int((considered & ~g.aux_local_test).sum())
            for i in policy.select(g, g.R, g.aux_bucket, considered, settings, data).tolist():
                if not g.aux_local_test[i]:
                    cur.aux_rejected.append((g.R[i], g, i))

    def tag(self, c, g, i: int) -> None:
        """Name a candidate built from growth ``i`` of ``g``."""
        c.cid = f"r{self.k}-i{self.iterations[-1].it}-{g.offset + i}"
        c.parent = g.base
        c.info = growth_info(g, i)

    def end_iteration(self, beam, aux_beam, main_sel, aux_sel, best_r, best_R, worse, build) -> None:
        cur = self.iterations[-1]
        cur.beam, cur.aux_beam = list(beam), list(aux_beam)
        cur.best_r, cur.best_R, cur.worse = _num(best_r), _num(best_R), int(worse)
        for name in ("rejected", "aux_rejected"):
            kept, keys = [], set()
            for _, g, i in sorted(getattr(cur, name), key=lambda t: -t[0]):  # stable: best first
                if len(kept) == (self.width if self.full else 1):
                    break
                if g.key(i) not in keys:
                    keys.add(g.key(i))
                    kept.append(build(g, i, False))
            setattr(cur, name, kept)
        cur.n_proposals, cur.n_aux_proposals = len(main_sel), len(aux_sel)

    # ------------------------------------------------------------------- at the end
    def entry(self, c, **extra) -> dict:
        """A candidate as a trace dict: ``describe(c)`` and the search's bookkeeping."""
        d = self.describe(c)
        info = c.info or {}
        d["id"] = c.cid
        d["parent_id"] = c.parent.cid if c.parent is not None else None
        added = info.get("added_literal")
        d["added_literal"] = added
        d["added_condition"] = None
        if added is not None and "conditions" in d:
            pos = [p for p, lit in enumerate(c.literals) if int(lit[0]) == added[0]]
            d["added_condition"] = d["conditions"][pos[0]] if pos else None
        d["refined"] = info.get("refined", False)
        d["local_test_bits"] = info.get("local_test_bits")
        d["aux_local_test_bits"] = info.get("aux_local_test_bits")
        d.update(extra)
        return d

    def _kept(self, chosen, runner_up):
        """The ids compact mode keeps (None: all)."""
        if self.full:
            return None
        keep = []
        for cur in self.iterations:
            if cur.beam:
                keep.append(max(cur.beam, key=lambda c: c.r))
            if cur.aux_beam:
                keep.append(max(cur.aux_beam, key=lambda c: c.R))
            keep.extend(cur.rejected + cur.aux_rejected)
        keep.extend(c for c in (chosen, runner_up) if c is not None)
        ids = set()
        for c in keep:
            while c is not None and c.cid not in ids:
                ids.add(c.cid)
                c = c.parent
        return ids

    def finish(self, chosen, runner_up) -> tuple[list, dict]:
        """``(iterations, search)``: the iterations as dicts, and the search's own fields
        (``empty_rule``, ``lineage``, ``stop``, ``trace_mode``)."""
        ids = self._kept(chosen, runner_up)

        def show(cands):
            return [self.entry(c) for c in cands if ids is None or c.cid in ids]

        out = []
        for cur in self.iterations:
            d = {"iteration": cur.it, "main_beam": show(cur.beam), "aux_beam": show(cur.aux_beam),
                 "rejected_by_local_test": show(cur.rejected), "aux_rejected_by_local_test": show(cur.aux_rejected),
                 "best_r": cur.best_r, "best_R": cur.best_R, "worse_in_a_row": cur.worse,
                 "main_beam_size": len(cur.beam), "aux_beam_size": len(cur.aux_beam), "n_bases": cur.n_bases,
                 "n_growths": cur.n_growths, "n_proposals": cur.n_proposals, "n_aux_proposals": cur.n_aux_proposals,
                 "n_rejected_by_local_test": cur.n_rejected, "n_aux_rejected_by_local_test": cur.n_aux_rejected}
            out.append(d)
        lineage = []
        c = chosen
        while c is not None:
            lineage.append(c.cid)
            c = c.parent
        search = {"trace_mode": self.mode, "empty_rule": self.entry(self.root), "lineage": lineage[::-1],
                  "stop": self.stop}
        return out, search


def runner_up(pool, chosen):
    """The second-best candidate of a search: the best ``r`` (first on ties) among the
    candidates with other literals than ``chosen``."""
    if chosen is None:
        return None
    best = None
    key = chosen.key
    for c in pool:
        if c.key != key and (best is None or c.r > best.r):
            best = c
    return best


def mdl_parts_with(state: RuleSetState, c) -> dict:
    """The MDL score's parts of ``M + c`` (exact, by building the rule set; no growth is counted
    on it, so without the kernel's pair lists)."""
    return RuleSetState(state.data, state.rules + [c], pair_lists=False).parts()
