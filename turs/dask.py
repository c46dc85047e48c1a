"""TURS on Dask collections: a fit whose rules, MDL score and probabilities are those of
``TURSClassifier().fit`` on the same rows in one process, bit for bit, whatever the partitioning.

>>> from distributed import Client                                   # doctest: +SKIP
>>> from turs.dask import DaskTURSClassifier
>>> client = Client(...)                                             # doctest: +SKIP
>>> model = DaskTURSClassifier().fit(ddf[features], ddf["label"])    # doctest: +SKIP
>>> proba = model.predict_proba(ddf[features])       # a dask array, partition by partition
>>> local = model.to_local()                         # a plain TURSClassifier

**Why a separate class** (as ``lightgbm.dask`` and ``xgboost.dask`` do): a fit from Dask
collections runs on a ``distributed`` Client and keeps no training rows in the client (a plain
fit keeps them, as bins, for editing and the explorer); its ``predict_proba`` on a dask
collection returns a lazy dask array, where scikit-learn code expects numpy from a
``TURSClassifier``; and ``import turs`` must not import dask. The parameters are
``TURSClassifier``'s (this class is one), so ``get_params`` / ``clone`` carry over, and
:meth:`DaskTURSClassifier.to_local` gives the plain model (like one loaded from a model file).

**How** (``docs/distributed.md``):

1. *Inputs*: a first pass over the partitions of ``X`` and ``y`` together gives each
   partition's length (a row's global index is its partition's first index plus its
   position), checks every cell as the in-memory fit does (:mod:`turs._validation`: NaN, inf,
   mixed kinds; the error names the row by its global index) and returns each column's small
   statistics: its levels, or its values with their counts when a partition holds few distinct
   ones, else a sketch of its sorted values.
2. *The encoder* (:class:`~turs.encoding.FeatureEncoder`): the same cut points as one machine.
   A cut is the mid-point of two exact order statistics at ranks known from ``n``
   (:func:`turs.encoding.candidate_cuts`); each is found by brackets that narrow with each
   pass (per partition: how many values lie below the bracket and, inside it, the values and
   their counts when few, else a sketch of their sorted values), exact whatever the order.
   Categorical levels are the sorted union of the partitions' levels.
3. *Bins on the workers*: each partition is binned once with the encoder, kept on its worker as
   (d, m) uint8 bins, class codes and its first global index; the floats are dropped.
4. *The fit*: :func:`turs.learn.fit_from_store` on a :class:`DaskRows` store: each question of
   the sampled search (counts of candidate rules, the rule set's overlap groups) is answered
   per partition by the in-memory store's own code and summed on the client; every such number
   is an integer count or a min/max, so the sums are exact in any order. The sample is the
   hash-key sample (:mod:`turs.search.sample_keys`): each partition gives its smallest keys.

Tables of at most ``SAMPLED_MIN_ROWS`` rows (which one machine fits exactly, without a sample)
are gathered to the client and fitted there: those are small.
"""
from __future__ import annotations

import copy
import logging
import re
import threading
import time

import numpy as np
import pandas as pd

from . import _config
from ._compile import compile_bar
from ._core.kernels import kernels_for_fit
from ._validation import _as_frame, _cell_kind, _check_y, _decode_arrow_dictionaries
from .encoding import EncodedColumn, FeatureEncoder, _is_categorical
from .estimator import TURSClassifier
from .fitted import json_label
from .rules import PRINT_DIGITS, _exact_bound, _fmt, cut_of_bound
from .search.row_store import CandidateCounts, RowStore

__all__ = ["DaskTURSClassifier"]

log = logging.getLogger(__name__)

#: Points of a partition's sketch of the sorted values inside a bracket (each pass narrows a
#: bracket by about half this factor).
SKETCH_POINTS = 1024
#: A partition sends the values inside a bracket, with their counts, when it holds at most this
#: many distinct ones there; else a sketch.
GATHER_DISTINCT = 4096
#: Passes of the order statistics' brackets before giving up (each narrows ~500-fold).
MAX_BRACKET_PASSES = 24


# ---------------------------------------------------------------------------------- inputs
def _client():
    try:
        from distributed import get_client
    except ImportError as e:  # pragma: no cover - the dask extra is missing
        raise ImportError("DaskTURSClassifier needs dask.distributed: pip install 'turs[dask]'.") from e
    try:
        return get_client()
    except ValueError:
        raise ValueError("DaskTURSClassifier needs an active dask.distributed Client; start one first, e.g. "
                         "`from distributed import Client; client = Client()` (a LocalCluster) or "
                         "`Client('tcp://scheduler:8786')`.") from None


def _worker_stamp():
    """``(turs version, kernel sources stamp)`` of the process it runs in."""
    import turs
    from turs._compile import package_stamp

    return turs.__version__, package_stamp().hex()[:16]


