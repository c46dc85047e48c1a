"""Model files: what ``TURSClassifier.to_json`` writes and ``from_json`` reads (``turs-model/2``).

A model file holds what prediction and printing need, and no array with one entry per training
row (its size is bounded by the rules and their cover patterns, not by the rows):

* ``rules``: each rule's conditions, in the order they were added, and its training class
  counts (over its whole cover, Eq. 3.3). A condition is an operator and a threshold on one of
  the user's columns: on a numeric column
  ``{"column": "age", "lower": {"op": ">=", "value": 30.5}, "upper": {"op": "<", "value": 60.0}}``
  (either bound may be left out; a lower bound is ``>=`` or ``>``, an upper one ``<`` or ``<=``,
  as the rule prints), on a categorical column ``{"column": "color", "op": "=", "level": "red"}``
  (or ``"!="``). Thresholds are exact floats (JSON numbers round-trip through ``repr``). A bound
  that needs more than 6 significant digits to print a rule that, parsed back, covers the same
  training rows has ``"digits": 7..17`` (:func:`turs.rules.print_digits`; printing only).
* ``patterns``: for each distinct set of rules that covers a training row (``"rules": []``: the
  else-rule's rows), the class counts of those rows. The union estimate (Eq. 3.5) of any set of
  rules, seen in training or not, is a sum of these counts (:func:`turs.union_estimate.union_counts`); ``n_train``
  is their total.
* ``encoder`` (input columns, categorical levels, candidate cut points: part of the model code),
  ``params`` (the hyper-parameters), ``classes``, ``n_features_in``, ``feature_names_in``,
  ``mdl_breakdown`` (the MDL score on the training data; null when the rules were edited) and
  ``trace`` (the search trace, or null).

A loaded model evaluates its rules from the thresholds, never from the encoder's cut points, so
a rule written or edited by hand loads and predicts (set ``mdl_breakdown`` to null then, and
score it on data with :func:`turs.mdl_score`). :func:`loads` checks every field before it builds
the model and raises a ValueError that names the field by its JSON path
(``rules[2].conditions[0].lower.op``) and what was expected; unknown fields are refused. A
``turs-model/1`` file (which held the training labels and covers row by row) is converted
exactly, with a warning to save it again.
"""
from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
import warnings

import numpy as np

from ._core.codes import log2_factorial, universal_integer_code
from .union_estimate import pattern_counts, union_counts  # noqa: F401  (also importable from here)
from ._model_fields import (_MAX_COUNT, NOT_A_MODEL, _bool, _counts, _fail, _int, _is_int, _items, _join, _keys,
                           _kind, _label, _list, _number, _plain, _same, _show, _str, parse)
from .encoding import MAX_CUT_POINTS, FeatureEncoder
from .fitted import set_inputs, set_rule_set
from .mdl import MDLBreakdown
from .rules import LOWER_OPS, UPPER_OPS, bound_of_cut, cut_of_bound
from .trace import SearchTrace

FORMAT = "turs-model/2"
FORMAT_V1 = "turs-model/1"
_TOP = ("format", "params", "classes", "n_features_in", "feature_names_in", "encoder", "rules", "patterns",
        "n_train", "mdl_breakdown", "trace")
_V1_TOP = ("format", "params", "classes", "n_features_in", "feature_names_in", "encoder", "bin_literals",
           "y_train", "train_covers", "train_covers_shape", "n_train", "mdl_breakdown", "trace")
_ENCODER = ("n_cut_points", "input_columns", "from_dataframe", "categorical_levels", "columns", "binary")
_MAX_PATTERN_CELLS = 2 ** 31  # patterns x rules: the model's (P, K) table of bools
_TRACE = ("searches", "initial_mdl", "n_train", "feature_names", "classes", "cuts", "column_kinds")


# -------------------------------------------------------------------------- writing
def dumps(model) -> str:
    """The model file of a fitted (or loaded) ``TURSClassifier`` as JSON text."""
    return json.dumps(to_dict(model))


