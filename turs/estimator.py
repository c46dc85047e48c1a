"""``TURSClassifier``: the scikit-learn estimator around the TURS search."""
from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from . import edit, guided, model_file
from .union_estimate import union_counts
from .parse import ResolvedRule, resolve_rules
from ._validation import _as_frame, _check_y, as_pandas
from .encoding import BinnedRows, FeatureEncoder
from .mdl import MODEL_ENCODINGS, cover_matrix
from .row_passes import fitted_counts, predict_union
from .rules import Condition, ElseRule, Rule, print_digits_table
from ._core._cold_start import kernels_for_fit, switch_when_ready
from ._fit_control import fit_control
from .search import SEARCHES, RuleSetState, SearchData, SearchSettings, learn_rule_set
from .search.sampled import SampledSearch, sample_when_costly, uses_sample
from .trace import SearchTrace, candidate_describer, trace_mode

_SCORES = ("learning_speed", "absolute")
#: ``record_trace`` values besides True/False: every candidate, or the chosen path, runner-up and
#: each iteration's best (``turs.search.record.TRACE_MODES``, ``docs/trace.md``)
_TRACE_MODES = ("full", "compact")


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


def _table_cells(X) -> int:
    """Rows x columns of a table (a DataFrame, an array or anything ``np.asarray`` reads)."""
    shape = getattr(X, "shape", None)
    if shape is None:
        shape = np.asarray(X).shape
    return int(shape[0]) * (int(shape[1]) if len(shape) > 1 else 1)


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
    preferred_features : list of str (or int positions) or None, default None
        Columns of ``X`` (the DataFrame's names; a categorical column's one-hot literals count
        as that column) a domain expert trusts (S-CLASSY's Algorithm 1 for unordered rule
        sets): before each rule search, one search per preferred column not yet used,
        restricted to rules with a literal on it; the best of those (by ``r``) is added if the
        search's own acceptance rule accepts it, and the columns it uses leave the preferred
        set. None or ``[]``: the ordinary fit. See ``docs/guided.md``.
    preferred_fallback : bool, default True
        When no preferred candidate is accepted: run the ordinary search (True), so preferences
        change which rules are found but never end the fit while an acceptable rule exists; or,
        as S-CLASSY prints it, run it only when no preferred search found any candidate and
        otherwise end the fit (False).
    forbidden_features : list of str (or int positions) or None, default None
        Columns no rule may use.
    max_rule_length : int or None, default None
        The most literals a rule may have (a candidate with this many is not grown further;
        the trace's stop reason ``"max_rule_length"`` marks where that ended a search).
    record_trace : bool or {"full", "compact"}, default False
        Keep the search trace in ``trace_`` (for the explorer and Fig. 3.6); True is "full"
        (every candidate), "compact" the chosen path, the runner-up and each iteration's best.
    random_state : int or None, default None
        Seed of random picking when ``predict_proba(overlap="random")`` gets no seed.
        The search itself is deterministic.
    verbose : int, default 0
        0: silent; 1: a progress bar with the rules found, the MDL score, the coverage and the
        elapsed time (refreshed at least every second during a rule search).
    max_time : float or None, default None
        Seconds after which no new rule search starts: the fit keeps the rules found so far (a
        valid model, scored exactly) and warns that it stopped early. The rule search running
        when the time is up finishes first. None: no limit.
    exact : bool, default False
        On more than 80,000 training rows (``turs._config.SAMPLED_MIN_ROWS``; every
        dataset of the study has fewer), each rule search runs on a stratified sample of 10,000
        rows that stands for all of them, and its best candidates are confirmed on all rows:
        the rules, the MDL score and the probabilities are exact, only which rules are
        proposed depends on the sample (:mod:`turs.search.sampled`, ``docs/performance.md``).
        On 20,000 to 80,000 rows the fit starts exact and switches to that sampled search when
        rows x overlap groups of the rule set reach 4e6 (``SAMPLE_WHEN_ROWS_X_GROUPS``; the
        study's largest is aloi's 1.4e6), for the rest of the fit: on noisy data the groups,
        and the exact search's cost with them, grow far faster than the rules.
        True: the exact search at any size (its time grows faster than the rows).

    Attributes
    ----------
    rules_ : tuple of Rule
    else_rule_ : ElseRule
    classes_, n_features_in_, feature_names_in_ (DataFrame input only)
    mdl_score_ : float, the MDL score of the learned rule set on the training data (bits)
        (NaN for a model read from a file whose ``mdl_breakdown`` is null, e.g. edited rules)
    mdl_breakdown_ : MDLBreakdown or None
    trace_ : SearchTrace or None
    sampled_from_rule_ : int or None, the index of the first rule search that ran on a sample
        (see ``exact``; the rule it added, if any, is ``rules_[i]``), None when every search was
        exact (a model fitted in this session only)

    Prediction needs, besides the rules, only the class counts of the training rows per cover
    pattern (which rules cover a row): ``to_json`` writes those and nothing row-level
    (:mod:`turs.model_file`). A model fitted in this session also keeps its training rows as
    uint8 bins with a reference to the table it was fitted on (no copy), for ``with_rule`` /
    ``replace_rule`` / ``without_rule`` (:mod:`turs.edit`); a pickle drops them (an unpickled
    model edits with ``X=..., y=...``).
    """

    score = _ScoreParameter()

    def __init__(self, beam_width=10, n_cut_points=20, use_patience=True, use_local_test=True,
                 use_auxiliary_beam=True, local_test_fallback=False, search="turs2", score="learning_speed", k_stop=5,
                 model_encoding="turs2", max_rules=None, record_trace=False, random_state=None, verbose=0,
                 preferred_features=None, preferred_fallback=True, forbidden_features=None, max_rule_length=None,
                 max_time=None, exact=False):
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
        self.preferred_features = preferred_features
        self.preferred_fallback = preferred_fallback
        self.forbidden_features = forbidden_features
        self.max_rule_length = max_rule_length
        self.max_time = max_time
        self.exact = exact

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
        mt = self.max_time
        if mt is not None and (not isinstance(mt, numbers.Real) or isinstance(mt, (bool, np.bool_))
                               or not np.isfinite(mt) or mt <= 0):
            raise ValueError(f"The 'max_time' parameter of TURSClassifier must be a number of seconds > 0 or None "
                             f"(no limit). Got {mt!r} instead.")
        if self.n_cut_points > 254:
            raise ValueError(f"The 'n_cut_points' parameter of TURSClassifier must be <= 254. Got {self.n_cut_points}.")
        for name in ("use_patience", "use_local_test", "use_auxiliary_beam", "local_test_fallback", "exact"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"The '{name}' parameter of TURSClassifier must be a bool. Got {getattr(self, name)!r} instead.")
        rt = self.record_trace
        if not (isinstance(rt, (bool, np.bool_)) or (isinstance(rt, str) and rt in _TRACE_MODES)):
            raise ValueError(f"The 'record_trace' parameter of TURSClassifier must be a bool or one of {_TRACE_MODES}. "
                             f"Got {rt!r} instead.")
        if self.model_encoding not in MODEL_ENCODINGS:
            raise ValueError(f"The 'model_encoding' parameter of TURSClassifier must be one of {MODEL_ENCODINGS}. "
                             f"Got {self.model_encoding!r} instead.")
        if self.search not in SEARCHES:
            raise ValueError(f"The 'search' parameter of TURSClassifier must be one of {SEARCHES}. "
                             f"Got {self.search!r} instead.")
        if self._score_param not in _SCORES:
            raise ValueError(f"The 'score' parameter of TURSClassifier must be one of {_SCORES}. "
                             f"Got {self._score_param!r} instead.")
        guided.check_guidance(self.preferred_features, self.forbidden_features, self.max_rule_length,
                              self.preferred_fallback)

    # ------------------------------------------------------------------------ fit
    def fit(self, X, y, initial_rules=None):
        """Learn the rule set (Algorithm 3) on ``X`` and the labels ``y``. Returns ``self``.

        ``initial_rules``: rules the search starts from and keeps (text as ``str(rule)``
        prints its conditions, see :func:`turs.parse_rule`; :class:`~turs.rules.Rule` objects;
        or conditions), placed on this data's columns with their exact thresholds (which need
        not be candidate cut points: the search uses their covers); rules found are added
        after them. A rule on an unknown column or level, or that covers no row, raises a
        ValueError naming it and the column."""
        snapshot = dict(self.__dict__)
        try:
            # on a cold compile cache a small table runs the kernels as Python, to the bit
            # (turs._core._cold_start)
            with kernels_for_fit(_table_cells(X)):
                return self._fit(X, y, initial_rules)
        except BaseException:
            # Ctrl-C (KeyboardInterrupt) or any error: no half-fitted model is left behind; an
            # estimator fitted before keeps its previous fit, an unfitted one stays unfitted
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            raise

    def _fit(self, X, y, initial_rules=None):
        self._validate_params()
        X = as_pandas(X)  # a polars or pyarrow table keeps its column names
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
        Xe = BinnedRows.of(self.encoder_, Xf)  # the bins, column by column; no (n, d) float table
        constraints = guided.search_constraints(self, self.encoder_)  # unknown column names raise here
        fixed = [] if initial_rules is None else resolve_rules(
            initial_rules, self.encoder_, Xe, self.model_encoding)
        guided.check_given_rules(fixed, constraints, self.encoder_)
        self._digits_ = print_digits_table(self.encoder_, Xe, [r.literals for r in fixed])
        data = SearchData(Xe.bins, y_codes, self.encoder_.n_bins_,
                          self.encoder_.binary_, len(self.classes_), self.model_encoding)
        settings = SearchSettings(self.beam_width, self.use_patience, self.use_local_test,
                                  self.use_auxiliary_beam, self._score_param, self.k_stop,
                                  local_test_fallback=self.local_test_fallback, search=self.search)
        describe = (candidate_describer(self.encoder_, lambda j, a, b: self._condition(*self._to_threshold(j, a, b)))
                    if self.record_trace else None)
        bar = None
        if self.verbose:
            from tqdm.auto import tqdm

            bar = tqdm(desc="TURS rules", unit="rule")

        initial = RuleSetState(data, fixed, pair_lists=False).total
        try:
            # Ctrl-C during the search becomes a KeyboardInterrupt at the next checkpoint between
            # kernel calls (turs._fit_control); the bar shows rules, MDL score and elapsed time
            with fit_control(max_time=self.max_time, bar=bar) as control:
                def progress(state):
                    control.rule_set(state.K, state.total, state.coverage)
                    switch_when_ready()  # the compiled kernels, once a background compile is done

                sampler = SampledSearch(data) if uses_sample(data.n, self.exact) else None
                state, searches = learn_rule_set(data, settings, self.max_rules, describe, progress,
                                                 trace=trace_mode(self.record_trace), initial_rules=fixed,
                                                 constraints=constraints, sampler=sampler,
                                                 sample_when=sample_when_costly(data, self.exact))
        finally:
            if bar is not None:
                bar.close()
        if control.timed_out:
            warnings.warn(f"TURSClassifier stopped adding rules after max_time={self.max_time} s "
                          f"({control.elapsed:.1f} s, {state.K} rules): the model is valid and scored exactly, "
                          "but the search did not finish. Raise max_time, or set it to None, for the full fit.",
                          UserWarning, stacklevel=3)
        self._search_total_ = state.total
        self.sampled_from_rule_ = next((s["rule_index"] for s in searches if "sample_rows" in s), None)
        self._literals_ = [list(r.literals) if isinstance(r, ResolvedRule)
                           else [self._to_threshold(j, a, b) for j, a, b in r.literals] for r in state.rules]
        del state, sampler, data  # the search's row lists and sample go before the covers are made
        # What prediction reads: the class counts per cover pattern (the one path of a fitted
        # and of a loaded model). The packed covers and labels stay in memory for the
        # explorer's coverage plots; they are never written to a model file. One pass over the
        # rows in chunks, the covers from the bins (turs.row_passes).
        self._patterns_, self._pattern_counts_, self._train_covers_, self.mdl_breakdown_ = fitted_counts(
            self._literals_, Xe, y_codes, len(self.classes_), [c.cuts for c in self.encoder_.columns_],
            self.encoder_.binary_, self.model_encoding)
        self._y_train_ = y_codes.astype(np.min_scalar_type(len(self.classes_) - 1))
        self._train_rows_ = Xe  # bins + the user's table, for editing (turs.edit); never pickled or written
        self._n_train_ = len(y_codes)
        self.mdl_score_ = self.mdl_breakdown_.total
        self._build_rules()
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
        digits = getattr(self, "_digits_", {})  # where 6 digits do not separate the training values
        return Condition(col.name, low, high, digits=(digits.get((j, low)), digits.get((j, high))))

    def _build_rules(self):
        """``rules_`` and ``else_rule_`` from ``_literals_`` and the pattern counts."""
        classes = tuple(_json_label(c) for c in self.classes_)
        patterns, counts = self._patterns_, self._pattern_counts_
        rules = []
        for i, lits in enumerate(self._literals_):
            conds = tuple(self._condition(*t) for t in lits)
            rule_counts = counts[patterns[:, i]].sum(axis=0)  # the rule's whole cover (Eq. 3.3)
            rules.append(Rule(conds, tuple(int(v) for v in rule_counts), classes))
        self.rules_ = tuple(rules)
        else_counts = counts[~patterns.any(axis=1)].sum(axis=0)
        self.else_rule_ = ElseRule(tuple(int(v) for v in else_counts), classes,
                                   tuple(int(v) for v in counts.sum(axis=0)))
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
        """Class distribution of the union of the training covers of each pattern's rules (Eq. 3.5);
        the else-rule's for the empty pattern."""
        counts = union_counts(patterns, self._patterns_, self._pattern_counts_)
        out = np.empty(counts.shape)
        empty = ~patterns.any(axis=1)
        out[empty] = self._else_probs_
        out[~empty] = counts[~empty] / counts[~empty].sum(axis=1, keepdims=True)
        return out

    def predict_proba(self, X, overlap="union", random_state=None):
        """Class probabilities.

        ``overlap="union"`` (the TURS model): a row covered by the rules ``I`` gets the class
        distribution of the training instances in the union of their covers -- exact for any
        combination, including ones no training instance had. ``overlap="random"``: random
        picking (Section 3.6.3), one covering rule drawn uniformly per row.
        """
        if overlap == "union":  # in chunks of rows: no (n, d) encoded table, no (n, K) covers
            check_is_fitted(self, "rules_")
            return predict_union(_as_frame(X, self), self.encoder_, self._literals_, self._union_probs)
        covers = self.apply(X)
        n, K = covers.shape
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
        rows = []
        for i in range(covers.shape[0]):
            idx = np.flatnonzero(covers[i])
            p = ", ".join(f"P({c})={v:.2f}" for c, v in zip(self.classes_, probs[i]))
            if len(idx) == 0:
                why = f"no rule covers it: else-rule ({self.else_rule_.coverage} training instances): {p}"
            elif len(idx) == 1:
                why = f"only rule {idx[0] + 1} covers it ({self.rules_[idx[0]].coverage} training instances): {p}"
            else:
                n_union = int(union_counts(covers[i:i + 1], self._patterns_, self._pattern_counts_).sum())
                names = ", ".join(str(k + 1) for k in idx)
                why = (f"rules {names} cover it: the class distribution of the {n_union} training "
                       f"instances in the union of their covers: {p}")
            rows.append({"rules": [int(k) + 1 for k in idx], "explanation": why})
        return pd.DataFrame(rows)

    # -------------------------------------------------------------------- readout
    def __str__(self):
        if not hasattr(self, "rules_"):
            return self.__repr__()
        score = (f"MDL score {self.mdl_score_:.2f} bits" if self.mdl_breakdown_ is not None
                 else "MDL score not stored (score it with turs.mdl_score)")
        k = len(self.rules_)
        lines = [f"TURS rule set: {k} rule{'' if k == 1 else 's'}, {score}"]
        for i, r in enumerate(self.rules_):
            lines.append(f"{i + 1:>3}. {r}")
        lines.append(f"     {self.else_rule_}")
        return "\n".join(lines)

    # ---------------------------------------------------------------------- editing
    def without_rule(self, i, X=None, y=None) -> "TURSClassifier":
        """A new fitted model without rule ``i`` (0-based); this one is unchanged. Its
        probabilities and ``mdl_score_`` / ``mdl_breakdown_`` are those of the new rule set on
        the training data (exact). A loaded model needs no data for this (the stored counts
        suffice) unless its file holds no MDL breakdown. See :mod:`turs.edit`."""
        check_is_fitted(self, "rules_")
        return edit.without_rule(self, i, X, y)

    def with_rule(self, rule, X=None, y=None) -> "TURSClassifier":
        """A new fitted model with ``rule`` added last (text, see :func:`turs.parse_rule`, or a
        :class:`~turs.rules.Rule`), re-estimated and scored exactly on the training data: in
        memory for a model fitted in this session, else pass ``X=..., y=...`` (checked)."""
        check_is_fitted(self, "rules_")
        return edit.with_rule(self, rule, X, y)

    def replace_rule(self, i, rule, X=None, y=None) -> "TURSClassifier":
        """A new fitted model with rule ``i`` replaced by ``rule``, scored exactly (as
        :meth:`with_rule`)."""
        check_is_fitted(self, "rules_")
        return edit.replace_rule(self, i, rule, X, y)

    def refit(self, X, y, keep=()) -> "TURSClassifier":
        """A new model with these parameters fitted on ``X, y`` starting from the rules ``keep``
        (indices into ``rules_``): ``fit(X, y, initial_rules=...)``."""
        check_is_fitted(self, "rules_")
        return edit.refit(self, X, y, keep)

    # ------------------------------------------------------------------------ json
    def to_json(self) -> str:
        """The fitted model as JSON (format ``turs-model/2``, no pickle, no training rows);
        ``TURSClassifier.from_json`` reads it back. See :mod:`turs.model_file`."""
        check_is_fitted(self, "rules_")
        return model_file.dumps(self)

    @classmethod
    def from_json(cls, s: str) -> "TURSClassifier":
        """A model from ``to_json``'s text, every field checked first (ValueError naming it)."""
        return model_file.loads(cls, s)

    def __getstate__(self):
        # a pickle (joblib, the explorer's worker) carries no training rows: edits of an
        # unpickled model take X, y as those of a model read from a file do
        state = dict(super().__getstate__())  # a copy: object.__getstate__ gives __dict__ itself
        state.pop("_train_rows_", None)
        return state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


# ---------------------------------------------------------------------------- helpers
def _json_label(c):
    return c.item() if isinstance(c, np.generic) else c
