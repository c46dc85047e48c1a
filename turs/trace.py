"""The search trace recorded by ``TURSClassifier.fit(..., record_trace=True)``.

One entry per rule search (Algorithm 3 step) with, per beam iteration (Algorithm 4 step),
the candidates of the main and the auxiliary beam -- each with an id and its parent's id, the
literal added, conditions, coverage, coverage outside the current rule set, ``r`` (Eq. 3.21),
``R`` (Eq. 3.24), patience bucket (Eq. 3.23), both sides of both local tests in bits (Eq. 3.22,
3.25) -- the growths the local tests rejected, the rule chosen and the runner-up with their MDL
change by part, why the search stopped, and the rule set's coverage and MDL score after each
addition; the last search says why the fit stopped. It is plain JSON (format
``"turs-trace/1"``), documented field by field in ``docs/trace.md``; the explorer and the
Fig. 3.6 notebook read it. ``record_trace="compact"`` keeps only the chosen and runner-up
lineages, the best candidates of each iteration and the stop reasons.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .search.record import TRACE_MODES, describe_numbers

TRACE_FORMAT = "turs-trace/1"


def trace_mode(record_trace) -> str | None:
    """The trace mode of a ``record_trace`` setting: ``False`` none, ``True`` or ``"full"``
    every candidate, ``"compact"`` the chosen path, the runner-up and each iteration's best."""
    if isinstance(record_trace, (bool, np.bool_)):
        return "full" if record_trace else None
    if isinstance(record_trace, str) and record_trace in TRACE_MODES:
        return record_trace
    raise ValueError("The 'record_trace' parameter of TURSClassifier must be a bool, 'full' or 'compact'. "
                     f"Got {record_trace!r} instead.")


def describe_candidate(candidate, encoder, texts: dict | None = None, digits: dict | None = None) -> dict:
    """A search candidate as a trace dict: its conditions as text (``encoder``: the fitted
    model's ``encoder_``), literals in bins, coverage, class counts, scores and local tests.
    ``texts``: a cache of condition texts by literal, shared between calls; ``digits``: the
    print-digits table of the fit (:func:`turs.rules.print_digits_table`), so that a condition
    prints as the fitted rules do (``encoder.bin_condition``)."""
    texts = {} if texts is None else texts
    conditions = []
    for lit in candidate.literals:
        key = (int(lit[0]), int(lit[1]), int(lit[2]))
        text = texts.get(key)
        if text is None:
            text = texts[key] = str(encoder.bin_condition(*key, digits=digits))
        conditions.append(text)
    d = {"conditions": conditions}
    d.update(describe_numbers(candidate))
    return d


def candidate_describer(encoder, digits: dict | None = None):
    """``describe(candidate)`` for :func:`turs.search.learn_rule_set`: :func:`describe_candidate`
    with this encoder and print-digits table (and one cache of condition texts)."""
    texts: dict = {}

    def describe(candidate):
        return describe_candidate(candidate, encoder, texts, digits)
    return describe