def to_dict(model) -> dict:
    model._validate_params()
    params = {k: _plain(v) for k, v in model.get_params().items()}
    rs = params["random_state"]
    if rs is not None and not (_is_int(rs) and rs >= 0):
        raise ValueError(f"random_state={rs!r} cannot be written to a model file; set it to an int >= 0 or "
                         "None first (model.set_params(random_state=0)).")
    names = getattr(model, "feature_names_in_", None)
    return {
        "format": FORMAT,
        "params": params,
        "classes": [_plain(c) for c in model.classes_],
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names is None else [str(c) for c in names],
        "encoder": model.encoder_.to_dict(),
        "rules": [{"conditions": [_condition_dict(c.source if c.is_onehot else c.column, c.is_onehot, c.level,
                                                  c.low, c.high, c.digits) for c in r.conditions],
                   "class_counts": [int(v) for v in r.class_counts]} for r in model.rules_],
        "patterns": [{"rules": [int(k) for k in np.flatnonzero(p)], "class_counts": [int(v) for v in c]}
                     for p, c in zip(model._patterns_, model._pattern_counts_)],
        "n_train": int(model._pattern_counts_.sum()),
        "mdl_breakdown": None if model.mdl_breakdown_ is None else model.mdl_breakdown_.to_dict(),
        "trace": None if model.trace_ is None else model.trace_.to_dict(),
    }


def _condition_dict(column: str, onehot: bool, level, low, high, digits=(None, None)) -> dict:
    if onehot:  # the encoded 0/1 column: x >= 0.5 is "= level", x < 0.5 is "!= level"
        return {"column": column, "op": "=" if low is not None else "!=", "level": _plain(level)}
    d = {"column": column}
    for side, cut, p in (("lower", low, digits[0]), ("upper", high, digits[1])):
        if cut is not None:
            op, value = bound_of_cut(cut, side)
            d[side] = {"op": op, "value": value}
            if p is not None:
                d[side]["digits"] = int(p)
    return d


