"""The data and the rule set the search works on: :class:`SearchData` (the training data as
bins), :class:`RuleSetState` (the current rule set ``M`` with the counts every candidate score
needs, and its MDL score, Eq. 3.20, by part) and the union-count lists of the growth kernel.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
import threading

import numpy as np

from .. import _config
from .._core.kernels import Kernels, current, for_this_fit
from ..mdl import (check_model_encoding, model_code_bits, nll_bits, overlap_groups, overlap_groups_with,
                   rule_header_bits, total_bits)
from . import local_test
from .prefix_tables import PrefixTables, rows_in_bins

# ------------------------------------------------------------------------------ data
_MADE_ONCE = threading.RLock()


class _made_once:
    """A property computed on first read and kept in the instance's ``__dict__`` (under a lock,
    since the scoring threads may read it first at once). It defines only ``__get__``, so once
    kept the attribute is read from the instance as a plain one, without a Python call: the
    search reads ``rows_by_bin``, ``bin_ptr``, ``log2_int`` tens of thousands of times a fit."""

    def __init__(self, make):
        self.make, self.name, self.__doc__ = make, make.__name__, make.__doc__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        with _MADE_ONCE:
            out = obj.__dict__.get(self.name)
            if out is None:
                out = obj.__dict__[self.name] = self.make(obj)
        return out


@dataclass
class SearchData:
    """What the search needs of the training data, as plain arrays."""

    bins: np.ndarray  # (d, n) uint8
    y: np.ndarray  # (n,) int64
    n_bins: np.ndarray  # (d,) int64
    binary: np.ndarray  # (d,) bool
    n_classes: int
    model_encoding: str = "thesis"  # see turs.mdl.literal_value_op_bits

    def __post_init__(self):
        # the fit's kernel set, compiled or as Python (turs._core.kernels), for every kernel call
        # of the search on this data, in any thread
        self.fit_kernels = for_this_fit()
        self.turs2 = check_model_encoding(self.model_encoding) == 1
        self.d, self.n = self.bins.shape
        self.log2_regret = self.kernels.log2_regret_table(self.n, self.n_classes)
        self.log2_d = math.log2(self.d)
        self.n_cuts_total = int(np.maximum(self.n_bins - 1, 0).sum())
        self.max_bins = int(self.n_bins.max(initial=1))  # the most bins of a column (kernel slots, tables)
        self.turs2_split_bits = local_test.turs2_split_bits(self.n_bins)  # the authors' L_split per column
        self._header_cache: dict = {}  # k -> header_bits(k)
        self._split_cache: dict = {}  # (k, search) -> split_code(k, search)
        # each feature's smallest and largest bin (the data every first literal reaches)
        self.bin_min = (self.bins.min(axis=1) if self.n else np.zeros(self.d)).astype(np.int64)
        self.bin_max = (self.bins.max(axis=1) if self.n else np.zeros(self.d)).astype(np.int64)

    # What only the exact search's growth kernel reads (on all rows of an exact fit, on the
    # sample of a sampled one) is made when first read: the full data of a sampled fit never
    # reads it, and at 10^7 rows the sorted rows alone are 1.6 GB (``docs/performance.md``,
    # "Memory per row").
    @_made_once
    def all_rows(self) -> np.ndarray:
        return np.arange(self.n, dtype=np.int64)

    @_made_once
    def log2_int(self) -> np.ndarray:
        """``log2`` of the counts ``0..n`` (entry 0 unused)."""
        with np.errstate(divide="ignore"):
            return np.log2(np.arange(self.n + 1, dtype=float))

    @_made_once
    def rows_by_bin(self) -> np.ndarray:
        """The rows sorted by bin, per feature: the rows in a bin interval are one slice."""
        out = np.empty(self.bins.shape, dtype=np.int64)
        for j in range(self.d):  # one feature at a time: no second (d, n) array while converting
            out[j] = np.argsort(self.bins[j], kind="stable")
        return out

    @_made_once
    def bin_ptr(self) -> np.ndarray:
        """Where each bin's rows start in ``rows_by_bin[j]``."""
        counts = np.zeros((self.d, self.max_bins + 1), dtype=np.int64)
        for j in range(self.d):
            counts[j, 1:] = np.bincount(self.bins[j], minlength=counts.shape[1] - 1)[: counts.shape[1] - 1]
        return np.cumsum(counts, axis=1)

    @_made_once
    def prefix_tables(self) -> PrefixTables:
        """The refinement tables, once per literal prefix."""
        return PrefixTables(self)

    @property
    def kernels(self) -> Kernels:
        """The kernels this fit calls now (:class:`turs._core.kernels.Kernels`)."""
        return self.fit_kernels.kernels

    def header_bits(self, k: int) -> tuple[float, float]:
        """``rule_header_bits`` for ``k`` and ``k + 1`` literals (0 for none, inf beyond ``d``),
        computed once per ``k``."""
        out = self._header_cache.get(k)
        if out is None:
            old = rule_header_bits(self.d, k, self.model_encoding) if k >= 1 else 0.0
            new = rule_header_bits(self.d, k + 1, self.model_encoding) if k + 1 <= self.d else np.inf
            out = self._header_cache[k] = (old, new)
        return out

    def split_code(self, k: int, search: str):
        """The local test's ``L_split`` for a base of ``k`` literals
        (:func:`turs.search.local_test.split_code`), computed once per ``k``."""
        out = self._split_cache.get((k, search))
        if out is None:
            out = self._split_cache[(k, search)] = local_test.split_code(self, k, search)
        return out

    def rows_in_bins(self, j: int, a: int, b: int) -> np.ndarray:
        """The rows whose bin of feature ``j`` lies in ``[a, b)`` (in bin order)."""
        return rows_in_bins(self.rows_by_bin, self.bin_ptr, j, a, b)


