"""Model files (``turs-model/2``): nothing row-level inside, every field checked on load.

A file's predictions are checked against :func:`file_predict_proba`, which reads the JSON
alone (each condition's operator and threshold on the raw column, the union of the stored
pattern counts), never the estimator's code. All data are fixed or drawn with fixed seeds.
"""
from __future__ import annotations

import copy
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from sklearn.datasets import load_iris, make_classification

from _estimator_helpers import categorical_data, gap_data
from turs import TURSClassifier
from turs.model_file import pattern_counts, union_counts
from turs.rules import bound_of_cut, cut_of_bound
from turs.union_estimate import union_probabilities

DATA = Path(__file__).parent / "data"
ERROR_PREFIXES = ("Model file field '", "This JSON is not a TURS model")


# --------------------------------------------------------------------------- data
def _classification(n, n_classes=2, seed=0, **kw):
    return make_classification(n_samples=n, n_features=5, n_informative=3, n_redundant=1,
                               n_classes=n_classes, random_state=seed, **kw)


def _numeric():
    """numpy input without column names, labels 0/1; 300 rows to fit, 150 held out."""
    X, y = _classification(450, seed=0)
    return (X[:300], y[:300]), X[300:], {}


def _multiclass_spaces():
    """A DataFrame whose column names have spaces, 3 classes."""
    X, y = _classification(550, n_classes=3, seed=1)
    X = pd.DataFrame(X, columns=[f"feature {j} (cm)" for j in range(5)])
    return (X.iloc[:400], y[:400]), X.iloc[400:], {}


def _categorical():
    """3-level and 2-level categorical columns (one-hot), string labels, a search trace."""
    X, y = categorical_data(seed=1, n=400)
    X_held, _ = categorical_data(seed=2, n=120)
    return (X, y), X_held, {"record_trace": True, "beam_width": 3}


def _overlaps():
    """Numeric columns with a corner no training row reaches: held-out rows with an unseen overlap."""
    X, y = gap_data(seed=1, n=800)
    g = np.linspace(0.0, 1.0, 11)
    uu, vv = np.meshgrid(g, g)
    return (X, y), pd.DataFrame({"u": uu.ravel(), "v": vv.ravel(), "w": 0.5}), {}


MODELS = {"numeric": _numeric, "multiclass_spaces": _multiclass_spaces, "categorical": _categorical,
          "overlaps": _overlaps}


def _frame(model, X) -> pd.DataFrame:
    """X with the column names the file uses (x0, x1, ... for a model fitted without names)."""
    if isinstance(X, pd.DataFrame):
        return X
    return pd.DataFrame(X, columns=model.encoder_.input_columns_)


@pytest.fixture(scope="module")
def saved():
    """name -> (fitted model, its file as a dict, held-out X, held-out X as a named frame)."""
    out = {}
    for name, make in MODELS.items():
        (X, y), X_held, kw = make()
        model = TURSClassifier(**kw).fit(X, y)
        out[name] = (model, json.loads(model.to_json()), X_held, _frame(model, X_held))
    return out


# ----------------------------------------------------------- the file, read alone
def file_covers(d: dict, X: pd.DataFrame) -> np.ndarray:
    """(n, K) bool: which of the file's rules cover each row, from the JSON conditions."""
    covers = np.ones((len(X), len(d["rules"])), dtype=bool)
    for k, rule in enumerate(d["rules"]):
        for c in rule["conditions"]:
            col = X[c["column"]]
            if "op" in c:  # a categorical column
                equal = col.astype(object).to_numpy() == c["level"]
                covers[:, k] &= equal if c["op"] == "=" else ~equal
                continue
            x = col.to_numpy(dtype=float)
            for side in ("lower", "upper"):
                if side in c:
                    op, t = c[side]["op"], c[side]["value"]
                    covers[:, k] &= {">=": x >= t, ">": x > t, "<": x < t, "<=": x <= t}[op]
    return covers


