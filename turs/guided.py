"""Human-guided TURS: the estimator's ``preferred_features``, ``preferred_fallback``,
``forbidden_features`` and ``max_rule_length``, checked and turned into the search's
:class:`~turs.search.settings.SearchConstraints`.

The names are source columns, the table's column names (``str(name)`` for an array's
positional columns): a categorical column's one-hot literals (``color = red``) count as that
column. ``docs/guided.md`` shows the use; ``docs/spec-notes.md`` ("Preferred features") says
how S-CLASSY's Algorithm 1 maps to unordered rule sets.
"""
from __future__ import annotations

import numbers

import numpy as np

from .search.settings import SearchConstraints

__all__ = ["check_guidance", "search_constraints", "check_given_rules", "source_columns_of"]

def _names(value, param: str) -> tuple | None:
    """``value`` (None or a list/tuple/array of column names, or of int positions) as a tuple,
    or a ValueError naming ``param``."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)):
        raise ValueError(f"The '{param}' parameter of TURSClassifier must be a list of column names or None. "
                         f"Got the string {value!r}; write [{value!r}] for one column.")
    try:
        items = list(value)
    except TypeError:
        raise ValueError(f"The '{param}' parameter of TURSClassifier must be a list of column names or None. "
                         f"Got {value!r} instead.") from None
    out = []
    for v in items:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (str, numbers.Integral)):
            raise ValueError(f"The '{param}' parameter of TURSClassifier must hold column names (str, or the int "
                             f"position of an array's column). Got {v!r} in {value!r}.")
        out.append(v if isinstance(v, str) else int(v))
    dup = sorted({str(v) for v in out if out.count(v) > 1})
    if dup:
        raise ValueError(f"The '{param}' parameter of TURSClassifier names {dup} more than once; name each "
                         "column once.")
    return tuple(out)


def check_guidance(preferred, forbidden, max_rule_length, preferred_fallback) -> None:
    """The checks that need no data: types, ``max_rule_length >= 1``, no column both preferred
    and forbidden. ValueError naming the parameter, the value and the fix."""
    p = _names(preferred, "preferred_features")
    f = _names(forbidden, "forbidden_features")
    if max_rule_length is not None and (not isinstance(max_rule_length, numbers.Integral)
                                        or isinstance(max_rule_length, (bool, np.bool_)) or max_rule_length < 1):
        raise ValueError(f"The 'max_rule_length' parameter of TURSClassifier must be an int >= 1 or None (no "
                         f"limit). Got {max_rule_length!r} instead.")
    if not isinstance(preferred_fallback, (bool, np.bool_)):
        raise ValueError(f"The 'preferred_fallback' parameter of TURSClassifier must be a bool. "
                         f"Got {preferred_fallback!r} instead.")
    _check_disjoint(sorted(set(p or ()) & set(f or ()), key=str))


def _check_disjoint(both) -> None:
    """ValueError when columns are both preferred and forbidden."""
    if both:
        raise ValueError(f"The columns {both} are in both 'preferred_features' and 'forbidden_features' of "
                         "TURSClassifier; a column can be preferred or forbidden, not both. Remove them from one.")


def source_columns_of(encoder) -> list:
    """The source column of each encoded column."""
    return [c.source for c in encoder.columns_]


def _mask(names, encoder, param: str) -> list:
    """``(column name, bool per encoded column)`` for each name (an int: the column at that
    position); a column the table lacks is a ValueError."""
    sources = np.array(source_columns_of(encoder), dtype=object)
    known = list(encoder.input_columns_)
    out = []
    for name in names:
        col = name
        if not isinstance(name, str) and name not in known:
            col = known[name] if 0 <= name < len(known) else None
        if col not in known:
            shown = known if len(known) <= 30 else known[:30] + ["..."]
            raise ValueError(f"The '{param}' parameter of TURSClassifier names the column {name!r}, which X does "
                             f"not have. X's columns are {shown} (positions 0 to {len(known) - 1}). Use one of "
                             "them.")
        out.append((col, sources == col))
    return out


def search_constraints(model, encoder) -> SearchConstraints | None:
    """The search's constraints for a fitted ``encoder`` from ``model``'s parameters; None when
    there are none (the fit is then the unconstrained one, bit for bit)."""
    preferred = _names(model.preferred_features, "preferred_features") or ()
    forbidden = _names(model.forbidden_features, "forbidden_features") or ()
    if not preferred and not forbidden and model.max_rule_length is None:
        return None
    pref = _mask(preferred, encoder, "preferred_features")
    forb = _mask(forbidden, encoder, "forbidden_features")
    _check_disjoint(sorted({n for n, _ in pref} & {n for n, _ in forb}))  # also a position and a name of one column
    forbidden_mask = np.logical_or.reduce([m for _, m in forb]) if forb else None
    return SearchConstraints(forbidden=forbidden_mask, max_rule_length=model.max_rule_length,
                             preferred=tuple(pref), preferred_fallback=bool(model.preferred_fallback))


def check_given_rules(rules, constraints: SearchConstraints | None, encoder) -> None:
    """Given rules (``fit(initial_rules=...)``, ``refit(keep=...)``) must keep the constraints:
    no literal on a forbidden column, at most ``max_rule_length`` literals."""
    if constraints is None:
        return
    for i, r in enumerate(rules):
        cols = [int(lit[0]) for lit in r.literals]
        if constraints.forbidden is not None:
            bad = sorted({encoder.columns_[j].source for j in cols if constraints.forbidden[j]})
            if bad:
                raise ValueError(f"Given rule {i} ({r.text!r}) uses the forbidden column(s) {bad} "
                                 "(forbidden_features). Drop the rule or remove the column from forbidden_features.")
        k = constraints.max_rule_length
        if k is not None and len(cols) > k:
            raise ValueError(f"Given rule {i} ({r.text!r}) has {len(cols)} literals, more than max_rule_length={k}. "
                             "Shorten the rule or raise max_rule_length.")
