"""The data behind the explorer's pictures, for any columns (no widgets, no drawing here).

:class:`DataView` puts the user's columns (numeric or categorical) back together from the
encoded columns the rules are written on, so a picture can use any two of them:

* a numeric column is drawn at its values; a rule restricts it to the interval of its literal
  on that column (``[low, high)``, ``-inf``/``inf`` when open);
* a numeric column with at most :data:`FEW_VALUES` values (0/1, say) is drawn as strips too,
  jittered by a fraction of its smallest gap, so that its rows do not hide each other;
* a categorical column is drawn as one strip per level (level ``i`` at ``i``, rows jittered by a
  fixed seeded offset in ``[-JITTER, JITTER]``); a rule restricts it to a *set* of levels: a
  literal ``col = level`` keeps that level, ``col != level`` drops it (a two-level column is
  encoded by its second level only, so ``col != b`` keeps the first).

:func:`cover_patterns` groups rows by which rules cover them (the rows x rules view) with the
union estimate of each group (thesis Eq. 3.5): the class distribution of all training rows in
the union of the covers of the group's rules, the else-rule's for rows no rule covers. On a
fitted model's training data this is exactly ``model.predict_proba`` (``tests/test_explorer.py``).

Large data are subsampled for drawing only (:meth:`DataView.draw_rows`, a fixed seeded sample,
with a note to show on screen); covers, counts and estimates always use every row.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ._view import Exact

JITTER = 0.32  # half-width of a categorical strip
FEW_VALUES = 12  # a numeric column with at most this many values is drawn as jittered strips
DRAW_SEED = 0


class DataView:
    """The user's columns of the data a :class:`~turs.explorer.TraceView` shows.

    Parameters
    ----------
    view : TraceView with data (``view.has_data``)
    X : the training data as given to the explorer (DataFrame or array)
    """

    def __init__(self, view, X):
        if not view.has_data:
            raise ValueError("DataView needs the training data: pass X and y to the explorer.")
        self.view = view
        df = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X), columns=view.feature_names)
        self.df = df.reset_index(drop=True)
        self.n = len(self.df)
        columns = [str(c) for c in self.df.columns]
        model = view.model
        # encoded column j -> (source column, level or None)
        self.encoded = []
        if model is not None:
            for c in model.encoder_.columns_:
                self.encoded.append((c.source, c.level if c.kind == "onehot" else None))
        else:
            for name in view.feature_names:
                if name in columns:
                    self.encoded.append((name, None))
                    continue
                source, sep, level = name.partition("=")
                while sep and source not in columns:
                    head, sep, level = level.partition("=")
                    source = f"{source}={head}"
                self.encoded.append((source, level))
        used = {s for s, _ in self.encoded}
        self.columns = [c for c in columns if c in used]  # the user's columns the rules can use
        self.kinds, self.levels = {}, {}
        for c in self.columns:
            onehot = [lev for s, lev in self.encoded if s == c and lev is not None]
            if onehot or not any(s == c for s, _ in self.encoded):
                self.kinds[c] = "categorical"
                if model is not None and c in model.encoder_.categorical_levels_:
                    self.levels[c] = list(model.encoder_.categorical_levels_[c])
                else:
                    self.levels[c] = sorted(self.df[c].astype(str).unique().tolist())
            else:
                self.kinds[c] = "numeric"
        # one fixed jitter per column (the same for x and y would put the rows on a diagonal)
        self._jitter = {c: np.random.default_rng([DRAW_SEED, i]).uniform(-JITTER, JITTER, size=self.n)
                        for i, c in enumerate(self.columns)}
        # a numeric column with few values (0/1 say) is jittered too, by its smallest gap
        self._gap = {}
        for c in self.columns:
            if self.kinds[c] == "numeric":
                u = np.unique(self.df[c].to_numpy(dtype=float))
                u = u[np.isfinite(u)]
                self._gap[c] = float(np.diff(u).min()) if 1 < len(u) <= FEW_VALUES else 0.0

    # ------------------------------------------------------------------ columns
    def is_categorical(self, column: str) -> bool:
        return self.kinds[self._check(column)] == "categorical"

    def _check(self, column: str) -> str:
        if column not in self.kinds:
            raise ValueError(f"The data have no column {column!r} that the rules can use; "
                             f"choose one of {self.columns}.")
        return column

    def default_columns(self, rules=()) -> tuple[str, str]:
        """The two columns the ``rules`` (literal lists) use most, then the numeric columns, then the
        others, in the data's order (one column: twice)."""
        used = {c: 0 for c in self.columns}
        for literals in rules:
            for j, _, _ in literals:
                used[self.encoded[int(j)][0]] += 1
        order = ([c for c in self.columns if self.kinds[c] == "numeric"]
                 + [c for c in self.columns if self.kinds[c] != "numeric"])
        order.sort(key=lambda c: -used[c])  # stable: ties keep numeric first, then the data's order
        return (order[0], order[1]) if len(order) > 1 else (order[0], order[0])

    def level_codes(self, column: str) -> np.ndarray:
        """Index of each row's level in ``levels[column]`` (categorical columns)."""
        self._check(column)
        levels = self.levels[column]
        if self.view.model is not None:
            return pd.Index(levels).get_indexer(pd.Index(self.df[column].astype(object)))
        return pd.Index(levels).get_indexer(pd.Index(self.df[column].astype(str)))

    def positions(self, column: str, rows=None) -> np.ndarray:
        """Plot coordinates of the rows: values, or level index plus a fixed jitter."""
        rows = np.arange(self.n) if rows is None else np.asarray(rows)
        if self.is_categorical(column):
            return self.level_codes(column)[rows] + self._jitter[column][rows]
        x = self.df[column].to_numpy(dtype=float)[rows]
        return x + self._gap[column] * self._jitter[column][rows] if self._gap[column] else x

    def axis_range(self, column: str) -> tuple[float, float]:
        """The drawn range of a column: the data's, or ``[-0.5, levels - 0.5]`` for categories."""
        if self.is_categorical(column):
            return -0.5, len(self.levels[column]) - 0.5
        x = self.df[column].to_numpy(dtype=float)
        pad = self._gap[column] / 2
        return float(np.nanmin(x)) - pad, float(np.nanmax(x)) + pad

    # ------------------------------------------------------------------ regions
    def _literals_on(self, literals, column):
        return [lit if isinstance(lit, Exact) else (int(lit[0]), int(lit[1]), int(lit[2]))
                for lit in literals if self.encoded[int(lit[0])][0] == column]

    def restricts(self, literals, column: str) -> bool:
        """Whether the rule has a literal on the (user's) column."""
        return bool(self._literals_on(literals, self._check(column)))

    def interval(self, literals, column: str) -> tuple[float, float]:
        """``[low, high)`` of the rule on a numeric column (``-inf``/``inf`` when open)."""
        low, high = -math.inf, math.inf
        for lit in self._literals_on(literals, self._check(column)):
            lo_j, hi_j = self.view.interval([lit], lit[0])
            low, high = max(low, lo_j), min(high, hi_j)
        return low, high

    def allowed_levels(self, literals, column: str) -> list:
        """The levels of a categorical column the rule keeps (indices into ``levels[column]``)."""
        levels = self.levels[self._check(column)]
        keep = set(range(len(levels)))
        index = {(str(lev) if self.view.model is None else lev): i for i, lev in enumerate(levels)}
        for lit in self._literals_on(literals, column):
            j, a, _ = lit
            i = index[self.encoded[j][1]]
            # bins [1, 2) / exact low 0.5: "= level"; bins [0, 1) / exact high 0.5: "!= level"
            positive = (a is not None) if isinstance(lit, Exact) else a >= 1
            keep = keep & {i} if positive else keep - {i}
        return sorted(keep)

    def spans(self, literals, column: str) -> list[tuple[float, float]]:
        """Where the rule lies along a column, clipped to the drawn range: one ``(lo, hi)`` for a
        numeric column, one per run of consecutive kept levels for a categorical one."""
        lo_ax, hi_ax = self.axis_range(column)
        if not self.is_categorical(column):
            low, high = self.interval(literals, column)
            return [(max(low, lo_ax) if math.isfinite(low) else lo_ax,
                     min(high, hi_ax) if math.isfinite(high) else hi_ax)]
        kept = self.allowed_levels(literals, column)
        runs, start = [], None
        for i, lev in enumerate(kept):
            if start is None:
                start = lev
            if i + 1 == len(kept) or kept[i + 1] != lev + 1:
                runs.append((start - 0.5, lev + 0.5))
                start = None
        return runs

    def region(self, literals, x: str, y: str) -> list[tuple[float, float, float, float]]:
        """The rule's region on the columns ``x``, ``y``: rectangles ``(x0, x1, y0, y1)``."""
        return [(x0, x1, y0, y1) for x0, x1 in self.spans(literals, x) for y0, y1 in self.spans(literals, y)]

    # ---------------------------------------------------------------- drawing
    def draw_rows(self, max_points: int) -> tuple[np.ndarray, str]:
        """Rows to draw (all, or a fixed seeded sample of ``max_points``) and the note to show."""
        if self.n <= max_points:
            return np.arange(self.n), ""
        rows = np.sort(np.random.default_rng(DRAW_SEED).choice(self.n, size=max_points, replace=False))
        return rows, (f"drawing {max_points:,} of {self.n:,} rows (a fixed random sample); "
                      "counts and the fit use every row")


