"""Checks and conversions of user input (``X``, ``y``) shared by the estimator and :mod:`turs.mdl`.

Below both modules, so that neither imports the other for them.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd


def _check_y(y, n, who: str = "TURSClassifier"):
    """``y`` as a 1-D array of ``n`` labels (a column vector is raveled with a warning)."""
    if y is None:
        raise ValueError(f"{who} requires y to be passed, but the target y is None.")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is raveled.",
                      category=_data_conversion_warning())
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-dimensional (one label per row). Got shape {y.shape}.")
    if len(y) != n:
        raise ValueError(f"X has {n} rows but y has {len(y)} labels; they must match.")
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or inf; remove those rows or fill the labels.")
        if not np.all(y == np.round(y)):
            raise ValueError(
                f"Unknown label type: continuous. {who} works on classes; y must hold class labels."
            )
    if y.dtype.kind == "O":
        if pd.isna(pd.Series(y)).any():
            raise ValueError("y contains missing labels; remove those rows or fill the labels.")
    return y


def _data_conversion_warning():
    from sklearn.exceptions import DataConversionWarning

    return DataConversionWarning


def as_pandas(X):
    """``X`` as a pandas DataFrame with its own column names when it is another library's table
    (polars, pyarrow: anything with string ``columns`` or ``column_names`` that speaks the Arrow
    or the dataframe interchange protocol), column by column through numpy; any other ``X`` as is."""
    if X is None or isinstance(X, (pd.DataFrame, np.ndarray)):
        return X
    if not (hasattr(X, "__arrow_c_stream__") or hasattr(X, "__dataframe__")):
        return X
    names = getattr(X, "column_names", None)  # pyarrow.Table (whose `columns` are the arrays)
    if names is None:
        names = getattr(X, "columns", None)  # polars
    if names is None or not all(isinstance(c, str) for c in names):
        return X
    names = list(names)
    columns = {}
    for name in names:
        col = X[name]
        columns[name] = col.to_numpy() if hasattr(col, "to_numpy") else np.asarray(col)
    return pd.DataFrame(columns, columns=names)


def _as_frame(X, fitted) -> pd.DataFrame:
    """Validate ``X`` and return it as a DataFrame with string column names."""
    if X is None:
        raise ValueError("X is None; pass a 2-D table of features.")
    X = as_pandas(X)
    if isinstance(X, pd.DataFrame):
        _check_unique_columns(X)
        df = X
        has_names = all(isinstance(c, str) for c in X.columns)
    else:
        if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
            raise TypeError("Sparse input is not supported by TURSClassifier; pass a dense array, e.g. X.toarray().")
        arr = np.asarray(X)
        if arr.dtype.kind == "c":
            raise ValueError("Complex data not supported; pass real-valued features.")
        if arr.ndim == 1:
            raise ValueError(
                "Expected 2D array, got 1D array instead. Reshape your data either using "
                "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) "
                "if it contains a single sample."
            )
        if arr.ndim != 2:
            raise ValueError(f"X must be 2-dimensional. Got an array with shape {arr.shape}.")
        names = (list(fitted.feature_names_in_) if fitted is not None and hasattr(fitted, "feature_names_in_")
                 else [f"x{j}" for j in range(arr.shape[1])])
        if len(names) != arr.shape[1]:
            names = [f"x{j}" for j in range(arr.shape[1])]
        df = pd.DataFrame(arr, columns=names, copy=False)  # a view: pandas 3 would copy the array
        if arr.dtype.kind == "O":
            df = df.infer_objects()
        has_names = False
    if fitted is not None:
        fitted_names = getattr(fitted, "feature_names_in_", None)
        if has_names and fitted_names is None and isinstance(X, pd.DataFrame):
            warnings.warn(f"X has feature names, but {type(fitted).__name__} was fitted without feature names")
        elif not has_names and fitted_names is not None and not isinstance(X, pd.DataFrame):
            warnings.warn(f"X does not have valid feature names, but {type(fitted).__name__} was fitted with feature names")
        elif has_names and fitted_names is not None and list(X.columns) != list(fitted_names):
            raise ValueError(
                "The feature names should match those that were passed during fit.\n"
                f"Fitted with: {list(fitted_names)}\nGot: {list(X.columns)}"
            )
        if df.shape[1] != fitted.n_features_in_:
            raise ValueError(
                f"X has {df.shape[1]} features, but {type(fitted).__name__} is expecting "
                f"{fitted.n_features_in_} features as input."
            )
        if not has_names and fitted_names is None:
            df = df.set_axis([f"x{j}" for j in range(df.shape[1])], axis=1)
        elif not has_names:
            df = df.set_axis(list(fitted_names), axis=1)
    else:
        if not has_names:
            df = df.set_axis([f"x{j}" for j in range(df.shape[1])], axis=1)
    if df.shape[0] == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape={df.shape}) while a minimum of 1 is required.")
    if df.shape[1] == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={df.shape}) while a minimum of 1 is required.")
    for col in df.columns:
        s = df[col]
        kind = s.dtype.kind
        if kind in "mM" or isinstance(s.dtype, pd.DatetimeTZDtype):
            raise ValueError(
                f"Column '{col}' has the type {s.dtype}, which cannot be encoded; convert it to a "
                "number (e.g. days since a date) or to categories."
            )
        if kind == "c":
            raise ValueError("Complex data not supported; pass real-valued features.")
        if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            v = s.to_numpy(dtype=float)
            bad = ~np.isfinite(v)
            if bad.any():
                i = int(np.argmax(bad))
                raise ValueError(
                    f"Input X contains NaN or inf: column '{col}' has {v[i]} at row {i} "
                    f"({int(bad.sum())} such values in the column). Impute or drop them before fitting."
                )
        else:
            if s.isna().any():
                i = int(np.argmax(s.isna().to_numpy()))
                raise ValueError(
                    f"Input X contains NaN: column '{col}' has a missing value at row {i}. "
                    "Fill it (e.g. with a 'missing' level) or drop the row."
                )
    return df


def _check_unique_columns(X: pd.DataFrame) -> None:
    """A ValueError naming the duplicated column names of ``X`` (pandas would fail deep inside)."""
    dup = X.columns[X.columns.duplicated()]
    if len(dup):
        names = list(dict.fromkeys(dup.tolist()))
        raise ValueError(
            f"X has duplicated column names: {names}. Every column needs its own name: rename "
            "or drop the duplicates (e.g. X.loc[:, ~X.columns.duplicated()])."
        )
