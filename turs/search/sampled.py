"""A rule search on a sample of the rows, confirmed on all of them: a switchable
approximation for training sets far larger than the study's (``docs/performance.md``,
"Sampled search").

Why: the exact search's growth kernel works per overlap group of the rule set and per cut, and
on noisy data the groups grow faster than the rows (about 3 rows per group), so one rule search
costs more than linear in n and a fit far more. A sample of ``SEARCH_SAMPLE_ROWS`` rows has
at most that many groups, whatever n is.

How (:class:`SampledSearch`):

* a stratified sample of the training rows (per class, its share of the sample, at least one
  row of each class), the first rows of the hash order of :mod:`turs.search.sample_keys`
  (seed ``SEARCH_SAMPLE_SEED``, 0: the fit is deterministic; the order depends on each row's
  index alone, so a table in partitions draws the same sample);
* each rule search (Algorithm 4, unchanged) runs on the sample, with the rule set restricted
  to it, as if the sample were the data: its scores and local tests weigh the evidence of
  the sample's rows. (Scaling the sample's data codes up to the full data's, so
  that each sample row stands for ``n / sample`` rows, was tried and is worse: the local
  tests then pass splits of a few sample rows, the rules fit the sample's noise and fail on
  all rows; ``docs/performance.md``.)
* the search's best candidates (by ``r``, up to ``CONFIRM_CANDIDATES`` distinct rules) are
  then scored on all rows, through a row store (:mod:`turs.search.row_store`, one pass for
  them all): cover, class counts per overlap group of ``M``, model code (``K_value`` from the
  bin extremes on all rows, Section 3.4.3) and the exact MDL score of ``M`` with the rule
  (:meth:`turs.search.full_state.FullState.total_with`, from those counts alone); the one with the best ``r`` on all rows is the search's
  rule, added if the policy accepts it on those exact numbers; if it does not, the sample doubles (keeping its rows, up to
  ``SEARCH_SAMPLE_MAX``) and the search runs again; at that size, the fit ends;
* the rule set ``M``, its MDL score (Eq. 3.20) and the model's probabilities are always
  the exact ones on all rows (:class:`~turs.search.full_state.FullState`, kept from the
  store's integer counts while the store keeps each row's overlap group): only which rules
  are proposed depends on the sample. ``M`` on the sample is each rule's literals applied to
  the sample's bins.

When (:func:`uses_sample`, :func:`sample_when_costly`):

* on more than ``SAMPLED_MIN_ROWS`` training rows, every rule search;
* on ``SAMPLE_WHEN_MIN_ROWS`` to ``SAMPLED_MIN_ROWS`` rows (the sample is at most half the
  rows), the fit starts exact and switches to the sample, for this and every later search,
  before the first rule search where rows x overlap groups of ``M`` reach
  ``SAMPLE_WHEN_ROWS_X_GROUPS``: the exact search's work grows with both (the growth kernel
  works per group and per cover row), and it is the groups that explode on noisy data
  (``docs/performance.md``, "Sampled search on costly fits");
* never with ``TURSClassifier(exact=True)``, and never on fewer rows.

No dataset of the study samples: the two with more than ``SAMPLE_WHEN_MIN_ROWS`` training
rows stay far below the cost bound (aloi: 39,627 rows and at most 36 groups, 1.4e6; smtp:
76,125 rows and 2 groups, 1.5e5; every fold), the others have fewer rows.
"""
from __future__ import annotations

import numpy as np

from .. import _config
from ..mdl import literal_value_op_bits
from .._core.regret import Regret
from .full_state import FullState
from .growths import Candidate
from .row_store import LocalRows, RowStore
from .state import RuleSetState, SearchData


def uses_sample(n_rows: int, exact: bool) -> bool:
    """Whether a fit on ``n_rows`` training rows searches on a sample from its first rule on."""
    return (not exact) and n_rows > _config.SAMPLED_MIN_ROWS


def store_of(data: SearchData) -> LocalRows:
    """The rows of ``data`` as an in-memory row store (its bins, not a copy)."""
    return LocalRows(data.bins, data.y, data.n_bins, data.binary, data.n_classes)


def sample_when_costly(data: SearchData, exact: bool):
    """For a fit that starts exact: None if it never samples (``exact``, fewer than
    ``SAMPLE_WHEN_MIN_ROWS`` rows, or more than ``SAMPLED_MIN_ROWS``: sampled from the start),
    else ``switch(state)``, which returns a :class:`SampledSearch` for the fit's remaining rule
    searches once rows x overlap groups of the rule set ``state`` reach
    ``SAMPLE_WHEN_ROWS_X_GROUPS``, and None before."""
    if exact or data.n < _config.SAMPLE_WHEN_MIN_ROWS or data.n > _config.SAMPLED_MIN_ROWS:
        return None

    def switch(state: RuleSetState):
        if data.n * len(state.group_masks) >= _config.SAMPLE_WHEN_ROWS_X_GROUPS:
            return SampledSearch(store_of(data), data.model_encoding)
        return None
    return switch


