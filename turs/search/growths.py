"""Candidates and their growths: a (partial) rule during the search (:class:`Candidate`) and all
one-literal growths of one base rule, scored by the kernels (:class:`Growths`,
:func:`score_growths`; Algorithm 4, lines 7-15).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _config
from .._config import PATH_BITS
from .._core.candidate_score import BaseRule, DataTables, RuleSetCounts, ScoringSettings
from .._core.growth import feature_work, n_slots
from .._core.overlap_groups import OverlapLists
from .._fit_control import checkpoint
from .state import RuleSetState, SearchData, local_neighbours, local_rules, local_subsets

BETWEEN_KERNEL_CALLS = checkpoint
"""A function the growth kernel calls before each of its calls (a base's features are split
into calls of bounded work, ``turs._config.MAX_CALL_WORK``): a hook for a progress
bar or for stopping a fit, e.g. by raising. Default :func:`turs._fit_control.checkpoint`: a
Ctrl-C pressed during a fit raises ``KeyboardInterrupt`` there; a no-op outside a fit. None: nothing."""


@dataclass
class Candidate:
    """A (partial) rule during the search; literals are ``(column, lo_bin, hi_bin)``."""

    literals: tuple
    value_ops: tuple
    k_values: tuple
    rows: np.ndarray | None  # the cover (sorted row indices); None for a growth kept for the trace only
    counts: np.ndarray
    counts_uncovered: np.ndarray
    model_bits: float
    r: float = -np.inf
    R: float = -np.inf
    total_after: float = np.inf  # L(D, M + S)
    bucket: int = -1
    aux_bucket: int = -1
    local_test: bool = True
    aux_local_test: bool = True
    # the search trace's bookkeeping, set only while a trace is recorded (turs.search.record)
    cid: str | None = field(default=None, compare=False, repr=False)  # "r{rule}-i{iteration}-{n}"
    parent: Candidate | None = field(default=None, compare=False, repr=False)  # the base it grew from
    info: dict | None = field(default=None, compare=False, repr=False)  # literal added, local-test bits

    @property
    def coverage(self) -> int:
        return int(self.rows.shape[0]) if self.rows is not None else int(self.counts.sum())

    @property
    def coverage_uncovered(self) -> int:
        return int(self.counts_uncovered.sum())

    @property
    def key(self) -> tuple:
        return tuple(sorted((int(j), int(a), int(b)) for j, a, b in self.literals))

    def intervals(self, data: SearchData):
        lo = np.zeros(data.d, dtype=np.int64)
        hi = data.n_bins.copy()
        for j, a, b in self.literals:
            lo[j], hi[j] = a, b
        return lo, hi


def empty_rule(data: SearchData, state: "RuleSetState") -> Candidate:
    counts = np.bincount(data.y, minlength=data.n_classes)
    return Candidate((), (), (), data.all_rows, counts, state.else_counts.copy(), 0.0)


# -------------------------------------------------------------------- candidates
@dataclass
class Growths:
    """The one-literal growths of one base rule, scored (arrays over candidates): all of them,
    or those that pass a local test (``score_growths(tested_only=True)``)."""

    base: Candidate
    feat: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    counts: np.ndarray
    counts_unc: np.ndarray
    cov: np.ndarray
    cov_unc: np.ndarray
    model_bits: np.ndarray
    value_op: np.ndarray  # of the new / refined literal
    later_k: np.ndarray | None  # (cand, k): new K_value of each literal after a refinement, -1 unchanged
    later_vo: np.ndarray | None  # (cand, k): its new L_value_op
    total_after: np.ndarray
    r: np.ndarray
    R: np.ndarray
    local_test: np.ndarray
    aux_local_test: np.ndarray
    bucket: np.ndarray
    aux_bucket: np.ndarray
    splits_uncovered: np.ndarray | None = None  # search="turs2" only (_turs2_bucket_edges)
    # the two sides of the local tests in bits (the kernel's decision: passed iff without > with)
    split_bits: np.ndarray | None = None  # Eq. 3.22 with the split, per growth (L_split included)
    split_bits_unc: np.ndarray | None = None  # Eq. 3.25 with the split, per growth
    nml_base: float = 0.0  # Eq. 3.22 without the split: -log2 P_NML(y^S), the base's
    nml_base_unc: float = 0.0  # Eq. 3.25 without the split: on S \ M
    offset: int = 0  # growths of the earlier bases of the same iteration (the trace's ids)

    def key(self, i: int) -> tuple:
        """The candidate's set of literals (the same rule reached from two bases is one rule)."""
        j = int(self.feat[i])
        lits = {lit[0]: lit for lit in self.base.literals}
        lits[j] = (j, int(self.lo[i]), int(self.hi[i]))
        return tuple(sorted(lits.values()))

    def materialize(self, i: int, data: SearchData, with_rows: bool = True) -> Candidate:
        """Growth ``i`` as a :class:`Candidate` (``with_rows=False``: without its cover, for the
        trace of a growth that is never grown further)."""
        base = self.base
        j, a, b = int(self.feat[i]), int(self.lo[i]), int(self.hi[i])
        lits = list(base.literals)
        vops = list(base.value_ops)
        kvs = list(base.k_values)
        pos = [p for p, lit in enumerate(lits) if lit[0] == j]
        if pos:
            p = pos[0]
            lits[p] = (j, a, b)
            vops[p] = float(self.value_op[i])
            if self.later_k is not None:
                for q in np.flatnonzero(self.later_k[i] >= 0):
                    kvs[q], vops[q] = int(self.later_k[i, q]), float(self.later_vo[i, q])
        else:
            lits.append((j, a, b))
            vops.append(float(self.value_op[i]))
            kvs.append(int(self._k_new[j]))
        rows = data.kernels._rows_in_interval(data.bins[j], base.rows, a, b) if with_rows else None
        return Candidate(
            tuple(lits), tuple(vops), tuple(kvs), rows, self.counts[i].copy(),
            self.counts_unc[i].copy(), float(self.model_bits[i]), float(self.r[i]),
            float(self.R[i]), float(self.total_after[i]), int(self.bucket[i]),
            int(self.aux_bucket[i]), bool(self.local_test[i]), bool(self.aux_local_test[i]),
        )


