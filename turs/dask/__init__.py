"""TURS on Dask collections: a fit whose rules, MDL score and probabilities are those of
``TURSClassifier().fit`` on the same rows in one process, bit for bit, whatever the partitioning.

>>> from distributed import Client                                   # doctest: +SKIP
>>> from turs.dask import DaskTURSClassifier                          # doctest: +SKIP
>>> client = Client(...)                                             # doctest: +SKIP
>>> model = DaskTURSClassifier().fit(ddf[features], ddf["label"])    # doctest: +SKIP
>>> proba = model.predict_proba(ddf[features])  # a dask array, by partition  # doctest: +SKIP
>>> local = model.to_local()                    # a plain TURSClassifier      # doctest: +SKIP

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
   ones, else a sketch (:mod:`turs.dask.statistics`).
2. *The encoder* (:class:`~turs.encoding.FeatureEncoder`): the same cut points as one machine.
   A cut is the mid-point of two exact order statistics at ranks known from ``n``
   (:func:`turs.encoding.candidate_cuts`); each is found by brackets that narrow with each
   pass (per partition: how many values lie below the bracket and, inside it, the values and
   their counts when few, else some of them with the exact counts below and at each), exact
   whatever the partitioning.
   Categorical levels are the sorted union of the partitions' levels.
3. *Bins on the workers* (:mod:`turs.dask.rows`): each partition is binned once with the
   encoder, kept on its worker as (d, m) uint8 bins, class codes, overlap group ids and its
   first global index; the floats are dropped.
4. *The fit*: :func:`turs.learn.fit_from_store` on a :class:`DaskRows` store: each question of
   the sampled search (counts of candidate rules, the rule set's overlap groups) is answered
   per partition by the in-memory store's own code and summed on the client; every such number
   is an integer count or a min/max, so the sums are exact in any order. The sample is the
   hash-key sample (:mod:`turs.search.sample_keys`): each partition gives its smallest keys.
   A partition Dask makes again (a worker lost) replays the rules the client has added.

Tables of at most ``SAMPLED_MIN_ROWS`` rows (which one machine fits exactly, without a sample)
are gathered to the client and fitted there: those are small.
"""
from __future__ import annotations

import copy
import logging
import time

import numpy as np
import pandas as pd

from .. import _config
from .._compile import compile_bar
from .._core.kernels import kernels_for_fit
from .._validation import _as_frame
from ..estimator import TURSClassifier
from ..fitted import json_label
from .rows import DaskRows, _bin_partition, _digits_queries, _digits_table, _each, _part_below
from .statistics import _client, _partitions, check_workers, first_pass, fit_encoder, warm_workers

__all__ = ["DaskTURSClassifier", "DaskRows"]

log = logging.getLogger(__name__)


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
    warm_workers(client, model.verbose)
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
    from ..search.sampled import uses_sample

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
    from ..learn import fit_from_store

    local = TURSClassifier(**params)
    try:
        # the search runs here, on the sample, with the kernels a fit of this size uses
        with kernels_for_fit(n * len(encoder.columns_)) as kernels, compile_bar(kernels.compiling and model.verbose):
            fit_from_store(local, encoder, classes, store, feature_names=names if named else None, digits=digits)
    finally:
        store.close()
    return local
