"""What a search page carries: the recorded trace, the texts that explain it, the data picture's
rows and the final rule set's overlap patterns, as one JSON-ready dict (no HTML here).

The trace goes in whole (``SearchTrace.to_dict()``, every recorded number); the explanations are
those of the app (``turs.explorer._explain``), computed once here so that the player only shows
them. The data picture's rows are the user's columns (numeric values, or the index of a
categorical level) of every training row, a fixed seeded sample of them, or none
(``points``); the page says which. Covers, counts and the union estimates use every training
row, whatever the picture carries.
"""
from __future__ import annotations

import math

import numpy as np

from ...union_estimate import union_counts
from .. import _explain
from .._data import DRAW_SEED, DataView, cover_patterns, overlap_summary
from .._view import TraceView

POINTS = ("all", "sample", "none")
#: ``max_points`` when not given: every row up to this many for ``points="all"``, a sample of
#: this many for ``points="sample"``.
DEFAULT_MAX_POINTS = {"all": 5000, "sample": 500, "none": 0}
PAGE_FORMAT = "turs-page/1"


def check_points(points, max_points):
    """``(points, max_points)`` checked, ``max_points`` filled in from :data:`DEFAULT_MAX_POINTS`."""
    if points not in POINTS:
        raise ValueError(f"points must be one of {list(POINTS)}. Got {points!r} instead: 'all' embeds every "
                         "training row (thinned past max_points), 'sample' a seeded sample, 'none' no rows.")
    if max_points is None:
        max_points = DEFAULT_MAX_POINTS[points]
    if isinstance(max_points, bool) or not isinstance(max_points, (int, np.integer)) or max_points < 1:
        if points != "none":
            raise ValueError(f"max_points must be an int >= 1. Got {max_points!r} instead.")
    return points, int(max_points)


def json_safe(v):
    """``v`` with NaN and infinities as None and numpy scalars as Python numbers (strict JSON)."""
    if isinstance(v, dict):
        return {str(k): json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_safe(x) for x in v]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    if v is None or isinstance(v, str):
        return v
    return str(v)


def _explanations(trace) -> dict:
    """Why each search chose its rule, its lineage and stop reason, in the app's words."""
    searches = []
    for k, s in enumerate(trace.searches):
        why = _explain.why_rule(s)
        lineage = []
        for row in _explain.lineage_rows(trace, k):
            loser = row.pop("loser")
            row["loser_id"] = None if loser is None else loser.get("id")
            row["loser_conditions"] = None if loser is None else _explain.conditions_text(loser)
            row["loser_r"] = None if loser is None else loser.get("r")
            lineage.append(row)
        searches.append({"why": {"parts": why["parts"], "sentences": why["sentences"]},
                         "stop_text": _explain.search_stop_text(s), "lineage": lineage})
    return {"searches": searches, "fit_stop_text": _explain.fit_stop_text(trace)}


def _columns(dv: DataView, view: TraceView) -> tuple[list, list]:
    """The user's columns (name, kind, levels, drawn range, jitter gap) and, per encoded column,
    which user column and level it reads."""
    cols = []
    for c in dv.columns:
        d = {"name": str(c), "kind": dv.kinds[c], "range": list(dv.axis_range(c))}
        if dv.kinds[c] == "categorical":
            d["levels"] = [str(v) for v in dv.levels[c]]
        else:
            d["gap"] = dv._gap[c]
        cols.append(d)
    index = {c: i for i, c in enumerate(dv.columns)}
    encoded = []
    for j, (source, level) in enumerate(dv.encoded):
        i = index.get(source)
        lev = None
        if level is not None and i is not None and dv.kinds[source] == "categorical":
            levels = [str(v) for v in dv.levels[source]]
            lev = levels.index(str(level)) if str(level) in levels else -1
        encoded.append({"column": i, "level": lev, "name": view.feature_names[j]})
    return cols, encoded


def _rows(dv: DataView, y_codes, points: str, max_points: int) -> dict:
    """The rows the picture draws: values per user column (category: level index), class codes,
    and the note that says which rows the page carries."""
    n = dv.n
    if points == "none":
        rows = np.arange(0)
        note = (f"This page carries no training rows (points='none'): the picture shows the rules' "
                f"regions only. Counts, covers and estimates are those of all {n:,} training rows.")
    elif points == "sample" or n > max_points:
        size = min(max_points, n)
        rows = np.sort(np.random.default_rng(DRAW_SEED).choice(n, size=size, replace=False))
        why = "points='sample'" if points == "sample" else f"at most max_points={max_points:,} are embedded"
        note = (f"This page carries {size:,} of the {n:,} training rows (a fixed random sample; {why}). "
                "Counts, covers and estimates in the tables use every training row.")
    else:
        rows = np.arange(n)
        note = f"This page carries all {n:,} training rows."
    values = []
    for c in dv.columns:
        if dv.kinds[c] == "categorical":
            values.append(dv.level_codes(c)[rows].astype(int).tolist())
        else:
            x = dv.df[c].to_numpy(dtype=float)[rows]
            values.append([float(v) if math.isfinite(v) else None for v in x])
    return {"mode": points, "n_train": int(n), "n_shown": int(len(rows)), "note": note,
            "class": np.asarray(y_codes)[rows].astype(int).tolist(), "values": values, "rows": rows}