def score_growths(base: Candidate, state: RuleSetState, beam_width: int, score: str,
                  search: str = "thesis", serial: bool = False, tested_only: bool = False) -> Growths | None:
    """Enumerate and score every one-literal growth of ``base`` (Algorithm 4, lines 7-15).
    ``serial``: the growth kernel's serial variant for every call (a helper thread that
    scores one of several bases at once, see :func:`turs.search.scoring.score_bases`).

    ``tested_only``: keep only the growths that pass a local test (Eq. 3.22 or 3.25), the only
    ones either beam can take, when ``M`` covers a row of the base: the kernel evaluates the
    local tests first and counts the data-code change on the rows ``M`` covers (``delta``, the
    overlap groups' part and most of its work) for those growths only, and ``_finish_growths``
    scores only them. Their numbers are those of a full call, to the bit, in the same order.

    The three steps of :class:`GrowthCall` one after the other."""
    call = GrowthCall(base, state, beam_width, score, search, serial, tested_only)
    return call.finish(call.run())


class GrowthCall:
    """One base's growth scoring in three steps: the kernels' inputs (made here, in Python),
    :meth:`run` (the kernels) and :meth:`finish` (the :class:`Growths`). ``one_call``: the
    kernel work fits one jitted call without the GIL (``turs._config.ONE_CALL_PER_BASE``); such a
    call's :meth:`run` reads no Python object the other steps write, so another thread can
    make it (``turs.search.scoring._score_split``)."""

    __slots__ = ("base", "state", "present", "gl", "tested_only", "records", "path", "lists", "one_call",
                 "serial", "turs2", "split_code", "base_counts", "base_unc")

    def __init__(self, base: Candidate, state: RuleSetState, beam_width: int, score: str, search: str = "thesis",
                 serial: bool = False, tested_only: bool = False):
        data = state.data
        kernels = data.kernels
        self.base, self.state, self.serial = base, state, serial
        present, gl = self.present, self.gl = kernels._localize_groups(state.group_of, base.rows,
                                                                       len(state.group_masks))
        self.tested_only = tested_only and len(present) > 0  # the kernel tests only where it has groups
        k = len(base.literals)
        base_counts = self.base_counts = base.counts.astype(np.int64, copy=False)
        base_unc = self.base_unc = base.counts_uncovered.astype(np.int64, copy=False)
        split_code = self.split_code = data.split_code(k, search)
        # ---- L(S') (Eq. 3.13-3.17), L(D, M + S') (Eq. 3.20), r (Eq. 3.21), R (Eq. 3.24), local
        # tests (Eq. 3.22, 3.25) and patience buckets (Eq. 3.23): _finish_growths' other inputs
        header_old, header_new = data.header_bits(k)
        base_vo = np.asarray(base.value_ops, dtype=float)
        self.turs2 = search == "turs2"  # the authors' buckets, smallest split and refined-literal scores
        lits = base.literals
        scan_rows = data.rows_in_bins(*lits[0]) if k >= 2 else data.all_rows[:0]
        scan_rows1 = data.rows_in_bins(*lits[1]) if k >= 3 else data.all_rows[:0]
        ref_tmin, ref_tmax = data.prefix_tables.tables(lits) if _tables_read(lits, data.binary) else _UNREAD_TABLES
        later_k_known, later_known = data.prefix_tables.later_k_without(
            lits, _lower_bound_literals(base) if self.turs2 else ())
        base_record = BaseRule(  # in the order of its fields (a keyword call costs more, once per base)
            base.rows, np.array(lits, dtype=np.int64).reshape(k, 3), base_vo, float(base_vo.sum()),
            np.asarray(base.k_values, dtype=np.int64), header_new, header_old, base_counts, base_unc,
            split_code[1], scan_rows, scan_rows1, ref_tmin, ref_tmax, later_k_known, later_known)
        # (data, overlap lists, base, rule set, settings): _score_base's and _finish_growths' records
        data_t, lists, rule_set, settings = _state_records(state, beam_width, score, search)
        self.lists = lists
        self.records = (data_t, lists, base_record, rule_set, settings)
        self.path = PATH_BITS if state.union_mode == "bits" else int(_config.UNION_BUILD)
        self.one_call = _config.ONE_CALL_PER_BASE and _fits_one_call(base, present, lists, state, serial, kernels)

    def run(self) -> tuple:
        """The kernels: ``(k_split, outputs of _finish_growths)``."""
        base, state = self.base, self.state
        data = state.data
        if self.one_call:
            if BETWEEN_KERNEL_CALLS is not None:
                BETWEEN_KERNEL_CALLS()
            data_t, lists, base_t, rule_set, settings = self.records
            # the records' fields, not the records: numba types a record field by field on every
            # call (turs._core.score_base._score_base_fields)
            return data.kernels._score_base_fields(*data_t, *lists, *base_t, self.present, self.gl, *rule_set,
                                                   *settings, self.path, self.tested_only)
        present, tested_only = self.present, self.tested_only
        union = state.union_counts[present]
        sub_ptr, sub_idx, sub_sign, n_sub = local_subsets(state, present)
        nbr_ptr, nbr_idx, nbr_w = local_neighbours(state, present)
        lo, hi = base.intervals(data)
        grp_ptr, grp_rules = local_rules(state, present)
        need = np.zeros(n_slots(data.n_bins, data.max_bins), dtype=np.bool_) if tested_only else None
        kernels = data.kernels
        inputs, lists = kernels.growth_records(
            bins=data.bins, y=data.y, rows=base.rows, lo=lo, hi=hi, n_bins=data.n_bins, n_classes=data.n_classes,
            group_local=self.gl, nbr_ptr=nbr_ptr, nbr_idx=nbr_idx, nbr_w=nbr_w, union_counts=union, sub_ptr=sub_ptr,
            sub_idx=sub_idx, sub_sign=sub_sign, n_sub=n_sub, log2_int=data.log2_int, grp_ptr=grp_ptr,
            grp_rules=grp_rules, n_rules=state.K)
        grown = kernels._grow_candidates(
            inputs, lists, data.n_cuts_total, path=self.path, between_calls=BETWEEN_KERNEL_CALLS,
            kernel=kernels._grow_chunk_serial if self.serial else None, need=need,
            local_tests=(data.log2_regret, self.base_counts, self.base_unc, data.log2_d, data.binary,
                         *self.split_code) if tested_only else None, max_bins=data.max_bins)
        if tested_only:  # the kernel marked (and counted) the growths that pass a local test
            grown.valid[:] &= need
        data_t, _, base_t, rule_set, settings = self.records
        return grown.k_split, kernels._finish_growths(grown, base_t, rule_set, data_t, settings)

    def finish(self, result: tuple) -> Growths | None:
        """The base's :class:`Growths` from :meth:`run`'s result (None: no growth)."""
        k_split, out = result  # out: a GrowthScores record (turs._core.candidate_score)
        base = self.base
        self.state.data.prefix_tables.note_cover(base.literals, base.rows)
        if out.feat.size == 0:
            return None
        later_k, later_vo = (out.later_k, out.later_vo) if out.has_refinement else (None, None)
        g = Growths(base, out.feat, out.lo, out.hi, out.counts, out.counts_unc, out.cov, out.cov_unc, out.model,
                    out.value_op, later_k, later_vo, out.total_after, out.r, out.R, out.local, out.aux_local,
                    out.bucket, out.aux_bucket, out.splits_uncovered if self.turs2 else None, out.split_bits,
                    out.split_bits_unc, float(out.nml_base), float(out.nml_base_unc))
        g._k_new = k_split
        return g


