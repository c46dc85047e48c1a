"""Feature preprocessing of the reference runs: numeric columns kept, the others one-hot encoded.

The rule (``shared/anchors/README.md``): a feature column is *numeric* if its dtype is float, or
integer with more than 20 distinct values; any other column (text, category, bool, integer with
at most 20 distinct values) is *categorical* and one-hot encoded. A categorical column with two
levels becomes a single 0/1 column; one with more levels becomes one 0/1 column per level.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["preprocess_features", "is_numeric_feature", "MAX_INTEGER_LEVELS"]

#: An integer column with at most this many distinct values is treated as categorical.
MAX_INTEGER_LEVELS = 20


def is_numeric_feature(column: pd.Series, *, max_integer_levels: int = MAX_INTEGER_LEVELS) -> bool:
    """Whether ``column`` is kept as a numeric feature (float, or integer with many values).

    Bool columns are never numeric; integer columns are numeric when they have more than
    ``max_integer_levels`` distinct values.
    """
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return False
    if pd.api.types.is_float_dtype(dtype):
        return True
    if pd.api.types.is_integer_dtype(dtype):
        return column.nunique(dropna=True) > max_integer_levels
    return False


def _sorted_levels(column: pd.Series) -> list:
    levels = list(pd.unique(column.dropna()))
    try:
        return sorted(levels)
    except TypeError:  # mixed types: order by text
        return sorted(levels, key=str)


def _is_zero_one(levels: list) -> bool:
    """True for the levels {0, 1} or {False, True} (already an indicator)."""
    try:
        return len(levels) == 2 and {int(v) for v in levels} == {0, 1} and all(
            v == int(v) for v in levels
        )
    except (TypeError, ValueError):
        return False


def preprocess_features(
    X: pd.DataFrame, *, max_integer_levels: int = MAX_INTEGER_LEVELS
) -> pd.DataFrame:
    """One-hot encode the categorical columns of ``X`` as the reference runs did.

    Numeric columns (float, or integer with more than ``max_integer_levels`` distinct values)
    are kept unchanged. Every other column is encoded, in place of the original column:

    * two levels ``a < b``: one column ``"col=b"`` that is 1 where the value is ``b``; a column
      whose levels are already {0, 1} or {False, True} keeps its name (values become 0/1);
    * one level or more than two levels: one column ``"col=level"`` per level, in sorted order.

    Indicator columns are ``int64`` 0/1. A missing value in a categorical column gives 0 in all
    of its indicator columns.

    Parameters
    ----------
    X : pandas.DataFrame
        Feature columns only (no label); column names are used in the new names.
    max_integer_levels : int, default 20
        Integer columns with at most this many distinct values are one-hot encoded.

    Returns
    -------
    pandas.DataFrame
        Same index as ``X``; all columns numeric.
    """
    if not isinstance(X, pd.DataFrame):
        raise TypeError(
            f"X must be a pandas DataFrame of feature columns. Got {type(X).__name__} instead; "
            "wrap an array with pandas.DataFrame(X)."
        )
    if not isinstance(max_integer_levels, (int, np.integer)) or max_integer_levels < 0:
        raise ValueError(
            f"max_integer_levels must be an int >= 0. Got {max_integer_levels!r} instead."
        )
    parts: dict[str, pd.Series] = {}
    for name in X.columns:
        column = X[name]
        if is_numeric_feature(column, max_integer_levels=max_integer_levels):
            new = {name: column}
        else:
            levels = _sorted_levels(column)
            if _is_zero_one(levels):
                # compare via the truth value so that 0/1 and False/True are both handled
                new = {name: _indicator(column, 1)}
            elif len(levels) == 2:
                new = {f"{name}={levels[1]}": _indicator(column, levels[1])}
            else:
                new = {f"{name}={level}": _indicator(column, level) for level in levels}
        for key, values in new.items():
            if key in parts:
                raise ValueError(
                    f"Preprocessing column {name!r} makes a column named {key!r}, which "
                    "already exists. Rename the columns of X so that 'col=level' names are "
                    "unique."
                )
            parts[key] = values
    return pd.DataFrame(parts, index=X.index)


def _indicator(column: pd.Series, level) -> pd.Series:
    """0/1 int64 column: 1 where ``column == level``; missing values give 0."""
    hits = column == level
    if hits.dtype != bool:  # nullable (boolean) result: missing -> False
        hits = hits.fillna(False).astype(bool)
    return hits.astype(np.int64)