def check_workers(client) -> None:
    """A RuntimeError naming the workers whose ``turs`` version or kernel sources differ from the
    client's: their counts would come from other code, and the fit would not be this one."""
    mine = _worker_stamp()
    theirs = client.run(_worker_stamp)
    bad = {w: s for w, s in theirs.items() if tuple(s) != mine}
    if bad:
        lines = ", ".join(f"{w}: turs {v} kernels {k}" for w, (v, k) in sorted(bad.items()))
        raise RuntimeError(f"Workers run another turs than this client (turs {mine[0]}, kernels {mine[1]}): {lines}. "
                           "Install the same turs on every worker (and restart them: client.restart()).")
    if not theirs:
        raise RuntimeError("The dask Client has no workers; start some (e.g. cluster.scale(2)) before fitting.")


def _partitions(X, y):
    """``(X partitions, y partitions, named columns or None, X is a DataFrame)`` as delayed objects."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        names = [c for c in X.columns]
        parts_x = list(X.to_delayed())
        is_frame = True
    elif isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (rows x features); got a dask array of shape {X.shape}.")
        if X.numblocks[1] != 1:
            X = X.rechunk({1: -1})  # a partition holds whole rows
        parts_x = list(X.to_delayed()[:, 0])
        names, is_frame = None, False
    else:
        raise TypeError(f"X must be a dask DataFrame or a dask Array; got {type(X).__name__}. For a pandas "
                        "DataFrame or a numpy array, use turs.TURSClassifier (or dask.dataframe.from_pandas).")
    if isinstance(y, dd.DataFrame) and len(y.columns) == 1:
        y = y[y.columns[0]]
    if isinstance(y, dd.Series):
        parts_y = list(y.to_delayed())
    elif isinstance(y, da.Array):
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1:
            raise ValueError(f"y must be 1-dimensional (one label per row); got a dask array of shape {y.shape}.")
        parts_y = list(y.to_delayed())
    else:
        raise TypeError(f"y must be a dask Series or a dask Array; got {type(y).__name__}.")
    if len(parts_x) != len(parts_y):
        raise ValueError(
            f"X has {len(parts_x)} partitions and y has {len(parts_y)}; a row of X and its label must be in the "
            "same partition at the same position. Take both from one frame (X = ddf[features]; y = ddf[label]), "
            "or align them: y = y.rechunk(X.chunks[0]) for arrays (X.to_dask_array(lengths=True) for a frame).")
    return parts_x, parts_y, names, is_frame


def _light_frame(part) -> pd.DataFrame:
    """A partition as the DataFrame ``_as_frame`` makes of it (string names, ``x{j}`` for others),
    without its checks (a checked partition, or an empty one, which ``_as_frame`` refuses)."""
    if isinstance(part, pd.DataFrame):
        df = part
        if not all(isinstance(c, str) for c in df.columns):
            df = df.set_axis([f"x{j}" for j in range(df.shape[1])], axis=1)
    else:
        arr = np.asarray(part)
        df = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])], copy=False)
        if arr.dtype.kind == "O":
            df = df.infer_objects()
    return _decode_arrow_dictionaries(df)


def _sorted_unique(xs: np.ndarray):
    """Distinct values of the sorted ``xs`` and their counts."""
    if xs.size == 0:
        return xs[:0], np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    return xs[starts], np.diff(np.r_[starts, xs.size]).astype(np.int64)


def _bracket(xs: np.ndarray, lo: float, hi: float, limit: int = GATHER_DISTINCT):
    """One partition's answer for the bracket ``[lo, hi]`` of a sorted column ``xs``: ``(values
    below lo, values inside, ("pairs", values, counts) | ("sketch", positions, values))``."""
    a = int(np.searchsorted(xs, lo, side="left"))
    b = int(np.searchsorted(xs, hi, side="right"))
    inside = xs[a:b]
    u, c = _sorted_unique(inside)
    if len(u) <= limit:
        return a, b - a, ("pairs", u, c)
    pos = np.unique(np.linspace(0, inside.size - 1, SKETCH_POINTS).astype(np.int64))
    return a, b - a, ("sketch", pos, inside[pos])


def _first_pass(x_part, y_part, limit):
    """What the client needs of one partition before anything else (module docstring, step 1)."""
    nx, ny = len(x_part), len(y_part)
    out = {"n_x": nx, "n_y": ny, "error": None, "columns": None, "labels": None}
    if nx != ny or nx == 0:
        return out
    try:
        frame = _as_frame(x_part, None)
        labels = _check_y(y_part, nx)
    except ValueError as e:
        out["error"] = str(e)
        return out
    u, c = np.unique(labels, return_counts=True)
    out["labels"] = (u, c.astype(np.int64))
    columns = []
    for name in frame.columns:
        s = frame[name]
        if _is_categorical(s):
            present = list(s.dropna().unique())
            cats = list(s.cat.categories) if isinstance(s.dtype, pd.CategoricalDtype) else None
            kinds = sorted({_cell_kind(v) for v in present}) if s.dtype == object else []
            columns.append(("categorical", str(name), present, cats, kinds))
        else:
            xs = np.sort(s.to_numpy(dtype=float))
            columns.append(("numeric", str(name), _bracket(xs, -np.inf, np.inf, limit)))
    out["columns"] = columns
    return out


def _bracket_pass(x_part, queries):
    """Answers of one partition to ``queries``: ``{column name: [(lo, hi), ...]}``."""
    if len(x_part) == 0:
        return {name: [(0, 0, ("pairs", np.empty(0), np.zeros(0, np.int64)))] * len(b) for name, b in queries.items()}
    frame = _light_frame(x_part)
    out = {}
    for name, brackets in queries.items():
        xs = np.sort(frame[name].to_numpy(dtype=float))
        out[name] = [_bracket(xs, lo, hi) for lo, hi in brackets]
    return out


def _global_rows(message: str, first: int) -> str:
    """An error of one partition with its row numbers made global (``row 3`` -> ``row first + 3``)."""
    return re.sub(r"\brow (\d+)", lambda m: f"row {first + int(m.group(1))}", message)


def first_pass(compute, parts_x, parts_y, n_cut_points: int):
    """``(partition lengths, first global indices, their statistics)``; raises the in-memory fit's
    errors (rows by global index). ``compute``: a list of delayed objects -> their values. A
    partition sends a numeric column's values with their counts when it has at most
    ``max(GATHER_DISTINCT, n_cut_points + 2)`` distinct ones: then whether the column has more
    than ``n_cut_points + 1`` distinct values (its number of cuts) is known."""
    import dask

    limit = max(GATHER_DISTINCT, n_cut_points + 2)
    stats = compute([dask.delayed(_first_pass)(x, y, limit) for x, y in zip(parts_x, parts_y)])
    nx = [s["n_x"] for s in stats]
    ny = [s["n_y"] for s in stats]
    if nx != ny:
        bad = next(i for i in range(len(nx)) if nx[i] != ny[i])
        raise ValueError(
            f"X and y are not aligned: partition {bad} has {nx[bad]} rows of X and {ny[bad]} labels (X's partition "
            f"lengths {_short_list(nx)}, y's {_short_list(ny)}). A row and its label must be in the same partition "
            "at the same position: take both from one frame (X = ddf[features]; y = ddf[label]), or rechunk y to "
            "X's lengths (y.rechunk(tuple(lengths)))."
        )
    lengths = np.asarray(nx, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    for s, first in zip(stats, starts):
        if s["error"] is not None:
            raise ValueError(_global_rows(s["error"], int(first)))
    return lengths, starts, stats


def _short_list(v, k=8):
    return str(list(v)) if len(v) <= k else str(list(v[:k]))[:-1] + f", ... ({len(v)} in all)]"


# ------------------------------------------------------------------------- order statistics
def _count_bounds(answer, v: np.ndarray):
    """For one partition's bracket answer: bounds on how many of its inside values are ``< v`` and
    ``<= v``, as ``(lt_low, lt_high, le_low, le_high)`` arrays over the probe values ``v``."""
    _, m, (kind, a, b) = answer
    if kind == "pairs":
        cum = np.concatenate([[0], np.cumsum(b)])
        lt = cum[np.searchsorted(a, v, side="left")]
        le = cum[np.searchsorted(a, v, side="right")]
        return lt, lt, le, le
    pos, vals = a, b
    ext = np.concatenate([pos, [m]])
    low = np.concatenate([[0], pos + 1])
    j1 = np.searchsorted(vals, v, side="left")
    j2 = np.searchsorted(vals, v, side="right")
    return low[j1], ext[j1], low[j2], ext[j2]


class _Merged:
    """The partitions' answers to one bracket, merged once for every rank asked of it."""

    def __init__(self, answers):
        self.below = int(sum(a[0] for a in answers))
        live = [a for a in answers if a[1] > 0]
        self.exact = all(a[2][0] == "pairs" for a in live)
        if self.exact:
            vals = np.concatenate([a[2][1] for a in live]) if live else np.empty(0)
            cnts = np.concatenate([a[2][2] for a in live]) if live else np.zeros(0, np.int64)
            order = np.argsort(vals, kind="stable")
            self.values, self.cum = vals[order], np.cumsum(cnts[order])
            return
        probes = np.unique(np.concatenate([a[2][2] if a[2][0] == "sketch" else a[2][1] for a in live]))
        self.probes = probes
        self.lt_high = np.zeros(len(probes), np.int64)  # at most this many inside values < probe
        self.le_low = np.zeros(len(probes), np.int64)  # at least this many <= probe
        for a in live:
            _, lt_hi, le_lo, _ = _count_bounds(a, probes)
            self.lt_high += lt_hi
            self.le_low += le_lo

    def resolve(self, rank: int):
        """``("value", v)`` for the value at global rank ``rank``, or ``("bracket", lo, hi)``, a
        narrower bracket that holds it."""
        r = rank - self.below
        if self.exact:
            return ("value", float(self.values[int(np.searchsorted(self.cum, r, side="right"))]))
        lo = self.probes[int(np.searchsorted(self.lt_high, r, side="right")) - 1]
        hi = self.probes[int(np.searchsorted(self.le_low, r + 1, side="left"))]
        if lo == hi:
            return ("value", float(lo))
        return ("bracket", float(lo), float(hi))


