"""The rule set ``M`` of a sampled fit on all its rows, kept by the caller of a row store
(:mod:`turs.search.row_store`): the overlap groups' rule masks and class counts, their unions'
counts, the else-rule's counts and the MDL score (Eq. 3.20) by part, built from the store's
integer answers alone (:class:`~turs.search.row_store.CandidateCounts`) while the store keeps
each row's group.

Adding a rule numbers the groups the same way whatever holds the rows: the old groups keep
their numbers, the rule's rows of each group it meets form a new group after them (in the order
of those groups), its rows outside ``M`` one more, and groups left without rows are dropped
(:meth:`FullState.with_rule`); the float sums run over the groups in that order. The regret ``log2 R(m, C)`` is asked
only at the coverages met (:class:`turs._core.regret.Regret`), never as a table up to the number of rows.
"""
from __future__ import annotations

import numpy as np

from .._core.codes import log2_factorial, universal_integer_code
from .._core.kernels import current
from .._core.regret import Regret
from ..mdl import model_code_bits, nll_bits, total_bits


class FullState:
    """``M`` on all rows of a store (module docstring). Read like a
    :class:`~turs.search.state.RuleSetState` without the growth kernel's lists: ``rules``,
    ``K``, ``total``, ``coverage``, ``else_counts``, ``group_masks``, ``group_counts``,
    ``union_counts``, ``model_next``, :meth:`parts`."""

    def __init__(self, n: int, class_counts: np.ndarray, regret: Regret):
        C = len(class_counts)
        self.n, self.n_classes, self.log2_regret = int(n), C, regret
        self.rules = []
        self.K = 0
        self.group_masks = np.zeros((0, 0), dtype=bool)
        self.group_counts = np.zeros((0, C))
        self.union_counts = np.zeros((0, C))
        self.else_counts = np.asarray(class_counts, dtype=np.int64).copy()
        self._finish(0.0, 0.0)

    def _finish(self, regret_rules: float, model_rules: float) -> None:
        self.else_n = int(self.else_counts.sum())
        self.nll_covered = (float(nll_bits(self.group_counts, self.union_counts).sum())
                            if len(self.group_counts) else 0.0)
        self.nll_else = float(nll_bits(self.else_counts, self.else_counts))
        self.regret_rules, self.model_rules = regret_rules, model_rules
        self.total = total_bits(self.nll_covered + self.nll_else, regret_rules, self.log2_regret[self.else_n],
                                model_rules, self.K)
        self.model_next = model_code_bits(model_rules, self.K + 1)

    @property
    def n_groups(self) -> int:
        return len(self.group_masks)

    @property
    def coverage(self) -> int:
        return int(self.n - self.else_n)

    def _union_with(self, counts) -> tuple:
        """``(in_rule, rule_counts, union_with_rule)`` of a rule with the store's ``counts``: the
        class counts of its rows in each present group and in all, and of the union of each
        present group's rules and the rule: the group's union's plus the rule's minus those of
        the rule's rows in the group's union (its rows whose group shares a rule with it)."""
        present = counts.present
        in_rule = counts.in_group.astype(float)
        rule_counts = counts.in_group.sum(axis=0) + counts.outside
        if len(present):
            # the rule's rows in M as (local group, class) pairs, one per row, rebuilt from the
            # counts: the bit sets over rows are far cheaper than the shared-rule triples when
            # the groups are many (noisy data); both give the same integer counts
            P, C = counts.in_group.shape
            per_pair = counts.in_group.ravel()
            row_group = np.repeat(np.repeat(np.arange(P, dtype=np.int64), C), per_pair)
            row_class = np.repeat(np.tile(np.arange(C, dtype=np.int64), P), per_pair)
            shared = current().union_counts_cheapest(np.ascontiguousarray(self.group_masks[present]), in_rule,
                                                     row_group, row_class)
            union_with_rule = self.union_counts[present] + rule_counts - shared
        else:
            union_with_rule = np.zeros((0, self.n_classes))
        return in_rule, rule_counts, union_with_rule

    def total_with(self, counts, model_bits: float) -> float:
        """``L(D, M + rule)`` of a rule with the store's ``counts`` and model code ``model_bits``,
        without building ``M + rule``: its rows in group ``g`` are coded with the union of ``g``'s
        rules and the rule, its rows outside ``M`` with the rule's counts and leave the else-rule."""
        lr = self.log2_regret
        present = counts.present
        in_rule, rule_counts, union_with_rule = self._union_with(counts)
        union, group = self.union_counts[present], self.group_counts[present]
        d_cov = float((nll_bits(group - in_rule, union) + nll_bits(in_rule, union_with_rule)
                       - nll_bits(group, union)).sum()) if len(present) else 0.0
        unc = counts.outside
        else_after = self.else_counts - unc
        d_else = (float(nll_bits(unc, rule_counts)) + float(nll_bits(else_after, else_after)) - self.nll_else
                  + lr[counts.coverage] + lr[int(else_after.sum())] - lr[self.else_n])
        K = self.K
        d_model = (universal_integer_code(K + 1) - universal_integer_code(K) + model_bits
                   - log2_factorial(K + 1) + log2_factorial(K))
        return self.total + d_cov + d_else + d_model

    def with_rule(self, rule, counts) -> tuple:
        """``(M + rule, new_group, renumber)``: the state with ``rule`` (an object with
        ``model_bits``) whose rows the store counted as ``counts``, and the two arrays
        :meth:`~turs.search.row_store.RowStore.add_rule` moves the store's rows with. The rule's
        rows of present group ``present[i]`` form group ``G + i``, its rows outside ``M`` group
        ``G + P``; groups left without rows are dropped (``renumber``, None when none is)."""
        C, K, G = self.n_classes, self.K, self.n_groups
        present = counts.present
        P = len(present)
        in_rule, rule_counts, union_with_rule = self._union_with(counts)
        own = int(counts.outside.sum() > 0)
        group_counts = np.concatenate([self.group_counts, in_rule, (rule_counts - counts.in_group.sum(axis=0))[None, :]
                                       .astype(float)][:2 + own])
        group_counts[present] -= in_rule
        union = np.concatenate([self.union_counts, union_with_rule, rule_counts[None, :].astype(float)][:2 + own])
        masks = np.zeros((G + P + own, K + 1), dtype=bool)
        masks[:G, :K] = self.group_masks
        masks[G:G + P, :K] = self.group_masks[present]
        masks[G:, K] = True
        new_group = np.arange(G + 1, dtype=np.int64)  # the rows of groups the rule misses stay
        new_group[present] = G + np.arange(P)
        new_group[G] = G + P  # index -1: the rule's rows outside M
        keep = group_counts.sum(axis=1) > 0  # a group all of whose rows the rule covers is gone
        renumber = None
        if not keep.all():
            renumber = np.cumsum(keep) - 1
            group_counts, union, masks = group_counts[keep], union[keep], masks[keep]
        out = object.__new__(FullState)
        out.n, out.n_classes, out.log2_regret = self.n, C, self.log2_regret
        out.rules, out.K = self.rules + [rule], K + 1
        out.group_masks, out.group_counts, out.union_counts = masks, group_counts, union
        out.else_counts = self.else_counts - counts.outside
        out._finish(self.regret_rules + float(self.log2_regret[counts.coverage]),
                    self.model_rules + float(rule.model_bits))
        return out, new_group, renumber

    def parts(self) -> dict:
        """The MDL score by part, as :meth:`turs.search.state.RuleSetState.parts`."""
        return {"data_bits": float(self.nll_covered + self.nll_else),
                "regret_bits": float(self.regret_rules + self.log2_regret[self.else_n]),
                "model_bits": float(model_code_bits(self.model_rules, self.K)),
                "total": float(self.total)}

    def pattern_counts(self) -> tuple:
        """``(patterns, counts, unions)``: the patterns and counts as
        :func:`turs.union_estimate.pattern_counts` gives them for the rows (each group's rule
        mask and class counts, and the empty pattern with the else-rule's counts when a row has
        it, ordered by the number of rules, then the rules), and each one's union counts (zeros
        for the empty pattern). Among patterns of as many rules, the one with the smaller rule
        index at the first place they differ comes first: the descending order of the masks'
        bits, one sort of their packed bytes (no Python object per group)."""
        K, C = self.K, self.n_classes
        G = len(self.group_masks)
        masks = self.group_masks.reshape(G, K)
        counts = np.rint(self.group_counts).astype(np.int64).reshape(G, C)
        unions = np.asarray(self.union_counts, dtype=np.float64).reshape(G, C)
        if self.else_n > 0:
            masks = np.concatenate([masks, np.zeros((1, K), dtype=bool)])
            counts = np.concatenate([counts, self.else_counts.astype(np.int64)[None, :]])
            unions = np.concatenate([unions, np.zeros((1, C))])
        order = np.arange(len(masks))
        if K and len(masks):
            packed = np.ascontiguousarray(np.packbits(~masks, axis=1))
            keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
            order = np.argsort(keys, kind="stable")
            order = order[np.argsort(masks.sum(axis=1)[order], kind="stable")]
        return masks[order], counts[order], unions[order]
