"""Small value classes for the rules of the re-implemented seed learners (submodular, LIRE).

A :class:`Condition` is one threshold literal on one feature column (``x_j <= t`` or
``x_j > t``); a :class:`Conjunction` is a rule, the AND of its conditions (the empty conjunction
is TRUE). Both are frozen, print as text and evaluate with ``covers(X)`` on a 2-d float array
whose columns are the model's input features, so the same code serves printing, prediction
and the benchmark's rule masks.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Condition", "Conjunction"]


def _fmt(v: float) -> str:
    return f"{float(v):.6g}"


@dataclass(frozen=True)
class Condition:
    """``feature_name <= threshold`` (``op="<="``) or ``feature_name > threshold`` (``op=">"``)."""

    feature: int
    op: str
    threshold: float
    feature_name: str = ""

    def __post_init__(self):
        if self.op not in ("<=", ">"):
            raise ValueError(f"Condition op must be '<=' or '>'. Got {self.op!r}.")

    def holds(self, X: np.ndarray) -> np.ndarray:
        """Boolean vector: which rows of ``X`` satisfy the condition."""
        col = np.asarray(X, dtype=float)[:, self.feature]
        return col <= self.threshold if self.op == "<=" else col > self.threshold

    def negated(self) -> "Condition":
        return Condition(self.feature, ">" if self.op == "<=" else "<=", self.threshold, self.feature_name)

    def __str__(self) -> str:
        name = self.feature_name or f"x{self.feature}"
        return f"{name} {self.op} {_fmt(self.threshold)}"


@dataclass(frozen=True)
class Conjunction:
    """A rule: the AND of ``conditions`` (TRUE when there are none)."""

    conditions: tuple[Condition, ...] = ()

    def __len__(self) -> int:
        return len(self.conditions)

    def covers(self, X: np.ndarray) -> np.ndarray:
        """Boolean vector: which rows of ``X`` satisfy every condition."""
        X = np.asarray(X, dtype=float)
        out = np.ones(X.shape[0], dtype=bool)
        for c in self.conditions:
            out &= c.holds(X)
        return out

    def __str__(self) -> str:
        return " AND ".join(str(c) for c in self.conditions) if self.conditions else "TRUE"
