"""A rule search on a sample of the rows, confirmed on all of them: a switchable
approximation for training sets far larger than the study's (``docs/performance.md``,
"Sampled search").

Why: the exact search's growth kernel works per overlap group of the rule set and per cut, and
on noisy data the groups grow faster than the rows (about 3 rows per group), so one rule search
costs more than linear in n and a fit far more. A sample of ``SEARCH_SAMPLE_ROWS`` rows has
at most that many groups, whatever n is.

How (:class:`SampledSearch`):

* a stratified sample of the training rows (per class, its share of the sample, at least one
  row of each class), from a random order drawn once per fit (seed 0: the fit is
  deterministic);
* each rule search (Algorithm 4, unchanged) runs on the sample, with the rule set restricted
  to it, as if the sample were the data: its scores and local tests weigh the evidence of
  the sample's rows. (Scaling the sample's data codes up to the full data's, so
  that each sample row stands for ``n / sample`` rows, was tried and is worse: the local
  tests then pass splits of a few sample rows, the rules fit the sample's noise and fail on
  all rows; ``docs/performance.md``.)
* the search's best candidates (by ``r``, up to ``CONFIRM_CANDIDATES`` distinct rules) are
  then scored on all rows: cover, class counts, model code (``K_value`` counted on all rows,
  Section 3.4.3) and the exact MDL score of ``M`` with the rule (from the rule's rows alone,
  :meth:`RuleSetState.total_with`); the one with the best ``r`` on all rows is the search's
  rule, added if the policy accepts it on those exact numbers; if it does not, the sample doubles (keeping its rows, up to
  ``SEARCH_SAMPLE_MAX``) and the search runs again; at that size, the fit ends;
* the rule set ``M``, its MDL score (Eq. 3.20) and the model's probabilities are always
  the exact ones on all rows: only which rules are proposed depends on the sample.

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
from .growths import Candidate
from .state import RuleSetState, SearchData

def uses_sample(n_rows: int, exact: bool) -> bool:
    """Whether a fit on ``n_rows`` training rows searches on a sample from its first rule on."""
    return (not exact) and n_rows > _config.SAMPLED_MIN_ROWS


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
            return SampledSearch(data)
        return None
    return switch


def stratified_order(y: np.ndarray, seed: int = 0) -> np.ndarray:
    """All row indices in an order whose every prefix is a stratified sample: each class's rows
    in a random order, interleaved by their rank within the class (the i-th of a class with
    ``n_c`` rows at ``(i + 0.5) / n_c``), the first row of every class first. Prefixes are
    nested, so a larger sample keeps the rows of a smaller one."""
    rng = np.random.default_rng(seed)
    priority = np.empty(y.shape[0])
    for c in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == c))
        priority[rows] = (np.arange(len(rows)) + 0.5) / len(rows)
        priority[rows[0]] = -1.0
    return np.argsort(priority, kind="stable").astype(np.int64)


class _RuleOnSample:
    """A rule of ``M`` restricted to the sample: its rows there, its model code as on all rows."""

    __slots__ = ("literals", "rows", "model_bits")

    def __init__(self, literals, rows, model_bits):
        self.literals, self.rows, self.model_bits = literals, rows, model_bits

    @property
    def coverage(self) -> int:
        return int(self.rows.shape[0])


class SampledSearch:
    """The sample of a fit and the two translations: the rule set onto the sample
    (:meth:`on_sample`) and a candidate found there onto all rows (:meth:`on_full`,
    :meth:`confirm`)."""

    def __init__(self, data: SearchData, size: int | None = None, seed: int = 0, max_size: int | None = None):
        size = _config.SEARCH_SAMPLE_ROWS if size is None else size
        max_size = _config.SEARCH_SAMPLE_MAX if max_size is None else max_size
        self.full = data
        self.order = stratified_order(data.y, seed)
        self.max_size = min(max(max_size, size), data.n)
        # literal prefix -> the bitmap of its cover on all rows (turs._core.bitmaps), ("k", prefix,
        # feature) -> K_value there, ("bins", feature) -> the feature's bitmaps: they depend on
        # the full data alone, so they hold over every search of the fit
        self._prefixes: dict = {}
        self._prefix_bytes = 0
        self._use(min(size, data.n))

    def _use(self, size: int) -> None:
        data = self.full
        self.rows = np.sort(self.order[:size])
        self.data = SearchData(np.ascontiguousarray(data.bins[:, self.rows]), data.y[self.rows], data.n_bins,
                               data.binary, data.n_classes, data.model_encoding)
        self.position = np.full(data.n, -1, dtype=np.int64)
        self.position[self.rows] = np.arange(len(self.rows), dtype=np.int64)
        self._last = (None, None)  # (full state, its sample state)
        self._on_sample_rules: dict = {}  # id of a rule of M -> (the rule, it on this sample)

    def grow(self) -> bool:
        """Double the sample (keeping its rows, up to ``max_size``); False when it cannot grow."""
        if self.data.n >= self.max_size:
            return False
        self._use(min(2 * self.data.n, self.max_size))
        return True

    def full_state(self, rules) -> RuleSetState:
        """``M`` on all rows: the exact MDL score and counts, no kernel lists."""
        return RuleSetState(self.full, list(rules), pair_lists=False)

    def on_sample(self, state: RuleSetState) -> RuleSetState:
        """``M`` restricted to the sample (built once per rule set; when ``M`` is the last rule
        set seen here with one more rule, that one's state extended by it,
        :meth:`RuleSetState.extended`)."""
        last, last_on_sample = self._last
        if last is state:
            return last_on_sample
        rules, known = [], self._on_sample_rules
        for r in state.rules:  # a rule's rows on the sample are mapped once per sample
            kept = known.get(id(r))
            if kept is None or kept[0] is not r:
                pos = self.position[r.rows]
                kept = known[id(r)] = (r, _RuleOnSample(r.literals, pos[pos >= 0], r.model_bits))
            rules.append(kept[1])
        if (last is not None and len(state.rules) == last.K + 1
                and all(a is b for a, b in zip(state.rules, last.rules))):
            out = last_on_sample.extended(rules[-1])
        else:
            out = RuleSetState(self.data, rules)
        self._last = (state, out)
        return out

    def on_full(self, c: Candidate, state: RuleSetState) -> Candidate | None:
        """Candidate ``c`` (literals ``(column, lo_bin, hi_bin)`` in its order) on all rows:
        cover, class counts in it and in its part outside ``M``, and ``L(S)`` (Eq. 3.17) with
        each literal's ``K_value`` counted on the rows the literals before it reach, as
        :func:`turs.mdl.rule_model_bits` does. None when a literal has no code there.
        Each literal prefix's cover is a bitmap of the rows (``turs._core.bitmaps``: ``n / 64``
        words a literal), kept with each ``K_value`` across calls (a search's candidates share
        their first literals, and so do the searches of a fit), ``PREFIX_CACHE_BYTES`` at most."""
        data = self.full
        kernels = data.kernels
        cache = self._prefixes
        words = cache.get(())
        if words is None:
            words = kernels._all_rows_bitmap(data.n)
            self._remember(cache, (), words, words.nbytes)
        value_ops, k_values = [], []
        for q, (j, a, b) in enumerate(c.literals):
            if data.binary[j]:
                kv, two = 1, False
            else:
                key = ("k", c.literals[:q], j)
                kv = cache.get(key)
                if kv is None:
                    if q == 0:  # over all rows
                        kv = int(data.bin_max[j] - data.bin_min[j]) if data.n else 0
                    else:
                        lo, hi = kernels._bin_extremes_of_bitmap(words, self._feature_bitmaps(cache, j))
                        kv = hi - lo if hi >= 0 else 0
                    self._remember(cache, key, kv, 64)
                two = a > 0 and b < data.n_bins[j]
            try:
                vo = literal_value_op_bits(bool(data.binary[j]), bool(two), kv, data.model_encoding)
            except ValueError:
                return None
            value_ops.append(vo)
            k_values.append(kv)
            key = c.literals[:q + 1]
            nxt = cache.get(key)
            if nxt is None:
                nxt = kernels._in_interval(words, self._feature_bitmaps(cache, j), a, b)
                self._remember(cache, key, nxt, nxt.nbytes)
            words = nxt
        rows = kernels._bitmap_rows(words)
        if rows.size == 0:
            return None
        k = len(c.literals)
        model_bits = data.header_bits(k)[0] + float(sum(value_ops))
        y = data.y[rows]
        C = data.n_classes
        counts = np.bincount(y, minlength=C)
        counts_unc = np.bincount(y[state.uncovered[rows]], minlength=C)
        return Candidate(c.literals, tuple(value_ops), tuple(k_values), rows, counts, counts_unc, model_bits)

    def _feature_bitmaps(self, cache: dict, j: int) -> np.ndarray:
        """Feature ``j``'s bitmaps ``at_least[a]`` (the rows with bin ``>= a``) on all rows."""
        key = ("bins", j)
        out = cache.get(key)
        if out is None:
            out = self.full.kernels._at_least_bitmaps(self.full.bins[j], int(self.full.n_bins[j]))
            self._remember(cache, key, out, out.nbytes)
        return out

    def _remember(self, cache: dict, key, value, nbytes: int) -> None:
        if nbytes > _config.PREFIX_CACHE_BYTES:
            return
        if self._prefix_bytes + nbytes > _config.PREFIX_CACHE_BYTES:
            cache.clear()
            self._prefix_bytes = 0
        self._prefix_bytes += nbytes
        cache[key] = value

    def confirm(self, state: RuleSetState, pool, policy):
        """Confirm the search's candidates on all rows: the ``CONFIRM_CANDIDATES`` distinct rules
        of ``pool`` with the best ``r`` on the sample are scored exactly
        (:meth:`~turs.search.state.RuleSetState.total_with`),
        and the one with the best exact ``r`` is the search's rule, added when ``policy``
        accepts it on the numbers of ``M`` built with it. Returns ``(candidate, new_state)``,
        ``new_state`` None when it is not accepted (``candidate`` None: no candidate)."""
        seen, best = set(), None
        for c in sorted(pool, key=lambda c: -c.r):
            if len(seen) >= _config.CONFIRM_CANDIDATES:
                break
            if c.key in seen:
                continue
            seen.add(c.key)
            full = self.on_full(c, state)
            if full is None:
                continue
            self._score(full, state, state.total_with(full))
            if best is None or full.r > best.r:
                best = full
        if best is None or not policy.accepts(best, state):
            return best, None
        after = state.with_rule(best)
        self._score(best, state, after.total)  # the numbers of M + best as built
        return (best, after) if policy.accepts(best, state) else (best, None)

    @staticmethod
    def _score(c: Candidate, state: RuleSetState, total_after: float) -> None:
        c.total_after = total_after
        cov_unc = c.coverage_uncovered
        c.r = (state.total - total_after) / cov_unc if cov_unc > 0 else -np.inf
