"""The search trace recorded by ``TURSClassifier.fit(..., record_trace=True)``.

One entry per rule search (Algorithm 3 step) with, per beam iteration (Algorithm 4 step),
every candidate of the main and the auxiliary beam -- conditions, coverage, coverage outside
the current rule set, ``r`` (Eq. 3.21), ``R`` (Eq. 3.24), patience bucket (Eq. 3.23), local
test outcomes (Eq. 3.22, 3.25) -- the rule chosen, and the rule set's coverage and MDL score
after each addition. It is plain JSON; the explorer and the Fig. 3.6 notebook read it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd


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
        """The candidates of one beam at one iteration as a table."""
        key = {"main": "main_beam", "aux": "aux_beam", "rejected": "rejected_by_local_test"}[which]
        it = self.searches[rule_index]["iterations"][iteration]
        df = pd.DataFrame(it[key])
        chosen = self.searches[rule_index]["chosen"]
        if len(df) and chosen is not None:
            target = sorted(map(tuple, chosen["literals"]))  # same literals, any order
            df["chosen"] = [sorted(map(tuple, c["literals"])) == target for c in it[key]]
        return df

    @property
    def n_searches(self) -> int:
        return len(self.searches)

    def to_dict(self) -> dict:
        return {"searches": self.searches, "initial_mdl": self.initial_mdl, "n_train": self.n_train,
                "feature_names": self.feature_names, "classes": self.classes, "cuts": self.cuts,
                "column_kinds": self.column_kinds}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "SearchTrace":
        return cls(d["searches"], d["initial_mdl"], d["n_train"], d.get("feature_names", []),
                   d.get("classes", []), d.get("cuts", []), d.get("column_kinds", []))

    @classmethod
    def from_json(cls, s: str) -> "SearchTrace":
        return cls.from_dict(json.loads(s))