# ------------------------------------------------------------------------ rule set
class RuleSetState:
    """The current rule set ``M`` with everything the candidate scores need."""

    def __init__(self, data: SearchData, rules: list, pair_lists: bool = True, _groups: tuple | None = None):
        """``pair_lists=False``: only the MDL score and the counts (the union counts without the
        growth kernel's pair and subset lists), for a rule set no growth is counted on (the
        full data of a sampled search, :mod:`turs.search.sampled`). ``_groups``: the rules'
        ``(group_of, group_masks)`` when the caller has them (:meth:`extended`)."""
        self.data = data
        self.pair_lists = pair_lists
        self.rules = list(rules)
        n, C = data.n, data.n_classes
        K = len(self.rules)
        if _groups is None:
            covers = np.zeros((n, K), dtype=bool)
            for i, r in enumerate(self.rules):
                covers[r.rows, i] = True
            self.group_of, self.group_masks = overlap_groups(covers)
        else:
            self.group_of, self.group_masks = _groups
        G = len(self.group_masks)
        # class counts per group; the union of group g's rules holds exactly the groups that
        # share a rule with g, so its counts are a sum of group counts (float products of
        # 0/1 and integer counts: exact)
        in_group = self.group_of >= 0
        group_counts = np.bincount(self.group_of[in_group] * C + data.y[in_group],
                                   minlength=G * C).reshape(G, C).astype(float)
        # each group's rules and each rule's groups (CSR); the union counts and the pair lists
        # come from them without the dense groups x groups matrix of shared rules
        gi, ki = np.nonzero(self.group_masks)
        self.group_rule_ptr = np.concatenate([[0], np.cumsum(np.bincount(gi, minlength=G))]).astype(np.int64)
        self.group_rule_idx = ki.astype(np.int64)
        by_rule = np.argsort(ki, kind="stable")
        rule_ptr = np.concatenate([[0], np.cumsum(np.bincount(ki, minlength=K))]).astype(np.int64)
        self.union_mode = union_count_mode(G) if pair_lists else "none"
        self.sub_ptr, self.sub_idx, self.sub_sign, self.n_sub = union_subsets(self.group_masks, self.union_mode,
                                                                              data.kernels)
        if self.union_mode == "subsets" and self.sub_ptr is None:
            self.union_mode = "neighbours"  # a group has too many rules for its subsets
        min_shared = {"rules": 2, "neighbours": 1}.get(self.union_mode, 0)
        if pair_lists and self.union_mode != "bits":
            self.union_counts, self.nbr_ptr, self.nbr_idx, self.nbr_w = data.kernels._shared_rule_pairs(
                self.group_rule_ptr, self.group_rule_idx, rule_ptr, gi[by_rule].astype(np.int64), group_counts,
                min_shared, self.union_mode == "rules")
        else:
            self.union_counts = data.kernels.union_counts_cheapest(self.group_masks, group_counts, self.group_of,
                                                                   data.y)
            self.nbr_ptr = self.nbr_idx = self.nbr_w = None
        self.uncovered = self.group_of < 0
        self.else_counts = np.bincount(data.y[self.uncovered], minlength=C)
        self.else_n = int(self.else_counts.sum())
        self.group_counts = group_counts
        self.nll_covered = float(nll_bits(group_counts, self.union_counts).sum()) if G else 0.0
        self.nll_else = float(nll_bits(self.else_counts, self.else_counts))
        lr = data.log2_regret
        self.regret_rules = float(sum(lr[r.coverage] for r in self.rules))
        self.model_rules = float(sum(r.model_bits for r in self.rules))
        self.K = K
        self.total = total_bits(self.nll_covered + self.nll_else, self.regret_rules, float(lr[self.else_n]),
                                self.model_rules, K)
        # the model code of M + one more rule, without that rule's L(S)
        self.model_next = model_code_bits(self.model_rules, K + 1)

    def extended(self, rule) -> "RuleSetState":
        """``M + rule`` as ``RuleSetState(data, rules + [rule], pair_lists)`` builds it, to the
        bit, with its overlap groups from this state's (:func:`turs.mdl.overlap_groups_with`)
        instead of grouping every row's rules again: the sorting of all rows' rule patterns was
        most of a build (``docs/performance.md``). This state's groups must be numbered as a build
        numbers them, which every state the search extends is."""
        groups = overlap_groups_with(self.group_of, self.group_masks, rule.rows)
        return RuleSetState(self.data, self.rules + [rule], self.pair_lists, _groups=groups)

    @property
    def coverage(self) -> int:
        return int(self.data.n - self.else_n)

    def parts(self) -> dict:
        """The MDL score (Eq. 3.20) by part, named as :class:`turs.mdl.MDLBreakdown`: the data
        code ``-log2`` of the ML likelihood (Eq. 3.6), the regrets of the rules and the else-rule
        (Eq. 3.12) and the model code ``L(M)`` (Eq. 3.18); they add up to ``total``."""
        lr = self.data.log2_regret
        return {"data_bits": float(self.nll_covered + self.nll_else),
                "regret_bits": float(self.regret_rules + lr[self.else_n]),
                "model_bits": float(model_code_bits(self.model_rules, self.K)),
                "total": float(self.total)}