def file_predict_proba(d: dict, X: pd.DataFrame) -> np.ndarray:
    """Eq. 3.5 from the file: the counts of the stored patterns that share a rule with the row's."""
    out = []
    total = sum(np.array(p["class_counts"]) for p in d["patterns"])
    for row in file_covers(d, X):
        rules = set(np.flatnonzero(row).tolist())
        if rules:
            counts = sum(np.array(p["class_counts"]) for p in d["patterns"] if rules & set(p["rules"]))
        else:
            counts = next((np.array(p["class_counts"]) for p in d["patterns"] if not p["rules"]), total * 0)
            counts = counts if counts.sum() else total
        out.append(counts / counts.sum())
    return np.array(out)


def _lists(node):
    if isinstance(node, list):
        yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for v in children:
        yield from _lists(v)


# ------------------------------------------------------------------ 1. round trip
@pytest.mark.parametrize("name", sorted(MODELS))
def test_round_trip(saved, name):
    model, d, X_held, X_frame = saved[name]
    s = model.to_json()
    back = TURSClassifier.from_json(s)
    assert_array_equal(back.predict_proba(X_held), model.predict_proba(X_held))
    assert_array_equal(back.predict(X_held), model.predict(X_held))
    assert str(back) == str(model)
    assert back.rules_ == model.rules_ and back.else_rule_ == model.else_rule_
    assert back.mdl_score_ == model.mdl_score_ and back.mdl_breakdown_ == model.mdl_breakdown_
    assert back.get_params() == model.get_params()
    assert (back.trace_ is None) == (model.trace_ is None)
    if model.trace_ is not None:
        assert back.trace_.to_dict() == model.trace_.to_dict()
    assert back.to_json() == s
    # what the file says is what the model predicts
    assert_array_equal(file_predict_proba(d, X_frame), model.predict_proba(X_held))
    assert d["format"] == "turs-model/2"
    assert not {"y_train", "train_covers", "bin_literals"} & set(d)


def test_file_layout(saved):
    model, d, _, _ = saved["categorical"]
    assert list(d) == ["format", "params", "classes", "n_features_in", "feature_names_in", "encoder",
                       "rules", "patterns", "n_train", "mdl_breakdown", "trace"]
    conds = [c for r in d["rules"] for c in r["conditions"]]
    for c, cond in zip(conds, [c for r in model.rules_ for c in r.conditions]):
        if cond.is_onehot:  # the user's column and the level, as printed
            assert str(cond) == f"{c['column']} {c['op']} {c['level']}"
        else:
            assert set(c) <= {"column", "lower", "upper"} and c["column"] == cond.column
    assert d["n_train"] == 400 == sum(sum(p["class_counts"]) for p in d["patterns"])
    # the patterns add up to each rule's printed counts
    for k, (r, rule) in enumerate(zip(d["rules"], model.rules_)):
        assert r["class_counts"] == list(rule.class_counts) == list(
            np.sum([p["class_counts"] for p in d["patterns"] if k in p["rules"]], axis=0))


def test_thresholds_are_exact_and_printed_operators():
    # integers 0..9; the cut found lies between two equal values 5 (just above 5), so the rule
    # prints and is stored as "x > 5", exactly: nextafter(5.0, inf) on load
    x = np.repeat(np.arange(10.0), 10)
    model = TURSClassifier().fit(pd.DataFrame({"x": x}), (x >= 6).astype(int))
    assert str(model.rules_[0].conditions[0]) == "x > 5"
    assert model.rules_[0].conditions[0].low == np.nextafter(5.0, np.inf)
    d = json.loads(model.to_json())
    assert d["rules"][0]["conditions"] == [{"column": "x", "lower": {"op": ">", "value": 5.0}}]
    back = TURSClassifier.from_json(model.to_json())
    assert back.rules_ == model.rules_
    X_new = pd.DataFrame({"x": [5.0, np.nextafter(5.0, np.inf), 5.5]})
    assert_array_equal(back.predict_proba(X_new), model.predict_proba(X_new))
    assert_array_equal(back.apply(X_new)[:, 0], [False, True, True])


