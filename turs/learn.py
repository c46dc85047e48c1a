"""Learning a rule set from a table: what ``TURSClassifier.fit`` does, step by step.

1. The table and the labels are checked (:mod:`turs._validation`: errors name the column, the row
   and the fix) and encoded (:class:`~turs.encoding.FeatureEncoder`: one-hot columns, candidate
   cut points, bins).
2. Rules given by the user (``initial_rules``) are placed on the encoded columns
   (:func:`turs.parse.resolve_rules`) and checked against the guidance (:mod:`turs.guided`).
3. The beam search (Algorithm 3, :func:`turs.search.learn_rule_set`) adds rules while the MDL
   score improves, with a progress bar, a time limit and Ctrl-C between kernel calls
   (:mod:`turs._fit_control`), on a sample of the rows for large tables
   (:mod:`turs.search.sampled`; the rows behind a row store, :func:`fit_from_store`, which a
   table in partitions calls too).
4. The rule set found is scored exactly on all rows (:func:`turs.mdl.score_literals`) and written
   into the estimator (:mod:`turs.fitted`).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from . import guided
from ._fit_control import fit_control
from ._core.kernels import switch_when_ready
from ._validation import _as_frame, _check_y, as_pandas
from .encoding import BinnedRows, FeatureEncoder
from .fitted import TrainingRows, json_label, set_inputs, set_rule_set
from .mdl import score_pattern_counts
from .row_passes import fitted_counts, packed_covers
from .parse import ResolvedRule, resolve_rules
from .rules import print_digits_table
from .search import RuleSetState, SearchData, SearchSettings, learn_rule_set
from .search.row_store import LocalRows
from .search.sampled import SampledSearch, sample_when_costly, uses_sample
from .trace import SearchTrace, candidate_describer, trace_mode

__all__ = ["fit", "fit_from_store", "table_cells"]


def table_cells(X) -> int:
    """Rows x columns of a table (a DataFrame, an array or anything ``np.asarray`` reads)."""
    shape = getattr(X, "shape", None)
    if shape is None:
        shape = np.asarray(X).shape
    return int(shape[0]) * (int(shape[1]) if len(shape) > 1 else 1)


def fit(model, X, y, initial_rules=None):
    """Fit ``model`` (a ``TURSClassifier`` whose parameters are checked) on ``X, y``; returns it."""
    X = as_pandas(X)  # a polars or pyarrow table keeps its column names
    Xf = _as_frame(X, None)
    named = isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns)
    y = _check_y(y, len(Xf))
    classes, y_codes = np.unique(y, return_inverse=True)
    y_codes = y_codes.astype(np.int64)
    if len(classes) < 2:
        raise ValueError(
            f"y has only one class ({json_label(classes[0])!r}); TURSClassifier needs at "
            "least 2 classes to learn rules. Check the labels."
        )
    encoder = FeatureEncoder(n_cut_points=model.n_cut_points).fit(Xf)
    encoder.from_dataframe_ = isinstance(X, pd.DataFrame)
    set_inputs(model, encoder, classes, X.columns if named else None)
    Xe = BinnedRows.of(encoder, Xf)  # the bins, column by column; no (n, d) float table
    constraints = guided.search_constraints(model, encoder)  # unknown column names raise here
    fixed = [] if initial_rules is None else resolve_rules(initial_rules, encoder, Xe, model.model_encoding)
    guided.check_given_rules(fixed, constraints, encoder)
    digits = print_digits_table(encoder, Xe, [r.literals for r in fixed])
    if uses_sample(len(y_codes), model.exact):  # no SearchData of all rows: the rows behind a store
        store = LocalRows(Xe.bins, y_codes, encoder.n_bins_, encoder.binary_, len(classes))
        return fit_from_store(model, encoder, classes, store, Xe, feature_names=X.columns if named else None,
                              initial_rules=fixed, digits=digits, training_rows=(Xe, y_codes))
    data = SearchData(Xe.bins, y_codes, encoder.n_bins_, encoder.binary_, len(classes),
                      model.model_encoding)
    state, searches, initial = _search(model, data, None, fixed, constraints, digits)

    literals = _threshold_literals(encoder, state.rules)
    total = state.total
    del state, data  # the search's row lists and sample go before the covers are made
    # What prediction reads: the class counts per cover pattern (the one path of a fitted and of
    # a loaded model), in one pass over the rows in chunks, the covers from the bins
    # (turs.row_passes). The packed covers and the labels stay in memory for editing and the
    # explorer's coverage plots; they are never written to a model file.
    patterns, counts, packed_covers, breakdown = fitted_counts(
        literals, Xe, y_codes, len(classes), [c.cuts for c in encoder.columns_], encoder.binary_,
        model.model_encoding)
    trace = _trace(model, encoder, classes, searches, initial, len(y_codes))
    sampled_from = next((s["rule_index"] for s in searches if "sample_rows" in s), None)
    return set_rule_set(model, literals, patterns, counts, breakdown, digits, trace,
                        rows=TrainingRows(Xe, y_codes.astype(np.min_scalar_type(len(classes) - 1)), packed_covers),
                        search={"total": total, "sampled_from_rule": sampled_from})


def fit_from_store(model, encoder, classes, store, columns=None, *, feature_names=None, initial_rules=(),
                   digits=None, training_rows=None):
    """Fit ``model`` (a ``TURSClassifier`` whose parameters are checked) on the rows of ``store``
    (a :class:`~turs.search.row_store.RowStore`: the bins of ``encoder``, fitted, and the class
    codes of ``classes``, sorted) with the sampled search (:mod:`turs.search.sampled`); returns
    it. The rule set, its class counts per cover pattern and its MDL breakdown come from the
    search's state of ``M`` on all rows (the store's counts); no row list of all rows is made.

    ``columns``: what reads the training rows' encoded columns (a
    :class:`~turs.encoding.BinnedRows`), for the print digits of the cut points when ``digits``
    is None (None: no digits table, thresholds print with 6 significant digits).
    ``feature_names``: the input's column names. ``initial_rules``: rules placed on the training
    rows (:func:`turs.parse.resolve_rules`) the search starts from. ``training_rows``: ``(rows,
    class codes)`` to keep in memory for editing and the explorer (their packed covers are made
    in one pass); None: the model keeps no training rows. The store is closed once the search
    ends (:meth:`~turs.search.row_store.RowStore.close`)."""
    set_inputs(model, encoder, classes, feature_names)
    constraints = guided.search_constraints(model, encoder)
    fixed = list(initial_rules)
    if digits is None:
        digits = {} if columns is None else print_digits_table(encoder, columns, [r.literals for r in fixed])
    sampler = SampledSearch(store, model.model_encoding)
    state, searches, initial = _search(model, sampler.data, sampler, fixed, constraints, digits)
    del sampler  # the sample and its search's tables
    store.close()  # what the store holds for the search (LocalRows: the prefix cache)
    _give_back_freed_memory()
    literals = _threshold_literals(encoder, state.rules)
    patterns, counts, unions = state.pattern_counts()
    breakdown = score_pattern_counts(literals, None, patterns, counts, len(classes), [c.cuts for c in encoder.columns_],
                                     encoder.binary_, model.model_encoding, rule_bits=[r.model_bits for r in state.rules],
                                     unions=unions)
    rows = None
    if training_rows is not None:
        Xe, y_codes = training_rows
        rows = TrainingRows(Xe, np.asarray(y_codes).astype(np.min_scalar_type(len(classes) - 1)),
                            packed_covers(literals, Xe))
    trace = _trace(model, encoder, classes, searches, initial, store.n)
    sampled_from = next((s["rule_index"] for s in searches if "sample_rows" in s), None)
    return set_rule_set(model, literals, patterns, counts, breakdown, digits, trace, rows=rows,
                        search={"total": state.total, "sampled_from_rule": sampled_from})


def _give_back_freed_memory() -> None:
    """Return the heap the search freed to the system (glibc's ``malloc_trim``; elsewhere
    nothing): the prefix cache's bitmaps are below the size glibc maps apart, so without it
    the memory the search freed stays in the process and what follows adds to its peak."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _threshold_literals(encoder, rules) -> list:
    """Each rule's literals as thresholds ``(column, low, high)``."""
    return [list(r.literals) if isinstance(r, ResolvedRule) else [encoder.thresholds(*lit) for lit in r.literals]
            for r in rules]


