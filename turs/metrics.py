"""The metrics of a fitted rule model (thesis Section 3.6) as pure functions of arrays.

Every function takes plain arrays (labels, probabilities, boolean rule masks) and returns a
number; none of them fits or predicts anything. The benchmark's runner (:mod:`turs.bench.tasks`)
computes the arrays from an :class:`~turs.adapter.Adapter`, so every algorithm is measured by
the same code; :func:`turs.compare` and the explorer use :func:`roc_auc` too.
``turs.bench.metrics`` exports the same functions.

* :func:`roc_auc`: test ROC-AUC (Section 3.6.2); binary: the score of ``classes[1]``;
  multiclass: the "macro" one-vs-rest mean over the classes present in ``y_true``.
* :func:`weighted_roc_auc`: the one-vs-rest AUCs weighted by the classes' frequencies in
  ``y_true`` (S-CLASSY's measure, seed 003 Section 5; binary: :func:`roc_auc`).
* :func:`random_picking_roc_auc`: the mean ROC-AUC over seeded random-picking draws (3.6.3).
* :func:`overlap_percentage`: percentage of instances covered by more than one rule (3.6.3).
* :func:`probability_difference`: ``g``, the train/test difference of the rules' class
  probabilities (3.6.4, Eq. 3.26), weighted by training coverage.
* :func:`total_literals`: the sum of the rule lengths (3.6.5).
* :func:`accuracy`: the fraction of test rows whose most probable class is their label (the
  seed papers' measure).
* :func:`explanation_matrix` and :func:`local_explanation_size`: which rules one must read to
  explain each prediction, and their average number and literals per row (the local
  interpretability of seed 002, extended to every rule model).
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

import numpy as np

__all__ = [
    "EXPLANATION_MODES",
    "accuracy",
    "class_distribution",
    "explanation_matrix",
    "local_explanation_size",
    "overlap_percentage",
    "probability_difference",
    "random_picking_roc_auc",
    "roc_auc",
    "total_literals",
    "weighted_roc_auc",
]


def _check_proba(y_true: np.ndarray, proba: np.ndarray, classes: np.ndarray) -> np.ndarray:
    proba = np.asarray(proba, dtype=float)
    if proba.ndim != 2 or proba.shape != (len(y_true), len(classes)):
        raise ValueError(
            f"proba must have shape (n_samples, n_classes) = ({len(y_true)}, {len(classes)}), "
            f"one column per entry of classes in that order. Got shape {proba.shape}."
        )
    return proba


def roc_auc(y_true, proba, classes) -> float:
    """Test ROC-AUC as reported in Table 3.3.

    Parameters
    ----------
    y_true : array of shape (n,)
        True labels.
    proba : array of shape (n, C)
        Class probabilities (or scores); column ``k`` belongs to ``classes[k]``.
    classes : array of shape (C,)
        The labels of the columns of ``proba`` (a fitted model's ``classes_``).

    Returns
    -------
    float
        Two classes: the AUC of the score ``proba[:, 1]`` for the positive class
        ``classes[1]``. More classes: the unweighted ("macro") mean of the one-vs-rest AUCs,
        ``roc_auc_score(y_true == c, proba[:, k])``, over the classes ``c`` whose AUC is defined
        in ``y_true`` (present, but not the only label). With every class present this is
        scikit-learn's ``roc_auc_score(..., multi_class="ovr", average="macro")``; a class
        absent from a test fold is left out of the mean instead of making it NaN (what
        scikit-learn returns with ``labels=``). NaN when no AUC is defined (one class only).
    """
    from sklearn.metrics import roc_auc_score

    y_true = np.asarray(y_true)
    classes = np.asarray(classes)
    proba = _check_proba(y_true, proba, classes)
    if len(classes) < 2:
        raise ValueError(f"roc_auc needs at least 2 classes. Got classes={list(classes)}.")
    columns = [1] if len(classes) == 2 else range(len(classes))
    aucs = []
    for k in columns:
        positive = y_true == classes[k]
        if positive.all() or not positive.any():
            continue
        aucs.append(roc_auc_score(positive, proba[:, k]))
    return float(np.mean(aucs)) if aucs else float("nan")


def weighted_roc_auc(y_true, proba, classes) -> float:
    """ROC-AUC with the one-vs-rest AUCs weighted by class frequency, as S-CLASSY reports it
    ("we weigh per class binary AUC's with their marginal frequencies", seed 003, Section 5).

    ``sum_c w_c AUC(y_true == c, proba[:, k_c])`` with ``w_c`` the share of ``c`` among the rows
    of ``y_true`` whose class has a defined AUC (present, but not the only label). With every
    class present this is scikit-learn's ``roc_auc_score(..., multi_class="ovr",
    average="weighted")``. Two classes whose probabilities sum to 1: both one-vs-rest AUCs are
    the AUC of ``classes[1]``, so the result equals :func:`roc_auc`. NaN when no AUC is defined.
    Arguments as :func:`roc_auc`.
    """
    from sklearn.metrics import roc_auc_score

    y_true = np.asarray(y_true)
    classes = np.asarray(classes)
    proba = _check_proba(y_true, proba, classes)
    if len(classes) < 2:
        raise ValueError(f"weighted_roc_auc needs at least 2 classes. Got classes={list(classes)}.")
    aucs, weights = [], []
    for k in range(len(classes)):
        positive = y_true == classes[k]
        if positive.all() or not positive.any():
            continue
        aucs.append(roc_auc_score(positive, proba[:, k]))
        weights.append(positive.sum())
    return float(np.average(aucs, weights=weights)) if aucs else float("nan")


def random_picking_roc_auc(
    predict_random: Callable[[np.random.Generator], np.ndarray],
    y_true,
    classes,
    n_draws: int = 10,
    seed: int = 0,
) -> float:
    """Mean test ROC-AUC of "random picking" predictions (Section 3.6.3, Table 3.4).

    ``predict_random(rng)`` returns the class probabilities of one draw: every test instance
    covered by several rules gets the probabilities of one of them, picked with ``rng``. Draw
    ``i`` (``0 <= i < n_draws``) uses ``np.random.default_rng(seed + i)``, so the result is
    reproducible. Returns the mean of the :func:`roc_auc` of the draws.
    """
    if not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise ValueError(f"n_draws must be an int >= 1. Got {n_draws!r}.")
    scores = [roc_auc(y_true, predict_random(np.random.default_rng(seed + i)), classes)
              for i in range(int(n_draws))]
    return float(np.mean(scores))


def overlap_percentage(covers) -> float:
    """Percentage of instances covered by more than one rule ("%overlaps" in Table 3.4).

    ``covers`` is an ``(n, K)`` boolean matrix: ``covers[i, j]`` when rule ``j`` (not the
    else rule) covers instance ``i``. NaN for ``n = 0``.
    """
    covers = np.asarray(covers, dtype=bool)
    if covers.ndim != 2:
        raise ValueError(f"covers must be a 2-d (n_samples, n_rules) boolean matrix. Got shape {covers.shape}.")
    if covers.shape[0] == 0:
        return float("nan")
    return float(100.0 * np.mean(covers.sum(axis=1) > 1))


def class_distribution(y, mask, classes) -> np.ndarray:
    """Maximum-likelihood class probabilities of the instances ``y[mask]``, in ``classes`` order.

    The denominator is ``mask.sum()``; NaN everywhere when the mask selects nothing.
    """
    y = np.asarray(y)
    mask = np.asarray(mask, dtype=bool)
    n = int(mask.sum())
    if n == 0:
        return np.full(len(classes), np.nan)
    sel = y[mask]
    return np.array([np.sum(sel == c) for c in classes], dtype=float) / n


def probability_difference(train_masks: Sequence, y_train, test_masks: Sequence, y_test, classes) -> float:
    """``g``: how well the rules' class probabilities generalise (Section 3.6.4, Eq. 3.26).

    For each rule ``j`` (the else rule included; for a tree, a leaf; for a rule list, the
    instances the rule is used for) ``p_j`` is its class distribution on the training instances
    ``train_masks[j]`` and ``q_j`` on the test instances ``test_masks[j]``. Then

    ``g = sum_j w_j d_j / sum_j w_j``, with ``d_j = (1/C) sum_c |p_jc - q_jc|`` and
    ``w_j = |train_masks[j]|`` (training coverage),

    over the rules that cover at least one training and one test instance (``q_j`` is undefined
    otherwise). Eq. 3.26 prints the prefactor ``1/K``; the text says "weighted averages ...
    weighted by the coverage of each rule on the training set", which is the normalised form
    used here (see docs/benchmark.md). NaN when no rule qualifies.
    """
    classes = np.asarray(classes)
    if len(train_masks) != len(test_masks):
        raise ValueError(
            f"train_masks and test_masks must hold one mask per rule; got {len(train_masks)} "
            f"and {len(test_masks)} masks."
        )
    num = 0.0
    den = 0.0
    for mtr, mte in zip(train_masks, test_masks):
        w = int(np.asarray(mtr, dtype=bool).sum())
        if w == 0 or not np.asarray(mte, dtype=bool).any():
            continue
        p = class_distribution(y_train, mtr, classes)
        q = class_distribution(y_test, mte, classes)
        num += w * float(np.mean(np.abs(p - q)))
        den += w
    return num / den if den > 0 else float("nan")


def total_literals(lengths: Iterable[int]) -> int:
    """Total number of literals (Table 3.5): the sum of the rule lengths.

    Pass the lengths of all rules (the default / else rule has length 0; a tree's rules are its
    root-to-leaf paths, so a leaf's length is its depth).
    """
    total = 0
    for n in lengths:
        n = int(n)
        if n < 0:
            raise ValueError(f"A rule length must be >= 0. Got {n}.")
        total += n
    return total


def accuracy(y_true, proba, classes) -> float:
    """Fraction of rows whose highest-probability class (``classes[argmax proba]``, the first
    on ties) is the true label; NaN for no rows."""
    y_true = np.asarray(y_true)
    classes = np.asarray(classes)
    proba = _check_proba(y_true, proba, classes)
    if len(y_true) == 0:
        return float("nan")
    return float(np.mean(classes[np.argmax(proba, axis=1)] == y_true))


#: How each kind of model explains one prediction (the rules one must read):
#:
#: * ``"covering"`` (rule sets: TURS, CN2, BRS, submodular DNF): the rules covering the row, or
#:   the default / else rule(s) when none does;
#: * ``"prefix"`` (rule lists: CLASSY, RIPPER, BRL): the first rule covering the row and every
#:   rule before it (their negations are part of the explanation); a list ends at its default
#:   rule, and several lists (one-vs-rest) are read one after the other;
#: * ``"leaf"`` (trees, and models whose rules partition the rows, e.g. OneR's intervals): the
#:   one rule whose mask holds the row (a tree's rule is a root-to-leaf path);
#: * ``"additive"`` (RuleFit, LIRE): every rule covering the row (its non-zero-weight rules);
#:   none when no rule covers it (the intercept alone).
EXPLANATION_MODES = ("covering", "prefix", "leaf", "additive")


def explanation_matrix(mode: str, masks, is_default) -> np.ndarray:
    """``(n, R)`` boolean: which of the ``R`` rules explain the prediction of each of ``n`` rows.

    ``masks[j]`` is rule ``j``'s boolean mask over the rows as the adapters give it (rule sets
    and additive models: the rule's cover; rule lists: the rows it is used for; trees: the
    leaf's rows), ``is_default[j]`` whether it is a default / else rule. See
    :data:`EXPLANATION_MODES`.
    """
    if mode not in EXPLANATION_MODES:
        raise ValueError(f"mode must be one of {EXPLANATION_MODES}. Got {mode!r}.")
    is_default = np.asarray(is_default, dtype=bool)
    M = np.column_stack([np.asarray(m, dtype=bool) for m in masks]) if len(masks) else None
    if M is None:
        raise ValueError("explanation_matrix needs at least one rule mask (a model has a rule or a default rule).")
    if M.shape[1] != len(is_default):
        raise ValueError(f"masks and is_default must have one entry per rule; got {M.shape[1]} and {len(is_default)}.")
    if mode in ("leaf", "additive"):
        return M.copy()
    if mode == "covering":
        out = M & ~is_default
        none = ~out.any(axis=1)
        out[:, is_default] = none[:, None]
        return out
    # prefix: rules up to each list's default rule form one list
    out = np.zeros_like(M)
    ends = list(np.flatnonzero(is_default)) or [M.shape[1] - 1]
    if ends[-1] != M.shape[1] - 1:
        ends.append(M.shape[1] - 1)
    start = 0
    for end in ends:
        seg = M[:, start:end + 1]
        fired = seg.any(axis=1)
        first = np.where(fired, seg.argmax(axis=1), seg.shape[1] - 1)  # none fires: the whole list
        out[:, start:end + 1] = np.arange(seg.shape[1])[None, :] <= first[:, None]
        start = end + 1
    return out


def local_explanation_size(explain, n_literals) -> tuple[float, float]:
    """(mean number of rules, mean number of literals) one must read per row.

    ``explain`` is :func:`explanation_matrix`'s ``(n, R)`` boolean matrix, ``n_literals`` the
    ``R`` rule lengths (a default rule has 0). NaN for no rows.
    """
    explain = np.asarray(explain, dtype=bool)
    lengths = np.asarray(list(n_literals), dtype=float)
    if explain.ndim != 2 or explain.shape[1] != len(lengths):
        raise ValueError(f"explain must be (n_rows, n_rules) with n_rules = len(n_literals) = {len(lengths)}. "
                         f"Got shape {explain.shape}.")
    if explain.shape[0] == 0:
        return float("nan"), float("nan")
    return float(explain.sum(axis=1).mean()), float((explain @ lengths).mean())
