"""Rules as frozen value objects: conditions, class distribution, coverage.

A :class:`Condition` is one literal (thesis Eq. 3.1) on one encoded column: ``x < high``,
``x >= low`` or ``low <= x < high``; on a one-hot column it reads ``col = level`` or
``col != level``. A :class:`Rule` is a conjunction of conditions *in the order they were
added* (the order matters for the code length, Section 3.4.3) with the class counts of its
training cover (all instances it covers, overlaps included, Eq. 3.3).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Condition:
    """One literal ``low <= column < high`` (either bound may be absent)."""

    column: str  # encoded column name ("petal_length", "color=red")
    low: float | None = None
    high: float | None = None
    source: str | None = None  # the user's column (for one-hot columns)
    level: object = None  # the one-hot level, when the column is one-hot
    #: significant digits of the printed lower and upper bound (None: 6); more where 6 digits
    #: would not separate the training values the bound separates (:func:`print_digits`)
    digits: tuple = field(default=(None, None), compare=False)

    def __post_init__(self):
        if self.low is None and self.high is None:
            raise ValueError(
                f"A condition on '{self.column}' needs a lower bound, an upper bound or both."
            )
        if self.low is not None and self.high is not None and not self.low < self.high:
            raise ValueError(
                f"The condition {self.low} <= {self.column} < {self.high} is empty: "
                "the lower bound must be below the upper bound."
            )

    @property
    def is_onehot(self) -> bool:
        return self.source is not None and self.level is not None

    @property
    def two_sided(self) -> bool:
        return self.low is not None and self.high is not None

    def mask(self, values: np.ndarray) -> np.ndarray:
        """Which of the column's (encoded) values satisfy the condition."""
        m = np.ones(len(values), dtype=bool)
        if self.low is not None:
            m &= values >= self.low
        if self.high is not None:
            m &= values < self.high
        return m

    def __str__(self) -> str:
        """The condition as :func:`turs.parse_rule` reads it back: a name (or level) that
        holds an operator, `` AND `` or a backtick is quoted in backticks."""
        if self.is_onehot:
            positive = self.low is not None  # x >= 0.5  <=>  x == 1
            return f"{quote_name(self.source)} {'=' if positive else '!='} {quote_name(str(self.level))}"
        name = quote_name(self.column)
        lo_digits, hi_digits = self.digits
        if self.two_sided:
            lo_op, lo = _bound(self.low, "<=", "<", lo_digits)
            hi_op, hi = _bound(self.high, "<", "<=", hi_digits)
            return f"{lo} {lo_op} {name} {hi_op} {hi}"
        if self.low is not None:
            return "{} {} {}".format(name, *_bound(self.low, ">=", ">", lo_digits))
        return "{} {} {}".format(name, *_bound(self.high, "<", "<=", hi_digits))

    def to_dict(self) -> dict:
        return {"column": self.column, "low": self.low, "high": self.high,
                "source": self.source, "level": _jsonable(self.level), "digits": list(self.digits)}

    @classmethod
    def from_dict(cls, d: dict) -> "Condition":
        return cls(d["column"], d["low"], d["high"], d.get("source"), d.get("level"),
                   tuple(d.get("digits") or (None, None)))


