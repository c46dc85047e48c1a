"""Rules written as text: :func:`parse_rule` reads them, :func:`resolve_rules` places them on a
fitted encoder and its training data.

The text is what ``str(rule)`` prints for a rule's conditions, joined by `` AND ``::

    petal length (cm) >= 2.45 AND 1.65 <= petal width (cm) < 1.75 AND color != red

* a condition on a numeric column is ``name op value`` with ``op`` one of ``>=``, ``>``, ``<``,
  ``<=`` (or ``=`` for the single value ``v <= x <= v``), or the two-sided ``a <= name < b``
  (``<`` or ``<=`` on either side); values are decimal numbers (``1e-3`` included);
* a condition on a categorical column is ``name = level`` or ``name != level``;
* a column name or a level that holds an operator character (``< > = !``), `` AND ``, a
  backtick or leading or trailing space is written in backticks, a backtick inside doubled
  (``str(rule)`` does this, :func:`turs.rules.quote_name`); other names, spaces and
  parentheses included (``worst perimeter``, ``petal length (cm)``), are written as they are;
* ``IF ... THEN ...`` around the conditions, as ``str(rule)`` prints a whole rule, is allowed:
  the part after ``THEN`` is ignored.

:func:`parse_rule` checks only the syntax, at once (:class:`RuleSyntaxError`, a ValueError that
shows the position). Whether the columns exist, a level is one of the column's levels and the
rule covers a training row is known where the rule is used, on the model's data
(:func:`resolve_rules`, behind ``TURSClassifier.fit(initial_rules=...)``, ``with_rule`` and
``replace_rule``); those errors name the rule and the column. A parsed rule is stored as the
model file stores a rule (:mod:`turs.model_file`): an operator and a threshold per bound on one
of the user's columns, or ``=`` / ``!=`` and a level.
"""
from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .mdl import columns_of, rule_model_bits
from .rules import LOWER_OPS, Condition, cut_of_bound, quote_name

__all__ = ["ParsedCondition", "ParsedRule", "ResolvedRule", "RuleSyntaxError", "parse_rule", "resolve_rules"]

_OPS = (">=", "<=", "!=", ">", "<", "=")  # longest first
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_FLIP = {"<": ">", "<=": ">="}  # "a < x" is "x > a"


class RuleSyntaxError(ValueError):
    """A rule's text that :func:`parse_rule` cannot read; ``position`` is the 0-based index in
    the text where the problem is."""

    def __init__(self, text: str, position: int, problem: str, fix: str):
        self.text, self.position = text, position
        pointer = " " * position + "^"
        super().__init__(f"Cannot parse the rule {text!r}: {problem} at position {position}:\n  {text}\n  {pointer}\n"
                         f"{fix}")


@dataclass(frozen=True)
class ParsedCondition:
    """One condition of a parsed rule, on one of the user's columns (not yet checked against
    data). A numeric condition has ``lower`` (``(">=" or ">", value)``) and/or ``upper``
    (``("<" or "<=", value)``); a ``col = text`` / ``col != text`` condition has ``op`` and
    ``level`` (the level as text; on a numeric column ``= v`` reads as ``v <= x <= v``).
    ``position``: where it starts in the rule's text."""

    column: str
    lower: tuple | None = None
    upper: tuple | None = None
    op: str | None = None
    level: str | None = None
    position: int = 0

    def __str__(self) -> str:
        name = quote_name(self.column)
        if self.op is not None:
            return f"{name} {self.op} {quote_name(self.level)}"
        if self.lower is not None and self.upper is not None:
            return f"{_num(self.lower[1])} {_FLIP_BACK[self.lower[0]]} {name} {self.upper[0]} {_num(self.upper[1])}"
        op, value = self.lower if self.lower is not None else self.upper
        return f"{name} {op} {_num(value)}"

    def to_dict(self) -> dict:
        """The condition as the model file writes one (:mod:`turs.model_file`), the level as text."""
        if self.op is not None:
            return {"column": self.column, "op": self.op, "level": self.level}
        d = {"column": self.column}
        for side, bound in (("lower", self.lower), ("upper", self.upper)):
            if bound is not None:
                d[side] = {"op": bound[0], "value": bound[1]}
        return d


_FLIP_BACK = {">": "<", ">=": "<="}


@dataclass(frozen=True)
class ParsedRule:
    """A rule read from text by :func:`parse_rule`: its conditions in the order written."""

    text: str
    conditions: tuple

    def __str__(self) -> str:
        return " AND ".join(str(c) for c in self.conditions)

    def __len__(self) -> int:
        return len(self.conditions)

    def to_dict(self) -> dict:
        return {"conditions": [c.to_dict() for c in self.conditions]}


