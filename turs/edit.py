"""Editing a fitted TURS model, scored exactly, and comparing two models.

``TURSClassifier.without_rule(i)``, ``with_rule(rule)``, ``replace_rule(i, rule)`` return a new
fitted model (the original is unchanged) whose rule set is the edited one: its class
probabilities are the union estimates (Eq. 3.5) on the training rows, re-counted, and its
``mdl_score_`` / ``mdl_breakdown_`` are the MDL score (Eq. 3.20) of the new rule set on the
training data, computed from scratch as :func:`turs.mdl_score` does. ``refit(X, y, keep=[...])``
keeps the listed rules and lets the search continue around them
(``fit(initial_rules=...)``). :func:`compare` puts two models side by side.

Training data: a model fitted in this session keeps its training rows as bins, with a
reference to the table it was fitted on (``_train_rows_``, a :class:`turs.encoding.BinnedRows`:
no copy of the table; a rule whose thresholds are candidate cut points is counted from the
bins, another threshold reads its column from the table), and its labels (``_y_train_``);
neither is written to a model file, and a pickle carries no ``_train_rows_``. A model read from a file
has only the class counts per cover pattern: removing a rule needs nothing more (the union
estimate of any pattern and the data code are sums of those counts, and each remaining rule's
model code ``L(S)`` is in the stored breakdown); adding or changing a rule needs the training
rows (its cover, and its model code depends on the data), passed as ``X=..., y=...`` and
checked against the stored counts.
"""
from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from ._core.regret import log2_regret_table
from .mdl import MDLBreakdown, cover_matrix, model_bits_total, nll_bits, score_literals, total_bits
from .fitted import TrainingRows, set_rule_set
from .union_estimate import pattern_counts, union_counts, union_probabilities
from .parse import resolve_rules
from .metrics import roc_auc
from .rules import print_digits_table  # noqa: F401  (also importable from here)

__all__ = ["compare", "print_digits_table"]


# ------------------------------------------------------------------------ training data
def training_data(model, X=None, y=None, what: str = "this edit") -> tuple[np.ndarray, np.ndarray]:
    """``(Xe, y_codes)``: the model's training rows, encoded. From ``X, y`` when given (checked:
    the rules must give the model's class counts per cover pattern on them), else from memory
    (a model fitted in this session). A ValueError says what to pass when neither is there."""
    if X is None and y is None:
        Xe = getattr(model, "_train_rows_", None)
        if Xe is None:
            raise ValueError(f"{what} needs the model's training rows, and this model has none in memory (it was "
                             "read from a file, or unpickled; model files never hold training data). Pass the "
                             "data it was fitted on: X=..., y=....")
        return Xe, np.asarray(model._y_train_, dtype=np.int64)
    if X is None or y is None:
        raise ValueError(f"{what}: pass both X and y (the data the model was fitted on), or neither for a model "
                         "fitted in this session.")
    Xe = model._encode(X)
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != len(Xe):
        raise ValueError(f"{what}: y must be 1-D with one label per row of X ({len(Xe)}). Got shape {y.shape}.")
    pos = {c: i for i, c in enumerate(model.classes_.tolist())}
    try:
        codes = np.array([pos[v] for v in y.tolist()], dtype=np.int64)
    except KeyError as e:
        raise ValueError(f"{what}: y has the label {e.args[0]!r}, which is not one of the model's classes "
                         f"{model.classes_.tolist()}; pass the data the model was fitted on.") from None
    patterns, counts = pattern_counts(cover_matrix(model._literals_, Xe), codes, len(model.classes_))
    if not (np.array_equal(patterns, model._patterns_) and np.array_equal(counts, model._pattern_counts_)):
        raise ValueError(f"{what}: X, y are not the data this model was fitted on (its rules give other class "
                         f"counts per cover pattern on them: {len(Xe)} rows vs {int(model._pattern_counts_.sum())} "
                         "in training). Pass the training data.")
    return Xe, codes