@dataclass(frozen=True)
class Rule:
    """``IF conditions THEN P(Y) = class_counts / coverage`` (Eq. 3.1, 3.3)."""

    conditions: tuple  # tuple[Condition, ...], in the order they were added
    class_counts: tuple = ()  # training counts over the rule's whole cover
    classes: tuple = ()

    @property
    def coverage(self) -> int:
        return int(sum(self.class_counts))

    @property
    def probabilities(self) -> np.ndarray:
        counts = np.asarray(self.class_counts, dtype=float)
        return counts / counts.sum() if counts.sum() > 0 else counts

    def __len__(self) -> int:
        return len(self.conditions)

    def condition_text(self) -> str:
        """The conditions joined by `` AND `` (:func:`printed_conditions`: a ``col != level``
        implied by a ``col = other level`` of the rule is left out; the cover is the same)."""
        return " AND ".join(str(c) for c in printed_conditions(self.conditions)) if self.conditions else "TRUE"

    def __str__(self) -> str:
        probs = ", ".join(
            f"P({cls})={p:.2f}" for cls, p in zip(self.classes, self.probabilities)
        )
        return f"IF {self.condition_text()} THEN {probs} (n={self.coverage})"

    def to_dict(self) -> dict:
        return {
            "conditions": [c.to_dict() for c in self.conditions],
            "class_counts": [int(v) for v in self.class_counts],
            "classes": [_jsonable(c) for c in self.classes],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Rule":
        return cls(tuple(Condition.from_dict(c) for c in d["conditions"]),
                   tuple(d["class_counts"]), tuple(d["classes"]))


@dataclass(frozen=True)
class ElseRule:
    """The else-rule ``S_0``: instances no rule covers (Section 3.3.2).

    When no training instance is left to it, it predicts ``fallback_counts`` (the training
    class counts) -- the same numbers are printed and used by ``predict_proba``.
    """

    class_counts: tuple = ()
    classes: tuple = ()
    fallback_counts: tuple = ()

    @property
    def coverage(self) -> int:
        return int(sum(self.class_counts))

    @property
    def probabilities(self) -> np.ndarray:
        counts = np.asarray(self.class_counts if self.coverage else self.fallback_counts, dtype=float)
        return counts / counts.sum()

    def __str__(self) -> str:
        probs = ", ".join(f"P({c})={p:.2f}" for c, p in zip(self.classes, self.probabilities))
        note = "" if self.coverage else ", no training instance: the training class distribution"
        return f"ELSE {probs} (n={self.coverage}{note})"


def printed_conditions(conditions) -> list:
    """The conditions a rule prints: all of them, in order, except each ``col != a`` on a
    categorical column that has a ``col = b`` (``b`` another level) in the same rule, which
    implies it (one value per row). The search can grow both (``colour != red``, then
    ``colour = blue``); printing the stronger alone reads better and, parsed back
    (:func:`turs.parse_rule`), covers exactly the same rows. The rule itself keeps every literal
    (its model code counts them). Items that are not one-hot :class:`Condition` objects (text,
    say) are kept as they are."""
    conditions = list(conditions)
    onehot = [c for c in conditions if isinstance(c, Condition) and c.is_onehot]
    equal = {}
    for c in onehot:
        if c.low is not None:  # "col = level"
            equal.setdefault(c.source, set()).add(_level_key(c.level))
    out = []
    for c in conditions:
        if isinstance(c, Condition) and c.is_onehot and c.low is None:  # "col != level"
            others = equal.get(c.source, set()) - {_level_key(c.level)}
            if others:
                continue
        out.append(c)
    return out


def _level_key(level):
    return (type(level).__name__, str(level))


#: Significant digits of a printed threshold unless the training data need more (print_digits).
PRINT_DIGITS = 6


def _fmt(v: float, digits: int | None = None) -> str:
    return f"{v:.{digits or PRINT_DIGITS}g}"


def _bound(cut: float, op: str, op_at_value: str, digits: int | None = None) -> tuple[str, str]:
    """``(operator, value)`` of a bound as printed: ``(op, cut)``, or ``(op_at_value, v)`` for a
    cut just above a value ``v`` (``np.nextafter(v, inf)``, the cut between two equal data
    values, :func:`turs.encoding.candidate_cuts`): ``x < 3.0000000000000004`` reads ``x <= 3``.
    ``digits``: significant digits (default :data:`PRINT_DIGITS`)."""
    op, value = _exact_bound(cut, op, op_at_value)
    return op, _fmt(value, digits)


def print_digits(cut: float, values: np.ndarray) -> int | None:
    """The significant digits a bound at ``cut`` must be printed with so that, parsed back, it
    separates the sorted distinct ``values`` (a column's training values) as ``cut`` does:
    None when :data:`PRINT_DIGITS` suffice, else the fewest from 7 to 17 that do (17 digits
    give the float itself). The lower and the upper bound at a cut need the same digits (both
    read ``x >= t`` / ``x < t``, or ``x > v`` / ``x <= v`` for a cut just above ``v``)."""
    op, value = _exact_bound(float(cut), ">=", ">")
    values = np.asarray(values, dtype=float)
    side = np.searchsorted(values, float(cut), side="left")
    for digits in range(PRINT_DIGITS, 18):
        back = cut_of_bound(op, float(_fmt(value, digits)))
        if np.searchsorted(values, back, side="left") == side:
            return None if digits == PRINT_DIGITS else digits
    return 17  # not reached: 17 significant digits give the float itself


def print_digits_table(encoder, Xe: np.ndarray, rules_literals=(), table: dict | None = None) -> dict:
    """``{(encoded column, threshold): digits}`` for the thresholds that need more than 6
    significant digits to separate the training values ``Xe`` as they do
    (:func:`print_digits`): every candidate cut point of the numeric columns and
    every threshold of ``rules_literals``. ``encoder``: the fitted
    :class:`turs.encoding.FeatureEncoder` of ``Xe``. ``table``: an existing table to extend (a copy)."""
    out = dict(table or {})
    wanted: dict = {}
    for j, col in enumerate(encoder.columns_):
        if col.kind == "numeric" and table is None:
            wanted.setdefault(j, set()).update(float(c) for c in col.cuts)
    for lits in rules_literals:
        for j, low, high in lits:
            if encoder.columns_[j].kind == "numeric":
                wanted.setdefault(j, set()).update(float(v) for v in (low, high) if v is not None)
    for j, cuts in wanted.items():
        cuts = [c for c in cuts if (j, c) not in out]
        if not cuts:
            continue
        values = np.unique(Xe(j) if callable(Xe) else Xe[:, j])  # a column source reads one column
        for c in cuts:
            digits = print_digits(c, values)
            if digits is not None:
                out[(j, c)] = digits
    return out


#: What a column name or a level must not hold unquoted in a rule's text (turs.parse_rule).
_NEEDS_QUOTES = re.compile(r"[<>=!`]|(?<!\S)(AND|THEN)(?!\S)|^\s*IF(?!\S)|^\s|\s$|^$")


def quote_name(name: str) -> str:
    """``name`` as a rule's text writes it: in backticks (a backtick inside doubled) when it
    holds an operator character (``< > = !``), a backtick, the word ``AND`` or ``THEN``, starts
    with the word ``IF``, has leading or trailing space or is empty."""
    name = str(name)
    if _NEEDS_QUOTES.search(name):
        return "`" + name.replace("`", "``") + "`"
    return name


def _exact_bound(cut: float, op: str, op_at_value: str) -> tuple[str, float]:
    """:func:`_bound` with the exact value: ``(op, cut)`` or ``(op_at_value, v)``."""
    below = float(np.nextafter(cut, -np.inf))
    just_above = below == 0.0 or (float(f"{below:.12g}") == below and float(f"{cut:.12g}") != cut)
    return (op_at_value, below) if just_above else (op, float(cut))


#: The operators of a bound on a numeric column, as a condition prints them: a lower bound
#: reads ``x >= v`` or ``x > v``, an upper bound ``x < v`` or ``x <= v``.
LOWER_OPS = (">=", ">")
UPPER_OPS = ("<", "<=")


def bound_of_cut(cut: float, side: str) -> tuple[str, float]:
    """A :class:`Condition`'s ``low`` (``side="lower"``, ``x >= cut``) or ``high`` (``"upper"``,
    ``x < cut``) as the operator and exact value it prints with: ``("<=", 3.0)`` for the cut
    ``np.nextafter(3.0, inf)``. :func:`cut_of_bound` is the inverse."""
    return _exact_bound(cut, *(LOWER_OPS if side == "lower" else UPPER_OPS))


def cut_of_bound(op: str, value: float) -> float:
    """The cut of ``x op value``: ``x > v`` is ``x >= nextafter(v, inf)``, ``x <= v`` is
    ``x < nextafter(v, inf)`` (exact on floats); ``>=`` and ``<`` keep ``v``."""
    if op not in LOWER_OPS + UPPER_OPS:
        raise ValueError(f"A bound's operator must be one of {LOWER_OPS + UPPER_OPS}. Got {op!r}.")
    value = float(value)
    return float(np.nextafter(value, np.inf)) if op in (">", "<=") else value


def _jsonable(v):
    if isinstance(v, np.generic):
        return v.item()
    return v