# -------------------------------------------------------------------------- reading
def loads(cls, text):
    """The model in ``text`` (a model file), every field checked before the model is built."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise ValueError(f"from_json expects the text of a model file (a str). Got {type(text).__name__}.")
    d = parse(text)
    fmt = d.get("format") if isinstance(d, dict) else None
    if fmt == FORMAT_V1:
        d = _from_v1(d)
        warnings.warn(f"This model file has the old format {FORMAT_V1!r}, which holds the training labels and "
                      "every rule's cover row by row; it was converted exactly. Save the model again with "
                      "to_json() to get a file without them.", UserWarning, stacklevel=3)
    elif fmt != FORMAT:
        raise ValueError(f"{NOT_A_MODEL}: its 'format' is "
                         f"{fmt!r}; this version of turs reads {FORMAT!r} (and converts {FORMAT_V1!r}).")
    return _build(cls, _check(d, cls))


def _check(d: dict, cls) -> dict:
    _keys(d, "", _TOP)
    _check_sizes(d)
    out = {"params": _check_params(d["params"], cls)}
    classes = out["classes"] = _check_classes(d["classes"], "classes")
    C = len(classes)
    enc = _check_encoder(d["encoder"], "encoder")
    out["encoder"] = d["encoder"]
    d_in = len(enc["inputs"])
    _int(d["n_features_in"], "n_features_in", d_in, d_in, f"the number of encoder.input_columns ({d_in})")
    names = d["feature_names_in"]
    default = [f"x{j}" for j in range(d_in)]
    if names is None:
        if enc["inputs"] != default:
            _fail("feature_names_in", f"the encoder's input columns {enc['inputs']} (a model fitted without "
                  f"column names has {default})", names)
    elif names != enc["inputs"]:
        _fail("feature_names_in", f"null or the encoder's input columns {enc['inputs']}", names)
    out["feature_names_in"] = names
    rules = _list(d["rules"], "rules")
    literals, rule_counts = [], []
    out["digits"] = {}
    for i, r in enumerate(rules):
        lits, counts = _check_rule(r, f"rules[{i}]", enc, C, out["digits"])
        literals.append(lits)
        rule_counts.append(counts)
    K = len(rules)
    out["literals"] = literals
    n_train = _int(d["n_train"], "n_train", 1, _MAX_COUNT)
    patterns, counts = out["patterns"], out["counts"] = _check_patterns(d["patterns"], "patterns", K, C)
    if int(counts.sum()) != n_train:
        _fail("n_train", f"the number of training rows the patterns count ({int(counts.sum())})", n_train)
    for k in range(K):
        expected = [int(v) for v in counts[patterns[:, k]].sum(axis=0)]
        if sum(expected) == 0:
            _fail(f"rules[{k}]", f"a rule that covers a training row, i.e. in the rules of a pattern; no "
                  f"pattern has rule {k}", rules[k])
        if rule_counts[k] != expected:
            _fail(f"rules[{k}].class_counts", f"{expected} (the sums of the counts of the patterns "
                  f"that have rule {k})", rule_counts[k])
    out["mdl_breakdown"] = _check_breakdown(d["mdl_breakdown"], "mdl_breakdown", K, patterns, counts)
    out["trace"] = _check_trace(d["trace"], "trace", n_train, classes, enc)
    return out


def _check_sizes(d: dict) -> None:
    """The sizes of the rules and the patterns, before any of their items is read: a file with
    more rules than its patterns name, or than its breakdown counts, is refused at once."""
    rules = _list(d["rules"], "rules")
    patterns = _list(d["patterns"], "patterns")
    named = sum(len(p["rules"]) for p in patterns if isinstance(p, dict) and isinstance(p.get("rules"), list))
    if len(rules) > named:
        _fail("rules", f"at most {named} rules (every rule is in the rules of a pattern, and the patterns name "
              f"{named} in all)", f"{len(rules)} rules")
    bd = d["mdl_breakdown"]
    if isinstance(bd, dict) and _is_int(bd.get("n_rules")) and bd["n_rules"] != len(rules):
        _fail("rules", f"{bd['n_rules']} rules (mdl_breakdown.n_rules)", f"{len(rules)} rules")
    if len(patterns) * len(rules) > _MAX_PATTERN_CELLS:
        _fail("patterns", f"at most {_MAX_PATTERN_CELLS:,} patterns x rules (the model holds a table of them); "
              f"{len(rules)} rules allow {_MAX_PATTERN_CELLS // max(len(rules), 1):,} patterns",
              f"{len(patterns)} patterns")


def _build(cls, spec: dict):
    m = set_inputs(cls(**spec["params"]), FeatureEncoder.from_dict(spec["encoder"]), spec["classes"],
                   spec["feature_names_in"])
    bd = spec["mdl_breakdown"]
    return set_rule_set(m, spec["literals"], spec["patterns"], spec["counts"], None if bd is None else MDLBreakdown(**bd),
                        spec.get("digits", {}), spec["trace"])


# ---------------------------------------------------------------------- the fields
def _check_params(v, cls) -> dict:
    names = list(cls().get_params())
    _keys(v, "params", (), names)
    for name, value in v.items():
        try:  # the estimator's own validation, one parameter at a time so the error names it
            cls().set_params(**{name: value})._validate_params()
        except (ValueError, TypeError) as e:
            raise ValueError(f"Model file field 'params.{name}': expected a value TURSClassifier accepts; "
                             f"{e} Fix the field, or save the model again with TURSClassifier.to_json().") from None
    rs = v.get("random_state")
    if rs is not None and not (_is_int(rs) and rs >= 0):
        _fail("params.random_state", "null or an int >= 0", rs)
    return dict(v)


def _check_classes(v, path) -> list:
    labels = _items(v, path, _label)
    if len(labels) < 2:
        _fail(path, "a list of at least 2 class labels", v)
    if len({_kind(c) for c in labels}) > 1:
        _fail(path, "labels of one type (all strings, all numbers or all true/false)", v)
    for i in range(1, len(labels)):
        if not labels[i - 1] < labels[i]:
            _fail(f"{path}[{i}]", f"a label above {labels[i - 1]!r} (the classes sorted, without repeats, "
                  "as np.unique gives them)", labels[i])
    return labels


def _check_encoder(v, path) -> dict:
    """The encoder's fields; returns the lookups the rules need."""
    _keys(v, path, _ENCODER)
    ncp = _int(v["n_cut_points"], f"{path}.n_cut_points", 1, MAX_CUT_POINTS)
    inputs = _items(v["input_columns"], f"{path}.input_columns", _str)
    if not inputs:
        _fail(f"{path}.input_columns", "at least one column name", inputs)
    for i, c in enumerate(inputs):
        if c in inputs[:i]:
            _fail(f"{path}.input_columns[{i}]", "a column name not used before in the list", c)
    _bool(v["from_dataframe"], f"{path}.from_dataframe")
    lv_path = f"{path}.categorical_levels"
    levels = v["categorical_levels"]
    _keys(levels, lv_path, (), inputs)
    for src, lv in levels.items():
        p = _join(lv_path, src)
        lv = _items(lv, p, _label)
        if not lv:
            _fail(p, "at least one level", lv)
        if len({_kind(x) for x in lv}) > 1:
            _fail(p, "levels of one type (all strings, all numbers or all true/false)", lv)
        for i, x in enumerate(lv):
            if any(_same(x, y) for y in lv[:i]):
                _fail(f"{p}[{i}]", "a level not listed before", x)
    expected = []  # (name, source, kind, level) in the order fit makes them
    for src in inputs:
        if src in levels:
            lv = levels[src]
            expected += [(f"{src}={lev}", src, "onehot", lev) for lev in (lv[1:] if len(lv) == 2 else lv)]
        else:
            expected.append((src, src, "numeric", None))
    cols = _list(v["columns"], f"{path}.columns", len(expected), f"{len(expected)} encoded columns (one per "
                 "numeric input column, one per used level of a categorical one)")
    binary = _list(v["binary"], f"{path}.binary", len(expected),
                   f"{len(expected)} true/false values (one per encoded column)")
    for j, (c, (name, src, kind, level)) in enumerate(zip(cols, expected)):
        p = f"{path}.columns[{j}]"
        _keys(c, p, ("name", "source", "kind", "level", "cuts"))
        for key, want in (("name", name), ("source", src), ("kind", kind)):
            if not (isinstance(c[key], str) and c[key] == want):
                _fail(f"{p}.{key}", f"{want!r} (from input_columns and categorical_levels)", c[key])
        if not (_same(c["level"], level) if level is not None else c["level"] is None):
            _fail(f"{p}.level", f"{level!r} (from categorical_levels)", c["level"])
        cuts = _items(c["cuts"], f"{p}.cuts", _number)
        if kind == "onehot" and cuts != [0.5]:
            _fail(f"{p}.cuts", "[0.5] (the cut of a one-hot column)", c["cuts"])
        if len(cuts) > ncp:
            _fail(f"{p}.cuts", f"at most {ncp} cut points ({path}.n_cut_points)", c["cuts"])
        for i in range(1, len(cuts)):
            if cuts[i] < cuts[i - 1]:
                _fail(f"{p}.cuts[{i}]", f"a cut point >= the one before ({cuts[i - 1]!r})", cuts[i])
        b = _bool(binary[j], f"{path}.binary[{j}]")
        if (kind == "onehot" and not b) or (b and len(cuts) != 1):
            _fail(f"{path}.binary[{j}]", "true for a one-hot column, and true only for a column with one cut point", b)
    numeric = {src: j for j, (_, src, kind, _) in enumerate(expected) if kind == "numeric"}
    return {"inputs": inputs, "levels": levels, "expected": expected, "numeric": numeric,
            "names": [e[0] for e in expected], "kinds": [e[2] for e in expected],
            "cuts": [[float(x) for x in c["cuts"]] for c in cols]}


