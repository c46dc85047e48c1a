"""Benchmark tasks and their result records.

A :class:`Task` is one (dataset, fold, algorithm, settings). :func:`execute` runs it (load the
data, split with ``StratifiedKFold(5, shuffle=True, random_state=2)`` as the reference code does,
fit, evaluate) and returns a **record**: a flat, JSON-ready dict with the fields in
:data:`RECORD_FIELDS`. A record's ``status`` is one of

* ``"ok"``: the metrics are filled in;
* ``"error"``: an exception; ``message`` and ``traceback`` say which;
* ``"timeout"``: the task exceeded its time limit and its process was killed;
* ``"not_installed"``: the algorithm needs a module that is not installed (``message`` has the
  install hint);
* ``"not_applicable"``: e.g. a binary-only algorithm on a multi-class dataset;
* ``"skipped"``: not run because the same dataset and algorithm timed out on its first fold
  (``run(..., probe_first=True)``); ``message`` names the fold and the limit.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import socket
import time
import traceback as tb
import warnings
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone

import numpy as np

from . import metrics
from .adapters import Adapter, TURSAdapter

__all__ = [
    "RECORD_FIELDS",
    "STATUSES",
    "Task",
    "VOLATILE_FIELDS",
    "base_record",
    "execute",
    "make_tasks",
]

SCHEMA_VERSION = 1
N_FOLDS = 5
CV_RANDOM_STATE = 2  # StratifiedKFold(5, shuffle=True, random_state=2), as in the reference code
N_RANDOM_DRAWS = 10  # random-picking draws per fold (Section 3.6.3)
MAX_STORED_RULES = 200  # rule texts kept in a record
STATUSES = ("ok", "error", "timeout", "not_installed", "not_applicable")

#: The fields of a record, in order (``extra``, ``rules``, ``warnings``, ``classes`` are nested).
RECORD_FIELDS = (
    "schema_version", "task_id", "dataset", "fold", "n_folds", "algorithm", "settings", "params",
    "status", "message", "traceback",
    "n_train", "n_test", "n_features", "n_classes",
    "roc_auc", "roc_auc_rp", "overlap_pct", "g", "n_literals", "n_rules",
    "accuracy", "local_rules", "local_literals",
    "fit_seconds", "predict_seconds", "wall_seconds",
    "extra", "classes", "rules", "warnings",
    "turs_version", "python", "host", "pid", "started_at", "finished_at",
)
#: Fields that differ between two runs of the same task (timing and provenance).
VOLATILE_FIELDS = frozenset(
    {"fit_seconds", "predict_seconds", "wall_seconds", "host", "pid", "started_at", "finished_at", "python"}
)

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Task:
    """One benchmark task.

    ``settings`` are keyword arguments for the algorithm's factory, on top of its registered
    defaults (e.g. ``{"beam_width": 5}``); they must be JSON-serialisable.
    """

    dataset: str
    fold: int
    algorithm: str
    settings: dict = field(default_factory=dict)
    n_folds: int = N_FOLDS

    def __post_init__(self):
        if not isinstance(self.fold, (int, np.integer)) or not 0 <= self.fold < self.n_folds:
            raise ValueError(f"fold must be an int in [0, {self.n_folds}). Got {self.fold!r}.")
        try:
            json.dumps(self.settings, sort_keys=True)
        except TypeError as exc:
            raise ValueError(f"Task settings must be JSON-serialisable. Got {self.settings!r} ({exc}).") from None

    @property
    def id(self) -> str:
        """File-name-safe, unique per (dataset, fold, algorithm, settings, n_folds)."""
        parts = [_SAFE.sub("_", self.dataset), _SAFE.sub("_", self.algorithm), f"fold{self.fold}"]
        if self.n_folds != N_FOLDS:
            parts[-1] += f"of{self.n_folds}"
        if self.settings:
            digest = hashlib.sha1(json.dumps(self.settings, sort_keys=True).encode()).hexdigest()[:10]
            parts.append(digest)
        return "__".join(parts)

    def to_dict(self) -> dict:
        return asdict(self)


def make_tasks(datasets, algorithms, folds=None, settings: dict | None = None, n_folds: int = N_FOLDS) -> list[Task]:
    """All (dataset, fold, algorithm) combinations, dataset-major (datasets in the given order).

    ``folds`` defaults to all ``n_folds`` folds. Unknown algorithm or dataset names raise
    ``ValueError`` here, before anything runs.
    """
    from .algorithms import get_algorithm
    from .profiles import check_dataset_name

    datasets = list(datasets)
    algorithms = list(algorithms)
    for a in algorithms:
        get_algorithm(a)
    for d in datasets:
        check_dataset_name(d)
    folds = list(range(n_folds)) if folds is None else [int(f) for f in folds]
    settings = dict(settings or {})
    return [Task(d, f, a, settings, n_folds) for d in datasets for f in folds for a in algorithms]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def base_record(task: Task, params: dict | None = None) -> dict:
    """A record with the task's identity and every metric empty (``status`` ``"error"``)."""
    from .. import __version__

    rec = {k: None for k in RECORD_FIELDS}
    rec.update(
        schema_version=SCHEMA_VERSION, task_id=task.id, dataset=task.dataset, fold=int(task.fold),
        n_folds=int(task.n_folds), algorithm=task.algorithm, settings=dict(task.settings),
        params=_jsonable(params if params is not None else {}), status="error", message="",
        extra={}, classes=[], rules=[], warnings=[], turs_version=__version__,
        python=platform.python_version(), host=socket.gethostname(), pid=os.getpid(), started_at=_now(),
    )
    return rec