@pytest.mark.parametrize("cut, lower, upper", [
    (2.45, (">=", 2.45), ("<", 2.45)),
    (np.nextafter(3.0, np.inf), (">", 3.0), ("<=", 3.0)),  # the cut between two equal values 3
    (np.nextafter(-4.0, np.inf), (">", -4.0), ("<=", -4.0)),
    (5e-324, (">", 0.0), ("<=", 0.0)),
    (0.0, (">=", 0.0), ("<", 0.0)),
    (0.1 + 0.2, (">", 0.3), ("<=", 0.3)),  # 0.1 + 0.2 is the float just above 0.3
    (1 / 3, (">=", 1 / 3), ("<", 1 / 3)),  # the float below 1/3 is no short decimal
])
def test_bound_operators_are_exact(cut, lower, upper):
    assert bound_of_cut(cut, "lower") == lower and bound_of_cut(cut, "upper") == upper
    assert cut_of_bound(*lower) == cut == cut_of_bound(*upper)
    with pytest.raises(ValueError, match="operator must be one of"):
        cut_of_bound("=>", 1.0)


def test_string_labels_and_numpy_input():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)
    model = TURSClassifier(beam_width=3).fit(X, names[y])
    d = json.loads(model.to_json())
    assert d["feature_names_in"] is None and d["encoder"]["input_columns"] == ["x0", "x1", "x2", "x3"]
    assert d["classes"] == ["setosa", "versicolor", "virginica"]
    back = TURSClassifier.from_json(model.to_json())
    assert_array_equal(back.predict(X), model.predict(X))
    assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    assert str(back) == str(model)


# ------------------------------------------------------- 2. the union estimate
def _all_patterns(K) -> np.ndarray:
    """(2^K, K) bool: every set of K rules."""
    return np.array([[(q >> k) & 1 for k in range(K)] for q in range(2 ** K)], dtype=bool).reshape(2 ** K, K)


def test_union_counts_equal_the_row_level_union_on_random_covers():
    rng = np.random.default_rng(0)
    unseen = 0
    for n, K, C in [(200, 3, 2), (500, 6, 3), (50, 8, 4), (300, 0, 2)]:
        covers = rng.random((n, K)) < rng.uniform(0.05, 0.5, K)
        y = rng.integers(0, C, n)
        patterns, counts = pattern_counts(covers, y, C)
        assert counts.sum() == n and len({tuple(p) for p in patterns}) == len(patterns)
        queries = _all_patterns(K)
        got = union_counts(queries, patterns, counts)
        for q, row in zip(queries, got):
            in_union = covers[:, q].any(axis=1)
            assert_array_equal(row, np.bincount(y[in_union], minlength=C))
        seen = {tuple(p) for p in covers}
        unseen += sum(tuple(q) not in seen for q in queries)
    assert unseen >= 100, "most of the 256 queries of K=8 on 50 rows are unseen in training"


def test_predictions_use_pattern_counts_for_unseen_overlaps(saved):
    # the fitted model keeps its training rows in memory: the union from them row by row
    model, d, X_held, X_frame = saved["overlaps"]
    train = np.unpackbits(model._train_covers_, axis=0, count=model._n_train_).astype(bool)
    y = model._y_train_
    K = len(model.rules_)
    queries = _all_patterns(K)
    seen = {tuple(p) for p in train}
    assert any(tuple(q) not in seen for q in queries)
    probs = union_probabilities(queries, model._patterns_, model._pattern_counts_)
    for q, p in zip(queries, probs):
        rows = train[:, q].any(axis=1) if q.any() else ~train.any(axis=1)
        counts = np.bincount(y[rows], minlength=len(model.classes_))
        assert_array_equal(p, counts / counts.sum())
    covers = model.apply(X_held)
    assert any(tuple(c) not in seen for c in covers), "the held-out grid should reach an unseen overlap"
    assert_array_equal(model.predict_proba(X_held), file_predict_proba(d, X_frame))