def _has_cut(a: int, b: int) -> bool:
    """Whether a literal's bin interval ``[a, b)`` has a cut point inside, i.e. whether a growth
    can refine it: the growth kernel makes no growth on an interval of one bin (a binary
    column's, say; ``h - l < 2`` there)."""
    return b - a >= 2


def _lower_bound_literals(base: Candidate) -> list:
    """The literals ``p`` of ``base`` (not its last) without a lower bound that a growth can give
    one (:func:`_has_cut`): a growth that does is scored by the authors' search with the later
    literals' ``K_value`` as if ``p`` did not restrict the data (``_placeholder_model_bits``),
    read from the prefix tables. For any other literal ``_placeholder_model_bits`` would scan
    for them itself, were they ever needed."""
    lits = base.literals
    return [p for p, (_, a, b) in enumerate(lits[:-1]) if a == 0 and _has_cut(a, b)]


_UNREAD_TABLES = (np.zeros((0, 1), dtype=np.int64), np.zeros((0, 1), dtype=np.int64))
"""Refinement tables for a base none of whose table rows ``_finish_growths`` can read
(:func:`_tables_read`): no rows, and one column, so that the kernel takes them as given and
does not scan for its own."""


def _tables_read(literals: tuple, binary: np.ndarray) -> bool:
    """Whether ``_finish_growths`` can read a row of the refinement tables of a base with
    ``literals``: row ``(p, q)`` is read only for a growth that refines literal ``p``
    (:func:`_has_cut`), and only when literal ``q > p`` is on a column that is not binary
    (``turs._core.refinement._refinement_from_tables``). On data of binary (one-hot) columns,
    such as car and chess, no base needs its tables."""
    refinable = False
    for j, a, b in literals:
        if refinable and not binary[j]:
            return True
        if _has_cut(a, b):
            refinable = True
    return False