def _check_rule(r, path, enc, C, digits=None):
    _keys(r, path, ("conditions", "class_counts"))
    conds = _list(r["conditions"], f"{path}.conditions")
    if not conds:
        _fail(f"{path}.conditions", "at least one condition", conds)
    lits = []
    for k, c in enumerate(conds):
        lit = _check_condition(c, f"{path}.conditions[{k}]", enc, digits)
        if any(lit[0] == other[0] for other in lits):
            _fail(f"{path}.conditions[{k}]", "at most one condition per encoded column in a rule (merge them "
                  "into one interval)", c)
        lits.append(lit)
    return lits, _counts(r["class_counts"], f"{path}.class_counts", C)


def _check_condition(c, path, enc, digits=None) -> tuple:
    """``(encoded column index, low, high)`` of one condition (``low <= x < high``); the printed
    digits of its bounds go to ``digits[(index, threshold)]``."""
    if not isinstance(c, dict):
        _fail(path, "an object (a condition)", c)
    if "column" not in c:
        _fail(f"{path}.column", "a value (the field is required)", "nothing: the field is missing")
    if not (isinstance(c["column"], str) and c["column"] in enc["inputs"]):
        _fail(f"{path}.column", f"one of the input columns {enc['inputs']}", c["column"])
    src = c["column"]
    if src in enc["levels"]:  # categorical: "=" or "!=" a level
        _keys(c, path, ("column", "op", "level"))
        if c["op"] not in ("=", "!="):
            _fail(f"{path}.op", "'=' or '!=' (a categorical column)", c["op"])
        levels = enc["levels"][src]
        level = _label(c["level"], f"{path}.level")
        if not any(_same(level, x) for x in levels):
            _fail(f"{path}.level", f"one of the levels of '{src}': {levels}", level)
        positive = c["op"] == "="
        if len(levels) == 2 and _same(level, levels[0]):  # one 0/1 column, for the second level
            level, positive = levels[1], not positive
        j = next(j for j, e in enumerate(enc["expected"]) if e[1] == src and _same(e[3], level))
        return (j, 0.5, None) if positive else (j, None, 0.5)
    _keys(c, path, ("column",), ("lower", "upper"))
    if "lower" not in c and "upper" not in c:
        _fail(path, "a 'lower' or an 'upper' bound, or both", c)
    cut = {}
    for side, ops in (("lower", LOWER_OPS), ("upper", UPPER_OPS)):
        if side in c:
            p = f"{path}.{side}"
            _keys(c[side], p, ("op", "value"), ("digits",))
            if not (isinstance(c[side]["op"], str) and c[side]["op"] in ops):
                _fail(f"{p}.op", f"one of {ops}", c[side]["op"])
            cut[side] = cut_of_bound(c[side]["op"], _number(c[side]["value"], f"{p}.value"))
            if "digits" in c[side]:
                shown = _int(c[side]["digits"], f"{p}.digits", 7, 17, "significant digits from 7 to 17 (left out: 6)")
                if digits is not None:
                    digits[(enc["numeric"][src], cut[side])] = shown
    low, high = cut.get("lower"), cut.get("upper")
    if low is not None and high is not None and not low < high:
        _fail(path, "a lower bound below the upper bound (a non-empty interval)", c)
    return enc["numeric"][src], low, high