# ----------------------------------------------------------------------- 3. size
def test_file_has_no_per_row_array():
    gen = dict(n_features=4, n_informative=2, n_redundant=0, n_clusters_per_class=1, class_sep=2.0,
               flip_y=0.05, random_state=0)
    sizes = {}
    for n in (1000, 8000):
        X, y = make_classification(n_samples=n, **gen)
        model = TURSClassifier().fit(X, y)
        s = model.to_json()
        d = json.loads(s)
        K, P = len(d["rules"]), len(d["patterns"])
        longest = max(len(v) for v in _lists(d))  # cut points, rules, patterns, columns: not rows
        assert longest <= max(model.n_cut_points, K, P, model.n_features_in_) and longest < n / 20, longest
        assert P <= 2 ** K
        sizes[n] = (len(s), K, P)
    (s1, k1, p1), (s8, k8, p8) = sizes[1000], sizes[8000]
    # 8x the rows: the file grows with the rules and their patterns only (seen: 3.7 kB, 3 rules,
    # 5 patterns vs 4.4 kB, 5 rules, 10 patterns); the old format held 8000 labels (43 kB alone)
    assert s8 / s1 < 2
    assert s8 / s1 <= max(1.1, (k8 + p8) / (k1 + p1))


# ----------------------------------------------------- 4. hand-written and edited
def test_a_hand_edited_threshold_loads_and_predicts(saved):
    model, d, X_held, X_frame = saved["multiclass_spaces"]
    d = copy.deepcopy(d)
    c = d["rules"][0]["conditions"][0]
    side = "lower" if "lower" in c else "upper"
    c[side] = {"op": ">" if side == "lower" else "<=", "value": 0.123456789}
    d["mdl_breakdown"] = None  # the stored score was for the old rule
    back = TURSClassifier.from_json(json.dumps(d))
    assert f"{c['column']} {c[side]['op']} 0.123457" in str(back)
    assert "MDL score not stored" in str(back) and math.isnan(back.mdl_score_)
    assert_array_equal(back.predict_proba(X_held), file_predict_proba(d, X_frame))
    assert not np.array_equal(back.predict_proba(X_held), model.predict_proba(X_held))


def test_the_dropped_level_of_a_two_level_column(saved):
    # 'shape' has the levels circle/square: one 0/1 column for square; "= circle" is "!= square"
    model, d, X_held, X_frame = saved["categorical"]
    d = copy.deepcopy(d)
    d["rules"][0]["conditions"] = [{"column": "shape", "op": "=", "level": "circle"}]
    d["mdl_breakdown"] = None
    back = TURSClassifier.from_json(json.dumps(d))
    assert str(back.rules_[0].conditions[0]) == "shape != square"
    assert_array_equal(back.predict_proba(X_held), file_predict_proba(d, X_frame))


def test_explorer_view_of_a_loaded_model(saved):
    # a loaded model has no training rows: the view draws the else-rule from the pattern counts
    from turs.explorer._view import TraceView

    model, _, _, _ = saved["categorical"]
    back = TURSClassifier.from_json(model.to_json())
    assert not hasattr(back, "_train_covers_") and not hasattr(back, "_y_train_")
    fitted, loaded = TraceView(model.trace_, model), TraceView(back.trace_, back)
    for K in range(len(model.rules_) + 1):
        assert str(loaded._else_rule(K)) == str(fitted._else_rule(K))
        assert loaded.ruleset_text(K) == fitted.ruleset_text(K)
    assert str(loaded._else_rule(len(back.rules_))) == str(back.else_rule_)


# ------------------------------------------------------------- 5. refused fields
def _refused(d, path, expected=""):
    with pytest.raises(ValueError) as e:
        TURSClassifier.from_json(json.dumps(d))
    assert str(e.value).startswith(f"Model file field '{path}': expected {expected}"), str(e.value)
    return str(e.value)