def _resolve(answers, rank: int):
    """:meth:`_Merged.resolve` of the partitions' ``answers`` to one bracket."""
    return _Merged(answers).resolve(rank)


def cut_positions(n: int, n_distinct: int, n_cut_points: int) -> np.ndarray:
    """The sorted positions ``pos`` whose values ``s[pos]`` and ``s[pos + 1]`` make the cuts of a
    column of ``n`` values with ``n_distinct > 2`` distinct ones (as :func:`candidate_cuts`)."""
    k = min(n_distinct - 1, n_cut_points)
    m = n - 1
    return np.linspace(0, m - 1, k + 2).astype(np.int64)[1:-1] if m > k else np.arange(m)


def _cuts_from(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Cuts from the order statistics at ``pos`` and ``pos + 1`` (as :func:`candidate_cuts`)."""
    cuts = (left + right) / 2.0
    tied = left == right
    cuts[tied] = np.nextafter(left[tied], np.inf)
    return cuts


def fit_encoder(compute, parts_x, stats, n_cut_points: int, is_frame: bool, progress=None) -> FeatureEncoder:
    """The :class:`FeatureEncoder` that ``FeatureEncoder(n_cut_points).fit`` gives on the whole
    table, from the partitions' statistics (:func:`first_pass`) and, for the order statistics,
    bracket passes. ``compute``: a list of delayed objects -> their values."""
    import dask

    live = [s for s in stats if s["columns"] is not None]
    names = [c[1] for c in live[0]["columns"]]
    kinds = {c[1]: c[0] for c in live[0]["columns"]}
    for s in live[1:]:
        for c in s["columns"]:
            if kinds[c[1]] != c[0]:
                raise ValueError(f"Column '{c[1]}' is numeric in some partitions and categorical in others; give it "
                                 "one type in every partition (e.g. ddf[col].astype(float) or .astype(str)).")
    n = sum(s["n_x"] for s in stats)
    enc = FeatureEncoder(n_cut_points=n_cut_points)
    enc.input_columns_ = list(names)
    enc.from_dataframe_ = bool(is_frame)
    numeric = {}  # name -> (n_distinct, pass-1 answers)
    for j, name in enumerate(names):
        cols = [s["columns"][j] for s in live]
        if kinds[name] == "numeric":
            answers = [c[2] for c in cols]
            if all(a[2][0] == "pairs" for a in answers):
                n_distinct = len(np.unique(np.concatenate([a[2][1] for a in answers])))
            else:
                n_distinct = max(GATHER_DISTINCT, n_cut_points + 2) + 1  # more than n_cut_points + 1
            numeric[name] = (n_distinct, answers)
    # the order statistics every numeric column needs
    wanted = {}  # name -> sorted ranks
    for name, (n_distinct, _) in numeric.items():
        if n_distinct > 2:
            pos = cut_positions(n, n_distinct, n_cut_points)
            wanted[name] = np.unique(np.concatenate([pos, pos + 1]))
    values = {name: {} for name in wanted}
    open_ = {}  # (name, rank) -> (lo, hi)
    for name, ranks in wanted.items():
        merged = _Merged(numeric[name][1])
        for r in ranks:
            res = merged.resolve(int(r))
            if res[0] == "value":
                values[name][int(r)] = res[1]
            else:
                open_[(name, int(r))] = res[1:]
    passes = 0
    while open_:
        passes += 1
        if passes > MAX_BRACKET_PASSES:
            raise RuntimeError(f"The cut points' order statistics did not settle in {MAX_BRACKET_PASSES} passes; "
                               "this is a bug in turs.dask.")
        keys = sorted(open_)
        queries = {}  # per column its distinct brackets (ranks pos and pos + 1 often share one)
        for name, r in keys:
            if open_[(name, r)] not in queries.setdefault(name, []):
                queries[name].append(open_[(name, r)])
        answers = compute([dask.delayed(_bracket_pass)(x, queries) for x in parts_x])
        merged = {}
        nxt = {}
        for name, r in keys:
            i = queries[name].index(open_[(name, r)])
            if (name, i) not in merged:
                merged[(name, i)] = _Merged([a[name][i] for a in answers])
            res = merged[(name, i)].resolve(r)
            if res[0] == "value":
                values[name][r] = res[1]
            else:
                nxt[(name, r)] = res[1:]
        open_ = nxt
        if progress is not None:
            progress(passes, len(open_))
    binary = []
    for j, name in enumerate(names):
        cols = [s["columns"][j] for s in live]
        if kinds[name] == "categorical":
            levels = _union_levels(name, cols)
            enc.categorical_levels_[name] = levels
            use = levels[1:] if len(levels) == 2 else levels
            for lev in use:
                enc.columns_.append(EncodedColumn(f"{name}={lev}", name, "onehot", lev, (0.5,)))
                binary.append(True)
            continue
        n_distinct, answers = numeric[name]
        if n_distinct <= 1:
            cuts = np.empty(0)
        elif n_distinct == 2:
            lo = min(float(a[2][1][0]) for a in answers if a[1])
            hi = max(float(a[2][1][-1]) for a in answers if a[1])
            cuts = np.array([(lo + hi) / 2.0])
        else:
            pos = cut_positions(n, n_distinct, n_cut_points)
            left = np.array([values[name][int(p)] for p in pos])
            right = np.array([values[name][int(p) + 1] for p in pos])
            cuts = _cuts_from(left, right)
        enc.columns_.append(EncodedColumn(name, name, "numeric", None, tuple(cuts)))
        binary.append(n_distinct == 2)
    enc.binary_ = np.array(binary, dtype=bool)
    return enc


def _union_levels(name: str, cols) -> list:
    """A categorical column's levels over all partitions (as ``encoding._levels`` on the whole column)."""
    kinds = sorted({k for c in cols for k in c[4]})
    if len(kinds) > 1:
        raise ValueError(f"Column '{name}' mixes {kinds[0]} and {kinds[1]} values across partitions; each value of it "
                         f"must be of one kind. Convert it to one type: X['{name}'] = X['{name}'].astype(str).")
    present = []
    seen = set()
    for c in cols:
        for v in c[2]:
            if v not in seen:
                seen.add(v)
                present.append(v)
    cats = [c[3] for c in cols]
    if cats[0] is not None:
        order = cats[0]
        if any(c != order for c in cats[1:]):  # unknown categories: the sorted union
            order = sorted(seen, key=_sort_key(seen))
        return [lv for lv in order if lv in seen]
    if not present:
        raise ValueError(f"Column '{name}' has no values; drop it or check the input.")
    return sorted(present, key=_sort_key(seen))


def _sort_key(values):
    try:
        sorted(values)
        return None
    except TypeError:
        return str


# ------------------------------------------------------------------------------ bins, digits
class _Part:
    """One partition as a worker keeps it: its rows as a :class:`LocalRows` (the (d, m) uint8 bins,
    class codes, overlap group ids, first global index), ``version`` the number of rules
    added to its groups, and ``below``: per numeric column, per threshold asked for, how many of
    its values lie below it (for the print digits of the cut points; small)."""

    def __init__(self, rows, first, below):
        self.rows, self.first, self.below, self.version = rows, int(first), below, 0
        self.lock = threading.Lock()

    @property
    def m(self) -> int:
        return self.rows.n

    def __getstate__(self):
        # a copy (Dask moving or spilling the partition) never sees groups half moved by a
        # rule, and its version is that of its groups; the covers' cache stays behind
        with self.lock:
            rows = copy.copy(self.rows)
            rows.group_ids = self.rows.group_ids.copy()
            rows._cache, rows._cache_bytes = {}, 0
            return {"rows": rows, "first": self.first, "below": self.below, "version": self.version}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.lock = threading.Lock()


def _bin_partition(x_part, y_part, first, encoder, classes, thresholds):
    from .search.row_store import LocalRows

    frame = _light_frame(x_part)
    m = len(frame)
    d = len(encoder.columns_)
    bins = encoder.bins_of(frame) if m else np.zeros((d, 0), np.uint8)
    y = np.searchsorted(classes, np.asarray(y_part).ravel()).astype(np.int64)
    below = {}
    for j, t in thresholds.items():
        xs = np.sort(encoder.column(frame, j)) if m else np.empty(0)
        below[j] = np.searchsorted(xs, t, side="left")
    del frame, x_part  # the floats go; the bins stay
    rows = LocalRows(bins, y, encoder.n_bins_, encoder.binary_, len(classes), first_row=int(first))
    return _Part(rows, first, below)


def _digits_queries(encoder):
    """Per numeric column, the thresholds whose counts below decide the print digits of its cuts
    (:func:`turs.rules.print_digits`: the cut and each bound printed with 6 to 17 digits, read back)."""
    out = {}
    for j, col in enumerate(encoder.columns_):
        if col.kind != "numeric" or not col.cuts:
            continue
        ts = []
        for c in sorted(set(float(v) for v in col.cuts)):
            op, value = _exact_bound(float(c), ">=", ">")
            ts.append(c)
            ts.extend(cut_of_bound(op, float(_fmt(value, digits))) for digits in range(PRINT_DIGITS, 18))
        out[j] = np.asarray(ts, dtype=float)
    return out


def _digits_table(encoder, queries, belows) -> dict:
    """``print_digits_table(encoder, all rows)`` from the partitions' counts below the thresholds."""
    out = {}
    per = 18 - PRINT_DIGITS + 1
    for j, ts in queries.items():
        total = sum(b[j] for b in belows).reshape(-1, per)  # only the equality of counts matters:
        # a partition's count differs iff a value lies between the two thresholds, so the sums
        # are equal iff every partition's are
        differs = np.zeros((total.shape[0], per - 1), dtype=bool)
        for b in belows:
            bb = b[j].reshape(-1, per)
            differs |= bb[:, 1:] != bb[:, :1]
        cuts = ts.reshape(-1, per)[:, 0]
        for c, row in zip(cuts, differs):
            ok = np.flatnonzero(~row)
            digits = PRINT_DIGITS + int(ok[0]) if len(ok) else 17
            if digits != PRINT_DIGITS:
                out[(j, float(c))] = digits
    return out


def _part_below(part: _Part):
    return part.below


# ------------------------------------------------------------------------------------ sample
def _smallest_keys(part: _Part, quota, seed: int):
    from .search.sample_keys import partition_smallest

    return partition_smallest(part.rows.y, part.first + np.arange(part.m, dtype=np.int64), quota, seed)


def _take(part: _Part, rows: np.ndarray):
    """The bins and class codes of the sorted global ``rows`` that lie in ``part``."""
    a, b = np.searchsorted(rows, [part.first, part.first + part.m])
    local = rows[a:b] - part.first
    return part.rows.bins[:, local], part.rows.y[local]


def _each(client, func, parts, *args, where=None) -> list:
    """``func(part, *args)`` for every partition's future; the answers in order. ``where``: per
    partition the worker to run it on when it can (where its groups were last moved: a copy
    of a partition on another worker is behind, and would replay the rules). One task per
    partition, positional arguments: ``client.map`` with keyword arrays named the same in two
    calls trips the scheduler."""
    return client.gather([client.submit(func, part, *args, pure=False, **_near(None if where is None else where[i]))
                          for i, part in enumerate(parts)])


def _near(worker) -> dict:
    """``client.submit`` keywords: run on ``worker`` if it can, else anywhere."""
    return {} if worker is None else {"workers": [worker], "allow_other_workers": True}


def gather_sample(client, parts, class_counts, size: int, seed: int = 0, where=None):
    """``(rows, bins, y)``: the first ``size`` rows of the hash order (``sample_keys``), rows sorted."""
    from .search.sample_keys import class_quota, merge_prefix

    size = min(int(size), int(np.sum(class_counts)))
    quota = class_quota(class_counts, size)
    smallest = _each(client, _smallest_keys, parts, quota, seed, where=where)
    rows = np.sort(merge_prefix(smallest, class_counts, size))
    taken = _each(client, _take, parts, rows, where=where)
    bins = np.ascontiguousarray(np.concatenate([t[0] for t in taken], axis=1)).astype(np.uint8, copy=False)
    y = np.concatenate([t[1] for t in taken]).astype(np.int64)
    return rows, bins, y


# ---------------------------------------------------------------------------------- the store
class _Stale:
    """A partition's answer when its groups are behind the client's (a worker lost it and Dask
    made it again from the input, or a copy of it was made on another worker)."""

    def __init__(self, version: int):
        self.version = version


def _summary(part: _Part):
    r = part.rows
    return r.n, r.class_counts, r.bin_min, r.bin_max


def _ask(part: _Part, version: int, method: str, args: tuple, replay):
    """``part.rows.<method>(*args)`` on a partition whose groups are at ``version`` rules; a
    partition behind replays ``replay = (from version, [add_rule arguments, ...])`` first, or
    answers :class:`_Stale` when it has none that fits."""
    with part.lock:
        if part.version != version:
            if replay is None or replay[0] != part.version:
                return _Stale(part.version)
            for step in replay[1]:
                part.rows.add_rule(*step)
                part.version += 1
        if method == "add_rule":
            part.rows.add_rule(*args)
            part.version += 1
            return None
        return getattr(part.rows, method)(*args)


class DaskRows(RowStore):
    """A :class:`~turs.search.row_store.RowStore` over partitions held by Dask workers (each a
    ``LocalRows``): a call runs the same method on every partition and the client sums the
    counts and takes the min/max of the extremes, exact in any order. The groups' history
    (the rules added) stays on the client, so a partition made again after a worker was lost
    replays it before answering."""

    def __init__(self, client, parts, n_bins, binary, n_classes: int):
        self.client, self.parts = client, list(parts)
        self.n_bins = np.asarray(n_bins, dtype=np.int64)
        self.binary = np.asarray(binary, dtype=bool)
        self.d, self.n_classes = len(self.n_bins), int(n_classes)
        summaries = _each(client, _summary, self.parts)
        who = client.who_has(self.parts)
        self.where = [sorted(who.get(f.key, ()))[0] if who.get(f.key) else None for f in self.parts]
        sizes = np.array([s[0] for s in summaries], dtype=np.int64)
        self.n = int(sizes.sum())
        self.class_counts = np.sum([s[1] for s in summaries], axis=0).astype(np.int64)
        live = [s for s in summaries if s[0] > 0]
        self.bin_min = (np.min([s[2] for s in live], axis=0) if live else np.zeros(self.d)).astype(np.int64)
        self.bin_max = (np.max([s[3] for s in live], axis=0) if live else np.zeros(self.d)).astype(np.int64)
        self.version, self.history = 0, []
        self.replays = 0  # partitions that replayed the rules after Dask made them again

    def _call(self, method: str, *args) -> list:
        client = self.client
        out = _each(client, _ask, self.parts, self.version, method, args, None, where=self.where)
        for _ in range(3):
            if method == "add_rule":  # a partition one rule ahead added it before its answer was lost
                out = [None if isinstance(r, _Stale) and r.version == self.version + 1 else r for r in out]
            stale = [i for i, r in enumerate(out) if isinstance(r, _Stale)]
            if not stale:
                return out
            self.replays += len(stale)
            log.info("%d partitions made again by Dask replay the %d rules added", len(stale), self.version)
            again = [client.submit(_ask, self.parts[i], self.version, method, args,
                                   (out[i].version, self.history[out[i].version:]), pure=False,
                                   **_near(self.where[i])) for i in stale]
            for i, r in zip(stale, client.gather(again)):
                out[i] = r
        raise RuntimeError("Partitions of the Dask row store stayed behind the fit's rule set after replays; "
                           "the workers are losing data faster than the fit can replay it.")

    def sample(self, size: int, seed: int = 0):
        return gather_sample(self.client, self.parts, self.class_counts, size, seed, where=self.where)

    def candidate_counts(self, candidates, n_groups: int) -> list:
        candidates = [tuple(tuple(int(v) for v in lit) for lit in c) for c in candidates]
        answers = self._call("candidate_counts", candidates, int(n_groups))
        out = []
        C = self.n_classes
        for q, lits in enumerate(candidates):
            parts = [a[q] for a in answers]
            coverage = int(sum(p.coverage for p in parts))
            ext = np.stack([p.extremes for p in parts]) if parts else np.full((0, len(lits), 2), -1)
            reached = ext[:, :, 1] >= 0
            lo = np.where(reached, ext[:, :, 0], np.iinfo(np.int64).max).min(axis=0) if parts else None
            hi = np.where(reached, ext[:, :, 1], -1).max(axis=0) if parts else None
            extremes = np.full((len(lits), 2), -1, dtype=np.int64)
            any_row = reached.any(axis=0) if parts else np.zeros(len(lits), bool)
            extremes[any_row, 0] = lo[any_row]
            extremes[any_row, 1] = hi[any_row]
            present_all = np.concatenate([p.present for p in parts]) if parts else np.zeros(0, np.int64)
            present, inv = np.unique(present_all, return_inverse=True)
            in_group = np.zeros((len(present), C), dtype=np.int64)
            if len(present_all):
                np.add.at(in_group, inv, np.concatenate([p.in_group for p in parts]))
            outside = np.sum([p.outside for p in parts], axis=0).astype(np.int64) if parts else np.zeros(C, np.int64)
            out.append(CandidateCounts(coverage, extremes, present.astype(np.int64), in_group, outside))
        return out

    def add_rule(self, literals, new_group, renumber) -> None:
        step = (tuple(tuple(int(v) for v in lit) for lit in literals), np.asarray(new_group, dtype=np.int32),
                None if renumber is None else np.asarray(renumber, dtype=np.int32))
        self._call("add_rule", *step)
        self.history.append(step)
        self.version += 1

    def close(self) -> None:
        """Drop the partitions (the workers free them; no round trip, so that it also works
        while a Ctrl-C unwinds the fit)."""
        parts, self.parts = self.parts, []
        if parts:
            self.client.cancel(parts)


# --------------------------------------------------------------------------------- estimator
_FITTED_SKIP = ("_train_rows_", "_y_train_", "_train_covers_", "_n_train_")


class DaskTURSClassifier(TURSClassifier):
    """:class:`turs.TURSClassifier` fitted from Dask collections on the active ``distributed``
    Client (module docstring); the same parameters, the same model.

    ``fit(X, y)``: ``X`` a dask DataFrame or dask Array (rows in partitions), ``y`` a dask Series
    or Array with the same partitions. ``predict_proba`` / ``predict`` on a dask collection
    return dask arrays computed partition by partition (on anything else, numpy, as the plain
    model). ``to_local()``: the plain model.
    """

    def fit(self, X, y, initial_rules=None):
        if initial_rules is not None:
            raise ValueError("DaskTURSClassifier.fit takes no initial_rules (their thresholds need the rows in one "
                             "process); fit TURSClassifier(...).fit(X.compute(), y.compute(), initial_rules=...).")
        snapshot = dict(self.__dict__)
        try:
            self._validate_params()
            local = _fit(self, X, y)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            raise
        params = self.get_params(deep=False)
        for k in list(self.__dict__):
            if k.endswith("_") and k not in params:
                del self.__dict__[k]
        self.__dict__.update({k: v for k, v in local.__dict__.items()
                              if k.endswith("_") and k not in params and k not in _FITTED_SKIP})
        return self

    def to_local(self) -> TURSClassifier:
        """A plain :class:`turs.TURSClassifier` with this model (as one loaded from a model file: the
        rules, counts, MDL breakdown and trace; no training rows)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "rules_")
        local = TURSClassifier(**self.get_params(deep=False))
        params = self.get_params(deep=False)
        local.__dict__.update(copy.deepcopy({k: v for k, v in self.__dict__.items()
                                             if k.endswith("_") and k not in params}))
        return local

    def predict_proba(self, X, overlap="union", random_state=None):
        """Class probabilities: a dask array (rows x classes) for a dask collection, partition by
        partition with the plain model; numpy for anything else."""
        if not _is_dask(X):
            return super().predict_proba(X, overlap=overlap, random_state=random_state)
        local = self.to_local()
        n_classes = len(self.classes_)
        return _map_rows(X, _proba_part, (local, overlap, random_state), n_classes)

    def predict(self, X):
        if not _is_dask(X):
            return super().predict(X)
        proba = self.predict_proba(X)
        classes = self.classes_
        return proba.map_blocks(_argmax_part, classes, drop_axis=1, dtype=classes.dtype)


def _is_dask(X) -> bool:
    return type(X).__module__.split(".")[0] in ("dask", "dask_expr")


def _proba_part(part, local, overlap, random_state):
    if len(part) == 0:
        return np.zeros((0, len(local.classes_)))
    return local.predict_proba(part, overlap=overlap, random_state=random_state)


def _argmax_part(proba, classes):
    return classes[np.argmax(proba, axis=1)] if len(proba) else classes[:0]


def _map_rows(X, func, args, width):
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        return X.map_partitions(func, *args, meta=np.empty((0, width)))
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional (rows x features); got a dask array of shape {X.shape}.")
        X = X.rechunk({1: -1})
        return X.map_blocks(func, *args, chunks=(X.chunks[0], (width,)), dtype=float)
    raise TypeError(f"X must be a dask DataFrame or a dask Array; got {type(X).__name__}.")


def _fit(model, X, y) -> TURSClassifier:
    """The fitted plain model (its fields are copied into ``model``)."""
    import dask

    client = _client()
    check_workers(client)
    parts_x, parts_y, names, is_frame = _partitions(X, y)
    def compute(tasks):
        return client.gather(client.compute(tasks))

    t0 = time.perf_counter()
    lengths, starts, stats = first_pass(compute, parts_x, parts_y, model.n_cut_points)
    n = int(lengths.sum())
    log.info("first pass: %d rows in %d partitions, %.1f s", n, len(lengths), time.perf_counter() - t0)
    if n == 0:
        _as_frame(pd.DataFrame(columns=names) if names is not None else np.empty((0, X.shape[1])), None)  # its error
    labels = [s["labels"] for s in stats if s["labels"] is not None]
    classes = np.unique(np.concatenate([lab[0] for lab in labels]))
    class_counts = np.zeros(len(classes), np.int64)
    for u, c in labels:
        class_counts[np.searchsorted(classes, u)] += c
    if len(classes) < 2:
        raise ValueError(
            f"y has only one class ({json_label(classes[0])!r}); TURSClassifier needs at "
            "least 2 classes to learn rules. Check the labels."
        )
    params = model.get_params(deep=False)
    from .search.sampled import uses_sample

    if not uses_sample(n, model.exact):
        if n > _config.SAMPLED_MIN_ROWS:
            raise ValueError(f"exact=True searches on all {n} rows in one process, which a Dask fit does not do; "
                             "leave exact=False (the sampled search, confirmed on all rows), or fit "
                             "TURSClassifier(exact=True) on X.compute(), y.compute().")
        # a table one machine fits exactly (no sample): gathered and fitted here (small)
        Xc, yc = dask.compute(X, y)
        local = TURSClassifier(**params).fit(Xc, np.asarray(yc))
        return local
    t0 = time.perf_counter()
    encoder = fit_encoder(compute, parts_x, stats, model.n_cut_points, is_frame,
                          progress=lambda k, left: log.info("order statistics: pass %d, %d left", k, left))
    log.info("encoder: %.1f s", time.perf_counter() - t0)
    t0 = time.perf_counter()
    queries = _digits_queries(encoder)
    parts = client.compute([dask.delayed(_bin_partition)(x, yp, int(first), encoder, classes, queries)
                            for x, yp, first in zip(parts_x, parts_y, starts)])
    try:
        belows = _each(client, _part_below, parts)
        digits = _digits_table(encoder, queries, belows)
        store = DaskRows(client, parts, encoder.n_bins_, encoder.binary_, len(classes))
    except BaseException:  # Ctrl-C or an error: the workers drop the bins
        client.cancel(parts)
        raise
    log.info("bins on the workers: %.1f s", time.perf_counter() - t0)
    named = is_frame and all(isinstance(c, str) for c in names)
    from .learn import fit_from_store

    local = TURSClassifier(**params)
    try:
        # the search runs here, on the sample, with the kernels a fit of this size uses
        with kernels_for_fit(n * len(encoder.columns_)) as kernels, compile_bar(kernels.compiling and model.verbose):
            fit_from_store(local, encoder, classes, store, feature_names=names if named else None, digits=digits)
    finally:
        store.close()
    return local