def _check_patterns(v, path, K, C):
    items = _list(v, path)
    if not items:
        _fail(path, "at least one pattern (the training rows have at least one)", v)
    patterns = np.zeros((len(items), K), dtype=bool)
    counts = np.zeros((len(items), C), dtype=np.int64)
    seen = {}
    for i, e in enumerate(items):
        p = f"{path}[{i}]"
        _keys(e, p, ("rules", "class_counts"))
        idx = [_int(k, f"{p}.rules[{t}]", 0, K - 1, f"a rule index from 0 to {K - 1}" if K else "no rule index "
                    "(the file has no rules)") for t, k in enumerate(_list(e["rules"], f"{p}.rules"))]
        if any(a >= b for a, b in zip(idx, idx[1:])):
            _fail(f"{p}.rules", "rule indices in increasing order without repeats", idx)
        if tuple(idx) in seen:
            _fail(f"{p}.rules", f"a set of rules no other pattern has (patterns[{seen[tuple(idx)]}] has it)", idx)
        seen[tuple(idx)] = i
        cnt = _counts(e["class_counts"], f"{p}.class_counts", C)
        if sum(cnt) == 0:
            _fail(f"{p}.class_counts", "the counts of at least one training row (a pattern is stored because "
                  "training rows have it)", cnt)
        patterns[i, idx] = True
        counts[i] = cnt
    return patterns, counts