def _set_interval(d, lower, upper):
    """rules[1].conditions[0] := ``lower[1] lower[0] x0 upper[0] upper[1]``."""
    d["rules"][1]["conditions"][0] = {"column": "x0", "lower": {"op": lower[0], "value": lower[1]},
                                      "upper": {"op": upper[0], "value": upper[1]}}


def _edited(d, edit):
    d = copy.deepcopy(d)
    edit(d)
    return d


@pytest.mark.parametrize("edit, path, expected", [
    (lambda d: d["params"].update(beam_width=-3), "params.beam_width", None),
    (lambda d: d["params"].update(beam_width=10**12), "params.beam_width",
     "a value TURSClassifier accepts; The 'beam_width' parameter of TURSClassifier must be an int from 1 to 1000"),
    (lambda d: d["params"].update(depth=3), "params", "only the keys"),
    (lambda d: d["params"].update(random_state="seed"), "params.random_state", "null or an int >= 0"),
    (lambda d: d["rules"][0]["conditions"][0].update(column="no such column"), "rules[0].conditions[0].column",
     "one of the input columns"),
    (lambda d: d["rules"][0]["conditions"][0].update(column=-1), "rules[0].conditions[0].column", "one of"),
    (lambda d: _set_interval(d, ("=>", -0.5), ("<", 1.0)), "rules[1].conditions[0].lower.op", "one of ('>=', '>')"),
    (lambda d: _set_interval(d, (">=", -0.5), ("=<", 1.0)), "rules[1].conditions[0].upper.op", "one of ('<', '<=')"),
    (lambda d: _set_interval(d, (">=", float("nan")), ("<", 1.0)), "rules[1].conditions[0].lower.value",
     "a finite number"),
    (lambda d: _set_interval(d, (">=", "2.5"), ("<", 3.0)), "rules[1].conditions[0].lower.value", "a finite number"),
    (lambda d: _set_interval(d, (">=", -0.5), ("<", 1e999)), "rules[1].conditions[0].upper.value", "a finite number"),
    (lambda d: _set_interval(d, (">=", 99.0), ("<", 1.0)), "rules[1].conditions[0]",
     "a lower bound below the upper bound"),
    (lambda d: _set_interval(d, (">", 1.0), ("<=", 1.0)), "rules[1].conditions[0]",
     "a lower bound below the upper bound"),
    (lambda d: d["rules"][0].update(conditions=[]), "rules[0].conditions", "at least one condition"),
    (lambda d: d["rules"][0]["class_counts"].__setitem__(0, -1), "rules[0].class_counts[0]", "a count"),
    (lambda d: d["rules"][0]["class_counts"].__setitem__(0, d["rules"][0]["class_counts"][0] + 1),
     "rules[0].class_counts", None),
    (lambda d: d["patterns"][1]["rules"].append(99), "patterns[1].rules[1]", "a rule index from 0 to"),
    (lambda d: d["patterns"][1].update(rules=[0, 0]), "patterns[1].rules", "rule indices in increasing order"),
    (lambda d: d["patterns"][0]["class_counts"].__setitem__(0, 2.5), "patterns[0].class_counts[0]", "a count"),
    (lambda d: d.update(n_train=d["n_train"] + 1), "n_train", "the number of training rows the patterns count"),
    (lambda d: d.update(extra=1, more=2), "(top level)", "only the keys"),
    (lambda d: d.pop("patterns"), "patterns", "a value (the field is required)"),
    (lambda d: d.update(n_features_in=4), "n_features_in", None),
    (lambda d: d.update(feature_names_in=["a"] * 5), "feature_names_in", None),
    (lambda d: d["encoder"]["columns"][0]["cuts"].reverse(), "encoder.columns[0].cuts[1]", "a cut point >="),
    (lambda d: d["classes"].reverse(), "classes[1]", "a label above"),
    (lambda d: d["mdl_breakdown"].update(total=1.0), "mdl_breakdown.total", None),
    (lambda d: d["mdl_breakdown"].update(coverage=-1), "mdl_breakdown.coverage", "an integer from 0"),
])
def test_refused(saved, edit, path, expected):
    d = saved["numeric"][1]
    assert len(d["rules"]) >= 2 and len(d["classes"]) == 2  # what the edits assume
    message = _refused(_edited(d, edit), path, expected or "")
    assert "save the model again with TURSClassifier.to_json()" in message


def test_refused_categorical_fields(saved):
    d = saved["categorical"][1]
    onehot = next((k, t) for k, r in enumerate(d["rules"]) for t, c in enumerate(r["conditions"]) if "op" in c)
    k, t = onehot
    p = f"rules[{k}].conditions[{t}]"
    _refused(_edited(d, lambda d: d["rules"][k]["conditions"][t].update(op=">=")), f"{p}.op", "'=' or '!='")
    _refused(_edited(d, lambda d: d["rules"][k]["conditions"][t].update(level="purple")), f"{p}.level",
             "one of the levels of")
    _refused(_edited(d, lambda d: d["encoder"]["categorical_levels"]["color"].append("red")),
             "encoder.categorical_levels.color[3]", "a level not listed before")
    _refused(_edited(d, lambda d: d["trace"].update(n_train=1)), "trace.n_train", "n_train")
    last = len(d["patterns"])
    _refused(_edited(d, lambda d: d["patterns"].append(copy.deepcopy(d["patterns"][0]))), f"patterns[{last}].rules",
             "a set of rules no other pattern has (patterns[0] has it)")


def test_levels_of_a_two_level_column(saved):
    # found by the mutation test: the first level of a two-level column is in no encoded column
    # name, so only its type checks it. Retyped, it loaded and then failed in predict_proba
    d = saved["categorical"][1]
    assert d["encoder"]["categorical_levels"]["shape"] == ["circle", "square"]
    bad = _edited(d, lambda d: d["encoder"]["categorical_levels"]["shape"].__setitem__(0, 7))
    _refused(bad, "encoder.categorical_levels.shape", "levels of one type")
    # dropped, it reads as a one-level column (the same 0/1 column): a valid edit, and the model
    # then refuses the dropped level with the encoder's error
    back = TURSClassifier.from_json(json.dumps(
        _edited(d, lambda d: d["encoder"]["categorical_levels"]["shape"].pop(0))))
    with pytest.raises(ValueError, match="Column 'shape' has the level 'circle'.*not seen in fit"):
        back.predict_proba(saved["categorical"][2])


def test_not_a_model_file():
    with pytest.raises(ValueError, match="not a TURS model.*'format' is 'other'"):
        TURSClassifier.from_json(json.dumps({"format": "other"}))
    with pytest.raises(ValueError, match="not a TURS model.*not valid JSON"):
        TURSClassifier.from_json("{nope")
    with pytest.raises(ValueError, match="not a TURS model"):
        TURSClassifier.from_json("[1, 2]")


def test_deeply_nested_json_names_the_field_instead_of_recursing():
    deep = '{"format": "turs-model/2", "params": ' + "[" * 10_000 + "]" * 10_000 + "}"
    with pytest.raises(ValueError) as e:
        TURSClassifier.from_json(deep)
    assert str(e.value).startswith("This JSON is not a TURS model written by TURSClassifier.to_json(): its field "
                                   "'params' nests lists or objects 10001 levels deep"), str(e.value)
    assert "save the model again with TURSClassifier.to_json()" in str(e.value)
    with pytest.raises(ValueError, match=r"field '\(top level\)' nests lists or objects 5000 levels deep"):
        TURSClassifier.from_json("[" * 5_000 + "]" * 5_000)
    # brackets inside strings are text, not nesting
    with pytest.raises(ValueError, match="field 'b' nests lists or objects 3001 levels deep"):
        TURSClassifier.from_json('{"a": "[[[{{{", "b": ' + "[" * 3_000 + "]" * 3_000 + "}")