def parse_rule(text: str) -> ParsedRule:
    """Read a rule from its text (the conditions as ``str(rule)`` prints them; see the module
    docstring). Raises :class:`RuleSyntaxError` (a ValueError) with the position of the first
    problem. The columns and levels are checked where the rule is used."""
    if isinstance(text, ParsedRule):
        return text
    if not isinstance(text, str):
        raise TypeError(f"parse_rule takes a rule's text (a str). Got {type(text).__name__}: {text!r}.")
    quoted = _quoted_spans(text)
    body_start, body_end = 0, len(text)
    m = re.match(r"\s*IF(?!\S)", text)
    if m:
        body_start = m.end()
    then = _find_outside(text, _word("THEN"), quoted, body_start)
    if then is not None:
        body_end = then.start()
    parts, start = [], body_start
    for m in _word("AND").finditer(text, body_start, body_end):
        if not _inside(m.start(), quoted):
            parts.append((start, m.start()))
            start = m.end()
    parts.append((start, body_end))
    if len(parts) == 1 and not text[start:body_end].strip():
        raise RuleSyntaxError(text, start, "there is no condition", "Write at least one condition, e.g. 'x1 >= 1.0'.")
    conditions = tuple(_condition(text, a, b, quoted) for a, b in parts)
    return ParsedRule(text, conditions)


def _condition(text: str, a: int, b: int, quoted) -> ParsedCondition:
    """The condition in ``text[a:b]``."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if a == b:
        raise RuleSyntaxError(text, a, "a condition is missing (two ANDs in a row, or AND at an end)",
                              "Remove the extra AND or write the condition.")
    ops = []
    i = a
    while i < b:
        if _inside(i, quoted):
            i += 1
            continue
        op = next((o for o in _OPS if text.startswith(o, i) and i + len(o) <= b), None)
        if op is None:
            i += 1
            continue
        ops.append((i, op))
        i += len(op)
    if not ops:
        raise RuleSyntaxError(text, a, f"the condition {text[a:b]!r} has no operator",
                              "Write 'name op value' with op one of >=, >, <, <=, =, != (quote a name that "
                              "holds an operator in backticks).")
    if len(ops) == 1:
        (p, op), = ops
        name = _name(text, a, p, quoted, "a column name")
        if op in ("=", "!="):
            return ParsedCondition(name, op=op, level=_name(text, p + len(op), b, quoted, "a level or a value"),
                                   position=a)
        value = _value(text, p + len(op), b)
        if op in LOWER_OPS:
            return ParsedCondition(name, lower=(op, value), position=a)
        return ParsedCondition(name, upper=(op, value), position=a)
    if len(ops) == 2:
        (p1, op1), (p2, op2) = ops
        for p, op in ops:
            if op not in ("<", "<="):
                raise RuleSyntaxError(text, p, f"a two-sided condition takes '<' or '<=' on both sides, not {op!r}",
                                      "Write it as 'a <= name < b' (or with '<' / '<=' on either side).")
        low = _value(text, a, p1)
        name = _name(text, p1 + len(op1), p2, quoted, "a column name")
        high = _value(text, p2 + len(op2), b)
        if not cut_of_bound(_FLIP[op1], low) < cut_of_bound(op2, high):
            raise RuleSyntaxError(text, a, f"the interval {text[a:b]!r} is empty",
                                  "Write the smaller value on the left: 'a <= name < b' with a < b.")
        return ParsedCondition(name, lower=(_FLIP[op1], low), upper=(op2, high), position=a)
    p, op = ops[2]
    raise RuleSyntaxError(text, p, f"the condition {text[a:b]!r} has {len(ops)} operators (at most 2: "
                          "'a <= name < b')", "Join conditions with ' AND ', and quote a name or level that "
                          "holds an operator in backticks, e.g. `a<b` >= 1.")


def _name(text: str, a: int, b: int, quoted, what: str) -> str:
    """A column name or a level in ``text[a:b]``: the stripped text, or one backticked part."""
    seg = text[a:b]
    stripped = seg.strip()
    start = a + (len(seg) - len(seg.lstrip()))
    if not stripped:
        raise RuleSyntaxError(text, min(start, len(text)), f"{what} is missing", f"Write {what} here.")
    if stripped.startswith("`"):
        span = next((s for s in quoted if s[0] == start), None)
        end = start + len(stripped)
        if span is None or span[1] != end:
            raise RuleSyntaxError(text, start, f"{what} in backticks must be all of it (the closing backtick is "
                                  "missing, or text follows it)", "Close the backtick right after the name; a "
                                  "backtick inside the name is written twice (``).")
        return text[start + 1:end - 1].replace("``", "`")
    tick = stripped.find("`")
    if tick >= 0:
        raise RuleSyntaxError(text, start + tick, f"a backtick inside {what}",
                              "Put the whole name in backticks, a backtick inside it written twice (``).")
    return stripped


def _value(text: str, a: int, b: int) -> float:
    seg = text[a:b]
    stripped = seg.strip()
    start = a + (len(seg) - len(seg.lstrip()))
    if not _NUMBER.match(stripped):
        what = f"{stripped!r} is not a number" if stripped else "a number is missing"
        raise RuleSyntaxError(text, min(start, len(text)), what,
                              "Write a decimal number such as 2.45, -3 or 1e-3 (a level takes '=' or '!=').")
    value = float(stripped)
    if not math.isfinite(value):
        raise RuleSyntaxError(text, start, f"{stripped!r} is not a finite number", "Write a smaller number.")
    return value


def _quoted_spans(text: str) -> list:
    """``(start, end)`` of each backticked part (end after the closing backtick); ``` `` ``` inside
    a part is a backtick. An unclosed backtick is a syntax error."""
    spans, i = [], 0
    while i < len(text):
        if text[i] != "`":
            i += 1
            continue
        j = i + 1
        while True:
            k = text.find("`", j)
            if k < 0:
                raise RuleSyntaxError(text, i, "a backtick is not closed",
                                      "Close the quoted name with a backtick (a backtick inside it is written ``).")
            if text.startswith("``", k):
                j = k + 2
                continue
            break
        spans.append((i, k + 1))
        i = k + 1
    return spans


def _word(word: str):
    """``word`` as a whole word: no non-space character right before or after it."""
    return re.compile(rf"(?<!\S){word}(?!\S)")


def _inside(i: int, spans) -> bool:
    return any(a <= i < b for a, b in spans)


def _find_outside(text, pattern, spans, start):
    for m in pattern.finditer(text, start):
        if not _inside(m.start(), spans):
            return m
    return None


def _num(v: float) -> str:
    return repr(float(v)) if float(v) != int(v) or abs(v) >= 1e16 else str(int(v))


# --------------------------------------------------------------------------- resolution
@dataclass
class ResolvedRule:
    """A rule placed on a fitted encoder and its training data: ``literals`` ``(encoded column,
    low, high)`` in the rule's order (``low <= x < high``, exact thresholds), the training rows
    it covers and its model code ``L(S)`` (Eq. 3.17). ``rows``, ``coverage`` and ``model_bits``
    are what the search's rule set (:class:`turs.search.RuleSetState`) reads of a rule."""

    literals: list
    rows: np.ndarray
    model_bits: float
    text: str

    @property
    def coverage(self) -> int:
        return int(self.rows.shape[0])


