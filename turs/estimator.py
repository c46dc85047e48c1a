"""``TURSClassifier``: the scikit-learn estimator around the TURS search."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from . import edit, learn, model_file
from ._compile import compile_bar
from ._core.kernels import kernels_for_fit
from ._params import MAX_BEAM_WIDTH, ScoreParameter, check_params  # noqa: F401  (MAX_BEAM_WIDTH: also from here)
from ._validation import _as_frame
from .explain import explain
from .mdl import cover_matrix
from .row_passes import predict_union
from .union_estimate import union_probabilities


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
    pattern: ``to_json`` writes those and nothing row-level (:mod:`turs.model_file`). A model
    fitted in this session also keeps its rows as bins, with a reference to its table (no copy),
    for the edits (:mod:`turs.edit`); a pickle drops them (an unpickled model edits with X, y).
    """

    score = ScoreParameter()

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
        params["score"] = self._score_param  # not the method (see turs._params.ScoreParameter)
        return params

    # ----------------------------------------------------------------- validation
    def _validate_params(self):
        check_params(self)  # turs._params: a ValueError naming the parameter

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
            # the fit's kernel set: on a cold compile cache a small table runs the kernels as
            # Python, to the bit (turs._core.kernels); a large one compiles them, and says so
            with kernels_for_fit(learn.table_cells(X)) as kernels, compile_bar(kernels.compiling and self.verbose):
                self._validate_params()
                return learn.fit(self, X, y, initial_rules)  # encode, search, score (turs.learn)
        except BaseException:
            # Ctrl-C (KeyboardInterrupt) or any error: no half-fitted model is left behind; an
            # estimator fitted before keeps its previous fit, an unfitted one stays unfitted
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            raise

    # -------------------------------------------------------------------- predict
    def _encode(self, X):
        check_is_fitted(self, "rules_")
        Xf = _as_frame(X, self)
        return self.encoder_.transform(Xf)

    def apply(self, X) -> np.ndarray:
        """(n, K) bool: which rules cover each row (the cover path of printing, prediction, MDL)."""
        Xe = self._encode(X)  # first: raises NotFittedError on an unfitted model
        return cover_matrix(self._literals_, Xe)

    def predict_proba(self, X, overlap="union", random_state=None):
        """Class probabilities.

        ``overlap="union"`` (the TURS model): a row covered by the rules ``I`` gets the class
        distribution of the training instances in the union of their covers -- exact for any
        combination, including ones no training instance had. ``overlap="random"``: random
        picking (Section 3.6.3), one covering rule drawn uniformly per row.
        """
        if overlap == "union":  # in chunks of rows: no (n, d) encoded table, no (n, K) covers
            check_is_fitted(self, "rules_")
            return predict_union(_as_frame(X, self), self.encoder_, self._literals_,
                                 lambda q: union_probabilities(q, self._patterns_, self._pattern_counts_))
        covers = self.apply(X)
        n, K = covers.shape
        if overlap == "random":
            rng = np.random.default_rng(self.random_state if random_state is None else random_state)
            single = np.eye(K, dtype=bool)
            rule_probs = (union_probabilities(single, self._patterns_, self._pattern_counts_) if K
                          else np.zeros((0, len(self.classes_))))
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
        """Per row: the rules that cover it (``rules``), the training rows its probabilities are
        counted from (the union of their covers, or the else-rule's: ``training rows``, ``count
        <class>``), the probabilities (``P(<class>)``) and all that in words (``explanation``).
        See :func:`turs.explain.explain`."""
        return explain(self, X)

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

    def __getstate__(self):  # a pickle (joblib, the explorer's worker) carries no training rows
        return {k: v for k, v in super().__getstate__().items() if k != "_train_rows_"}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags
