"""What the client learns of a table in partitions before the fit: the workers' ``turs``, the
partitions' lengths (a row's global index is its partition's first index plus its position),
the input checks of a plain fit (errors name rows by global index), and the
:class:`~turs.encoding.FeatureEncoder` that ``FeatureEncoder.fit`` gives on the whole table.

The encoder's cut points are mid-points of exact order statistics at ranks known from ``n``
(:func:`turs.encoding.candidate_cuts`). Each is found by brackets that narrow with each pass: per
partition, how many of its values lie below the bracket and, inside it, its values with their
counts when few, else a sketch of its sorted values (``SKETCH_POINTS`` evenly spaced order
statistics, with their positions). From the sketches the client bounds how many values lie
below any probe, and keeps the narrowest bracket sure to hold the rank; exact, whatever the
partitioning (dask's own quantile is approximate). Categorical levels are the sorted union of
the partitions' levels.
"""
from __future__ import annotations

import logging
import re

import numpy as np
import pandas as pd

from .._validation import _as_frame, _cell_kind, _check_y, _decode_arrow_dictionaries
from ..encoding import EncodedColumn, FeatureEncoder, _is_categorical

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


def _worker_cache_ready() -> bool:
    """Whether the compile cache of the process it runs in holds every kernel of this turs."""
    from turs._compile import cache_is_ready

    return cache_is_ready()


def _worker_warmup() -> float:
    import turs

    return turs.warmup()


#: Seconds a worker's first compile of every kernel takes on this project's 2-core machine
#: (``turs.warmup()`` on an empty cache: 97-106 s of CPU); the bar's estimate, not a limit.
WORKER_COMPILE_S = 120


def warm_workers(client, verbose: bool, ready=_worker_cache_ready, warm=_worker_warmup) -> list:
    """Workers whose compile cache lacks the kernels compile them now, once, before any pass
    over the rows (each would otherwise compile inside its first task, and the fit would wait
    on it without a word): one ``turs.CompileWarning`` names them and the way to do it ahead;
    ``verbose`` shows a bar of the elapsed time against the usual compile time. Returns the
    workers that compiled."""
    import threading
    import warnings

    from .._compile import FIRST_COMPILE, CompileWarning

    found = client.run(ready)
    cold = sorted(w for w, ok in found.items() if not ok)
    if not cold:
        return []
    warnings.warn(f"turs: {len(cold)} of {len(found)} Dask workers have no compiled turs kernels in their cache "
                  f"({', '.join(cold)}); they compile them now, {FIRST_COMPILE} once, before the fit. To do it "
                  "ahead: client.run(turs.warmup); workers that share a NUMBA_CACHE_DIR folder compile once "
                  "for all.", CompileWarning, stacklevel=4)
    done = threading.Event()
    ticker = None
    if verbose:
        from tqdm.auto import tqdm

        bar = tqdm(total=WORKER_COMPILE_S, desc="compiling turs kernels on the workers (usual time)", unit="s")

        def tick():
            while not done.wait(1.0):
                if bar.n < bar.total - 1:
                    bar.update(1)

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
    try:
        client.run(warm, workers=cold)
    finally:
        done.set()
        if ticker is not None:
            ticker.join()
            bar.close()
    log.info("workers compiled the kernels: %s", ", ".join(cold))
    return cold


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


def _bracket(xs: np.ndarray, lo: float, hi: float, limit: int | None = None):
    """One partition's answer for the bracket ``[lo, hi]`` of a sorted column ``xs``: ``(values
    below lo, values inside, ("pairs", values, counts) | ("sketch", values, below, at most))``.
    A sketch holds some of the distinct values inside, each with the exact number of inside
    values below it and at most it: those at evenly spaced positions of the sorted values and
    at evenly spaced ranks among the distinct ones (so that a value repeated many times is one
    point, and the values beside it are sampled too)."""
    limit = GATHER_DISTINCT if limit is None else limit
    a = int(np.searchsorted(xs, lo, side="left"))
    b = int(np.searchsorted(xs, hi, side="right"))
    inside = xs[a:b]
    u, c = _sorted_unique(inside)
    if len(u) <= limit:
        return a, b - a, ("pairs", u, c)
    cum = np.concatenate([[0], np.cumsum(c)])
    by_rows = np.searchsorted(u, inside[np.linspace(0, inside.size - 1, SKETCH_POINTS).astype(np.int64)])
    by_values = np.linspace(0, len(u) - 1, SKETCH_POINTS).astype(np.int64)
    k = np.union1d(by_rows, by_values)
    return a, b - a, ("sketch", u[k], cum[k], cum[k + 1])


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
    _, m, (kind, vals, *rest) = answer
    if kind == "pairs":
        cum = np.concatenate([[0], np.cumsum(rest[0])])
        lt = cum[np.searchsorted(vals, v, side="left")]
        le = cum[np.searchsorted(vals, v, side="right")]
        return lt, lt, le, le
    below, upto = rest  # per sampled value: inside values < it, <= it (exact)
    low = np.concatenate([[0], upto])  # at least: those <= the sampled value just under
    high = np.concatenate([below, [m]])  # at most: those < the sampled value just over
    j1 = np.searchsorted(vals, v, side="left")
    j2 = np.searchsorted(vals, v, side="right")
    return low[j1], high[j1], low[j2], high[j2]


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
        probes = np.unique(np.concatenate([a[2][1] for a in live]))
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
