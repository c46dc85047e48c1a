"""From a user's table to what the search works on: encoded columns, cut points, bins.

* Numeric columns (numeric dtypes other than bool) stay numeric.
* Categorical columns (pandas ``category``/``object``/``string``/``bool``) are one-hot
  encoded as in the thesis (Section 3.5.2): a column with two levels becomes one 0/1
  column ``col=b``, a column with more levels one 0/1 column per level ``col=level``.
  A literal on such a column reads ``col = level`` or ``col != level``.
* Candidate cut points of a numeric column: quantile mid-points, the scheme of the
  reference implementation (``../shared/anchors/README.md``: mid-points between consecutive
  sorted values, at most ``n_cut_points`` of them at evenly spaced positions; the thesis says
  "quantiles"). See :func:`candidate_cuts`. With it, the reference's search settings and
  model code reproduce its MDL scores exactly on 40 of the 85 folds of ``make reference-check``.
  A column with exactly two values (e.g. 0/1) has the single cut
  half-way, and is a *binary* column: its literals cost ``L_value_op = 1`` bit (Eq. 3.15
  note on one-hot columns).
* Bins: ``bin(x) = #{cuts <= x}``, so ``x < cut[j]  <=>  bin(x) <= j`` exactly; the search
  works on bins and every cover used for printing, prediction and scoring is computed
  from the raw thresholds, which agree with the bins by construction.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .rules import Condition

MAX_CUT_POINTS = 254  # bins are uint8


@dataclass(frozen=True)
class EncodedColumn:
    """One column the rules are written on."""

    name: str  # encoded name, e.g. "petal_length" or "color=red"
    source: str  # the user's column name
    kind: str  # "numeric" or "onehot"
    level: object = None  # for one-hot: the level that maps to 1
    cuts: tuple = ()  # candidate cut points (sorted, strictly increasing)


@dataclass
class FeatureEncoder:
    """Fitted encoding of a table into numeric columns with candidate cut points."""

    n_cut_points: int = 20
    columns_: list = field(default_factory=list)  # list[EncodedColumn]
    binary_: np.ndarray | None = None  # bool per encoded column
    input_columns_: list = field(default_factory=list)
    categorical_levels_: dict = field(default_factory=dict)
    from_dataframe_: bool = False

    # ------------------------------------------------------------------ fit
    def fit(self, X: pd.DataFrame) -> "FeatureEncoder":
        self.input_columns_ = [str(c) for c in X.columns]
        self.columns_ = []
        binary = []
        self.categorical_levels_ = {}
        for col in X.columns:
            s = X[col]
            name = str(col)
            if _is_categorical(s):
                levels = _levels(s)
                if len(levels) == 0:
                    raise ValueError(
                        f"Column '{name}' has no values; drop it or check the input."
                    )
                self.categorical_levels_[name] = levels
                use = levels[1:] if len(levels) == 2 else levels
                for lev in use:
                    self.columns_.append(
                        EncodedColumn(f"{name}={lev}", name, "onehot", lev, (0.5,))
                    )
                    binary.append(True)
            else:
                x = s.to_numpy(dtype=float)
                cuts = candidate_cuts(x, self.n_cut_points)
                self.columns_.append(EncodedColumn(name, name, "numeric", None, tuple(cuts)))
                binary.append(len(np.unique(x)) == 2)
        self.binary_ = np.array(binary, dtype=bool)
        return self

    # ------------------------------------------------------------ transform
    def transform(self, X: pd.DataFrame) -> np.ndarray:
        """Encoded float matrix (n, d): numeric values, one-hot columns as 0/1."""
        n = len(X)
        out = np.empty((n, len(self.columns_)), dtype=float)
        for j, c in enumerate(self.columns_):
            s = X[c.source]
            if c.kind == "onehot":
                vals = s.astype(object).to_numpy()
                known = self.categorical_levels_[c.source]
                unknown = ~pd.Series(vals).isin(known).to_numpy()
                if unknown.any():
                    bad = vals[np.argmax(unknown)]
                    raise ValueError(
                        f"Column '{c.source}' has the level {bad!r} (row {int(np.argmax(unknown))}) "
                        f"that was not seen in fit; the known levels are {list(known)}. "
                        "Map it to a known level or refit on data that contains it."
                    )
                out[:, j] = (vals == c.level).astype(float)
            else:
                out[:, j] = s.to_numpy(dtype=float)
        return out

    def bins(self, Xe: np.ndarray) -> np.ndarray:
        """Bin codes (n, d) uint8, column-major: ``bin = #{cuts <= x}``."""
        n, d = Xe.shape
        out = np.empty((d, n), dtype=np.uint8)
        for j, c in enumerate(self.columns_):
            out[j] = np.searchsorted(np.asarray(c.cuts, dtype=float), Xe[:, j], side="right")
        return out

    @property
    def n_bins_(self) -> np.ndarray:
        return np.array([len(c.cuts) + 1 for c in self.columns_], dtype=np.int64)

    @property
    def names_(self) -> list:
        return [c.name for c in self.columns_]

    # ----------------------------------------------------------- conditions
    def thresholds(self, j: int, a: int, b: int) -> tuple:
        """Literal ``(j, a, b)`` of the search (bins ``[a, b)`` of encoded column ``j``) as the
        thresholds ``(j, low, high)`` of a rule: the cut points bounding those bins (None: open)."""
        cuts = self.columns_[j].cuts
        return (int(j), float(cuts[a - 1]) if a > 0 else None, float(cuts[b - 1]) if b < len(cuts) + 1 else None)

    def condition(self, j: int, low, high, digits: dict | None = None) -> Condition:
        """The :class:`~turs.rules.Condition` ``low <= x < high`` on encoded column ``j``: on a one-hot
        column it prints ``= level`` / ``!= level``. ``digits``: significant digits of a bound by
        ``(j, cut)`` where 6 do not separate the training values (:func:`turs.rules.print_digits_table`)."""
        col = self.columns_[j]
        if col.kind == "onehot":
            return Condition(col.name, low, high, col.source, col.level)
        digits = digits or {}
        return Condition(col.name, low, high, digits=(digits.get((j, low)), digits.get((j, high))))

    def bin_condition(self, j: int, a: int, b: int, digits: dict | None = None) -> Condition:
        """The :class:`~turs.rules.Condition` of the search's literal ``(j, a, b)``."""
        return self.condition(*self.thresholds(j, a, b), digits=digits)

    # ---------------------------------------------------------------- json
    def to_dict(self) -> dict:
        return {
            "n_cut_points": self.n_cut_points,
            "input_columns": self.input_columns_,
            "from_dataframe": self.from_dataframe_,
            "categorical_levels": {k: [_jsonable(v) for v in lv] for k, lv in self.categorical_levels_.items()},
            "columns": [
                {"name": c.name, "source": c.source, "kind": c.kind,
                 "level": _jsonable(c.level), "cuts": list(map(float, c.cuts))}
                for c in self.columns_
            ],
            "binary": [bool(b) for b in self.binary_],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "FeatureEncoder":
        enc = cls(n_cut_points=d["n_cut_points"])
        enc.input_columns_ = list(d["input_columns"])
        enc.from_dataframe_ = bool(d["from_dataframe"])
        enc.categorical_levels_ = {k: list(v) for k, v in d["categorical_levels"].items()}
        enc.columns_ = [
            EncodedColumn(c["name"], c["source"], c["kind"], c["level"], tuple(c["cuts"]))
            for c in d["columns"]
        ]
        enc.binary_ = np.array(d["binary"], dtype=bool)
        return enc


def candidate_cuts(x: np.ndarray, n_cut_points: int) -> np.ndarray:
    """Candidate cut points of a numeric column: quantile mid-points (see the module docstring).

    With the column's values sorted (all rows, repeats kept), the cut at position ``i`` lies
    between the ``i``-th and ``(i+1)``-th of them: their mid-point, or just above the value
    (``np.nextafter(v, inf)``, so ``x < cut`` reads ``x <= v``) when the two are equal. The
    positions are ``min(n_distinct - 1, n_cut_points)`` interior points of
    ``linspace(0, n - 2, .. + 2)``, truncated to integers. Positions that fall in the same run
    of equal values give the same cut more than once; the repeats are kept, as in the
    reference implementation, where they count in the code length of a cut
    (``K_value``) and in nothing else. A column with two distinct values has the single cut
    half-way between them.
    """
    x = np.asarray(x, dtype=float)
    u = np.unique(x)
    if len(u) <= 1:
        return np.empty(0)
    if len(u) == 2:
        return np.array([(u[0] + u[1]) / 2.0])
    s = np.sort(x)
    cuts = (s[:-1] + s[1:]) / 2.0
    tied = s[:-1] == s[1:]
    cuts[tied] = np.nextafter(s[:-1][tied], np.inf)
    k = min(len(u) - 1, n_cut_points)
    if len(cuts) > k:
        cuts = cuts[np.linspace(0, len(cuts) - 1, k + 2).astype(np.int64)[1:-1]]
    return cuts


def _is_categorical(s: pd.Series) -> bool:
    return (
        isinstance(s.dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(s.dtype)
        or pd.api.types.is_object_dtype(s.dtype)
        or pd.api.types.is_string_dtype(s.dtype)
    )


def _levels(s: pd.Series) -> list:
    if isinstance(s.dtype, pd.CategoricalDtype):
        present = set(s.dropna().unique())
        return [lv for lv in s.cat.categories if lv in present]
    vals = s.dropna().unique()
    try:
        return sorted(vals)
    except TypeError:
        return sorted(vals, key=str)


def _jsonable(v):
    if isinstance(v, (np.generic,)):
        return v.item()
    return v