def _check_breakdown(v, path, K, patterns, counts):
    if v is None:
        return None
    fields = [f.name for f in dataclasses.fields(MDLBreakdown)]
    _keys(v, path, fields)
    out = {}
    for name in fields:
        p = f"{path}.{name}"
        if name in ("n_rules", "coverage", "else_coverage", "n_overlap_groups"):
            out[name] = _int(v[name], p, 0, _MAX_COUNT)
        elif name in ("rule_model_bits", "rule_regret_bits"):
            out[name] = tuple(_number(x, f"{p}[{i}]", 0.0) for i, x in enumerate(
                _list(v[name], p, K, f"a list of {K} numbers >= 0 (one per rule)")))
        else:
            out[name] = _number(v[name], p, None if name in ("total", "model_bits") else 0.0)
    else_count = int(counts[~patterns.any(axis=1)].sum())
    facts = [("n_rules", K, "the number of rules"),
             ("else_coverage", else_count, "the count of the empty pattern (the else-rule's rows)"),
             ("coverage", int(counts.sum()) - else_count, "the count of the non-empty patterns"),
             ("n_overlap_groups", int(patterns.any(axis=1).sum()), "the number of non-empty patterns")]
    for name, want, what in facts:
        if out[name] != want:
            _fail(f"{path}.{name}", f"{want} ({what})", out[name])
    sums = [("n_rules_bits", universal_integer_code(K), f"L_univ({K})"),
            ("order_redundancy_bits", log2_factorial(K), f"log2 {K}!"),
            ("regret_bits", sum(out["rule_regret_bits"]) + out["else_regret_bits"],
             "the sum of rule_regret_bits and else_regret_bits"),
            ("model_bits", out["n_rules_bits"] + sum(out["rule_model_bits"]) - out["order_redundancy_bits"],
             "n_rules_bits + the sum of rule_model_bits - order_redundancy_bits"),
            ("total", out["data_bits"] + out["regret_bits"] + out["model_bits"],
             "data_bits + regret_bits + model_bits")]
    for name, want, what in sums:
        if not math.isclose(out[name], want, rel_tol=1e-9, abs_tol=1e-9):
            _fail(f"{path}.{name}", f"{want!r} ({what})", out[name])
    return out