def _jsonable(v):
    """``v`` with numpy scalars and arrays made plain and non-finite floats made ``None``."""
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return [_jsonable(x) for x in v.tolist()]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else None
    if v is None or isinstance(v, str):
        return v
    return str(v)


# ------------------------------------------------------------------- inside the task process
_DATA_CACHE: dict = {}  # one dataset at a time: consecutive tasks are mostly its folds
_WARMED: set = set()


def _load(task: Task, loader):
    key = task.dataset  # names are unique: bundled, registered or thesis
    if key not in _DATA_CACHE:
        _DATA_CACHE.clear()
        X, y = loader()
        _DATA_CACHE[key] = (X, np.asarray(y))
    return _DATA_CACHE[key]


def split(y, fold: int, n_folds: int = N_FOLDS):
    """Train and test row indices of ``fold`` under ``StratifiedKFold(n_folds, shuffle=True, random_state=2)``."""
    from sklearn.model_selection import StratifiedKFold

    cv = StratifiedKFold(n_folds, shuffle=True, random_state=CV_RANDOM_STATE)
    for i, (train, test) in enumerate(cv.split(np.zeros(len(y)), y)):
        if i == fold:
            return train, test
    raise ValueError(f"fold {fold} is out of range for {n_folds} folds")


def _warm_up(adapter) -> None:
    """Compile (or load from numba's cache) the JIT kernels once per process, outside ``fit_seconds``."""
    cls = type(adapter)
    if cls in _WARMED:
        return
    _WARMED.add(cls)
    hook = getattr(adapter, "warm_up", None)
    if callable(hook):
        hook()
        return
    if isinstance(adapter, TURSAdapter):
        from .. import warmup

        warmup()


def evaluate(adapter, X_train, y_train, X_test, y_test, n_draws: int = N_RANDOM_DRAWS) -> dict:
    """Every metric of Section 3.6 for a fitted adapter (the record's metric fields)."""
    classes = np.asarray(adapter.classes_)
    t = time.perf_counter()
    proba = np.asarray(adapter.predict_proba(X_test), dtype=float)
    predict_seconds = time.perf_counter() - t
    out = {"roc_auc": metrics.roc_auc(y_test, proba, classes), "predict_seconds": predict_seconds,
           "accuracy": metrics.accuracy(y_test, proba, classes)}

    try:
        rules = list(adapter.rules())
    except NotImplementedError:
        rules = None
    covers_test = None
    if rules is not None:
        train_masks = [np.asarray(r.mask(X_train), dtype=bool) for r in rules]
        test_masks = [np.asarray(r.mask(X_test), dtype=bool) for r in rules]
        out["g"] = metrics.probability_difference(train_masks, y_train, test_masks, y_test, classes)
        out["n_literals"] = metrics.total_literals(r.n_literals for r in rules)
        out["n_rules"] = sum(1 for r in rules if not r.is_default)
        proper = [m for r, m in zip(rules, test_masks) if not r.is_default]
        if rules:
            explain = adapter.explain(X_test, rules, test_masks)
            out["local_rules"], out["local_literals"] = metrics.local_explanation_size(
                explain, [r.n_literals for r in rules])
        covers_test = np.column_stack(proper) if proper else np.zeros((len(y_test), 0), dtype=bool)
        out["rules"] = [
            {"text": r.text, "n_literals": int(r.n_literals), "is_default": bool(r.is_default),
             "train_coverage": int(mtr.sum()), "test_coverage": int(mte.sum())}
            for r, mtr, mte in list(zip(rules, train_masks, test_masks))[:MAX_STORED_RULES]
        ]
    else:
        try:  # an adapter without rules() may still count its literals
            out["n_literals"] = int(adapter.n_literals())
        except NotImplementedError:
            pass

    if type(adapter).predict_proba_random is not Adapter.predict_proba_random:  # implements random picking
        out["roc_auc_rp"] = metrics.random_picking_roc_auc(
            lambda rng: adapter.predict_proba_random(X_test, rng), y_test, classes, n_draws)
    if getattr(adapter, "kind", None) == "rule_set" and covers_test is not None:
        out["overlap_pct"] = metrics.overlap_percentage(covers_test)
    out["classes"] = [str(c) for c in classes]
    return out