def resolve_rules(rules, encoder, Xe: np.ndarray, model_encoding: str = "turs2", first_index: int = 1) -> list:
    """Each of ``rules`` (text, :class:`ParsedRule`, :class:`~turs.rules.Rule`, a sequence of
    :class:`~turs.rules.Condition` or a box ``{column: (low, high)}``) as a :class:`ResolvedRule` on ``encoder`` (fitted) and the
    encoded training matrix ``Xe``. Raises a ValueError naming the rule (numbered from
    ``first_index``, with its text) and the column for: a syntax error, an unknown column, a
    level the column does not have, an operator the column's kind does not take, two
    conditions on one column that are not one interval, a rule that covers no training row,
    or a numeric literal that leaves no candidate cut point to code it (Eq. 3.15)."""
    if isinstance(rules, (str, ParsedRule, Mapping)) or hasattr(rules, "conditions"):
        rules = [rules]
    out = []
    for k, rule in enumerate(rules):
        label = _label(rule, first_index + k)
        try:
            literals = _literals(rule, encoder, label)
        except RuleSyntaxError as e:
            raise ValueError(f"Rule {first_index + k}: {e}") from None
        out.append(_on_data(literals, encoder, Xe, model_encoding, label))
    return out


def _label(rule, number: int) -> str:
    if isinstance(rule, str):
        text = rule
    elif isinstance(rule, ParsedRule):
        text = rule.text
    elif hasattr(rule, "condition_text"):
        text = rule.condition_text()
    elif isinstance(rule, Mapping):
        text = " AND ".join(str(c) for c in _box_conditions(rule, f"rule {number}"))
    else:
        try:
            text = " AND ".join(str(c) for c in rule)
        except TypeError:
            raise TypeError(f"Rule {number} is a {type(rule).__name__}; a rule is its text, a parsed rule "
                            "(turs.parse_rule), a turs.Rule, a sequence of turs.Condition or a box {column: (low, high)}.") from None
    return f"rule {number} ({text!r})"