@dataclass
class SearchTrace:
    searches: list  # one dict per rule search
    initial_mdl: float
    n_train: int
    feature_names: list = field(default_factory=list)  # encoded column names
    classes: list = field(default_factory=list)
    cuts: list = field(default_factory=list)  # per encoded column
    column_kinds: list = field(default_factory=list)  # "numeric" or "onehot" per encoded column

    def mdl_trajectory(self) -> pd.DataFrame:
        """Rule-set coverage and MDL score after each accepted rule (Fig. 3.6); row 0 is the empty set."""
        rows = [{"n_rules": 0, "coverage": 0, "mdl": self.initial_mdl}]
        for s in self.searches:
            if s["accepted"]:
                rows.append({"n_rules": s["rule_index"] + 1, "coverage": s["coverage_after"],
                             "mdl": s["mdl_after"]})
        return pd.DataFrame(rows)

    def beams(self, rule_index: int, iteration: int, which: str = "main") -> pd.DataFrame:
        """The candidates of one beam at one iteration as a table (``which``: ``"main"``,
        ``"aux"``, ``"rejected"`` or ``"aux_rejected"``: the growths the main or the auxiliary
        beam's local test kept out)."""
        keys = {"main": "main_beam", "aux": "aux_beam", "rejected": "rejected_by_local_test",
                "aux_rejected": "aux_rejected_by_local_test"}
        if which not in keys:
            raise ValueError(f"which must be one of {list(keys)}. Got {which!r} instead.")
        it = self.searches[rule_index]["iterations"][iteration]
        cands = it.get(keys[which], [])
        df = pd.DataFrame(cands)
        chosen = self.searches[rule_index]["chosen"]
        if len(df) and chosen is not None:
            target = sorted(map(tuple, chosen["literals"]))  # same literals, any order
            df["chosen"] = [sorted(map(tuple, c["literals"])) == target for c in cands]
        return df

    @property
    def n_searches(self) -> int:
        return len(self.searches)

    @property
    def mode(self) -> str | None:
        """``"full"`` or ``"compact"`` (None for a trace written before ``turs-trace/1``)."""
        return self.searches[0].get("trace_mode") if self.searches else None

    def candidates(self, rule_index: int) -> dict:
        """Every candidate recorded in rule search ``rule_index``, by id (the empty rule too)."""
        s = self.searches[rule_index]
        out = {}
        if s.get("empty_rule"):
            out[s["empty_rule"]["id"]] = s["empty_rule"]
        for it in s["iterations"]:
            for key in ("main_beam", "aux_beam", "rejected_by_local_test", "aux_rejected_by_local_test"):
                for c in it.get(key, []):
                    out.setdefault(c["id"], c)
        return out

    def lineage(self, rule_index: int) -> list:
        """The chosen rule of search ``rule_index`` and its ancestors, from the empty rule on:
        one candidate dict per step (each grew its predecessor by ``added_literal``)."""
        s = self.searches[rule_index]
        by_id = self.candidates(rule_index)
        return [by_id[i] for i in s.get("lineage", [])]

    def stop_reasons(self) -> pd.DataFrame:
        """Why each rule search stopped (``search_stop``) and whether its rule was accepted;
        the fit's reason is :attr:`fit_stop`."""
        rows = []
        for s in self.searches:
            stop = s.get("stop") or {}
            rows.append({"rule_index": s["rule_index"], "accepted": s["accepted"],
                         "search_stop": stop.get("reason"), "iterations": len(s["iterations"]),
                         "fit_stop": (s.get("fit_stop") or {}).get("reason")})
        return pd.DataFrame(rows)

    @property
    def fit_stop(self) -> dict | None:
        """Why the fit stopped (``{"reason": ...}``, see ``docs/trace.md``)."""
        if not self.searches:
            return {"reason": "max_rules", "max_rules": 0}
        return self.searches[-1].get("fit_stop")

    def mdl_parts(self, rule_index: int) -> pd.DataFrame:
        """The MDL change of adding the chosen rule and the runner-up, by part (bits)."""
        s = self.searches[rule_index]
        rows = []
        for role in ("chosen", "runner_up"):
            c = s.get(role)
            if c is not None and c.get("mdl_change") is not None:
                rows.append({"role": role, "id": c["id"], "conditions": " AND ".join(c.get("conditions", [])),
                             "r": c["r"], **c["mdl_change"]})
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {"format": TRACE_FORMAT, "searches": self.searches, "initial_mdl": self.initial_mdl,
                "n_train": self.n_train, "feature_names": self.feature_names, "classes": self.classes,
                "cuts": self.cuts, "column_kinds": self.column_kinds}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "SearchTrace":
        fmt = d.get("format", TRACE_FORMAT)
        if fmt != TRACE_FORMAT:
            raise ValueError(f"This trace has the format {fmt!r}; this version of turs reads {TRACE_FORMAT!r}. "
                             "Record it again with this version.")
        return cls(d["searches"], d["initial_mdl"], d["n_train"], d.get("feature_names", []),
                   d.get("classes", []), d.get("cuts", []), d.get("column_kinds", []))

    @classmethod
    def from_json(cls, s: str) -> "SearchTrace":
        return cls.from_dict(json.loads(s))