_NO_LIST = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))


def _state_records(state: RuleSetState, beam_width: int, score: str, search: str) -> tuple:
    """The records of the scoring kernels that do not depend on the base: ``(data tables,
    overlap lists, rule set counts, settings)``, made once per state and settings (one lookup
    per base instead of four)."""
    per_state = state.__dict__.setdefault("_kernel_records", {})
    key = (beam_width, score, search)
    records = per_state.get(key)
    if records is None:
        data = state.data
        records = per_state[key] = (data_tables(data), _kernel_lists(state), _rule_set_counts(state),
                                    scoring_settings(data, beam_width, score, search))
    return records


def _kernel_lists(state: RuleSetState) -> OverlapLists:
    """The rule set's union counts and pair, subset and rule lists as ``_score_base`` takes them
    (empty arrays and a False flag where the rule set keeps none), made once per state."""
    lists = getattr(state, "_kernel_lists", None)
    if lists is None:
        has_nbr = state.nbr_ptr is not None
        has_sub = state.sub_ptr is not None
        nbr = (state.nbr_ptr, state.nbr_idx, state.nbr_w) if has_nbr else _NO_LIST
        sub = (state.sub_ptr, state.sub_idx, state.sub_sign, int(state.n_sub)) if has_sub else (*_NO_LIST, 0)
        lists = state._kernel_lists = OverlapLists(state.union_counts, *nbr, has_nbr, *sub, has_sub,
                                                   state.group_rule_ptr, state.group_rule_idx, int(state.K))
    return lists


