"""Why a fitted model predicts what it does for a row: ``TURSClassifier.explain``.

A row covered by the rules ``I`` gets the class distribution of the training rows in the union
of their covers (the union estimate, Eq. 3.5); a row no rule covers gets the else-rule's. The
explanation gives, per row, those rules, the number and the class counts of those training rows
and the probabilities they give, in numbers and in words: what the explorer shows for a point.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .union_estimate import else_counts, union_counts, union_probabilities

__all__ = ["explain"]


def explain(model, X) -> pd.DataFrame:
    """One row per row of ``X``, with the columns

    * ``rules``: the rules that cover it (numbers from 1, as the model prints them);
    * ``explanation``: the same in words;
    * ``training rows``: the training rows the probabilities are counted from: those in the union
      of the covers of its rules, or the else-rule's (all training rows when none is left to it);
    * ``count <class>``: their class counts, one column per class;
    * ``P(<class>)``: the probabilities, one column per class (``predict_proba``).
    """
    covers = model.apply(X)  # first: raises NotFittedError on an unfitted model
    patterns, inverse = np.unique(covers, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    counts = union_counts(patterns, model._patterns_, model._pattern_counts_).astype(np.int64)
    empty = ~patterns.any(axis=1)
    counts[empty] = else_counts(model._patterns_, model._pattern_counts_)
    probs = union_probabilities(patterns, model._patterns_, model._pattern_counts_)
    texts = [_text(model, np.flatnonzero(p), int(c.sum()), pr) for p, c, pr in zip(patterns, counts, probs)]
    frame = {"rules": [[int(k) + 1 for k in np.flatnonzero(patterns[g])] for g in inverse],
             "explanation": [texts[g] for g in inverse],
             "training rows": counts.sum(axis=1)[inverse]}
    for c, column in zip(model.classes_, counts.T):
        frame[f"count {c}"] = column[inverse]
    for c, column in zip(model.classes_, probs.T):
        frame[f"P({c})"] = column[inverse]
    return pd.DataFrame(frame)


def _text(model, idx: np.ndarray, n: int, probs: np.ndarray) -> str:
    p = ", ".join(f"P({c})={v:.2f}" for c, v in zip(model.classes_, probs))
    if len(idx) == 0:
        return f"no rule covers it: else-rule ({model.else_rule_.coverage} training instances): {p}"
    if len(idx) == 1:
        return f"only rule {idx[0] + 1} covers it ({model.rules_[idx[0]].coverage} training instances): {p}"
    names = ", ".join(str(k + 1) for k in idx)
    return f"rules {names} cover it: the class distribution of the {n} training instances in the union of their covers: {p}"