# ---------------------------------------------------------------------------- the edits
def edited(model, literals: list, Xe: np.ndarray, y: np.ndarray):
    """A new fitted model: ``model`` with the rules ``literals`` (``[(j, low, high), ...]`` per
    rule), re-counted and scored from scratch on the training rows ``Xe, y``. Its trace and its
    search's fields are dropped: they are of the fit, not of the edited rule set."""
    covers = cover_matrix(literals, Xe)
    C = len(model.classes_)
    patterns, counts = pattern_counts(covers, y, C)
    digits = print_digits_table(model.encoder_, Xe, literals, getattr(model, "_digits_", {}))
    breakdown = score_literals(literals, Xe, y, C, [c.cuts for c in model.encoder_.columns_], model.encoder_.binary_,
                               model.model_encoding)
    return set_rule_set(copy.copy(model), literals, patterns, counts, breakdown, digits,
                        rows=TrainingRows(Xe, y, np.packbits(covers, axis=0)))


def _index(model, i, what: str) -> int:
    K = len(model.rules_)
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not -K <= i < K:
        raise ValueError(f"{what}: the rule index must be an int from 0 to {K - 1} (or -{K} to -1); the model has "
                         f"{K} rules. Got {i!r}.")
    return int(i) % K


def without_rule(model, i, X=None, y=None):
    """``model`` without its rule ``i`` (0-based), scored exactly (see the module docstring)."""
    i = _index(model, i, f"without_rule({i!r})")
    literals = [lits for k, lits in enumerate(model._literals_) if k != i]
    if X is None and y is None and getattr(model, "_train_rows_", None) is None:
        return _without_rule_from_counts(model, i, literals)
    Xe, codes = training_data(model, X, y, f"without_rule({i})")
    return edited(model, literals, Xe, codes)


def with_rule(model, rule, X=None, y=None):
    """``model`` with ``rule`` added as its last rule (text, :class:`turs.parse.ParsedRule`,
    :class:`~turs.rules.Rule` or conditions), re-estimated and scored on the training rows."""
    Xe, codes = training_data(model, X, y, "with_rule")
    new = resolve_rules([rule], model.encoder_, Xe, model.model_encoding, first_index=len(model.rules_) + 1)[0]
    return edited(model, list(model._literals_) + [new.literals], Xe, codes)


def replace_rule(model, i, rule, X=None, y=None):
    """``model`` with its rule ``i`` replaced by ``rule`` (same position), scored exactly."""
    i = _index(model, i, f"replace_rule({i!r}, ...)")
    Xe, codes = training_data(model, X, y, f"replace_rule({i}, ...)")
    new = resolve_rules([rule], model.encoder_, Xe, model.model_encoding, first_index=i + 1)[0]
    literals = list(model._literals_)
    literals[i] = new.literals
    return edited(model, literals, Xe, codes)


def refit(model, X, y, keep=()):
    """A new model with ``model``'s parameters fitted on ``X, y``, starting from the rules
    ``keep`` (indices) of ``model``; the search adds rules around them."""
    from sklearn.base import clone

    idx = [_index(model, i, f"refit(keep={list(keep)!r})") for i in keep]
    return clone(model).fit(X, y, initial_rules=[model.rules_[i] for i in idx])