def _trace(model, encoder, classes, searches, initial, n):
    if not model.record_trace:
        return None
    return SearchTrace(searches, initial, n, encoder.names_, [json_label(c) for c in classes],
                       [list(c.cuts) for c in encoder.columns_], [c.kind for c in encoder.columns_])


def _search(model, data: SearchData, sampler, fixed: list, constraints, digits: dict):
    """``(state, searches, initial MDL score)``: the beam search from the rules ``fixed``, with the
    progress bar (``verbose``), the time limit (``max_time``, a warning when it ends the fit) and
    Ctrl-C between kernel calls; on the sample of ``sampler`` (a
    :class:`~turs.search.sampled.SampledSearch`) from the first rule search, or exact on ``data``
    (switching to a sample when costly)."""
    settings = SearchSettings(model.beam_width, model.use_patience, model.use_local_test, model.use_auxiliary_beam,
                              model._score_param, model.k_stop, local_test_fallback=model.local_test_fallback,
                              search=model.search)
    describe = candidate_describer(model.encoder_, digits) if model.record_trace else None
    bar = None
    if model.verbose:
        from tqdm.auto import tqdm

        bar = tqdm(desc="TURS rules", unit="rule")
    initial = (RuleSetState(data, fixed, pair_lists=False) if sampler is None else sampler.full_state(fixed)).total
    try:
        # Ctrl-C during the search becomes a KeyboardInterrupt at the next checkpoint between
        # kernel calls (turs._fit_control); the bar shows rules, MDL score and elapsed time
        with fit_control(max_time=model.max_time, bar=bar) as control:
            def progress(state):
                control.rule_set(state.K, state.total, state.coverage)
                switch_when_ready()  # the compiled kernels, once a background compile is done

            state, searches = learn_rule_set(data, settings, model.max_rules, describe, progress,
                                             trace=trace_mode(model.record_trace), initial_rules=fixed,
                                             constraints=constraints, sampler=sampler,
                                             sample_when=None if sampler is not None else
                                             sample_when_costly(data, model.exact))
    finally:
        if bar is not None:
            bar.close()
    if control.timed_out:
        warnings.warn(f"TURSClassifier stopped adding rules after max_time={model.max_time} s "
                      f"({control.elapsed:.1f} s, {state.K} rules): the model is valid and scored exactly, "
                      "but the search did not finish. Raise max_time, or set it to None, for the full fit.",
                      UserWarning, stacklevel=4)
    return state, searches, initial