# ------------------------------------------------------------------------- covers
def cover_patterns(covers: np.ndarray, y: np.ndarray, n_classes: int) -> pd.DataFrame:
    """Rows grouped by the set of rules covering them, with the union estimate of each group.

    ``covers``: (n, K) bool; ``y``: (n,) class codes. One row per distinct cover pattern, the
    largest group first: ``pattern`` (tuple of rule indices, ``()`` for rows no rule covers),
    ``n`` (rows with exactly this pattern), ``counts`` (their class counts) and ``proba`` (the
    union estimate, Eq. 3.5: the class distribution of every row covered by at least one of the
    pattern's rules; for ``()`` the else-rule's, the rows no rule covers).
    """
    covers = np.asarray(covers, dtype=bool)
    y = np.asarray(y)
    n, K = covers.shape
    keys, inverse = np.unique(covers, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    counts = np.zeros((len(keys), n_classes), dtype=np.int64)
    np.add.at(counts, (inverse, y), 1)
    rows = []
    for p, key in enumerate(keys):
        rules = tuple(int(i) for i in np.flatnonzero(key))
        if rules:
            union = covers[:, list(rules)].any(axis=1)
            est = np.bincount(y[union], minlength=n_classes).astype(float)
        else:
            est = counts[p].astype(float)
        total = est.sum()
        rows.append({"pattern": rules, "n": int(counts[p].sum()), "counts": counts[p].tolist(),
                     "proba": (est / total).tolist() if total else [math.nan] * n_classes})
    out = pd.DataFrame(rows, columns=["pattern", "n", "counts", "proba"])
    return out.sort_values("n", ascending=False, kind="stable").reset_index(drop=True)


def overlap_summary(covers: np.ndarray) -> dict:
    """Rows covered by no rule, by exactly one, and by two or more."""
    k = np.asarray(covers, dtype=bool).sum(axis=1)
    return {"none": int((k == 0).sum()), "one": int((k == 1).sum()), "several": int((k >= 2).sum())}
