"""``TURSClassifier``: the scikit-learn estimator around the TURS search."""
from __future__ import annotations

import base64
import json
import math
import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .encoding import FeatureEncoder
from .mdl import MODEL_ENCODINGS, MDLBreakdown, cover_matrix, score_literals
from .rules import Condition, ElseRule, Rule
from .search import SEARCHES, RuleSetState, SearchData, SearchSettings, learn_rule_set
from .trace import SearchTrace

_SCORES = ("learning_speed", "absolute")


class _ScoreParameter:
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


class TURSClassifier(ClassifierMixin, BaseEstimator):
    """Probabilistic Truly Unordered Rule Sets (Yang 2024, thesis chapter 3).

    An unordered set of probabilistic rules ``IF x in S THEN P(Y) = P_S``. An instance covered
    by one rule gets that rule's class distribution, one covered by several rules the class
    distribution of the union of their covers (Eq. 3.4-3.5), one covered by none the
    else-rule's. The rule set minimises the MDL score of Eq. 3.20.

    Parameters
    ----------
    beam_width : int, default 10
        ``W``: the width of both beams and the number of patience buckets.
    n_cut_points : int, default 20
        Candidate cut points per numeric column: at most this many quantile mid-points
        (:func:`turs.encoding.candidate_cuts`).
    use_patience : bool, default True
        Diverse patience (Eq. 3.23); False keeps the plain top-``W`` (ablation, Fig. 3.5).
    use_local_test : bool, default True
        The MDL local test (Eq. 3.22, 3.25) (ablation, Table 3.6).
    use_auxiliary_beam : bool, default True
        The auxiliary beam with the complementary score (Eq. 3.24).
    local_test_fallback : bool, default False
        Not in the thesis: when no growth of a base rule passes the local test, let the main
        beam take its growths whose MDL score beats the base's (the "rerun on invalid" of the
        authors' implementation).
    search : {"turs2", "thesis"}, default "turs2"
        How the beam search keeps its books: ``"turs2"`` follows the authors' implementation,
        which produced the thesis' tables (its local-test code, patience-bucket boundaries,
        smallest split, scores of refined literals, beam reduction and stopping rule; see
        ``docs/spec-notes.md``); ``"thesis"`` follows Algorithm 4 and Section 3.5 as written.
        With the default ``model_encoding="turs2"`` the fit reproduces that implementation's
        reference runs (``make reference-check``: the exact MDL score on all 85 folds) and
        the thesis' Table 3.3 (30 of 30 datasets within 0.02). ``search="thesis",
        model_encoding="thesis"`` is the thesis text.
    score : {"learning_speed", "absolute"}, default "learning_speed"
        ``r(S)`` of Eq. 3.21, or the absolute decrease of the MDL score (ablation).
        Read it with ``get_params()["score"]``: ``model.score`` is the scikit-learn accuracy
        method ``score(X, y)``.
    k_stop : int, default 5
        Stop growing a rule after this many consecutive beam iterations without improvement.
    model_encoding : {"turs2", "thesis"}, default "turs2"
        The model code ``L(M)``: ``"turs2"`` is what the authors' implementation charged in the
        runs behind the thesis' tables (universal code for a rule's number of literals, no bits
        for a literal's form and operator); ``"thesis"`` is Eq. 3.13-3.17 as written. See
        ``docs/spec-notes.md``.
    max_rules : int or None, default None
        An upper bound on the number of rules (None: stop only when the score stops improving).
    record_trace : bool, default False
        Keep the search trace in ``trace_`` (for the explorer and Fig. 3.6).
    random_state : int or None, default None
        Seed of random picking when ``predict_proba(overlap="random")`` gets no seed.
        The search itself is deterministic.
    verbose : int, default 0
        0: silent; 1: a progress bar over added rules with the current MDL score.

    Attributes
    ----------
    rules_ : tuple of Rule
    else_rule_ : ElseRule
    classes_, n_features_in_, feature_names_in_ (DataFrame input only)
    mdl_score_ : float, the MDL score of the learned rule set on the training data (bits)
    mdl_breakdown_ : MDLBreakdown
    trace_ : SearchTrace or None
    """

    score = _ScoreParameter()

    def __init__(self, beam_width=10, n_cut_points=20, use_patience=True, use_local_test=True,
                 use_auxiliary_beam=True, local_test_fallback=False, search="turs2", score="learning_speed", k_stop=5,
                 model_encoding="turs2", max_rules=None, record_trace=False, random_state=None, verbose=0):
        self.beam_width = beam_width
        self.n_cut_points = n_cut_points
        self.use_patience = use_patience
        self.use_local_test = use_local_test
        self.use_auxiliary_beam = use_auxiliary_beam
        self.local_test_fallback = local_test_fallback
        self.search = search
        self.score = score
        self.k_stop = k_stop
        self.model_encoding = model_encoding
        self.max_rules = max_rules
        self.record_trace = record_trace
        self.random_state = random_state
        self.verbose = verbose

    def get_params(self, deep=True):
        params = super().get_params(deep=deep)
        params["score"] = self._score_param  # not the method (see _ScoreParameter)
        return params

    # ----------------------------------------------------------------- validation
    def _validate_params(self):
        def int_param(name, low, allow_none=False):
            v = getattr(self, name)
            if allow_none and v is None:
                return
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < low:
                raise ValueError(
                    f"The '{name}' parameter of TURSClassifier must be an int >= {low}"
                    f"{' or None' if allow_none else ''}. Got {v!r} instead."
                )
        int_param("beam_width", 1)
        int_param("n_cut_points", 1)
        int_param("k_stop", 1)
        int_param("max_rules", 0, allow_none=True)
        int_param("verbose", 0)
        if self.n_cut_points > 254:
            raise ValueError(f"The 'n_cut_points' parameter of TURSClassifier must be <= 254. Got {self.n_cut_points}.")
        for name in ("use_patience", "use_local_test", "use_auxiliary_beam", "local_test_fallback", "record_trace"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"The '{name}' parameter of TURSClassifier must be a bool. Got {getattr(self, name)!r} instead.")
        if self.model_encoding not in MODEL_ENCODINGS:
            raise ValueError(f"The 'model_encoding' parameter of TURSClassifier must be one of {MODEL_ENCODINGS}. "
                             f"Got {self.model_encoding!r} instead.")
        if self.search not in SEARCHES:
            raise ValueError(f"The 'search' parameter of TURSClassifier must be one of {SEARCHES}. "
                             f"Got {self.search!r} instead.")
        if self._score_param not in _SCORES:
            raise ValueError(f"The 'score' parameter of TURSClassifier must be one of {_SCORES}. "
                             f"Got {self._score_param!r} instead.")

    # ------------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Learn the rule set (Algorithm 3) on ``X`` and the labels ``y``. Returns ``self``."""
        self._validate_params()
        Xf = _as_frame(X, None)
        if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.n_features_in_ = Xf.shape[1]
        y = _check_y(y, len(Xf))
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        y_codes = y_codes.astype(np.int64)
        if len(self.classes_) < 2:
            raise ValueError(
                f"y has only one class ({_json_label(self.classes_[0])!r}); TURSClassifier needs at "
                "least 2 classes to learn rules. Check the labels."
            )
        self.encoder_ = FeatureEncoder(n_cut_points=self.n_cut_points).fit(Xf)
        self.encoder_.from_dataframe_ = isinstance(X, pd.DataFrame)
        Xe = self.encoder_.transform(Xf)
        data = SearchData(self.encoder_.bins(Xe), y_codes, self.encoder_.n_bins_,
                          self.encoder_.binary_, len(self.classes_), self.model_encoding)
        settings = SearchSettings(self.beam_width, self.use_patience, self.use_local_test,
                                  self.use_auxiliary_beam, self._score_param, self.k_stop,
                                  local_test_fallback=self.local_test_fallback, search=self.search)
        describe = self._describe_factory() if self.record_trace else None
        bar = None
        progress = None
        if self.verbose:
            from tqdm.auto import tqdm

            bar = tqdm(desc="TURS rules", unit="rule")

            def progress(state):
                bar.n = state.K
                bar.set_postfix(mdl=f"{state.total:.1f}", coverage=state.coverage)
                bar.refresh()
        initial = RuleSetState(data, []).total
        try:
            state, searches = learn_rule_set(data, settings, self.max_rules, describe, progress)
        finally:
            if bar is not None:
                bar.close()
        self._search_total_ = state.total
        self._literals_ = [[self._to_threshold(j, a, b) for j, a, b in r.literals] for r in state.rules]
        self._bin_literals_ = [[(int(j), int(a), int(b)) for j, a, b in r.literals] for r in state.rules]
        self._y_train_ = y_codes
        covers = cover_matrix(self._literals_, Xe)
        self._train_covers_ = np.packbits(covers, axis=0)
        self._n_train_ = len(y_codes)
        self.mdl_breakdown_ = score_literals(self._literals_, Xe, y_codes, len(self.classes_),
                                             [c.cuts for c in self.encoder_.columns_], self.encoder_.binary_,
                                             self.model_encoding)
        self.mdl_score_ = self.mdl_breakdown_.total
        self._build_rules(covers)
        self.trace_ = None
        if self.record_trace:
            self.trace_ = SearchTrace(searches, initial, len(y_codes), self.encoder_.names_,
                                      [_json_label(c) for c in self.classes_],
                                      [list(c.cuts) for c in self.encoder_.columns_],
                                      [c.kind for c in self.encoder_.columns_])
        return self

    def _to_threshold(self, j, a, b):
        cuts = self.encoder_.columns_[j].cuts
        nb = len(cuts) + 1
        return (int(j), float(cuts[a - 1]) if a > 0 else None, float(cuts[b - 1]) if b < nb else None)

    def _condition(self, j, low, high):
        col = self.encoder_.columns_[j]
        if col.kind == "onehot":
            return Condition(col.name, low, high, col.source, col.level)
        return Condition(col.name, low, high)

    def _describe_factory(self):
        def describe(c):
            lits = [self._to_threshold(j, a, b) for j, a, b in c.literals]
            return {
                "conditions": [str(self._condition(*t)) for t in lits],
                "literals": [[int(j), int(a), int(b)] for j, a, b in c.literals],
                "coverage": c.coverage, "coverage_uncovered": c.coverage_uncovered,
                "class_counts": [int(v) for v in c.counts],
                "r": _finite(c.r), "R": _finite(c.R), "bucket": int(c.bucket),
                "aux_bucket": int(c.aux_bucket), "local_test": bool(c.local_test),
                "aux_local_test": bool(c.aux_local_test), "model_bits": float(c.model_bits),
                "mdl_after": _finite(c.total_after),
            }
        return describe

    def _build_rules(self, covers):
        C = len(self.classes_)
        y = self._y_train_
        classes = tuple(_json_label(c) for c in self.classes_)
        rules = []
        for i, lits in enumerate(self._literals_):
            counts = np.bincount(y[covers[:, i]], minlength=C)
            conds = tuple(self._condition(*t) for t in lits)
            rules.append(Rule(conds, tuple(int(v) for v in counts), classes))
        self.rules_ = tuple(rules)
        unc = ~covers.any(axis=1)
        else_counts = np.bincount(y[unc], minlength=C)
        self.else_rule_ = ElseRule(tuple(int(v) for v in else_counts), classes,
                                   tuple(int(v) for v in np.bincount(y, minlength=C)))
        self._else_probs_ = self.else_rule_.probabilities

    # -------------------------------------------------------------------- predict
    def _encode(self, X):
        check_is_fitted(self, "rules_")
        Xf = _as_frame(X, self)
        return self.encoder_.transform(Xf)

    def apply(self, X) -> np.ndarray:
        """(n, K) bool: which rules cover each row (the cover path of printing, prediction, MDL)."""
        Xe = self._encode(X)  # first: raises NotFittedError on an unfitted model
        return cover_matrix(self._literals_, Xe)

    def _union_probs(self, patterns: np.ndarray) -> np.ndarray:
        """Class distribution of the union of the training covers of each pattern's rules (Eq. 3.5)."""
        C = len(self.classes_)
        train = np.unpackbits(self._train_covers_, axis=0, count=self._n_train_).astype(bool)
        out = np.empty((len(patterns), C))
        for p, pat in enumerate(patterns):
            if not pat.any():
                out[p] = self._else_probs_
                continue
            union = train[:, pat].any(axis=1)
            counts = np.bincount(self._y_train_[union], minlength=C)
            out[p] = counts / counts.sum()
        return out

    def predict_proba(self, X, overlap="union", random_state=None):
        """Class probabilities.

        ``overlap="union"`` (the TURS model): a row covered by the rules ``I`` gets the class
        distribution of the training instances in the union of their covers -- exact for any
        combination, including ones no training instance had. ``overlap="random"``: random
        picking (Section 3.6.3), one covering rule drawn uniformly per row.
        """
        covers = self.apply(X)
        n, K = covers.shape
        if overlap == "union":
            if K == 0:
                return np.tile(self._else_probs_, (n, 1))
            patterns, inverse = np.unique(covers, axis=0, return_inverse=True)
            return self._union_probs(patterns)[inverse.ravel()]
        if overlap == "random":
            rng = np.random.default_rng(self.random_state if random_state is None else random_state)
            single = np.eye(K, dtype=bool)
            rule_probs = self._union_probs(single) if K else np.zeros((0, len(self.classes_)))
            out = np.tile(self._else_probs_, (n, 1))
            for i in range(n):
                idx = np.flatnonzero(covers[i])
                if len(idx):
                    out[i] = rule_probs[idx[rng.integers(len(idx))] if len(idx) > 1 else idx[0]]
            return out
        raise ValueError(f"overlap must be 'union' or 'random'. Got {overlap!r}.")

    def predict(self, X):
        proba = self.predict_proba(X)  # first: raises NotFittedError on an unfitted model
        return self.classes_[np.argmax(proba, axis=1)]

    def explain(self, X) -> pd.DataFrame:
        """Per row: which rules cover it and why its class distribution is what it is."""
        covers = self.apply(X)
        probs = self.predict_proba(X)
        train = np.unpackbits(self._train_covers_, axis=0, count=self._n_train_).astype(bool)
        rows = []
        for i in range(covers.shape[0]):
            idx = np.flatnonzero(covers[i])
            p = ", ".join(f"P({c})={v:.2f}" for c, v in zip(self.classes_, probs[i]))
            if len(idx) == 0:
                why = f"no rule covers it: else-rule ({self.else_rule_.coverage} training instances): {p}"
            elif len(idx) == 1:
                why = f"only rule {idx[0] + 1} covers it ({self.rules_[idx[0]].coverage} training instances): {p}"
            else:
                n_union = int(train[:, idx].any(axis=1).sum())
                names = ", ".join(str(k + 1) for k in idx)
                why = (f"rules {names} cover it: the class distribution of the {n_union} training "
                       f"instances in the union of their covers: {p}")
            rows.append({"rules": [int(k) + 1 for k in idx], "explanation": why})
        return pd.DataFrame(rows)

    # -------------------------------------------------------------------- readout
    def __str__(self):
        if not hasattr(self, "rules_"):
            return self.__repr__()
        lines = [f"TURS rule set: {len(self.rules_)} rules, MDL score {self.mdl_score_:.2f} bits"]
        for i, r in enumerate(self.rules_):
            lines.append(f"{i + 1:>3}. {r}")
        lines.append(f"     {self.else_rule_}")
        return "\n".join(lines)

    # ------------------------------------------------------------------------ json
    def to_json(self) -> str:
        """The fitted model as JSON (no pickle); ``TURSClassifier.from_json`` reads it back."""
        check_is_fitted(self, "rules_")
        d = {
            "format": "turs-model/1",
            "params": self.get_params(),
            "classes": [_json_label(c) for c in self.classes_],
            "n_features_in": int(self.n_features_in_),
            "feature_names_in": list(getattr(self, "feature_names_in_", [])) or None,
            "encoder": self.encoder_.to_dict(),
            "bin_literals": self._bin_literals_,
            "y_train": base64.b64encode(self._y_train_.astype(np.int32).tobytes()).decode(),
            "train_covers": base64.b64encode(self._train_covers_.tobytes()).decode(),
            "train_covers_shape": list(self._train_covers_.shape),
            "n_train": int(self._n_train_),
            "mdl_breakdown": self.mdl_breakdown_.to_dict(),
            "trace": self.trace_.to_dict() if self.trace_ is not None else None,
        }
        return json.dumps(d)

    @classmethod
    def from_json(cls, s: str) -> "TURSClassifier":
        d = json.loads(s)
        if d.get("format") != "turs-model/1":
            raise ValueError("This JSON is not a TURS model written by TURSClassifier.to_json().")
        m = cls(**d["params"])
        m.classes_ = np.asarray(d["classes"])
        m.n_features_in_ = d["n_features_in"]
        if d["feature_names_in"]:
            m.feature_names_in_ = np.asarray(d["feature_names_in"], dtype=object)
        m.encoder_ = FeatureEncoder.from_dict(d["encoder"])
        m._bin_literals_ = [[tuple(l) for l in r] for r in d["bin_literals"]]
        m._literals_ = [[m._to_threshold(j, a, b) for j, a, b in r] for r in m._bin_literals_]
        m._y_train_ = np.frombuffer(base64.b64decode(d["y_train"]), dtype=np.int32).astype(np.int64)
        m._train_covers_ = np.frombuffer(base64.b64decode(d["train_covers"]), dtype=np.uint8).reshape(
            d["train_covers_shape"]).copy()
        m._n_train_ = d["n_train"]
        bd = dict(d["mdl_breakdown"])
        bd["rule_model_bits"] = tuple(bd["rule_model_bits"])
        bd["rule_regret_bits"] = tuple(bd["rule_regret_bits"])
        m.mdl_breakdown_ = MDLBreakdown(**bd)
        m.mdl_score_ = m.mdl_breakdown_.total
        covers = np.unpackbits(m._train_covers_, axis=0, count=m._n_train_).astype(bool)
        m._build_rules(covers)
        m.trace_ = SearchTrace.from_dict(d["trace"]) if d["trace"] else None
        return m

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