def _rule_set_counts(state: RuleSetState) -> RuleSetCounts:
    """The rule set's counts and code lengths as ``_finish_growths`` takes them, made once per
    state."""
    counts = getattr(state, "_kernel_rule_set", None)
    if counts is None:
        counts = state._kernel_rule_set = RuleSetCounts(
            else_counts=state.else_counts.astype(np.int64, copy=False), nll_covered=state.nll_covered,
            regret_rules=state.regret_rules, model_next=state.model_next, total_m=state.total)
    return counts


def data_tables(data: SearchData) -> DataTables:
    """The fit's data and code tables as the scoring kernels take them, made once per fit."""
    tables = getattr(data, "_kernel_tables", None)
    if tables is None:
        tables = data._kernel_tables = DataTables(
            bins=data.bins, y=data.y, n_classes=data.n_classes, n_bins=data.n_bins,
            n_slots=n_slots(data.n_bins, data.max_bins), binary=data.binary, turs2=data.turs2, log2_d=data.log2_d,
            log2_regret=data.log2_regret, log2_int=data.log2_int, bin_min=data.bin_min, bin_max=data.bin_max)
    return tables


def scoring_settings(data: SearchData, beam_width: int, score: str, search: str) -> ScoringSettings:
    """The search settings (``turs.search.settings.SearchSettings``' ``beam_width``, ``score``
    and ``search``) as one record the scoring kernels take, made once per fit and settings."""
    per_fit = getattr(data, "_kernel_settings", None)
    if per_fit is None:
        per_fit = data._kernel_settings = {}
    key = (beam_width, score, search)
    settings = per_fit.get(key)
    if settings is None:
        turs2 = search == "turs2"
        settings = per_fit[key] = ScoringSettings(
            beam_width=beam_width, absolute=score == "absolute", split_cut_bits=data.split_code(0, search)[0],
            placeholder_scores=turs2, bucket_edges=_turs2_bucket_edges(beam_width) if turs2 else _NO_EDGES,
            min_split=TURS2_MIN_SPLIT)
    return settings


def _fits_one_call(base: Candidate, present: np.ndarray, lists: tuple, state: RuleSetState, serial: bool,
                   kernels) -> bool:
    """Whether ``base``'s kernel work fits one serial call, as ``_grow_candidates`` would decide
    it (with the present groups' pair lists, an upper bound of the local ones); ``kernels``:
    the fit's kernel set."""
    data = state.data
    P = len(present)
    m = base.rows.shape[0]
    n_nbr, n_sub, n_rules = kernels._list_lengths(present, lists.nbr_ptr, lists.has_nbr, lists.sub_ptr,
                                                  lists.has_sub, lists.grp_ptr)
    per_feature = feature_work(m, P, (n_nbr + n_sub) / max(P, 1), n_rules if state.K else 0, data.max_bins,
                               data.n_classes, 2 * (data.max_bins - 1))
    if per_feature * data.d > _config.MAX_CALL_WORK:
        return False
    return (serial or not _config.NUMBA_PARALLEL
            or m * data.n_cuts_total * (1 + P) < _config.PARALLEL_MIN_WORK)


TURS2_MIN_SPLIT = 2
"""The fewest uncovered instances (``S \\ M``) each side of a cut must keep for the authors'
search to consider it: ``min_sample_each_rule = 2`` in the configuration of their runs
(``run_all.py``); with 1 their code does not reproduce those runs' scores on glass."""

_BUCKET_EDGES: dict = {}  # width -> the reference's bucket edges, linspace(0, 1, W + 1)[1:]
_NO_EDGES = np.zeros(0)


def _turs2_bucket_edges(width: int) -> np.ndarray:
    """The authors' patience-bucket edges ``linspace(0, 1, W + 1)[1:]``: a growth with coverage
    ratio ``x`` falls in bucket ``searchsorted(edges, x)``, i.e. ``(w/W, (w+1)/W]`` (the thesis:
    ``[w/W, (w+1)/W)``). The kernel also marks which growths leave at least
    ``TURS2_MIN_SPLIT`` instances of the base's uncovered part ``S \\ M`` on each side of their
    cut (that code skips a cut otherwise, for both beams)."""
    edges = _BUCKET_EDGES.get(width)
    if edges is None:
        edges = _BUCKET_EDGES.setdefault(width, np.linspace(0, 1, width + 1)[1:])
    return edges