def union_count_mode(n_groups: int) -> str:
    """The union-count path for a rule set with ``n_groups`` overlap groups
    (``turs._config.UNION_COUNTS``: all paths give the same counts)."""
    if _config.UNION_COUNTS == "auto":
        if n_groups >= _config.BITS_MIN_GROUPS:
            return "bits"
        return "rules" if n_groups >= _config.RULES_MIN_GROUPS else "neighbours"
    return _config.UNION_COUNTS


def union_subsets(masks: np.ndarray, mode: str, kernels: Kernels | None = None):
    """The rule-subset lists of each overlap group for a union-count ``mode`` (``(ptr, idx,
    sign, n_subsets)``, or Nones when the mode uses none): its single rules (``"rules"``), or
    every non-empty subset with the inclusion-exclusion sign (``"subsets"``,
    :func:`group_subsets`)."""
    if mode == "rules":
        ptr = np.concatenate([[0], np.cumsum(masks.sum(axis=1))]).astype(np.int64)
        idx = np.nonzero(masks)[1].astype(np.int64)
        return ptr, idx, np.ones(len(idx)), masks.shape[1]
    if mode == "subsets":
        return group_subsets(masks, kernels)
    return None, None, None, 0


def group_subsets(masks: np.ndarray, kernels: Kernels | None = None):
    """CSR lists of the non-empty subsets of each overlap group's rules, with signs.

    ``counts(S' outside the union of g's rules)`` follows by inclusion-exclusion from the
    counts of ``S'`` in every intersection ``T`` of g's rules, and those are sums over the
    groups that contain ``T``. Returns ``(ptr, idx, sign, n_subsets)`` (``_group_subsets``),
    or Nones when a group has more than ``turs._config.MAX_RULES_FOR_SUBSETS`` rules.
    """
    G = len(masks)
    if G == 0:
        return np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0
    if masks.sum(axis=1).max() > _config.MAX_RULES_FOR_SUBSETS:
        return None, None, None, 0
    return (kernels or current())._group_subsets(np.ascontiguousarray(masks, dtype=np.bool_))


def local_neighbours(state: "RuleSetState", present: np.ndarray):
    """The weighted pair lists of the groups ``present`` in a base rule, restricted to those
    groups and renumbered locally (CSR ``ptr, idx, w``)."""
    if len(present) == 0 or state.nbr_ptr is None:
        return np.zeros(len(present) + 1, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return state.data.kernels._local_neighbours(state.nbr_ptr, state.nbr_idx, state.nbr_w, present,
                                                len(state.group_masks))


def local_rules(state: "RuleSetState", present: np.ndarray):
    """The rule lists of the groups ``present`` (CSR ``ptr, rules``), for the bit-set build of
    the growth kernel's union counts."""
    return state.data.kernels._local_rule_lists(state.group_rule_ptr, state.group_rule_idx, present)


def local_subsets(state: "RuleSetState", present: np.ndarray):
    """The subset lists of the groups ``present``, renumbered locally."""
    if state.sub_ptr is None or len(present) == 0:
        return np.zeros(len(present) + 1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0
    return state.data.kernels._local_subsets(state.sub_ptr, state.sub_idx, state.sub_sign, present, state.n_sub)