# ---------------------------------------------------------------------------- helpers
def _finite(v):
    v = float(v)
    return v if math.isfinite(v) else None


def _json_label(c):
    return c.item() if isinstance(c, np.generic) else c


def _check_y(y, n):
    if y is None:
        raise ValueError("TURSClassifier requires y to be passed, but the target y is None.")
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
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or inf; remove those rows or fill the labels.")
        if not np.all(y == np.round(y)):
            raise ValueError(
                "Unknown label type: continuous. TURSClassifier is a classifier; y must hold class labels."
            )
    if y.dtype.kind == "O":
        if pd.isna(pd.Series(y)).any():
            raise ValueError("y contains missing labels; remove those rows or fill the labels.")
    return y


def _data_conversion_warning():
    from sklearn.exceptions import DataConversionWarning

    return DataConversionWarning


def _as_frame(X, fitted) -> pd.DataFrame:
    """Validate ``X`` and return it as a DataFrame with string column names."""
    if X is None:
        raise ValueError("X is None; pass a 2-D table of features.")
    if isinstance(X, pd.DataFrame):
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
        df = pd.DataFrame(arr, columns=names)
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
        raise ValueError(f"Found array with 0 sample(s) (shape={df.shape}) while a minimum of 1 is required.")
    if df.shape[1] == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape={df.shape}) while a minimum of 1 is required.")
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
    return df