def _box_conditions(box: Mapping, label: str) -> list:
    """A box ``{column: (low, high)}`` (``low <= x < high``; None for an open side, the form of
    :data:`turs.datasets.OVERLAP_BLOCKADE_RULES`) as numeric conditions (:class:`~turs.rules.Condition`)."""
    out = []
    for column, bounds in box.items():
        try:
            low, high = bounds
        except (TypeError, ValueError):
            raise ValueError(f"The {label} gives {bounds!r} for the column {column!r}; a box maps each column to "
                             "(low, high), meaning low <= x < high, with None for an open side, e.g. "
                             "{'x': (0.0, 1.5)}.") from None
        if low is None and high is None:
            raise ValueError(f"The {label} gives no bound for the column {column!r}; give low, high or both.")
        out.append(Condition(str(column), low=None if low is None else float(low),
                             high=None if high is None else float(high)))
    return out


def _literals(rule, encoder, label: str) -> list:
    """``[(j, low, high, column_text), ...]`` of a rule, one per encoded column, in its order."""
    index = {c.name: j for j, c in enumerate(encoder.columns_)}
    if isinstance(rule, (str, ParsedRule)):
        parsed = parse_rule(rule)
        lits = [_from_parsed(c, encoder, index, label) for c in parsed.conditions]
    else:
        if isinstance(rule, Mapping):
            conds = _box_conditions(rule, label)
        else:
            conds = rule.conditions if hasattr(rule, "conditions") else tuple(rule)
        lits = [_from_condition(c, encoder, index, label) for c in conds]
    if not lits:
        raise ValueError(f"The {label} has no condition; a rule needs at least one.")
    merged: dict = {}
    order = []
    for j, low, high, name in lits:
        if j not in merged:
            merged[j] = [low, high, name]
            order.append(j)
            continue
        old = merged[j]
        if (low is not None and old[0] is not None) or (high is not None and old[1] is not None) \
                or encoder.columns_[j].kind == "onehot":
            raise ValueError(f"The {label} has two conditions on the column '{name}' that are not one interval; "
                             "a rule has at most one condition per column. Merge them (e.g. '1 <= x < 3') or "
                             "drop one.")
        old[0] = low if low is not None else old[0]
        old[1] = high if high is not None else old[1]
        if not old[0] < old[1]:
            raise ValueError(f"The {label} has conditions on '{name}' whose interval is empty; "
                             "fix the bounds.")
    return [(j, merged[j][0], merged[j][1], merged[j][2]) for j in order]


def _nearest_columns(name: str, columns: list, shown: int = 8) -> str:
    """The columns a misspelt ``name`` most likely meant, or all of them when there are few."""
    if len(columns) <= shown:
        return f"the columns are {columns}"
    near = difflib.get_close_matches(name, [str(c) for c in columns], n=3, cutoff=0.5)
    if near:
        return f"the nearest names are {near} (of {len(columns)} columns)"
    return f"no column has a name close to it (the first {shown} of {len(columns)}: {columns[:shown]})"


def _from_parsed(c: ParsedCondition, encoder, index: dict, label: str) -> tuple:
    src = c.column
    if src not in encoder.input_columns_:
        raise ValueError(f"The {label} has a condition on the column '{src}', which the model's data do not "
                         f"have; {_nearest_columns(src, list(encoder.input_columns_))}. Fix the name (a name "
                         "that holds an operator or ' AND ' is written in backticks).")
    levels = encoder.categorical_levels_.get(src)
    if levels is not None:
        if c.op is None:
            raise ValueError(f"The {label} compares the categorical column '{src}' with a number ('{c}'); a "
                             f"categorical column takes '= level' or '!= level', its levels are {list(levels)}.")
        found = [lv for lv in levels if str(lv) == c.level]
        if not found:
            raise ValueError(f"The {label} uses the level {c.level!r} of the column '{src}', which it does not "
                             f"have; its levels are {[str(v) for v in levels]}. Fix the level.")
        if len(found) > 1:
            raise ValueError(f"The {label} names the level {c.level!r} of '{src}', which prints like "
                             f"{len(found)} levels {found}; give the rule as a turs.Rule instead.")
        return _onehot(encoder, index, src, levels, found[0], c.op == "=")
    j = index[src]
    if c.op == "!=":
        raise ValueError(f"The {label} has '{c}' on the numeric column '{src}'; a condition on a numeric "
                         "column is one interval. Write two rules ('x < v' and 'x > v') instead.")
    if c.op == "=":
        if not _NUMBER.match(c.level) or not math.isfinite(float(c.level)):
            raise ValueError(f"The {label} compares the numeric column '{src}' with {c.level!r}, which is not a "
                             "number. Write a number, e.g. 'x = 3' or '2 <= x < 4'.")
        v = float(c.level)
        return j, v, cut_of_bound("<=", v), src
    low = cut_of_bound(*c.lower) if c.lower is not None else None
    high = cut_of_bound(*c.upper) if c.upper is not None else None
    return j, low, high, src