def execute(task: Task, factory, params: dict, loader, requires=(), install_hint: str = "") -> dict:
    """Run ``task`` in this process and return its record; never raises."""
    rec = base_record(task, params)
    t0 = time.perf_counter()
    seen: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                _run(task, factory, params, loader, tuple(requires), install_hint, rec)
            finally:
                for w in caught:
                    text = f"{w.category.__name__}: {w.message}"
                    if text not in seen:
                        seen.append(text)
    except ModuleNotFoundError as exc:
        rec.update(status="not_installed", traceback=tb.format_exc(), message=(
            f"Algorithm {task.algorithm!r} needs the module {exc.name!r}, which is not installed "
            f"here ({exc}). Install it, e.g. {install_hint or 'with pip'}."))
    except Exception as exc:  # recorded, never dropped
        rec.update(status="error", message=f"{type(exc).__name__}: {exc}", traceback=tb.format_exc())
    rec["warnings"] = seen[:20]
    rec["wall_seconds"] = time.perf_counter() - t0
    rec["finished_at"] = _now()
    return finalize(rec)


def _run(task, factory, params, loader, requires, install_hint, rec) -> None:
    from .algorithms import Algorithm, missing_requirements

    missing = missing_requirements(Algorithm(task.algorithm, factory, {}, requires))
    if missing:
        rec.update(status="not_installed", message=(
            f"Algorithm {task.algorithm!r} needs the module(s) {', '.join(missing)}, which "
            f"are not installed here. Install them, e.g. {install_hint or 'with pip'}."))
        return
    X, y = _load(task, loader)
    train, test = split(y, task.fold, task.n_folds)
    X_train, X_test = X.iloc[train].reset_index(drop=True), X.iloc[test].reset_index(drop=True)
    y_train, y_test = y[train], y[test]
    rec.update(n_train=len(train), n_test=len(test), n_features=int(X.shape[1]),
               n_classes=int(len(np.unique(y))))
    try:
        adapter = factory(**params)
    except ImportError as exc:  # an adapter checks its optional library when constructed
        rec.update(status="not_installed", traceback=tb.format_exc(), message=(
            f"Algorithm {task.algorithm!r} cannot be used here: {exc}"
            + ("" if install_hint and install_hint in str(exc) else f" Install it, e.g. {install_hint or 'with pip'}.")))
        return
    if getattr(adapter, "binary_only", False) and len(np.unique(y_train)) > 2:
        rec.update(status="not_applicable", message=(
            f"Algorithm {task.algorithm!r} handles two classes only; dataset "
            f"{task.dataset!r} has {rec['n_classes']}."))
        return
    _warm_up(adapter)
    adapter.fit(X_train, y_train)
    rec["fit_seconds"] = float(getattr(adapter, "fit_seconds_", float("nan")))
    rec.update(evaluate(adapter, X_train, y_train, X_test, y_test))
    rec["extra"] = dict(adapter.extra())
    rec.update(status="ok", message="")


def finalize(rec: dict) -> dict:
    """``rec`` with every field of :data:`RECORD_FIELDS`, JSON-ready (NaN -> None)."""
    out = {k: rec.get(k) for k in RECORD_FIELDS}
    return _jsonable(out)


def dumps(rec: dict) -> str:
    return json.dumps(finalize(rec), indent=1, allow_nan=False)
