"""A fitted model's fields, written in one place: by a fit, by an edit and by a model file.

A fitted :class:`~turs.TURSClassifier` holds, besides its parameters:

* what it was fitted on: ``classes_``, ``encoder_`` (:class:`~turs.encoding.FeatureEncoder`),
  ``n_features_in_`` and, for a table with string column names, ``feature_names_in_``
  (:func:`set_inputs`);
* its rule set (:func:`set_rule_set`): ``_literals_`` (per rule, its conditions as ``(encoded
  column, low, high)`` thresholds; a rule is evaluated from them, never from bins), the class
  counts of the training rows per cover pattern ``_patterns_`` / ``_pattern_counts_`` (all that
  prediction needs: :mod:`turs.union_estimate`), the printed ``rules_`` and ``else_rule_`` built
  from those, ``mdl_breakdown_`` / ``mdl_score_``, ``trace_``, and ``_digits_`` (where a bound
  prints with more than 6 digits, :func:`turs.rules.print_digits_table`);
* for a model fitted or edited in this session, its training rows (:class:`TrainingRows`), and
  for a fitted one what its search did (``_search_total_``, ``sampled_from_rule_``).

A field the new rule set has no value for is removed, so that an edited copy never keeps its
original's training rows or search.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rules import ElseRule, Rule

__all__ = ["TrainingRows", "rule_set", "set_inputs", "set_rule_set"]


@dataclass(frozen=True)
class TrainingRows:
    """The training rows, their class codes and the rules' covers of them (in memory only; a
    model file never holds them, a pickle carries no ``rows``)."""

    rows: object  # a turs.encoding.BinnedRows (bins + the user's table, no copy) or an encoded (n, d) matrix
    y: np.ndarray  # (n,) class codes, the smallest unsigned type that holds them
    packed_covers: np.ndarray  # (ceil(n / 8), K) uint8: np.packbits of the (n, K) covers along the rows


#: The fields of :class:`TrainingRows` and of the search, as the estimator keeps them.
_ROW_FIELDS = ("_train_rows_", "_y_train_", "_train_covers_", "_n_train_")
_SEARCH_FIELDS = ("_search_total_", "sampled_from_rule_")


def set_inputs(model, encoder, classes, feature_names=None):
    """What ``model`` was fitted on: the encoder, the classes (sorted, as ``np.unique`` gives
    them) and the input's column names (None: a table without string column names)."""
    model.encoder_ = encoder
    model.classes_ = np.asarray(classes)
    model.n_features_in_ = len(encoder.input_columns_)
    if feature_names is not None:
        model.feature_names_in_ = np.asarray(feature_names, dtype=object)
    else:
        model.__dict__.pop("feature_names_in_", None)
    return model


def set_rule_set(model, literals, patterns, counts, mdl_breakdown, digits=None, trace=None,
                 rows: TrainingRows | None = None, search: dict | None = None):
    """Write the rule set's fields into ``model`` (whose inputs are set: :func:`set_inputs`) and
    return it.

    ``literals``: per rule ``[(j, low, high), ...]``; ``patterns`` / ``counts``: the class counts
    per cover pattern (:func:`turs.union_estimate.pattern_counts`); ``mdl_breakdown``: the
    :class:`~turs.mdl.MDLBreakdown` on the training data, or None (``mdl_score_`` is then NaN);
    ``digits``: the print-digits table; ``trace``: the :class:`~turs.trace.SearchTrace` or None;
    ``rows``: the training rows kept in memory, or None; ``search``: ``{"total": ..,
    "sampled_from_rule": ..}`` of the fit's search, or None (an edit or a loaded model).
    """
    model._literals_ = [list(lits) for lits in literals]
    model._digits_ = dict(digits or {})
    model._patterns_, model._pattern_counts_ = patterns, counts
    model.mdl_breakdown_ = mdl_breakdown
    model.mdl_score_ = float("nan") if mdl_breakdown is None else mdl_breakdown.total
    model.rules_, model.else_rule_ = rule_set(model.encoder_, model._literals_, model.classes_, patterns, counts,
                                              model._digits_)
    model._else_probs_ = model.else_rule_.probabilities
    model.trace_ = trace
    if rows is None:
        for name in _ROW_FIELDS:
            model.__dict__.pop(name, None)
    else:
        model._train_rows_, model._y_train_ = rows.rows, rows.y
        model._train_covers_ = rows.packed_covers
        model._n_train_ = len(rows.y)
    if search is None:
        for name in _SEARCH_FIELDS:
            model.__dict__.pop(name, None)
    else:
        model._search_total_ = search["total"]
        model.sampled_from_rule_ = search["sampled_from_rule"]
    return model


def rule_set(encoder, literals, classes, patterns, counts, digits=None) -> tuple[tuple, ElseRule]:
    """``(rules, else_rule)``: each rule's conditions (``encoder.condition``) with the class counts
    of its whole cover (Eq. 3.3), and the else-rule with those of the rows no rule covers."""
    labels = tuple(json_label(c) for c in classes)
    rules = []
    for i, lits in enumerate(literals):
        conditions = tuple(encoder.condition(*lit, digits=digits) for lit in lits)
        rule_counts = counts[patterns[:, i]].sum(axis=0)
        rules.append(Rule(conditions, tuple(int(v) for v in rule_counts), labels))
    else_counts = counts[~patterns.any(axis=1)].sum(axis=0)
    else_rule = ElseRule(tuple(int(v) for v in else_counts), labels, tuple(int(v) for v in counts.sum(axis=0)))
    return tuple(rules), else_rule


def json_label(c):
    """A class label or level as a plain Python value (a numpy scalar's ``item()``)."""
    return c.item() if isinstance(c, np.generic) else c
