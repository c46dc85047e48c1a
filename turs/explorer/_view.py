"""What the explorer shows, computed from a recorded search trace (no widgets here).

Everything is derived from :class:`turs.trace.SearchTrace` (and, when given, the fitted model
and the training data); the search is never re-run. Indices are the trace's: rule searches and
beam iterations count from 0.

* A *step* is one beam iteration of one rule search (Algorithm 4 inside Algorithm 3); a search
  whose beam was empty from the start still gets one step, with empty tables.
* A literal ``[col, lo_bin, hi_bin]`` means bins ``lo_bin .. hi_bin - 1`` of the encoded column
  ``col``, where bin ``b`` is ``[cuts[b-1], cuts[b])``: the interval
  ``[cuts[lo_bin-1], cuts[hi_bin-1])`` with ``-inf`` when ``lo_bin == 0`` and ``+inf`` when
  ``hi_bin == len(cuts) + 1`` -- the same thresholds ``FeatureEncoder.thresholds`` gives.
* Rules are accepted in the order of the searches (Algorithm 3 stops at the first rejection), so
  the rule set before search ``k`` is the chosen rules of the accepted searches ``0 .. k-1``.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from ..rules import ElseRule, Rule
from ..trace import SearchTrace

BEAMS = {"main": "main_beam", "aux": "aux_beam", "rejected": "rejected_by_local_test",
         "aux_rejected": "aux_rejected_by_local_test"}

#: Columns of :meth:`TraceView.table` in order.
TABLE_COLUMNS = ["conditions", "coverage", "coverage_uncovered", "r", "R", "bucket", "local_test",
                 "aux_bucket", "aux_local_test", "mdl_after", "class_counts", "chosen"]


class Exact(tuple):
    """A literal given by its thresholds, ``(j, low, high)`` with ``low <= x < high`` on encoded
    column ``j`` (``None``: open), as a model stores it (``model._literals_``). The trace's
    literals are bin indices; rules given to the fit (``initial_rules``) or typed in the
    explorer may lie off the cut points, so they are kept exactly in this form."""

    __slots__ = ()

    def __new__(cls, j, low, high):
        return super().__new__(cls, (int(j), None if low is None else float(low),
                                     None if high is None else float(high)))

    def mask(self, values: np.ndarray) -> np.ndarray:
        m = np.ones(len(values), dtype=bool)
        if self[1] is not None:
            m &= values >= self[1]
        if self[2] is not None:
            m &= values < self[2]
        return m

    def interval(self) -> tuple[float, float]:
        return (-math.inf if self[1] is None else self[1]), (math.inf if self[2] is None else self[2])


def exact_literals(literals) -> list:
    """A model's literals ``[(j, low, high), ...]`` as :class:`Exact` literals."""
    return [Exact(*lit) for lit in literals]


def literal_key(literals) -> tuple:
    """A candidate's literals as a sorted tuple: the same rule whatever order they were added in."""
    return tuple(sorted((int(j), int(a), int(b)) for j, a, b in literals))


def literal_interval(cuts, lo_bin: int, hi_bin: int) -> tuple[float, float]:
    """``[low, high)`` of the literal ``(lo_bin, hi_bin)`` on a column with these cuts (inf when open)."""
    n_bins = len(cuts) + 1
    low = float(cuts[lo_bin - 1]) if lo_bin > 0 else -math.inf
    high = float(cuts[hi_bin - 1]) if hi_bin < n_bins else math.inf
    return low, high


class CachedTrace:
    """A :class:`SearchTrace` whose ``candidates(k)`` (every candidate of a search by id) is
    built once per search: the explorer asks for it on every redraw."""

    def __init__(self, trace: SearchTrace):
        self._trace = trace
        self._by_id: dict = {}

    def __getattr__(self, name):
        return getattr(self._trace, name)

    def candidates(self, rule_index: int) -> dict:
        if rule_index not in self._by_id:
            self._by_id[rule_index] = self._trace.candidates(rule_index)
        return self._by_id[rule_index]

    def lineage(self, rule_index: int) -> list:
        by_id = self.candidates(rule_index)
        return [by_id[i] for i in self._trace.searches[rule_index].get("lineage") or []]