def test_an_integer_too_long_for_python_names_its_field(saved):
    text = json.dumps(saved["numeric"][1])
    n_train = saved["numeric"][1]["n_train"]
    long = text.replace(f'"n_train": {n_train}', '"n_train": ' + "9" * 5_000)
    with pytest.raises(ValueError) as e:
        TURSClassifier.from_json(long)
    assert str(e.value) == ("Model file field 'n_train': expected an integer of at most 40 digits (no field of a "
                            "model file holds a longer one); got an integer of 5000 digits. Fix the field, or save "
                            "the model again with TURSClassifier.to_json().")
    # deep inside a list, and negative
    counts = json.dumps(saved["numeric"][1]["patterns"][0]["class_counts"])
    inner = text.replace(counts, "[-" + "1" * 4_400 + ", 3]", 1)
    with pytest.raises(ValueError, match=r"^Model file field 'patterns\[0\]\.class_counts\[0\]': expected an "
                                         r"integer of at most 40 digits.*got an integer of 4400 digits"):
        TURSClassifier.from_json(inner)
    # 41 digits: a number Python reads, refused by the field's own check
    _refused(json.loads(text.replace(f'"n_train": {n_train}', '"n_train": ' + "9" * 41)), "n_train",
             "an integer from 1 to")


def test_far_more_rules_than_the_patterns_name_are_refused_before_they_are_read(saved, monkeypatch):
    d = copy.deepcopy(saved["numeric"][1])
    named = sum(len(p["rules"]) for p in d["patterns"])
    d["rules"] = d["rules"] * 5_000
    checked = []
    import turs.model_file as mf
    real = mf._check_rule
    monkeypatch.setattr(mf, "_check_rule", lambda *a, **k: checked.append(1) or real(*a, **k))
    message = _refused(d, "rules", f"at most {named} rules (every rule is in the rules of a pattern, and the "
                                   f"patterns name {named} in all)")
    assert f"got '{len(d['rules'])} rules'" in message and checked == []
    # as many rules as the patterns name, but not as many as the breakdown counts
    d = copy.deepcopy(saved["numeric"][1])
    d["mdl_breakdown"]["n_rules"] += 1
    _refused(d, "rules", f"{d['mdl_breakdown']['n_rules']} rules (mdl_breakdown.n_rules)")
    assert checked == []


def test_a_pattern_table_too_large_to_hold_is_refused(saved, monkeypatch):
    import turs.model_file as mf
    d = saved["numeric"][1]
    K, P = len(d["rules"]), len(d["patterns"])
    monkeypatch.setattr(mf, "_MAX_PATTERN_CELLS", K * P - 1)
    _refused(d, "patterns", f"at most {K * P - 1:,} patterns x rules (the model holds a table of them)")


# -------------------------------------------------------------- 6. format 1 files
@pytest.mark.parametrize("name", ["iris", "categorical"])
def test_format_1_files_are_converted_exactly(name):
    # written by TURSClassifier(beam_width=5).fit(...).to_json() before format 2 (commit 3d3c749)
    text = (DATA / f"model_v1_{name}.json").read_text()
    expected = json.loads((DATA / "model_v1_expected.json").read_text())[name]
    with pytest.warns(UserWarning, match="old format 'turs-model/1'.*Save the model again with to_json"):
        back = TURSClassifier.from_json(text)
    if name == "iris":
        X = load_iris(as_frame=True).data
    else:
        X, _ = categorical_data()
    want = np.array(expected["distinct_rows"])[expected["row_index"]]
    assert_array_equal(back.predict_proba(X), want)
    assert str(back) == expected["str"]
    d = json.loads(back.to_json())
    assert d["format"] == "turs-model/2" and "y_train" not in d
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_array_equal(TURSClassifier.from_json(back.to_json()).predict_proba(X), want)


def test_format_1_tampered_fields_are_refused():
    d = json.loads((DATA / "model_v1_iris.json").read_text())
    bad = _edited(d, lambda d: d["bin_literals"][0][0].__setitem__(0, -1))  # column -1
    _refused(bad, "bin_literals[0][0][0]", "an integer >= 0")
    _refused(_edited(d, lambda d: d.update(y_train="!!")), "y_train", "base64 text")
    _refused(_edited(d, lambda d: d.update(n_train=151)), "y_train", "151 values of int32")


# ------------------------------------------------- 7. mutations of saved models
def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _get(node, path):
    for key in path:
        node = node[key]
    return node


def _kind(v):
    if v is None or isinstance(v, bool):
        return repr(v)
    return "number" if isinstance(v, (int, float)) else type(v).__name__


RETYPES = [None, True, 7, 2.5, "text", [], {}]
NUMBERS = [lambda v: -v - 1, lambda v: math.nan, lambda v: math.inf, lambda v: -math.inf, lambda v: 10 ** 30,
           lambda v: v + 0.5]


@pytest.fixture(scope="module")
def sections(saved):
    """name -> top-level field -> every path under it (the field itself included)."""
    return {name: {key: list(_paths(d[key], (key,))) for key in d} for name, (_, d, _, _) in saved.items()}


def _is_rule_edit(path, mutation) -> bool:
    """A mutation that leaves a valid, different rule: a threshold changed, a bound or a condition removed."""
    in_conditions = len(path) >= 4 and path[0] == "rules" and path[2] == "conditions"
    return in_conditions and ((mutation == "delete" and len(path) in (4, 5))
                              or (mutation == "number" and path[-1] == "value"))


def _mutate(d, path, mutation, choice):
    node = _get(d, path)
    if mutation == "delete":
        parent = _get(d, path[:-1])
        del parent[path[-1]]
    elif mutation == "extra":
        if isinstance(node, dict):
            node["unexpected_field"] = 1
        else:
            node.append(copy.deepcopy(node[-1]) if node else 0)
    else:
        if mutation == "retype":
            options = [v for v in RETYPES if _kind(v) != _kind(node)]
            value = options[choice % len(options)]
        else:
            value = NUMBERS[choice % len(NUMBERS)](node)
        if path:
            _get(d, path[:-1])[path[-1]] = value
        else:
            return value
    return d


@settings(suppress_health_check=[HealthCheck.too_slow])  # example counts: the profiles in conftest.py
@given(data=st.data())
def test_a_mutated_file_is_refused_or_predicts_what_it_says(saved, sections, data):
    """Either a ValueError naming the field, or the model predicts what the file says (read
    alone), and, unless a rule was edited validly, exactly what the original model predicts."""
    name = data.draw(st.sampled_from(sorted(saved)), label="model")
    model, d0, X_held, X_frame = saved[name]
    key = data.draw(st.sampled_from(sorted(sections[name])), label="field")
    path = data.draw(st.sampled_from(sections[name][key]), label="path")
    node = _get(d0, path)
    mutations = ["retype", "delete"]
    if isinstance(node, (dict, list)):
        mutations.append("extra")
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        mutations.append("number")
    mutation = data.draw(st.sampled_from(mutations), label="mutation")
    choice = data.draw(st.integers(0, 5), label="choice")
    d = _mutate(copy.deepcopy(d0), path, mutation, choice)
    try:
        back = TURSClassifier.from_json(json.dumps(d))
    except ValueError as e:
        assert str(e).startswith(ERROR_PREFIXES), str(e)
        event("refused")
        return
    event("a rule edited" if _is_rule_edit(path, mutation) else "loaded")
    if path[:2] == ("encoder", "categorical_levels") and mutation == "delete":
        # a two-level column is one 0/1 column for its second level: the first level can be
        # dropped (a one-level column reads the same); the model then refuses it in X
        with pytest.raises(ValueError, match="that was not seen in fit"):
            back.predict_proba(X_held)
        return
    got = back.predict_proba(X_held)
    assert_array_equal(got, file_predict_proba(d, X_frame))
    if not _is_rule_edit(path, mutation):
        assert_array_equal(got, model.predict_proba(X_held))