def _check_trace(v, path, n_train, classes, enc):
    """The trace's fields that must agree with the model; the search records themselves are kept
    as they are (SearchTrace reads them)."""
    if v is None:
        return None
    _keys(v, path, _TRACE, allow_more=True)
    for i, s in enumerate(_list(v["searches"], f"{path}.searches")):
        if not isinstance(s, dict):
            _fail(f"{path}.searches[{i}]", "an object (one rule search)", s)
    _number(v["initial_mdl"], f"{path}.initial_mdl")
    for key, want, what in (("n_train", n_train, "n_train"), ("classes", classes, "classes"),
                            ("feature_names", enc["names"], "the encoder's column names"),
                            ("cuts", enc["cuts"], "the encoder's cut points"),
                            ("column_kinds", enc["kinds"], "the encoder's column kinds")):
        if v[key] != want or type(v[key]) is not type(want):
            _fail(f"{path}.{key}", f"{what}: {_show(want)}", v[key])
    try:
        return SearchTrace.from_dict(v)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        raise ValueError(f"Model file field '{path}': not a search trace ({type(e).__name__}: {e}).") from None


# ------------------------------------------------------------------- format 1 files
def _from_v1(d: dict) -> dict:
    """A ``turs-model/1`` file as a ``turs-model/2`` dict: its training covers and labels become
    the pattern counts (exact), its bin literals thresholds. The result is then checked as v2."""
    _keys(d, "", _V1_TOP)
    C = len(_check_classes(d["classes"], "classes"))
    enc = _check_encoder(d["encoder"], "encoder")
    n = _int(d["n_train"], "n_train", 1, 2 ** 40)
    y = _b64(d["y_train"], "y_train", np.int32, n).astype(np.int64)
    if y.min() < 0 or y.max() >= C:
        _fail("y_train", f"class codes from 0 to {C - 1}", f"codes from {y.min()} to {y.max()}")
    rules = _list(d["bin_literals"], "bin_literals")
    K = len(rules)
    shape = [_int(x, f"train_covers_shape[{i}]", 0)
             for i, x in enumerate(_list(d["train_covers_shape"], "train_covers_shape", 2))]
    if shape != [(n + 7) // 8, K]:
        _fail("train_covers_shape", f"[{(n + 7) // 8}, {K}] (n_train rows packed by 8, one column per rule)", shape)
    packed = _b64(d["train_covers"], "train_covers", np.uint8, shape[0] * K).reshape(shape)
    covers = np.unpackbits(packed, axis=0, count=n).astype(bool)
    patterns, counts = pattern_counts(covers, y, C)
    v2_rules = []
    for i, lits in enumerate(rules):
        conds = []
        for t, lit in enumerate(_list(lits, f"bin_literals[{i}]")):
            p = f"bin_literals[{i}][{t}]"
            j, a, b = (_int(x, f"{p}[{q}]", 0) for q, x in enumerate(_list(lit, p, 3, "[column, low bin, high bin]")))
            if j >= len(enc["expected"]):
                _fail(f"{p}[0]", f"an encoded column index below {len(enc['expected'])}", j)
            cuts, nb = enc["cuts"][j], len(enc["cuts"][j]) + 1
            if not (a < b <= nb and (a > 0 or b < nb)):
                _fail(p, f"bins 0 <= low < high <= {nb}, not the whole column", lit)
            _, src, kind, level = enc["expected"][j]
            conds.append(_condition_dict(src, kind == "onehot", level, cuts[a - 1] if a > 0 else None,
                                         cuts[b - 1] if b < nb else None))
        v2_rules.append({"conditions": conds, "class_counts": [int(x) for x in counts[patterns[:, i]].sum(axis=0)]})
    out = {k: d[k] for k in _TOP if k in d}
    out.update(format=FORMAT, rules=v2_rules, n_train=n,
               patterns=[{"rules": [int(k) for k in np.flatnonzero(p)], "class_counts": [int(x) for x in c]}
                         for p, c in zip(patterns, counts)])
    return out


def _b64(v, path, dtype, length) -> np.ndarray:
    try:
        raw = base64.b64decode(_str(v, path), validate=True)
    except (binascii.Error, ValueError):
        _fail(path, "base64 text", v)
    if len(raw) != length * np.dtype(dtype).itemsize:
        _fail(path, f"{length} values of {np.dtype(dtype).name}", f"{len(raw)} bytes")
    return np.frombuffer(raw, dtype=dtype)


