"""The MDL-based score of a rule set (thesis Section 3.4, Eq. 3.6, 3.12, 3.13-3.20).

``L(D, M) = -log2 P^apprNML_M(y | x) + L(M)`` where

* ``-log2 P^apprNML_M(y | x) = -log2 P_{M, theta_hat}(y | x) + sum_{S in M + else} log2 R(|S|, |Y|)``
  (Eq. 3.12): the ML likelihood of Eq. 3.6 -- an instance covered by the rules ``I`` is
  coded with the class distribution of the union of their covers (Eq. 3.5), an instance
  covered by no rule with the else-rule's -- divided by the product of the regrets of all
  rules, the else-rule included;
* ``L(M) = L_univ(K) + sum_i L(S_i) - log2 K!`` (Eq. 3.18) and
  ``L(S) = log2 K_col + log2 binom(K_col, k) + sum L_value_op`` (Eq. 3.13-3.17).

``model_encoding="turs2"`` swaps in the model code that the authors' implementation used in
the reference runs (``L_univ(k)`` for the number of literals, no bits for a literal's form and
operator), for comparisons with its ``total_cl_bits``.

:func:`mdl_score` computes it with its breakdown for ANY rule set on any data.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ._core.codes import log2_comb, log2_factorial, universal_integer_code
from ._core.kernels import current, kernels_for_fit
from ._core.regret import Regret
from ._validation import _as_frame, _check_y
from .encoding import FeatureEncoder


@dataclass(frozen=True)
class MDLBreakdown:
    """The MDL score of a rule set and its parts, all in bits."""

    total: float
    data_bits: float  # -log2 of the ML likelihood, Eq. 3.6
    regret_bits: float  # sum of log2 R(|S|, |Y|) over the rules and the else-rule, Eq. 3.12
    model_bits: float  # L(M), Eq. 3.18
    rule_model_bits: tuple  # L(S_i), Eq. 3.17
    rule_regret_bits: tuple  # log2 R(|S_i|, |Y|)
    else_regret_bits: float
    n_rules_bits: float  # L_univ(K)
    order_redundancy_bits: float  # log2 K!, subtracted in Eq. 3.18
    n_rules: int
    coverage: int  # instances covered by at least one rule
    else_coverage: int
    n_overlap_groups: int  # distinct sets of covering rules among the covered instances

    def to_dict(self) -> dict:
        d = asdict(self)
        d["rule_model_bits"] = list(self.rule_model_bits)
        d["rule_regret_bits"] = list(self.rule_regret_bits)
        return d

    def __str__(self) -> str:
        lines = [
            f"MDL score            {self.total:12.3f} bits",
            f"  data (-log2 ML)    {self.data_bits:12.3f}",
            f"  regret (NML)       {self.regret_bits:12.3f}",
            f"  model L(M)         {self.model_bits:12.3f}",
            f"    L_univ(K={self.n_rules})    {self.n_rules_bits:12.3f}",
            f"    -log2 K!         {-self.order_redundancy_bits:12.3f}",
        ]
        for i, (m, r) in enumerate(zip(self.rule_model_bits, self.rule_regret_bits)):
            lines.append(f"    rule {i + 1}: L(S)={m:.3f}  log2 R={r:.3f}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------- pieces
#: The model encodings :func:`mdl_score` and the search know (see :func:`literal_value_op_bits`).
MODEL_ENCODINGS = ("thesis", "turs2")


def check_model_encoding(model_encoding: str) -> int:
    """The index of ``model_encoding`` in :data:`MODEL_ENCODINGS` (0 or 1), or a ValueError."""
    if model_encoding not in MODEL_ENCODINGS:
        raise ValueError(f"model_encoding must be one of {MODEL_ENCODINGS}. Got {model_encoding!r}.")
    return MODEL_ENCODINGS.index(model_encoding)


def literal_value_op_bits(binary: bool, two_sided: bool, k_value: int, model_encoding: str = "thesis") -> float:
    """``L_value_op`` of one literal (Eq. 3.15, 3.16).

    ``"thesis"`` (the text of Section 3.4.3): binary (one-hot or 0/1) column: 1 bit. Numeric,
    one cut: 1 bit for the form, 1 bit for the operator and ``log2 K_value``; two cuts: 1 bit
    for the form and ``log2 binom(K_value, 2)``.

    ``"turs2"`` (what the authors' implementation charged in the runs of
    ``../shared/anchors``, reconstructed from their ``cl_model_bits``): no bits for the form
    and the operator: binary 0 bits, one cut ``log2 K_value``, two cuts
    ``log2 binom(K_value, 2)``.

    ``K_value`` counts the candidate cuts that split the data reached by the preceding
    literals into two non-empty parts.
    """
    turs2 = check_model_encoding(model_encoding) == 1
    if binary:
        return 0.0 if turs2 else 1.0
    if two_sided:
        if k_value < 2:
            raise ValueError("a two-cut literal needs K_value >= 2")
        return (0.0 if turs2 else 1.0) + log2_comb(k_value, 2)
    if k_value < 1:
        raise ValueError("a one-cut literal needs K_value >= 1")
    return (0.0 if turs2 else 2.0) + math.log2(k_value)


def rule_header_bits(d: int, k: int, model_encoding: str = "thesis") -> float:
    """The code length of a rule's number of literals ``k`` and of which ``k`` of the ``d``
    columns they use: ``log2 K_col + log2 binom(K_col, k)`` (Eq. 3.13-3.14, ``"thesis"``) or
    ``L_univ(k) + log2 binom(K_col, k)`` (``"turs2"``, the authors' implementation)."""
    if check_model_encoding(model_encoding) == 1:
        return universal_integer_code(k) + log2_comb(d, k)
    return math.log2(d) + log2_comb(d, k)


class ColumnCache:
    """The columns of an (n, d) matrix as contiguous arrays, each copied when first read. A
    column of a row-major matrix is a strided read: at 1M rows and 20 columns, ``X[:, j] >= t``
    took 6.3 ms against 0.12 ms on a contiguous copy, and the covers of a fitted
    model read each column once per literal."""

    def __init__(self, X: np.ndarray):
        self.X = X
        self._columns: dict = {}

    def __call__(self, j: int) -> np.ndarray:
        col = self._columns.get(j)
        if col is None:
            col = self._columns[j] = np.ascontiguousarray(self.X[:, j])
        return col

    def restrict(self, mask: np.ndarray, j: int, low, high) -> np.ndarray:
        """``mask`` (in place) limited to the rows column ``j`` keeps (:func:`restrict_to_literal`)."""
        return restrict_to_literal(mask, self(j), low, high)

    def k_value(self, j: int, sub: np.ndarray, cuts) -> int | None:
        """The ``cuts`` in ``(min x, max x]`` of column ``j`` over the rows ``sub`` (bool), None
        when ``sub`` holds no row: a literal's ``K_value`` (Eq. 3.15)."""
        x = self(j)[sub]
        if x.size == 0:
            return None
        c = np.asarray(cuts, dtype=float)
        return int(np.count_nonzero((c > x.min()) & (c <= x.max())))


def columns_of(Xe, columns=None):
    """What the covers and model codes read the rows' columns from: ``columns`` if given, the
    rows themselves when they answer the same questions (a
    :class:`turs.encoding.BinnedRows`), else a :class:`ColumnCache` of the (n, d) matrix."""
    if columns is not None:
        return columns
    return Xe if hasattr(Xe, "restrict") else ColumnCache(Xe)


def restrict_to_literal(mask: np.ndarray, x: np.ndarray, low, high) -> np.ndarray:
    """``mask`` (bool, in place) limited to the rows with ``low <= x < high`` (a bound of None is
    absent): the rows a literal keeps (Eq. 3.1). Returns ``mask``."""
    if low is not None:
        mask &= x >= low
    if high is not None:
        mask &= x < high
    return mask


def rule_model_bits(literals, Xe: np.ndarray, cuts, binary, rule_index: int = 0, model_encoding: str = "thesis",
                    columns: ColumnCache | None = None):
    """``L(S)`` of one rule (Eq. 3.17) with per-literal ``L_value_op`` and ``K_value``.

    ``literals``: sequence of ``(column_index, low, high)`` in the rule's order. The
    ``K_value`` of literal i is computed on the instances that satisfy literals 0..i-1.
    ``model_encoding``: see :func:`literal_value_op_bits` and :func:`rule_header_bits`.
    ``columns``: a :class:`ColumnCache` of ``Xe`` to read its columns from (made if None).
    """
    n, d = Xe.shape
    k = len(literals)
    if k == 0:
        raise ValueError(f"Rule {rule_index} has no condition; a rule needs at least one literal.")
    cols = [lit[0] for lit in literals]
    if len(set(cols)) != k:
        raise ValueError(
            f"Rule {rule_index} has two literals on the same column; merge them into one "
            "interval (a rule has at most one literal per variable, Section 3.4.3)."
        )
    bits = rule_header_bits(d, k, model_encoding)
    columns = columns_of(Xe, columns)
    sub = np.ones(n, dtype=bool)
    value_ops, k_values = [], []
    for j, low, high in literals:
        two_sided = low is not None and high is not None
        if binary[j]:
            kv = 1
        else:
            kv = columns.k_value(j, sub, cuts[j])
            if kv is None:
                raise ValueError(
                    f"Rule {rule_index} covers no instance before its literal on column {j}; "
                    "its code length is undefined. Remove the rule or its empty literals."
                )
        try:
            vo = literal_value_op_bits(bool(binary[j]), two_sided, kv, model_encoding)
        except ValueError:
            raise ValueError(
                f"Literal {len(value_ops) + 1} of rule {rule_index} (column {j}) does not split the "
                f"data reached by the literals before it (K_value = {kv}); it is redundant or "
                "empty. Remove it."
            ) from None
        value_ops.append(vo)
        k_values.append(kv)
        bits += vo
        columns.restrict(sub, j, low, high)
    return bits, value_ops, k_values


def cover_matrix(rules_literals, Xe: np.ndarray, columns: ColumnCache | None = None) -> np.ndarray:
    """(n, K) bool: which rules cover each row. The one cover path of `turs`. ``columns``: a
    :class:`ColumnCache` of ``Xe`` to read its columns from (made if None)."""
    n = Xe.shape[0]
    columns = columns_of(Xe, columns)
    out = np.ones((n, len(rules_literals)), dtype=bool)
    for i, lits in enumerate(rules_literals):
        m = np.ones(n, dtype=bool)
        for j, low, high in lits:
            columns.restrict(m, j, low, high)
        out[:, i] = m
    return out


def overlap_groups(covers: np.ndarray):
    """Group the covered rows by the exact set of rules that covers them.

    Returns ``(group_of_row, group_masks)``: ``group_of_row[i] = -1`` for rows no rule
    covers, else the index of its group; ``group_masks[g]`` is the (K,) bool set of rules.
    """
    n, K = covers.shape
    if K == 0:
        return np.full(n, -1, dtype=np.int64), np.zeros((0, 0), dtype=bool)
    packed = np.packbits(covers, axis=1)
    keys = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    uniq, inverse = np.unique(keys, return_inverse=True)
    masks = np.unpackbits(uniq.view(np.uint8).reshape(len(uniq), -1), axis=1, count=K).astype(bool)
    empty = np.flatnonzero(~masks.any(axis=1))
    group = inverse.astype(np.int64)
    if len(empty):
        e = empty[0]
        keep = np.ones(len(uniq), dtype=bool)
        keep[e] = False
        remap = np.cumsum(keep) - 1
        group = np.where(group == e, -1, remap[group])
        masks = masks[keep]
    return group, masks


def overlap_groups_with(group_of: np.ndarray, masks: np.ndarray, rows: np.ndarray):
    """:func:`overlap_groups` of the rules of ``(group_of, masks)`` and one more rule, last,
    covering ``rows``: the same arrays, from the groups alone.

    ``overlap_groups`` numbers the groups in the order of their rule patterns, read as bit
    strings from the first rule to the last. The new rule is the last bit, so group ``g``
    becomes ``(g, without the rule)`` then ``(g, with it)``, in ``g``'s place, and the rows
    the rule alone covers come first: the new group of a row is the rank of
    ``2 (g + 1) + [row in the rule]`` among the values present (0: no rule covers it).
    """
    G, K = masks.shape  # (0, 0) for no rules, as overlap_groups gives it
    key = 2 * (group_of + 1)
    key[rows] += 1
    present = np.bincount(key, minlength=2 * G + 2) > 0
    present[0] = False
    rank = np.cumsum(present) - 1
    new_group = np.where(key > 0, rank[key], -1).astype(np.int64)
    kept = np.flatnonzero(present)
    old = kept // 2 - 1
    out = np.zeros((len(kept), K + 1), dtype=bool)
    inside = old >= 0
    out[inside, :K] = masks[old[inside]]
    out[:, K] = kept % 2 == 1
    return new_group, out


def nll_bits(eval_counts: np.ndarray, model_counts: np.ndarray) -> np.ndarray:
    """``-sum_c eval_c log2(model_c / sum(model))`` along the last axis, with 0 log 0 = 0."""
    eval_counts = np.asarray(eval_counts, dtype=float)
    model_counts = np.asarray(model_counts, dtype=float)
    tot = model_counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.log2(model_counts / tot)
        terms = np.where(eval_counts > 0, eval_counts * np.where(eval_counts > 0, lp, 0.0), 0.0)
    return -terms.sum(axis=-1)


def data_bits(covers: np.ndarray, y: np.ndarray, n_classes: int):
    """``-log2 P_{M, theta_hat}(y | x)`` of Eq. 3.6 and the counts it was made of.

    Per overlap group, the rows' labels coded with the class distribution of the union of the
    group's rules' covers (Eq. 3.5); the union's counts are the sums of the counts of the groups
    sharing a rule with it, or set bits over the rows, whichever is cheaper
    (:func:`turs._core.union_counts.union_counts_cheapest`; the same integer counts), so the work
    follows the groups, not groups x rows. The groups' terms are added in group order."""
    group, masks = overlap_groups(covers)
    G = len(masks)
    in_group = group >= 0
    counts = np.bincount(group[in_group] * n_classes + y[in_group], minlength=G * n_classes)
    counts = counts.reshape(G, n_classes)
    total = 0.0
    for term in nll_bits(counts, current().union_counts_cheapest(masks, counts, group, y)):
        total += float(term)
    unc = group < 0
    else_counts = np.bincount(y[unc], minlength=n_classes)
    total += float(nll_bits(else_counts, else_counts))
    return total, group, masks, else_counts


def model_code_bits(rule_bits_sum: float, n_rules: int) -> float:
    """``L(M) = L_univ(K) + sum_i L(S_i) - log2 K!`` (Eq. 3.18) from the sum of the rules'
    ``L(S_i)``: the one place the model code is composed."""
    return universal_integer_code(n_rules) + rule_bits_sum - log2_factorial(n_rules)


def total_bits(data_bits: float, rule_regret_bits: float, else_regret_bits: float, rule_bits_sum: float,
               n_rules: int) -> float:
    """``L(D, M)`` of Eq. 3.20 from its parts: the data code ``-log2`` of the ML likelihood
    (Eq. 3.6), the rules' and the else-rule's regrets (Eq. 3.12) and the model code (Eq. 3.18).

    The one place the score is composed: :func:`score_literals`, the search's rule set
    (:class:`turs.search.state.RuleSetState`) and model editing (:mod:`turs.edit`) all call it,
    so they add the same floats in the same order and agree to the bit. The search's kernels
    score a candidate incrementally, from the change of each part (``turs._core``);
    ``tests/test_mdl.py`` checks those against this function."""
    return (data_bits + rule_regret_bits + else_regret_bits + universal_integer_code(n_rules) + rule_bits_sum
            - log2_factorial(n_rules))


def model_bits_total(rule_bits) -> tuple[float, float, float]:
    """``L(M)`` of Eq. 3.18 from the rules' ``L(S_i)``: (total, L_univ(K), log2 K!)."""
    K = len(rule_bits)
    return model_code_bits(float(sum(rule_bits)), K), universal_integer_code(K), log2_factorial(K)


# ---------------------------------------------------------------------------- public
def score_literals(rules_literals, Xe, y, n_classes, cuts, binary, model_encoding: str = "thesis",
                   covers: np.ndarray | None = None, columns: ColumnCache | None = None) -> MDLBreakdown:
    """The MDL score of rules given as literal lists on an encoded matrix (internal API).
    ``covers``: their :func:`cover_matrix` on ``Xe``, if the caller has it; ``columns``: a
    :class:`ColumnCache` of ``Xe``."""
    columns = columns_of(Xe, columns)
    if covers is None:
        covers = cover_matrix(rules_literals, Xe, columns)
    dbits, group, masks, else_counts = data_bits(covers, y, n_classes)
    return _breakdown(rules_literals, Xe, n_classes, cuts, binary, model_encoding, columns, dbits, len(masks),
                      else_counts, covers.sum(axis=0))


def score_pattern_counts(rules_literals, Xe, patterns, counts, n_classes, cuts, binary,
                         model_encoding: str = "thesis", columns=None, rule_bits=None,
                         unions=None) -> MDLBreakdown:
    """:func:`score_literals` from the rows' class counts per cover pattern
    (:func:`turs.union_estimate.pattern_counts`) instead of the (n, K) cover matrix: the same
    numbers to the bit. The overlap groups are the non-empty patterns, taken in the order
    :func:`overlap_groups` numbers them (their packed bits, sorted), each union's counts the sum
    of those of the groups that share a rule with it (the integers
    :func:`~turs._core.union_counts.union_counts_cheapest` gives), the terms added in that order.
    ``Xe`` (or ``columns``) is read only for the rules' model codes; with ``rule_bits`` (each
    rule's ``L(S)``, known to the caller) it is not read and may be None, and the regrets are
    computed at the coverages alone (:class:`turs._core.regret.Regret`), the same bits.
    ``unions``: each pattern's union counts when the caller has them (row by row with
    ``patterns``; the empty pattern's row unused), instead of summing them again."""
    columns = None if rule_bits is not None else columns_of(Xe, columns)
    patterns = np.asarray(patterns, dtype=bool)
    counts = np.asarray(counts, dtype=np.int64)
    covered = patterns.any(axis=1) if patterns.shape[1] else np.zeros(len(patterns), dtype=bool)
    masks, group_counts = patterns[covered], counts[covered]
    if unions is not None:
        unions = np.asarray(unions, dtype=np.float64)[covered]
    if len(masks):
        packed = np.ascontiguousarray(np.packbits(masks, axis=1))
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
        order = np.argsort(keys, kind="stable")
        masks, group_counts = masks[order], group_counts[order]
        if unions is not None:
            unions = unions[order]
    if unions is None:
        unions = current().group_union_counts(masks, group_counts) if len(masks) else np.zeros((0, n_classes))
    dbits = 0.0
    for term in nll_bits(group_counts, unions):
        dbits += float(term)
    else_counts = counts[~covered].sum(axis=0) if (~covered).any() else np.zeros(n_classes, dtype=np.int64)
    dbits += float(nll_bits(else_counts, else_counts))
    rows = counts.sum(axis=1)  # each rule's cover, one column at a time: no (patterns, K) int64 copy
    rule_cov = np.array([int(rows[patterns[:, k]].sum()) for k in range(patterns.shape[1])], dtype=np.int64)
    return _breakdown(rules_literals, Xe, n_classes, cuts, binary, model_encoding, columns, dbits, len(masks),
                      else_counts, rule_cov, rule_bits, int(counts.sum()))


def _breakdown(rules_literals, Xe, n_classes, cuts, binary, model_encoding, columns, dbits, n_groups,
               else_counts, rule_cov, rule_bits=None, n=None) -> MDLBreakdown:
    if rule_bits is None:
        n = Xe.shape[0]
        table = current().log2_regret_table(n, n_classes)  # the kernels of the fit in this thread, if any
        rbits = tuple(
            rule_model_bits(lits, Xe, cuts, binary, i + 1, model_encoding, columns)[0]
            for i, lits in enumerate(rules_literals)
        )
    else:  # the rows are not read: the regret at each coverage, the rules' codes as given
        table = Regret(n_classes)
        rbits = tuple(float(b) for b in rule_bits)
    rule_regret = tuple(float(table[c]) for c in rule_cov)
    else_regret = float(table[int(else_counts.sum())])
    mbits, lu, lf = model_bits_total(rbits)
    regret = float(sum(rule_regret)) + else_regret
    return MDLBreakdown(
        total=total_bits(dbits, float(sum(rule_regret)), else_regret, float(sum(rbits)), len(rbits)), data_bits=dbits, regret_bits=regret, model_bits=mbits,
        rule_model_bits=rbits, rule_regret_bits=rule_regret, else_regret_bits=else_regret,
        n_rules_bits=lu, order_redundancy_bits=lf, n_rules=len(rules_literals),
        coverage=int(n - else_counts.sum()), else_coverage=int(else_counts.sum()),
        n_overlap_groups=n_groups,
    )


def mdl_score(rules, X, y, *, n_cut_points: int = 20, classes=None, encoder: FeatureEncoder | None = None,
              model_encoding: str = "turs2") -> MDLBreakdown:
    """The MDL-based score ``L(D, M)`` of Eq. 3.20 of any rule set on any data, in bits.

    Parameters
    ----------
    rules : sequence of :class:`~turs.rules.Rule` or of sequences of
        :class:`~turs.rules.Condition` (in the order the literals are encoded). Conditions
        name encoded columns: a numeric column by its name, a one-hot level as ``col=level``.
    X : DataFrame or 2-D array; y : labels.
    n_cut_points : the candidate cut points per numeric column that ``K_value`` counts.
    classes : the label set ``Y`` (default: the labels present in ``y``); ``|Y|`` enters
        every regret.
    encoder : a fitted :class:`~turs.encoding.FeatureEncoder` (default: fitted on ``X``).
    model_encoding : ``"turs2"`` (the default of :class:`~turs.TURSClassifier`: the model code
        of the authors' implementation, see :func:`literal_value_op_bits`) or ``"thesis"``
        (Eq. 3.13-3.17 as written).

    Returns
    -------
    MDLBreakdown
    """
    check_model_encoding(model_encoding)
    Xf = _as_frame(X, None)
    y = _check_y(y, len(Xf), "mdl_score")
    if encoder is None:
        encoder = FeatureEncoder(n_cut_points=n_cut_points).fit(Xf)
    Xe = encoder.transform(Xf)
    classes = np.unique(y) if classes is None else np.asarray(classes)
    pos = {c: i for i, c in enumerate(classes.tolist())}
    try:
        y_codes = np.array([pos[v] for v in y.tolist()], dtype=np.int64)
    except KeyError as e:
        raise ValueError(f"y has the label {e.args[0]!r} that is not in classes={list(classes)}.") from None
    names = {c.name: j for j, c in enumerate(encoder.columns_)}
    rules_literals = []
    for i, r in enumerate(rules):
        conds = r.conditions if hasattr(r, "conditions") else tuple(r)
        lits = []
        for c in conds:
            if c.column not in names:
                raise ValueError(
                    f"Rule {i + 1} has a condition on '{c.column}', which is not a column of X "
                    f"after encoding; the columns are {list(names)}."
                )
            lits.append((names[c.column], c.low, c.high))
        rules_literals.append(lits)
    cuts = [c.cuts for c in encoder.columns_]
    with kernels_for_fit(Xe.shape[0] * Xe.shape[1]):  # no compile on a cold cache for a small table
        return score_literals(rules_literals, Xe, y_codes, len(classes), cuts, encoder.binary_, model_encoding)
