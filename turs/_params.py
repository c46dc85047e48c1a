"""The parameters of ``TURSClassifier``: their checks, and the ``score`` parameter that shares its
name with scikit-learn's ``score`` method.

:func:`check_params` is what ``TURSClassifier._validate_params`` runs before a fit and what a
model file's ``params`` are checked with (:mod:`turs.model_file`), one parameter at a time: every
message names the parameter, what it must be and the value it has.
"""
from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import ClassifierMixin

from . import guided
from .encoding import MAX_CUT_POINTS
from .mdl import MODEL_ENCODINGS
from .search import SEARCHES

SCORES = ("learning_speed", "absolute")
#: ``record_trace`` values besides True/False: every candidate, or the chosen path, runner-up and
#: each iteration's best (``turs.search.record.TRACE_MODES``, ``docs/trace.md``)
TRACE_MODES = ("full", "compact")
#: The widest beam a fit (or a model file) may ask for: 100 times the thesis' 10.
MAX_BEAM_WIDTH = 1000


class ScoreParameter:
    """``score`` is both a parameter of TURSClassifier and ``ClassifierMixin.score``.

    The documented parameter ``score`` (the search score, Eq. 3.21) has the name of the
    scikit-learn method ``score(X, y)`` (mean accuracy). Stored as a plain attribute it would
    hide the method, and ``model.score(X, y)``, ``Pipeline.score`` and ``GridSearchCV`` without
    ``scoring=`` would fail. This data descriptor keeps both: assigning ``model.score = v``
    stores ``v`` in ``model._score_param``; reading ``model.score`` gives the method.
    ``get_params`` / ``set_params`` / ``clone`` see the parameter value.
    """

    def __get__(self, obj, objtype=None):
        if obj is None:
            return ClassifierMixin.score
        return ClassifierMixin.score.__get__(obj, objtype)

    def __set__(self, obj, value):
        obj.__dict__["_score_param"] = value


def check_params(model) -> None:
    """A ValueError naming the first parameter of ``model`` that TURSClassifier does not accept."""
    def int_param(name, low, allow_none=False, high=None, why=""):
        v = getattr(model, name)
        if allow_none and v is None:
            return
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < low or (high is not None and v > high):
            allowed = f">= {low}" if high is None else f"from {low} to {high}"
            raise ValueError(
                f"The '{name}' parameter of TURSClassifier must be an int {allowed}"
                f"{' or None' if allow_none else ''}{why}. Got {v!r} instead."
            )
    int_param("beam_width", 1, high=MAX_BEAM_WIDTH,
              why=" (each beam keeps that many candidates and their covers, and the patience buckets are as many; "
                  "the thesis uses 10)")
    int_param("n_cut_points", 1)
    int_param("k_stop", 1)
    int_param("max_rules", 0, allow_none=True)
    int_param("verbose", 0)
    mt = model.max_time
    if mt is not None and (not isinstance(mt, numbers.Real) or isinstance(mt, (bool, np.bool_))
                           or not np.isfinite(mt) or mt <= 0):
        raise ValueError(f"The 'max_time' parameter of TURSClassifier must be a number of seconds > 0 or None "
                         f"(no limit). Got {mt!r} instead.")
    if model.n_cut_points > MAX_CUT_POINTS:
        raise ValueError(f"The 'n_cut_points' parameter of TURSClassifier must be <= {MAX_CUT_POINTS}. "
                         f"Got {model.n_cut_points}.")
    for name in ("use_patience", "use_local_test", "use_auxiliary_beam", "local_test_fallback", "exact"):
        if not isinstance(getattr(model, name), (bool, np.bool_)):
            raise ValueError(f"The '{name}' parameter of TURSClassifier must be a bool. "
                             f"Got {getattr(model, name)!r} instead.")
    rt = model.record_trace
    if not (isinstance(rt, (bool, np.bool_)) or (isinstance(rt, str) and rt in TRACE_MODES)):
        raise ValueError(f"The 'record_trace' parameter of TURSClassifier must be a bool or one of {TRACE_MODES}. "
                         f"Got {rt!r} instead.")
    if model.model_encoding not in MODEL_ENCODINGS:
        raise ValueError(f"The 'model_encoding' parameter of TURSClassifier must be one of {MODEL_ENCODINGS}. "
                         f"Got {model.model_encoding!r} instead.")
    if model.search not in SEARCHES:
        raise ValueError(f"The 'search' parameter of TURSClassifier must be one of {SEARCHES}. "
                         f"Got {model.search!r} instead.")
    if model._score_param not in SCORES:
        raise ValueError(f"The 'score' parameter of TURSClassifier must be one of {SCORES}. "
                         f"Got {model._score_param!r} instead.")
    guided.check_guidance(model.preferred_features, model.forbidden_features, model.max_rule_length,
                          model.preferred_fallback)
