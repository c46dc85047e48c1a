"""Checks and conversions of user input (``X``, ``y``) shared by the estimator and :mod:`turs.mdl`.

Below both modules, so that neither imports the other for them.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd

#: What pandas' ``infer_dtype`` calls an object column of one kind of value a level can be.
_ONE_KIND = ("string", "boolean", "integer", "floating", "mixed-integer-float", "decimal", "empty", "categorical",
             "bytes")
#: Cell values no rule can test: containers (a rule compares a cell with a level or a threshold).
_CONTAINERS = (tuple, list, dict, set, frozenset, np.ndarray, pd.Series)


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
        bad = ~np.isfinite(y)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"y has a missing or infinite label ({y[i]}) at row {i} ({int(bad.sum())} such labels); "
                             "every row needs its class. Drop those rows (keep = np.isfinite(y); X, y = X[keep], "
                             "y[keep]) or fill the labels.")
        if not np.all(y == np.round(y)):
            raise ValueError(
                f"Unknown label type: continuous. {who} works on classes; y must hold class labels."
            )
    if y.dtype.kind in "OU":  # first: pandas' own string arrays refuse such text with a bare message
        _check_utf8(y, "y", "label")
    if y.dtype.kind == "O":
        missing = pd.isna(y)
        if missing.any():
            i = int(np.argmax(missing))
            raise ValueError(f"y has a missing label ({y[i]!r}) at row {i} ({int(missing.sum())} missing in all); "
                             "every row needs its class. Drop those rows (keep = pd.notna(y); X, y = X[keep], "
                             "y[keep]) or fill the labels.")
        _check_one_kind(y, "y", "label", "y = y.astype(str)")
    return y


def _cell_kind(v) -> str:
    """``"bool"``, ``"number"``, ``"str"`` or the type's name: the kinds a column may not mix."""
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, numbers.Number):
        return "number"
    if isinstance(v, str):
        return "str"
    return type(v).__name__


def _check_one_kind(values, where: str, what: str, fix: str) -> None:
    """The cells of an object array (a column of X, or y) hold one kind of value, none a container.

    A column mixing numbers and strings (``1`` and ``"1"``), or bools and numbers (``True ==
    1``), would give levels that print alike or compare equal; a tuple is no value a rule tests.
    A ValueError names ``where``, the first cells of two kinds (or the container) and ``fix``.
    """
    values = np.asarray(values, dtype=object)
    if pd.api.types.infer_dtype(values, skipna=True) in _ONE_KIND:
        return
    first: dict = {}
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and v != v):
            continue
        if isinstance(v, _CONTAINERS):
            raise ValueError(
                f"{where} holds a {type(v).__name__} at row {i} ({_short(v)}); each {what} must be one number, "
                f"string or bool (a rule compares it with a level or a threshold). Split the values into columns "
                f"(e.g. pd.DataFrame(X[col].tolist())) or make them text ({fix}).")
        first.setdefault(_cell_kind(v), (i, v))
        if len(first) > 1:
            (ka, (ia, va)), (kb, (ib, vb)) = list(first.items())[:2]
            raise ValueError(
                f"{where} mixes {ka} and {kb} values ({va!r} at row {ia}, {vb!r} at row {ib}); each {what} of it "
                f"must be of one kind, or levels that print alike (1 and '1', True and 1) would be told apart or "
                f"merged. Convert it to one type: {fix}, or pd.to_numeric for numbers.")


def _check_utf8(values, where: str, what: str) -> None:
    """Every string in ``values`` can be written as UTF-8 (a lone surrogate, e.g. from bytes decoded
    with ``errors="surrogateescape"``, cannot: rules, pages and model files could not show it)."""
    for v in pd.unique(np.asarray(values, dtype=object).ravel()):
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as e:
                rows = np.flatnonzero(np.asarray(values, dtype=object) == v)
                raise ValueError(
                    f"{where} has the {what} {v!r} (row {int(rows[0])}), which holds the lone surrogate "
                    f"{v[e.start]!r} at position {e.start}: no valid text holds one, and turs cannot print or save "
                    "it. Decode the source bytes with the right encoding, or replace it (e.g. "
                    "s.encode('utf-8', 'replace').decode('utf-8')).") from None


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


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
        raise ValueError(f"X has no rows: 0 sample(s) (shape={df.shape}) while a minimum of 1 is required. "
                         "Pass the table with its rows (an empty table often comes from a filter or a split that "
                         "kept none).")
    if df.shape[1] == 0:
        raise ValueError(f"X has no columns: 0 feature(s) (shape={df.shape}) while a minimum of 1 is required. "
                         "Pass the feature columns (an empty table often comes from a column selection that kept "
                         "none).")
    _check_utf8(np.asarray([str(c) for c in df.columns], dtype=object), "X's column names", "column name")
    df = _decode_arrow_dictionaries(df)
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
            if s.dtype == object:
                _check_one_kind(s.to_numpy(), f"Column '{col}'", "value", f"X['{col}'] = X['{col}'].astype(str)")
            if not isinstance(s.dtype, pd.CategoricalDtype) and not pd.api.types.is_bool_dtype(s.dtype):
                _check_utf8(s.to_numpy(), f"Column '{col}'", "value")
    return df


def _decode_arrow_dictionaries(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with each pyarrow dictionary column (``pd.ArrowDtype(pa.dictionary(...))``, e.g. from
    ``read_parquet(dtype_backend="pyarrow")``) as a pandas categorical of its values: a dictionary
    column is categorical, and pandas has no float view of one."""
    names = [c for c in df.columns if isinstance(df[c].dtype, pd.ArrowDtype)
             and str(df[c].dtype.pyarrow_dtype).startswith("dictionary<")]
    if not names:
        return df
    import pyarrow as pa  # present: the column is a pyarrow array

    df = df.copy(deep=False)
    for c in names:
        values = pa.chunked_array([pa.array(df[c].array)]).to_pandas()
        df[c] = pd.Series(pd.Categorical(values), index=df.index)
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
