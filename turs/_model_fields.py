"""Reading a model file's JSON: the text parsed with errors a reader can act on, and the
field checks :mod:`turs.model_file` builds on, each naming the field, what it must hold, what it
holds and the fix.

:func:`parse` turns JSON nested deeper than Python's reader follows, or an integer longer than
Python converts, into a ValueError that names the field (instead of a ``RecursionError`` or
Python's digit-limit message); the ``_`` functions check one field each.
"""
from __future__ import annotations

import json
import math
import numbers
import re

import numpy as np

__all__ = ["parse"]

#: Most digits an integer of a model file may have (its counts stay below 2^53: 16 digits); an
#: integer longer than Python converts is refused with the field that holds it.
MAX_INT_DIGITS = 40
_MAX_COUNT = 2 ** 53  # counts are summed in float64 (turs.union_estimate.union_counts): exact below this
#: Nesting no field of a model file exceeds (the deepest, a trace's records, nests 9 levels).
MAX_DEPTH = 64
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')  # a JSON string, or a bracket outside one
NOT_A_MODEL = "This JSON is not a TURS model written by TURSClassifier.to_json()"


class LongInt:
    """An integer of the text too long to be any field's value: its digits, for the message."""

    def __init__(self, text: str):
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"an integer of {self.digits} digits"


def _int_or_long(text: str):
    return LongInt(text) if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def parse(text: str):
    """The JSON value of ``text``. A ValueError says what is wrong, where and the fix when the
    text is not JSON, nests lists or objects deeper than Python's reader follows (about a
    thousand levels: the field where the nesting passes :data:`MAX_DEPTH`), or holds an integer
    longer than Python converts (the field that holds it). Shorter integers are the field
    checks' to refuse."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{NOT_A_MODEL}: it is not valid JSON ({e}).") from None
    except RecursionError:  # deeper than the reader follows: find where, for the message
        field, depth = _too_deep(text)
        raise ValueError(f"{NOT_A_MODEL}: its field '{field or '(top level)'}' nests lists or objects {depth} levels "
                         f"deep, more than Python's JSON reader follows; no field of a model file nests more than "
                         f"{MAX_DEPTH}. Fix the field, or save the model again with TURSClassifier.to_json().") from None
    except ValueError as e:  # an integer longer than Python converts (sys.get_int_max_str_digits())
        error = e
    found = _first_long_int(json.loads(text, parse_int=_int_or_long))
    if found is None:
        raise ValueError(f"{NOT_A_MODEL}: Python's JSON reader refused it ({error}).") from None
    _fail(found[0], f"an integer of at most {MAX_INT_DIGITS} digits (no field of a model file holds a longer one)",
          found[1])


def _too_deep(text: str) -> tuple[str, int]:
    """``(field, depth)``: the top-level field of ``text`` in which lists and objects first nest
    more than :data:`MAX_DEPTH` levels ('' outside a top-level object), and the deepest nesting
    of the text (strings skipped)."""
    top_is_object = text.lstrip()[:1] == "{"
    depth = deepest = 0
    field = last_key = ""
    for m in _TOKENS.finditer(text):
        token = m.group()
        if token[0] == '"':
            if depth == 1:
                last_key = token  # at depth 1 of an object, the string before a bracket is its key
        elif token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if depth == MAX_DEPTH + 1 and top_is_object and not field:
                    field = json.loads(last_key) if last_key else ""
        else:
            depth -= 1
    return field, deepest


def _first_long_int(value) -> tuple[str, LongInt] | None:
    """The path and value of the first :class:`LongInt` in ``value`` (depth-first, no recursion);
    None if it has none."""
    stack = [("", value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, LongInt):
            return path, v
        if isinstance(v, dict):
            stack.extend((_join(path, str(k)), x) for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend((f"{path}[{i}]", x) for i, x in reversed(list(enumerate(v))))
    return None


def _fail(path, expected, got):
    raise ValueError(f"Model file field '{path or '(top level)'}': expected {expected}; got {_show(got)}. Fix "
                     "the field, or save the model again with TURSClassifier.to_json().")


def _show(v) -> str:
    text = repr(v)
    return text if len(text) <= 100 else text[:97] + "..."


def _join(path, key) -> str:
    key_text = f".{key}" if key.isidentifier() else f"[{key!r}]"
    return f"{path}{key_text}" if path else key


def _keys(v, path, required, optional=(), allow_more=False):
    """``v`` is an object with every ``required`` key and, unless ``allow_more``, no key outside
    ``required`` and ``optional``."""
    if not isinstance(v, dict):
        _fail(path, f"an object with the keys {list(required) + list(optional)}", v)
    for k in required:
        if k not in v:
            _fail(_join(path, k), "a value (the field is required)", "nothing: the field is missing")
    unknown = [k for k in v if k not in required and k not in optional]
    if unknown and not allow_more:
        _fail(path, f"only the keys {list(required) + list(optional)}", f"the unknown key(s) {unknown}")


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def _int(v, path, low=None, high=None, what=None):
    if not _is_int(v) or (low is not None and v < low) or (high is not None and v > high):
        rng = (f" from {low} to {high}" if high is not None else f" >= {low}") if low is not None else ""
        _fail(path, what or f"an integer{rng}", v)
    return int(v)


def _number(v, path, low=None):
    ok = isinstance(v, (int, float)) and not isinstance(v, bool)
    try:
        f = float(v) if ok else math.nan
    except OverflowError:
        f = math.nan
    if not math.isfinite(f) or (low is not None and f < low):
        _fail(path, "a finite number" + (f" >= {low}" if low is not None else ""), v)
    return f


def _str(v, path):
    if not isinstance(v, str):
        _fail(path, "a string", v)
    return v


def _bool(v, path):
    if not isinstance(v, bool):
        _fail(path, "true or false", v)
    return v


def _list(v, path, length=None, what=None):
    if not isinstance(v, list) or (length is not None and len(v) != length):
        _fail(path, what or ("a list" if length is None else f"a list of {length}"), v)
    return v


def _items(v, path, check) -> list:
    """``check(item, path)`` of every item of the list ``v``."""
    return [check(x, f"{path}[{i}]") for i, x in enumerate(_list(v, path))]


def _counts(v, path, C) -> list:
    items = _list(v, path, C, f"a list of {C} counts (one per class)")
    return [_int(x, f"{path}[{i}]", 0, _MAX_COUNT, "a count (an integer >= 0)") for i, x in enumerate(items)]


def _label(v, path):
    """A class label or a categorical level: a string, true/false or a finite number."""
    if isinstance(v, (str, bool)):
        return v
    if isinstance(v, float) and math.isfinite(v) or isinstance(v, int) and -2 ** 63 <= v < 2 ** 63:
        return v
    _fail(path, "a label (a string, a finite number, an integer within int64, or true/false)", v)


def _kind(v) -> str:
    return "bool" if isinstance(v, bool) else "str" if isinstance(v, str) else "number"


def _same(a, b) -> bool:
    """Labels equal and of the same kind (1 == True in Python; not here)."""
    return _kind(a) == _kind(b) and a == b


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v