class _RuleOnSample:
    """A rule of ``M`` restricted to the sample: its rows there, its model code as on all rows."""

    __slots__ = ("literals", "rows", "model_bits")

    def __init__(self, literals, rows, model_bits):
        self.literals, self.rows, self.model_bits = literals, rows, model_bits

    @property
    def coverage(self) -> int:
        return int(self.rows.shape[0])


def _bin_literals(rule):
    """The rule's literals ``(column, lo_bin, hi_bin)`` when it has them (a rule the search
    found), else None (a rule given as thresholds, :class:`turs.parse.ResolvedRule`, whose
    rows are known)."""
    return tuple((int(j), int(a), int(b)) for j, a, b in rule.literals) if isinstance(rule, Candidate) else None


class SampledSearch:
    """The sample of a fit and the two translations: the rule set onto the sample
    (:meth:`on_sample`) and the candidates found there onto all rows (:meth:`confirm`), through
    the row store ``store`` (:class:`~turs.search.row_store.RowStore`; a
    :class:`~turs.search.state.SearchData` is taken as its rows in memory)."""

    def __init__(self, store: RowStore | SearchData, model_encoding: str | None = None, size: int | None = None,
                 seed: int | None = None, max_size: int | None = None):
        if isinstance(store, SearchData):
            model_encoding = store.model_encoding if model_encoding is None else model_encoding
            store = store_of(store)
        size = _config.SEARCH_SAMPLE_ROWS if size is None else size
        max_size = _config.SEARCH_SAMPLE_MAX if max_size is None else max_size
        self.store = store
        self.model_encoding = "thesis" if model_encoding is None else model_encoding
        self.seed = _config.SEARCH_SAMPLE_SEED if seed is None else int(seed)
        self.max_size = min(max(max_size, size), store.n)
        self.regret = Regret(store.n_classes)
        self._state = None  # the last state of M on all rows: the one whose groups the store holds
        self._use(min(size, store.n))

    def _use(self, size: int) -> None:
        store = self.store
        self.rows, bins, y = store.sample(size, self.seed)
        self.data = SearchData(bins, y, store.n_bins, store.binary, store.n_classes, self.model_encoding)
        self._last = (None, None)  # (full state, its sample state)
        self._on_sample_rules: dict = {}  # id of a rule of M -> (the rule, it on this sample)

    def grow(self) -> bool:
        """Double the sample (keeping its rows, up to ``max_size``); False when it cannot grow."""
        if self.data.n >= self.max_size:
            return False
        self._use(min(2 * self.data.n, self.max_size))
        return True

    # ------------------------------------------------------------------ M on all rows
    def full_state(self, rules) -> FullState:
        """``M`` on all rows (:class:`~turs.search.full_state.FullState`): its rules added one by
        one through the store. Built once per fit (the store's groups are then those of ``M``);
        asked again for the same rules, the state built."""
        rules = list(rules)
        last = self._state
        if last is not None:
            if len(last.rules) == len(rules) and all(a is b for a, b in zip(last.rules, rules)):
                return last
            raise ValueError("SampledSearch.full_state builds M on all rows once per fit (the store holds its "
                             "groups); make a new SampledSearch for another rule set.")
        state = FullState(self.store.n, self.store.class_counts, self.regret)
        for rule in rules:
            lits = _bin_literals(rule)
            if lits is None:
                counts = self._rows_store().rows_counts(rule.rows, state.n_groups)
            else:
                (counts,) = self.store.candidate_counts([lits], state.n_groups)
            state, new_group, renumber = state.with_rule(rule, counts)
            if lits is None:
                self._rows_store().add_rows(rule.rows, new_group, renumber)
            else:
                self.store.add_rule(lits, new_group, renumber)
        self._state = state
        return state

    def _rows_store(self) -> LocalRows:
        if not isinstance(self.store, LocalRows):
            raise ValueError("A rule given as thresholds (not on the encoder's cut points) is placed by its rows, "
                             f"which only a store in memory (LocalRows) takes; this store is a {type(self.store).__name__}.")
        return self.store

    def _current(self, state: FullState) -> None:
        if state is not self._state:
            raise ValueError("The store's overlap groups are those of the last rule set SampledSearch built or "
                             "accepted; pass that state.")

    # ------------------------------------------------------------------ M on the sample
    def _rule_on_sample(self, rule) -> _RuleOnSample:
        lits = _bin_literals(rule)
        if lits is None:  # its rows on all rows, those of the sample
            at = np.searchsorted(self.rows, rule.rows)
            hit = at < len(self.rows)
            hit[hit] = self.rows[at[hit]] == rule.rows[hit]
            rows = at[hit].astype(np.int64)
        else:
            mask = np.ones(self.data.n, dtype=bool)
            for j, a, b in lits:
                col = self.data.bins[j]
                mask &= (col >= a) & (col < b)
            rows = np.flatnonzero(mask).astype(np.int64)
        return _RuleOnSample(rule.literals, rows, rule.model_bits)

    def on_sample(self, state: FullState) -> RuleSetState:
        """``M`` restricted to the sample (built once per rule set; when ``M`` is the last rule
        set seen here with one more rule, that one's state extended by it,
        :meth:`RuleSetState.extended`)."""
        last, last_on_sample = self._last
        if last is state:
            return last_on_sample
        rules, known = [], self._on_sample_rules
        for r in state.rules:  # a rule is put on the sample once per sample
            kept = known.get(id(r))
            if kept is None or kept[0] is not r:
                kept = known[id(r)] = (r, self._rule_on_sample(r))
            rules.append(kept[1])
        if (last is not None and len(state.rules) == last.K + 1
                and all(a is b for a, b in zip(state.rules, last.rules))):
            out = last_on_sample.extended(rules[-1])
        else:
            out = RuleSetState(self.data, rules)
        self._last = (state, out)
        return out

    # ------------------------------------------------------------------ candidates on all rows
    def _on_full(self, c: Candidate, counts) -> Candidate | None:
        """Candidate ``c`` on all rows from the store's ``counts`` of it: class counts in its
        cover and in its part outside ``M``, and ``L(S)`` (Eq. 3.17) with each literal's
        ``K_value`` from the bin extremes of the rows the literals before it reach, as
        :func:`turs.mdl.rule_model_bits` does. None when it covers no row or a literal has no
        code there."""
        if counts.coverage == 0:
            return None
        store = self.store
        value_ops, k_values = [], []
        for q, (j, a, b) in enumerate(c.literals):
            if store.binary[j]:
                kv, two = 1, False
            else:
                lo, hi = (int(v) for v in counts.extremes[q])
                kv = hi - lo if hi >= 0 else 0
                two = a > 0 and b < store.n_bins[j]
            try:
                vo = literal_value_op_bits(bool(store.binary[j]), bool(two), kv, self.model_encoding)
            except ValueError:
                return None
            value_ops.append(vo)
            k_values.append(kv)
        model_bits = self.data.header_bits(len(c.literals))[0] + float(sum(value_ops))
        rule_counts = counts.in_group.sum(axis=0) + counts.outside
        return Candidate(tuple(c.literals), tuple(value_ops), tuple(k_values), None, rule_counts,
                         counts.outside.copy(), model_bits)

    def on_full(self, c: Candidate, state: FullState) -> Candidate | None:
        """Candidate ``c`` on all rows against ``M`` = ``state`` (:meth:`_on_full`); its
        ``rows`` are None (the store keeps the rows)."""
        self._current(state)
        (counts,) = self.store.candidate_counts([tuple(c.literals)], state.n_groups)
        return self._on_full(c, counts)

    def confirm(self, state: FullState, pool, policy):
        """Confirm the search's candidates on all rows: the ``CONFIRM_CANDIDATES`` distinct rules
        of ``pool`` with the best ``r`` on the sample are counted by the store in one pass and
        scored exactly (:meth:`~turs.search.full_state.FullState.total_with`), and the one with
        the best exact ``r`` is the search's rule, added when ``policy`` accepts it on the
        numbers of ``M`` built with it (the store's rows then move to its groups). Returns
        ``(candidate, new_state)``, ``new_state`` None when it is not accepted (``candidate``
        None: no candidate)."""
        self._current(state)
        seen, chosen = set(), []
        for c in sorted(pool, key=lambda c: -c.r):
            if len(chosen) >= _config.CONFIRM_CANDIDATES:
                break
            if c.key in seen:
                continue
            seen.add(c.key)
            chosen.append(c)
        best = best_counts = None
        if chosen:
            for c, counts in zip(chosen, self.store.candidate_counts([tuple(c.literals) for c in chosen],
                                                                     state.n_groups)):
                full = self._on_full(c, counts)
                if full is None:
                    continue
                self._score(full, state, state.total_with(counts, full.model_bits))
                if best is None or full.r > best.r:
                    best, best_counts = full, counts
        if best is None or not policy.accepts(best, state):
            return best, None
        after, new_group, renumber = state.with_rule(best, best_counts)
        self._score(best, state, after.total)  # the numbers of M + best as built
        if not policy.accepts(best, state):
            return best, None
        self.store.add_rule(best.literals, new_group, renumber)
        self._state = after
        return best, after

    @staticmethod
    def _score(c: Candidate, state, total_after: float) -> None:
        c.total_after = total_after
        cov_unc = c.coverage_uncovered
        c.r = (state.total - total_after) / cov_unc if cov_unc > 0 else -np.inf