def _from_condition(c, encoder, index: dict, label: str) -> tuple:
    """A :class:`~turs.rules.Condition` (exact thresholds) on ``encoder``'s columns."""
    if c.is_onehot:
        levels = encoder.categorical_levels_.get(c.source)
        if levels is None:
            raise ValueError(f"The {label} has a condition on the categorical column '{c.source}', which the "
                             f"model's data do not have as a categorical column; the columns are "
                             f"{list(encoder.input_columns_)}.")
        found = [lv for lv in levels if type(lv) is type(c.level) and lv == c.level] or \
            [lv for lv in levels if lv == c.level]
        if not found:
            raise ValueError(f"The {label} uses the level {c.level!r} of '{c.source}', which it does not have; "
                             f"its levels are {list(levels)}.")
        return _onehot(encoder, index, c.source, levels, found[0], c.low is not None)
    if c.column not in index or encoder.columns_[index[c.column]].kind != "numeric":
        raise ValueError(f"The {label} has a condition on the column '{c.column}', which is not a numeric "
                         f"column of the model's data; the columns are {list(encoder.input_columns_)}.")
    return index[c.column], c.low, c.high, c.column


def _onehot(encoder, index, src, levels, level, positive: bool) -> tuple:
    if len(levels) == 2 and level == levels[0]:  # one 0/1 column, for the second level
        level, positive = levels[1], not positive
    j = next(j for j, col in enumerate(encoder.columns_) if col.source == src and col.level == level)
    return (j, 0.5, None, src) if positive else (j, None, 0.5, src)


def _on_data(literals, encoder, Xe, model_encoding, label) -> ResolvedRule:
    n = Xe.shape[0]
    columns = columns_of(Xe)
    cover = np.ones(n, dtype=bool)
    for j, low, high, name in literals:
        before = int(cover.sum())
        columns.restrict(cover, j, low, high)
        if not cover.any():
            cond = _condition_text(encoder, j, low, high)
            raise ValueError(f"The {label} covers no training row: its condition '{cond}' on the column "
                             f"'{name}' leaves none of the {before} rows the conditions before it cover. "
                             "Loosen the condition or drop the rule.")
    lits = [(j, low, high) for j, low, high, _ in literals]
    cuts = [c.cuts for c in encoder.columns_]
    try:
        bits = rule_model_bits(lits, Xe, cuts, encoder.binary_, 1, model_encoding, columns)[0]
    except ValueError:  # a literal whose reached data have no candidate cut (K_value = 0)
        bad = _uncodable(lits, Xe, cuts, encoder.binary_, columns)
        name = literals[bad][3]
        raise ValueError(f"The {label} cannot be coded: its condition on the column '{name}' acts on rows "
                         "where the column has no candidate cut point between its smallest and largest value, "
                         "so the literal has no code (Eq. 3.15: K_value = 0); it does not split those rows. "
                         "Drop the condition or put it first.") from None
    return ResolvedRule(lits, np.flatnonzero(cover).astype(np.int64), float(bits), label)


def _uncodable(lits, Xe, cuts, binary, columns) -> int:
    sub = np.ones(Xe.shape[0], dtype=bool)
    for k, (j, low, high) in enumerate(lits):
        if not binary[j]:
            kv = columns.k_value(j, sub, cuts[j])
            if (kv or 0) < (2 if low is not None and high is not None else 1):
                return k
        columns.restrict(sub, j, low, high)
    return len(lits) - 1


def _condition_text(encoder, j, low, high) -> str:
    from .rules import Condition

    col = encoder.columns_[j]
    if col.kind == "onehot":
        return str(Condition(col.name, low, high, col.source, col.level))
    return str(Condition(col.name, low, high))