def _without_rule_from_counts(model, i: int, literals: list):
    """:func:`without_rule` from the class counts per cover pattern alone (a loaded model): the
    patterns lose rule ``i`` and merge; the data code and the regrets follow from the merged
    counts, the other rules' model codes from the stored breakdown."""
    bd = model.mdl_breakdown_
    if bd is None:
        raise ValueError(f"without_rule({i}): this model's file holds no MDL breakdown (its rules were edited by "
                         "hand), so the other rules' model code is unknown. Pass the training data: X=..., y=....")
    keep = np.ones(model._patterns_.shape[1], dtype=bool)
    keep[i] = False
    patterns, inverse = np.unique(model._patterns_[:, keep], axis=0, return_inverse=True)
    C = model._pattern_counts_.shape[1]
    counts = np.zeros((len(patterns), C), dtype=np.int64)
    np.add.at(counts, inverse.ravel(), model._pattern_counts_)
    order = sorted(range(len(patterns)), key=lambda p: (int(patterns[p].sum()), np.flatnonzero(patterns[p]).tolist()))
    patterns, counts = patterns[order].astype(bool), counts[order]
    n = int(counts.sum())
    empty = ~patterns.any(axis=1)
    else_counts = counts[empty].sum(axis=0)
    union = union_counts(patterns[~empty], patterns, counts)
    data = float(nll_bits(counts[~empty], union).sum()) + float(nll_bits(else_counts, else_counts))
    table = log2_regret_table(n, C)
    coverage = [int(counts[patterns[:, k]].sum()) for k in range(patterns.shape[1])]
    rule_regret = tuple(float(table[c]) for c in coverage)
    else_regret = float(table[int(else_counts.sum())])
    rule_bits = tuple(b for k, b in enumerate(bd.rule_model_bits) if k != i)
    mbits, lu, lf = model_bits_total(rule_bits)
    regret = float(sum(rule_regret)) + else_regret
    breakdown = MDLBreakdown(
        total=total_bits(data, float(sum(rule_regret)), else_regret, float(sum(rule_bits)), len(rule_bits)),
        data_bits=data, regret_bits=regret, model_bits=mbits, rule_model_bits=rule_bits,
        rule_regret_bits=rule_regret, else_regret_bits=else_regret, n_rules_bits=lu, order_redundancy_bits=lf,
        n_rules=len(literals), coverage=n - int(else_counts.sum()), else_coverage=int(else_counts.sum()),
        n_overlap_groups=int((~empty).sum()))
    return set_rule_set(copy.copy(model), literals, patterns, counts, breakdown, getattr(model, "_digits_", {}))


# ------------------------------------------------------------------------------ compare
def compare(model_a, model_b, X=None, y=None, names=("A", "B")) -> pd.DataFrame:
    """Two models side by side: one row per quantity, one column per model.

    Rows: the MDL score on each model's training data and its parts (data code, regret, model
    code ``L(M)``, bits), the number of rules and of literals, the training ROC-AUC (from the
    class counts per training cover pattern: no data needed), the ROC-AUC on ``X, y`` (the
    study's measure, :func:`turs.metrics.roc_auc`; NaN without ``X, y``), and the rules
    only in that model (their condition text, a list; rules with the same conditions in both
    are shared). MDL scores are comparable when both models were fitted on the same data.
    """
    names = list(names)
    if len(names) != 2 or names[0] == names[1]:
        raise ValueError(f"names must be two different column names. Got {names!r}.")
    texts = [[r.condition_text() for r in m.rules_] for m in (model_a, model_b)]
    rows: dict = {}
    for m, name, own, other in ((model_a, names[0], texts[0], texts[1]), (model_b, names[1], texts[1], texts[0])):
        bd = m.mdl_breakdown_
        nan = float("nan")
        rows[name] = {
            "MDL score (bits)": bd.total if bd is not None else nan,
            "data code (bits)": bd.data_bits if bd is not None else nan,
            "regret (bits)": bd.regret_bits if bd is not None else nan,
            "model code L(M) (bits)": bd.model_bits if bd is not None else nan,
            "rules": len(m.rules_),
            "literals": sum(len(r) for r in m.rules_),
            "train AUC": _train_auc(m),
            "test AUC": roc_auc(np.asarray(y), m.predict_proba(X), m.classes_) if X is not None else nan,
            "rules only in this model": [t for t in own if t not in other],
        }
    return pd.DataFrame(rows)


def _train_auc(model) -> float:
    """ROC-AUC on the training rows, from the class counts per cover pattern (each pattern's
    rows share their predicted probabilities), as :func:`turs.metrics.roc_auc` defines it."""
    from sklearn.metrics import roc_auc_score

    patterns, counts = model._patterns_, model._pattern_counts_
    probs = union_probabilities(patterns, patterns, counts)
    C = counts.shape[1]
    rows_p, rows_c = np.nonzero(counts)
    weight = counts[rows_p, rows_c].astype(float)
    columns = [1] if C == 2 else range(C)
    aucs = []
    for k in columns:
        positive = rows_c == k
        if positive.all() or not positive.any():
            continue
        aucs.append(roc_auc_score(positive, probs[rows_p, k], sample_weight=weight))
    return float(np.mean(aucs)) if aucs else float("nan")