class TraceView:
    """Read-only access to a search trace, with the derived tables, boxes, covers and texts.

    Parameters
    ----------
    trace : SearchTrace
    model : TURSClassifier or None
        The fitted model the trace came from: its encoder encodes ``X`` exactly, its rules print
        the rule set as ``str(model)`` does.
    X, y : training data or None
        Needed for the scatter plot and the covered instances; ``X`` in the columns the model
        was fitted on (a DataFrame, or an array in the fitted column order).
    """

    def __init__(self, trace: SearchTrace, model=None, X=None, y=None):
        self.trace = CachedTrace(trace)
        self.model = model
        self.feature_names = list(trace.feature_names)
        self.classes = list(trace.classes)
        self.cuts = [np.asarray(c, dtype=float) for c in trace.cuts]
        if len(self.cuts) != len(self.feature_names):
            raise ValueError(
                f"The trace has {len(self.feature_names)} feature names but cuts for "
                f"{len(self.cuts)} columns; it was not written by TURSClassifier.fit(record_trace=True)."
            )
        self.steps = []  # (search, iteration) per global step
        self._first_step = []
        for k, s in enumerate(trace.searches):
            self._first_step.append(len(self.steps))
            for it in range(max(len(s["iterations"]), 1)):
                self.steps.append((k, it))
        self._chosen_keys = [literal_key(s["chosen"]["literals"]) if s["chosen"] else None
                             for s in trace.searches]
        self._chosen_ids = [s["chosen"].get("id") if s["chosen"] else None for s in trace.searches]
        self.X_encoded = None
        self.y_codes = None
        self.bins = None
        if (X is None) != (y is None):
            raise ValueError("Pass both X and y (the training data) or neither; got only "
                             f"{'X' if y is None else 'y'}.")
        if X is not None:
            self.X_encoded = self._encode(X)
            self.y_codes = self._class_codes(y)
            if len(self.y_codes) != len(self.X_encoded):
                raise ValueError(f"X has {len(self.X_encoded)} rows but y has {len(self.y_codes)} labels; "
                                 "they must match.")
            if len(self.X_encoded) != trace.n_train:
                warnings.warn(
                    f"X has {len(self.X_encoded)} rows but the search was run on {trace.n_train}: the "
                    "plotted covers will not match the coverage in the tables. Pass the training data.",
                    stacklevel=3,
                )
            self.bins = np.empty(self.X_encoded.shape[::-1], dtype=np.int64)
            for j, cuts in enumerate(self.cuts):
                self.bins[j] = np.searchsorted(cuts, self.X_encoded[:, j], side="right")
        self._kinds = self._column_kinds()
        self.given = self._given_rules()

    def _given_rules(self) -> list:
        """The rules the fit started from (``fit(initial_rules=...)``): the model's first rules,
        before those the searches accepted (the trace records the searches only), as
        candidate-like dicts with :class:`Exact` literals and ``given=True``."""
        m = self.model
        if m is None or not hasattr(m, "rules_"):
            return []
        n_given = len(m.rules_) - sum(bool(s["accepted"]) for s in self.trace.searches)
        out = []
        for i in range(max(n_given, 0)):
            rule = m.rules_[i]
            out.append({"conditions": [str(c) for c in rule.conditions], "literals": exact_literals(m._literals_[i]),
                        "coverage": rule.coverage, "class_counts": list(rule.class_counts), "given": True,
                        "id": f"given-{i + 1}"})
        return out

    # ------------------------------------------------------------------ input
    def _encode(self, X) -> np.ndarray:
        if self.model is not None:
            return self.model._encode(X)
        df = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
        if not isinstance(X, pd.DataFrame):
            # an array: the encoded columns are the input columns when there are no one-hot ones
            if df.shape[1] != len(self.feature_names):
                raise ValueError(
                    f"X has {df.shape[1]} columns but the trace has {len(self.feature_names)} encoded "
                    "columns; pass X as the DataFrame the model was fitted on, or pass the model."
                )
            df = df.set_axis(self.feature_names, axis=1)
        out = np.empty((len(df), len(self.feature_names)))
        columns = [str(c) for c in df.columns]
        for j, name in enumerate(self.feature_names):
            if name in columns:
                out[:, j] = df.iloc[:, columns.index(name)].to_numpy(dtype=float)
                continue
            source, sep, level = name.partition("=")
            while sep and source not in columns:  # "a=b=c": the column name may hold "="
                head, sep, level = level.partition("=")
                source = f"{source}={head}"
            if not sep:
                raise ValueError(
                    f"The trace has the column '{name}', which X does not have (X has {columns}). "
                    "Pass the data the model was fitted on, or pass the model."
                )
            out[:, j] = (df.iloc[:, columns.index(source)].astype(str) == level).to_numpy(dtype=float)
        return out

    def _class_codes(self, y) -> np.ndarray:
        y = np.asarray(y).ravel()
        codes = pd.Index(self.classes).get_indexer(pd.Index(y))
        if (codes < 0).any():
            bad = y[np.argmax(codes < 0)]
            raise ValueError(f"y has the label {bad!r}, which is not one of the trace's classes "
                             f"{self.classes}. Pass the labels the model was fitted on.")
        return codes.astype(np.int64)

    def _column_kinds(self) -> list:
        if self.model is not None:
            return [c.kind for c in self.model.encoder_.columns_]
        kinds = []
        for j, _ in enumerate(self.feature_names):
            if self.X_encoded is not None:
                kinds.append("numeric" if len(np.unique(self.X_encoded[:, j])) > 2 else "binary")
            else:
                kinds.append("numeric" if len(self.cuts[j]) > 1 else "binary")
        return kinds

    @property
    def has_data(self) -> bool:
        return self.X_encoded is not None

    @property
    def numeric_columns(self) -> list:
        """Encoded column indices that are numeric (not one-hot / 0-1)."""
        return [j for j, k in enumerate(self._kinds) if k == "numeric"]

    # ------------------------------------------------------------------ steps
    @property
    def n_searches(self) -> int:
        return len(self.trace.searches)

    def n_iterations(self, k: int) -> int:
        """Beam iterations recorded for search ``k`` (0 when its beams were empty from the start)."""
        return len(self.trace.searches[k]["iterations"])

    def step_of(self, k: int, iteration: int) -> int:
        return self._first_step[k] + iteration

    def search(self, k: int) -> dict:
        return self.trace.searches[k]

    def candidates(self, k: int, iteration: int, which: str = "main") -> list:
        """The candidate dicts of one beam (``"main"``, ``"aux"`` or ``"rejected"``) at one step."""
        its = self.trace.searches[k]["iterations"]
        if iteration >= len(its):
            return []
        return its[iteration].get(BEAMS[which], [])

    def is_chosen(self, k: int, candidate: dict) -> bool:
        """Whether ``candidate`` is the rule search ``k`` finally returned: the same candidate id
        (one growth; another growth with the same literals is not marked), or, in a trace
        without ids, the same literals in any order."""
        cid = self._chosen_ids[k]
        if cid is not None and candidate.get("id") is not None:
            return candidate["id"] == cid
        key = self._chosen_keys[k]
        return key is not None and literal_key(candidate["literals"]) == key

    def best_index(self, k: int, iteration: int) -> int | None:
        """Index in the main beam of the candidate with the best ``r`` (else of the auxiliary beam by ``R``)."""
        for which, score in (("main", "r"), ("aux", "R")):
            cands = self.candidates(k, iteration, which)
            if cands:
                vals = [c[score] if c[score] is not None else -math.inf for c in cands]
                return int(np.argmax(vals))
        return None

    def default_candidate(self, k: int, iteration: int):
        """``(which, index)`` of the candidate selected by default: the best of the main beam."""
        if self.candidates(k, iteration, "main"):
            return ("main", self.best_index(k, iteration))
        if self.candidates(k, iteration, "aux"):
            return ("aux", self.best_index(k, iteration))
        return None

    def table(self, k: int, iteration: int, which: str = "main") -> pd.DataFrame:
        """One beam at one step as a table (one row per candidate, in the trace's order)."""
        rows = []
        for c in self.candidates(k, iteration, which):
            rows.append({
                "conditions": " AND ".join(c["conditions"]) if c["conditions"] else "TRUE",
                "coverage": c["coverage"], "coverage_uncovered": c["coverage_uncovered"],
                "r": _nan(c["r"]), "R": _nan(c["R"]), "bucket": c["bucket"],
                "local_test": c["local_test"], "aux_bucket": c["aux_bucket"],
                "aux_local_test": c["aux_local_test"], "mdl_after": _nan(c["mdl_after"]),
                "class_counts": tuple(c["class_counts"]), "chosen": self.is_chosen(k, c),
            })
        return pd.DataFrame(rows, columns=TABLE_COLUMNS)

    # ---------------------------------------------------------------- rule set
    def accepted_before(self, k: int) -> list:
        """The chosen candidate dicts of the rules accepted before search ``k`` (in order), after
        the rules the fit started from (:attr:`given`, when the model is known)."""
        return self.given + [s["chosen"] for s in self.trace.searches[:k] if s["accepted"]]

    def mdl_before(self, k: int) -> float:
        """The MDL score of the rule set before search ``k`` (``k == n_searches``: after the last)."""
        if k < self.n_searches:
            return float(self.trace.searches[k]["mdl_before"])
        accepted = [s for s in self.trace.searches if s["accepted"]]
        return float(accepted[-1]["mdl_after"]) if accepted else float(self.trace.initial_mdl)

    def coverage_before(self, k: int) -> int:
        """Training instances covered by the rules accepted before search ``k``."""
        cov = 0
        for s in self.trace.searches[:k]:
            if s["accepted"]:
                cov = int(s["coverage_after"])
        return cov

    def trajectory(self) -> pd.DataFrame:
        """Rule-set coverage and MDL score after each accepted rule (Fig. 3.6); row 0 is the empty set."""
        return self.trace.mdl_trajectory()

    def _training_covers(self, n_rules: int):
        """(n, n_rules) bool training covers of the first rules, or None when unknown."""
        m = self.model
        if m is not None and hasattr(m, "_train_covers_"):  # a fitted model keeps its training covers
            covers = np.unpackbits(m._train_covers_, axis=0, count=m._n_train_).astype(bool)
            return covers[:, :n_rules], np.asarray(m._y_train_)
        if m is not None and not self.has_data and hasattr(m, "_patterns_"):
            # a model read from a file has no training rows, only the class counts per cover
            # pattern: one stand-in row per (pattern, class) count gives the same class counts
            # for any set of rules (the else-rule's here)
            P, C = m._pattern_counts_.shape
            reps = m._pattern_counts_.ravel()
            covers = np.repeat(np.repeat(m._patterns_, C, axis=0), reps, axis=0)
            return covers[:, :n_rules], np.repeat(np.tile(np.arange(C), P), reps)
        if self.has_data:
            rules = [c["literals"] for c in self.accepted_before(self.n_searches)][:n_rules]
            covers = np.zeros((len(self.y_codes), len(rules)), dtype=bool)
            for i, lits in enumerate(rules):
                covers[:, i] = self.cover_mask(lits)
            return covers, self.y_codes
        return None

    def ruleset_text(self, k: int) -> str:
        """The rule set before search ``k``, printed as ``str(TURSClassifier)`` prints a rule set.

        With the model and ``k`` past the last accepted rule this is exactly ``str(model)``; before
        that the header gives the MDL score the search started from (``mdl_before``).
        """
        chosen = self.accepted_before(k)
        K = len(chosen)
        if self.model is not None and K == len(self.model.rules_):
            return str(self.model)
        lines = [f"TURS rule set: {K} rules, MDL score {self.mdl_before(k):.2f} bits"]
        if self.model is not None:
            rules = self.model.rules_[:K]
        else:
            # Rule.__str__ joins str(condition); the trace's conditions are those strings already
            classes = tuple(self.classes)
            rules = [Rule(tuple(c["conditions"]), tuple(c["class_counts"]), classes) for c in chosen]
        for i, r in enumerate(rules):
            lines.append(f"{i + 1:>3}. {r}")
        lines.append(f"     {self._else_rule(K)}")
        return "\n".join(lines)

    def final_text(self) -> str:
        """``str(model)`` when the model is known; else the rule set after the last search."""
        if self.model is not None:
            return str(self.model)
        text = self.ruleset_text(self.n_searches)
        return text

    def _else_rule(self, K: int):
        got = self._training_covers(K)
        classes = tuple(self.classes)
        if got is None:
            n_else = self.trace.n_train - (self.coverage_before(self.n_searches) if K else 0)
            return f"ELSE (n={n_else}; pass X and y to see its class distribution)"
        covers, y = got
        C = len(classes)
        unc = ~covers.any(axis=1) if K else np.ones(len(y), dtype=bool)
        return ElseRule(tuple(int(v) for v in np.bincount(y[unc], minlength=C)), classes,
                        tuple(int(v) for v in np.bincount(y, minlength=C)))

    # ------------------------------------------------------------------ boxes
    def data_range(self, j: int) -> tuple[float, float]:
        """The range the unbounded sides of boxes are clipped to: the data's, else the cuts' (padded)."""
        if self.has_data:
            x = self.X_encoded[:, j]
            return float(x.min()), float(x.max())
        cuts = self.cuts[j]
        if len(cuts) == 0:
            return 0.0, 1.0
        pad = (cuts[-1] - cuts[0]) * 0.1 if len(cuts) > 1 else 0.5
        return float(cuts[0] - pad), float(cuts[-1] + pad)

    def interval(self, literals, j: int) -> tuple[float, float]:
        """``[low, high)`` of a rule on column ``j`` (the whole line when it has no literal on it)."""
        low, high = -math.inf, math.inf
        for lit in literals:
            col, a, b = lit
            if int(col) == j:
                lo_j, hi_j = (lit.interval() if isinstance(lit, Exact)
                              else literal_interval(self.cuts[j], int(a), int(b)))
                low, high = max(low, lo_j), min(high, hi_j)
        return low, high

    def box(self, literals, fx: int, fy: int) -> tuple[float, float, float, float]:
        """``(x0, x1, y0, y1)``: the rule's box on the columns ``fx``, ``fy``, unbounded sides clipped."""
        out = []
        for j in (fx, fy):
            low, high = self.interval(literals, j)
            dmin, dmax = self.data_range(j)
            out += [low if math.isfinite(low) else dmin, high if math.isfinite(high) else dmax]
        return tuple(out)

    def cover_mask(self, literals) -> np.ndarray:
        """Which rows of ``X`` the rule covers (all its literals, not only the plotted ones)."""
        if not self.has_data:
            raise ValueError("No data: pass X and y to SearchExplorer to compute covers.")
        mask = np.ones(self.bins.shape[1], dtype=bool)
        for lit in literals:
            j, a, b = lit
            if isinstance(lit, Exact):
                mask &= lit.mask(self.X_encoded[:, int(j)])
                continue
            bj = self.bins[int(j)]
            mask &= (bj >= int(a)) & (bj < int(b))
        return mask


def _nan(v):
    return float("nan") if v is None else float(v)


def resolve_trace(obj):
    """``(trace, model_or_None)`` from a fitted model, a SearchTrace, its dict or its JSON."""
    if isinstance(obj, SearchTrace):
        return obj, None
    if isinstance(obj, dict):
        return SearchTrace.from_dict(obj), None
    if isinstance(obj, str):
        return SearchTrace.from_json(obj), None
    if hasattr(obj, "get_params") and hasattr(obj, "record_trace"):
        if not hasattr(obj, "rules_"):
            raise ValueError("This TURSClassifier is not fitted yet; fit it with record_trace=True first.")
        if getattr(obj, "trace_", None) is None:
            raise ValueError("This TURSClassifier was fitted without a search trace; refit it with "
                             "TURSClassifier(record_trace=True, ...) to explore its search.")
        return obj.trace_, obj
    raise TypeError(f"SearchExplorer needs a fitted TURSClassifier or a SearchTrace. Got {type(obj).__name__}.")