def _given(view: TraceView) -> list:
    """The rules the fit started from, with exact literals ``[j, low, high]`` (None: open side)."""
    out = []
    for g in view.given:
        lits = []
        for lit in g["literals"]:
            low, high = lit.interval()
            lits.append([int(lit[0]), low if math.isfinite(low) else None, high if math.isfinite(high) else None])
        out.append({"id": g["id"], "conditions": g["conditions"], "exact_literals": lits,
                    "coverage": g["coverage"], "class_counts": g["class_counts"]})
    return out


def _final(model, view: TraceView) -> tuple[dict, np.ndarray | None]:
    """The fitted rule set as the estimator prints it, each overlap pattern's union estimate
    (Eq. 3.5) on every training row, and what "why this prediction" adds up: per pattern the
    class counts of the union of its rules' covers (``union``), per rule the class counts of its
    cover (``rule_counts``). Also returns each training row's pattern (index into ``patterns``),
    or None without the training covers."""
    K = len(model.rules_)
    out = {"text": str(model), "rules": [str(r) for r in model.rules_], "patterns": [], "overlap": None,
           "rule_counts": []}
    got = view._training_covers(K)
    if got is None:
        return out, None
    covers, y = got
    C = len(view.classes)
    patterns = cover_patterns(covers, y, C)
    masks = np.zeros((len(patterns), K), dtype=bool)
    for p, rules in enumerate(patterns["pattern"]):
        masks[p, list(rules)] = True
    exact = np.zeros((len(patterns), C), dtype=np.int64)
    for p, c in enumerate(patterns["counts"]):
        exact[p] = c
    union = union_counts(masks, masks, exact)
    empty = ~masks.any(axis=1)
    union[empty] = exact[empty]  # the rows no rule covers: the else-rule's own counts
    out["rule_counts"] = union_counts(np.eye(K, dtype=bool), masks, exact).astype(int).tolist() if K else []
    out["patterns"] = [{"pattern": list(p), "n": int(n), "counts": c, "proba": pr, "union": union[i].astype(int).tolist()}
                       for i, (p, n, c, pr) in enumerate(patterns.itertuples(index=False))]
    out["overlap"] = overlap_summary(covers)
    index = {tuple(p): i for i, p in enumerate(patterns["pattern"])}
    row_pattern = np.array([index[tuple(np.flatnonzero(r))] for r in covers], dtype=int) if len(covers) else np.zeros(0, int)
    return out, row_pattern


def build_payload(model, X, y, *, points: str, max_points: int, title: str) -> dict:
    """Everything the page shows, JSON-ready (see the module docstring)."""
    trace = getattr(model, "trace_", None)
    if trace is None:
        raise ValueError("The model has no recorded search (trace_ is None). Fit it with "
                         "TURSClassifier(record_trace=True) (or 'compact'), then call search_page again.")
    if (X is None) != (y is None):
        raise ValueError(f"Pass both X and y (the training data) or neither; got only {'X' if y is None else 'y'}.")
    view = TraceView(trace, model, X, y)
    final, row_pattern = _final(model, view)
    payload = {"format": PAGE_FORMAT, "title": title, "trace": trace.to_dict(), "explain": _explanations(view.trace),
               "classes": [str(c) for c in trace.classes], "given": _given(view), "final": None,
               "columns": None, "encoded": None, "points": None, "left_out": []}
    payload["final"] = final
    if X is not None:
        dv = DataView(view, X)
        payload["columns"], payload["encoded"] = _columns(dv, view)
        payload["points"] = _rows(dv, view.y_codes, points, max_points)
        rows = payload["points"].pop("rows")
        # each drawn row's overlap pattern: why it gets its prediction, without recomputing covers
        payload["points"]["pattern"] = [] if row_pattern is None else row_pattern[rows].tolist()
    else:
        payload["points"] = {"mode": "none", "n_train": int(trace.n_train), "n_shown": 0, "class": [], "values": [], "pattern": [],
                             "note": "This page was written without the training data: no picture of the rows."}
    if payload["points"]["n_shown"] < payload["points"]["n_train"]:
        payload["left_out"].append(payload["points"]["note"])
    if trace.mode == "compact":
        payload["left_out"].append(
            "The search was recorded with record_trace='compact': each iteration keeps its best candidates, "
            "the chosen rule's and the runner-up's lineages and every count, not whole beams.")
    return json_safe(payload)
