"""Rules as text: ``turs.parse_rule`` (syntax), ``resolve_rules`` (columns, levels, covers) and
the round trip ``str(rule)`` -> ``parse_rule`` -> the same training rows, on the study's kinds of
data (numeric, categorical, column names with spaces and parentheses).

The covers of parsed text are checked against a naive twin that reads the printed text with
Python's own comparison operators, row by row.
"""
from __future__ import annotations

import json
import operator
import re

import numpy as np
import pandas as pd
import pytest

from _estimator_helpers import categorical_data
from turs import Condition, Rule, TURSClassifier, parse_rule
from turs.datasets import load_bundled
from turs.edit import print_digits_table
from turs.encoding import FeatureEncoder
from turs.parse import ParsedCondition, RuleSyntaxError, resolve_rules
from turs.rules import bound_of_cut, cut_of_bound, print_digits, quote_name

_OPS = {">=": operator.ge, ">": operator.gt, "<": operator.lt, "<=": operator.le}


def naive_cover(text: str, X: pd.DataFrame) -> np.ndarray:
    """Rows satisfying the parsed text, one row and one condition at a time, with Python's
    operators on the raw values (a level by its text)."""
    parsed = parse_rule(text)
    out = np.ones(len(X), dtype=bool)
    for i in range(len(X)):
        row = X.iloc[i]
        for c in parsed.conditions:
            v = row[c.column]
            if c.op is not None:
                ok = (str(v) == c.level) == (c.op == "=")
            else:
                ok = all(_OPS[op](float(v), value) for op, value in (c.lower, c.upper) if op is not None) \
                    if c.lower is not None and c.upper is not None else \
                    _OPS[(c.lower or c.upper)[0]](float(v), (c.lower or c.upper)[1])
            if not ok:
                out[i] = False
                break
    return out


# ------------------------------------------------------------------------ 1. syntax
@pytest.mark.parametrize("text, expected", [
    ("x1 >= 1.0 AND x2 < 0.8",
     [{"column": "x1", "lower": {"op": ">=", "value": 1.0}}, {"column": "x2", "upper": {"op": "<", "value": 0.8}}]),
    ("worst perimeter > 105.95", [{"column": "worst perimeter", "lower": {"op": ">", "value": 105.95}}]),
    ("1.65 <= petal width (cm) < 1.75",
     [{"column": "petal width (cm)", "lower": {"op": ">=", "value": 1.65}, "upper": {"op": "<", "value": 1.75}}]),
    ("-3 < x <= 1e-3", [{"column": "x", "lower": {"op": ">", "value": -3.0}, "upper": {"op": "<=", "value": 0.001}}]),
    ("color != dark red AND shape = circle",
     [{"column": "color", "op": "!=", "level": "dark red"}, {"column": "shape", "op": "=", "level": "circle"}]),
    ("`a<b` = `x AND y` AND `we``ird` <= .5",
     [{"column": "a<b", "op": "=", "level": "x AND y"}, {"column": "we`ird", "upper": {"op": "<=", "value": 0.5}}]),
    ("IF x<1 AND ANDROID>=2 THEN P(a)=0.50 (n=3)",
     [{"column": "x", "upper": {"op": "<", "value": 1.0}}, {"column": "ANDROID", "lower": {"op": ">=", "value": 2.0}}]),
])
def test_parse_forms(text, expected):
    parsed = parse_rule(text)
    assert [c.to_dict() for c in parsed.conditions] == expected
    assert parse_rule(str(parsed)).to_dict() == parsed.to_dict()  # the canonical text parses to the same


@pytest.mark.parametrize("text, position, problem", [
    ("x1 >= AND x2 < 0.8", 5, "a number is missing"),
    ("x1 >= 1.0 AND x2 < abc", 19, "'abc' is not a number"),
    ("x1 >= 1 AND", 11, "a condition is missing"),
    ("x >= 1 AND AND y < 2", 11, "a condition is missing"),
    ("x 1 2", 0, "has no operator"),
    ("a < b < c < d", 10, "has 3 operators"),
    ("3 < x < 2", 0, "is empty"),
    ("5 >= x > 1", 2, "takes '<' or '<=' on both sides"),
    ("`abc >= 1", 0, "a backtick is not closed"),
    ("`ab`c >= 1", 0, "in backticks must be all of it"),
    ("x > inf", 4, "'inf' is not a number"),
    (">= 2", 0, "a column name is missing"),
    ("", 0, "there is no condition"),
])
def test_syntax_errors_raise_at_once_with_the_position(text, position, problem):
    with pytest.raises(RuleSyntaxError) as e:
        parse_rule(text)
    assert e.value.position == position
    assert isinstance(e.value, ValueError)
    msg = str(e.value)
    assert problem in msg and f"at position {position}" in msg
    assert msg.splitlines()[2] == "  " + " " * position + "^"  # the pointer under the text


def test_parse_rule_takes_text_only():
    with pytest.raises(TypeError, match="takes a rule's text"):
        parse_rule(3)


@pytest.mark.parametrize("name, printed", [
    ("worst perimeter", "worst perimeter"), ("petal length (cm)", "petal length (cm)"), ("ANDROID", "ANDROID"),
    ("a<b", "`a<b`"), ("x AND y", "`x AND y`"), ("AND", "`AND`"), ("IF x", "`IF x`"), ("THEN", "`THEN`"),
    ("we`ird", "`we``ird`"), (" pad", "` pad`"), ("", "``"), ("a!", "`a!`"),
])
def test_names_are_quoted_only_when_needed(name, printed):
    assert quote_name(name) == printed
    assert parse_rule(f"{printed} >= 1").conditions[0].column == name


# ------------------------------------------------------------- 2. printed digits
def test_print_digits_only_where_six_do_not_separate_the_data():
    values = np.array([1.0000001, 1.0000002, 2.0])
    cut = (1.0000001 + 1.0000002) / 2
    assert f"{cut:.6g}" == "1"  # 6 digits would put the cut below both values
    digits = print_digits(cut, values)
    assert digits == 9  # 8 digits give 1.0000001 (the float of the cut is just below 1.00000015)
    text = str(Condition("x", low=cut, digits=(digits, None)))
    assert text == "x >= 1.00000015"
    assert print_digits((1.0 + 2.0) / 2, values) is None  # 1.5 separates them at 6 digits
    assert print_digits(np.nextafter(2.0, np.inf), values) is None  # "x > 2"


def _cut_conditions(encoder, digits):
    """Every one-sided condition at a candidate cut of a numeric column, and a two-sided one
    between consecutive distinct cuts, with the digits the data need."""
    for j, col in enumerate(encoder.columns_):
        if col.kind != "numeric":
            continue
        cuts = sorted(set(col.cuts))
        for c in cuts:
            d = digits.get((j, c))
            yield j, Condition(col.name, low=c, digits=(d, None))
            yield j, Condition(col.name, high=c, digits=(None, d))
        for a, b in zip(cuts, cuts[1:]):
            yield j, Condition(col.name, low=a, high=b, digits=(digits.get((j, a)), digits.get((j, b))))


def _study_frames():
    frames = {name: load_bundled(name)[0] for name in ("sklearn-iris", "sklearn-wine", "sklearn-breast-cancer",
                                                         "sim-local-testing", "sim-overlap-blockade")}
    frames["categorical"] = categorical_data()[0]
    return frames


@pytest.mark.parametrize("name", ["sklearn-iris", "sklearn-wine",
                                  pytest.param("sklearn-breast-cancer", marks=pytest.mark.slow),
                                  "sim-local-testing", "sim-overlap-blockade", "categorical"])
def test_printed_conditions_round_trip_at_every_cut(name):
    X = _study_frames()[name]
    encoder = FeatureEncoder(20).fit(X)
    Xe = encoder.transform(X)
    digits = print_digits_table(encoder, Xe)
    n = 0
    for j, cond in _cut_conditions(encoder, digits):
        text = str(cond)
        want = cond.mask(Xe[:, j])
        if not want.any():
            continue
        got = np.zeros(len(Xe), dtype=bool)
        got[resolve_rules(text, encoder, Xe)[0].rows] = True
        assert np.array_equal(got, want), text
        if n % 7 == 0:  # the naive reading of the text on a sample of the conditions
            assert np.array_equal(naive_cover(text, X), want), text
        n += 1
    assert n > 20
    if name == "sklearn-breast-cancer":  # column names with spaces, 6 digits suffice there
        assert "worst perimeter" in encoder.input_columns_ and digits == {}


@pytest.mark.parametrize("name, more_digits", [("glass", 2), ("thyroid", 58), ("drybeans", 18)])
def test_round_trip_where_six_digits_do_not_suffice(turs_data_dir, name, more_digits):
    # glass, thyroid and drybeans have cut points 6 significant digits cannot place between their
    # neighbouring values (found by a scan of the study's datasets); those print with more
    from turs.bench.profiles import load_dataset

    X, _ = load_dataset(name)
    encoder = FeatureEncoder(20).fit(X)
    Xe = encoder.transform(X)
    digits = print_digits_table(encoder, Xe)
    assert len(digits) == more_digits and all(7 <= d <= 17 for d in digits.values())
    for (j, c), d in digits.items():
        values = np.unique(Xe[:, j])
        op, value = bound_of_cut(c, "lower")  # the old printing (6 digits) reads back on the
        six = cut_of_bound(op, float(f"{value:.6g}"))  # wrong side of a training value
        assert np.searchsorted(values, six) != np.searchsorted(values, c)
        for cond in (Condition(encoder.columns_[j].name, low=c, digits=(d, None)),
                     Condition(encoder.columns_[j].name, high=c, digits=(None, d))):
            got = np.zeros(len(Xe), dtype=bool)
            got[resolve_rules(str(cond), encoder, Xe)[0].rows] = True
            assert np.array_equal(got, cond.mask(Xe[:, j])), str(cond)


@pytest.mark.parametrize("data", ["breast-cancer", "categorical"])
def test_fitted_rules_round_trip(data):
    if data == "breast-cancer":
        X, y = load_bundled("sklearn-breast-cancer")
    else:
        X, y = categorical_data()
    model = TURSClassifier(beam_width=5).fit(X, y)
    covers = model.apply(X)
    assert len(model.rules_) >= 2
    for k, rule in enumerate(model.rules_):
        text = rule.condition_text()
        got = np.zeros(len(X), dtype=bool)
        got[resolve_rules(text, model.encoder_, model._train_rows_)[0].rows] = True
        assert np.array_equal(got, covers[:, k]), text
        assert np.array_equal(naive_cover(text, X), covers[:, k]), text
        assert np.array_equal(naive_cover(str(rule), X), covers[:, k])  # "IF ... THEN ..." as printed


def test_printed_digits_survive_the_model_file():
    # a column whose cut needs 9 digits: the fitted and the loaded model print the same
    rng = np.random.default_rng(0)
    x = np.round(1 + rng.integers(0, 40, 200) * 1e-7, 9)
    X = pd.DataFrame({"tiny steps": x, "noise": rng.uniform(0, 1, 200)})
    y = (x >= 1 + 20e-7).astype(int)
    model = TURSClassifier().fit(X, y)
    text = model.rules_[0].condition_text()
    assert text == "tiny steps < 1.00000185"  # 6 digits: "< 1", which covers no row
    d = json.loads(model.to_json())
    bounds = [b for r in d["rules"] for c in r["conditions"] for b in (c.get("lower"), c.get("upper")) if b]
    assert any("digits" in b for b in bounds)
    back = TURSClassifier.from_json(model.to_json())
    assert str(back) == str(model)
    for k, rule in enumerate(model.rules_):
        assert np.array_equal(naive_cover(rule.condition_text(), X), model.apply(X)[:, k])


# -------------------------------------------------------------- 3. resolution
@pytest.fixture(scope="module")
def cat_model():
    X, y = categorical_data()
    return X, y, TURSClassifier(beam_width=5).fit(X, y)


@pytest.mark.parametrize("text, fragment", [
    ("colour = red", "rule 1 ('colour = red') has a condition on the column 'colour', which the model's data do not have"),
    ("color = purple", "uses the level 'purple' of the column 'color', which it does not have; its levels are "
                       "['blue', 'green', 'red']"),
    ("color >= 1", "compares the categorical column 'color' with a number"),
    ("size != 3", "on the numeric column 'size'; a condition on a numeric column is one interval"),
    ("size = big", "compares the numeric column 'size' with 'big', which is not a number"),
    ("size < -1", "covers no training row: its condition 'size < -1' on the column 'size' leaves none of the 400"),
    ("color = red AND color = blue", "covers no training row: its condition 'color = blue' on the column 'color'"),
    ("size >= 1 AND size > 2", "two conditions on the column 'size' that are not one interval"),
    ("shape = circle AND shape != square", "two conditions on the column 'shape'"),
    ("size >= 3 AND size < 2", "whose interval is empty"),
    ("size >=", "Cannot parse the rule 'size >=': a number is missing at position 7"),
])
def test_resolution_errors_name_the_rule_and_the_column(cat_model, text, fragment):
    X, y, model = cat_model
    with pytest.raises(ValueError) as e:
        resolve_rules([text], model.encoder_, model._train_rows_)
    assert fragment in str(e.value), str(e.value)
    assert "rule 1" in str(e.value).lower()


def test_a_misspelt_column_of_a_wide_table_names_the_nearest_columns():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    model = TURSClassifier(beam_width=2, max_rules=1).fit(X, y)
    with pytest.raises(ValueError) as e:
        resolve_rules(["worst perimiter >= 100"], model.encoder_, model._train_rows_)
    message = str(e.value)
    assert "the nearest names are ['worst perimeter'" in message and "(of 30 columns)" in message, message
    assert "mean texture" not in message  # not the whole list of 30
    with pytest.raises(ValueError) as e:
        resolve_rules(["zzz >= 1"], model.encoder_, model._train_rows_)
    assert "no column has a name close to it (the first 8 of 30:" in str(e.value)


def test_resolution_of_levels_values_and_rule_objects(cat_model):
    X, y, model = cat_model
    Xe = model._train_rows_

    def rows(rule):
        return resolve_rules([rule], model.encoder_, Xe)[0].rows.tolist()

    idx = np.arange(len(X))
    # the dropped level of the two-level column 'shape' (one 0/1 column for 'square')
    assert rows("shape = circle") == idx[X["shape"] == "circle"].tolist()
    assert rows("shape != circle") == idx[X["shape"] == "square"].tolist()
    v = float(X["size"].iloc[5])
    assert rows(f"size = {v!r}") == idx[X["size"] == v].tolist() == [5]
    assert rows("2 <= size < 4 AND color = green") == idx[(X["size"] >= 2) & (X["size"] < 4)
                                                          & (X["color"] == "green")].tolist()
    assert rows("size >= 2 AND color = green AND size < 4") == rows("2 <= size < 4 AND color = green")
    # Rule objects and conditions resolve with their exact thresholds
    for k, rule in enumerate(model.rules_):
        assert rows(rule) == np.flatnonzero(model.apply(X)[:, k]).tolist()
        assert rows(list(rule.conditions)) == rows(rule)
    with pytest.raises(TypeError, match="Rule 1 is a int"):
        resolve_rules([3], model.encoder_, Xe)


def test_resolved_model_code_matches_mdl(cat_model):
    from turs.mdl import rule_model_bits

    X, y, model = cat_model
    r = resolve_rules("size < 7.5 AND color != blue", model.encoder_, model._train_rows_)[0]
    cuts = [c.cuts for c in model.encoder_.columns_]
    want = rule_model_bits(r.literals, model._train_rows_, cuts, model.encoder_.binary_, 1, "turs2")[0]
    assert r.model_bits == want and r.coverage == len(r.rows) > 0
    assert [lit[0] for lit in r.literals] == [model.encoder_.names_.index("size"),
                                              model.encoder_.names_.index("color=blue")]


def test_parsed_condition_prints_exact_values():
    c = ParsedCondition("x", lower=(">", 0.1 + 0.2))
    assert str(c) == "x > 0.30000000000000004"
    assert parse_rule(str(c)).conditions[0].lower == (">", 0.1 + 0.2)



def test_a_box_of_bounds_is_a_rule_with_those_half_open_intervals():
    """``{column: (low, high)}`` (the form of the simulated data's ground-truth boxes) resolves to
    the rows with ``low <= x < high`` on every column, counted here by hand; None opens a side."""
    from turs.datasets import OVERLAP_BLOCKADE_RULES, make_overlap_blockade_data

    X, y = make_overlap_blockade_data(n=1000, seed=0)
    model = TURSClassifier(max_rules=0).fit(X, y, initial_rules=list(OVERLAP_BLOCKADE_RULES[:2]))
    for box, rule in zip(OVERLAP_BLOCKADE_RULES, model.rules_):
        inside = np.ones(len(X), dtype=bool)
        for col, (lo, hi) in box.items():
            inside &= (X[col].to_numpy() >= lo) & (X[col].to_numpy() < hi)
        assert rule.class_counts == tuple(np.bincount(y[inside], minlength=2))
    open_low = TURSClassifier(max_rules=0).fit(X, y, initial_rules={"X1": (None, 1.0)})
    assert sum(open_low.rules_[0].class_counts) == int((X["X1"].to_numpy() < 1.0).sum())


@pytest.mark.parametrize("box, says", [({"X1": 3}, "maps each column to (low, high)"),
                                       ({"X1": (None, None)}, "no bound for the column 'X1'")])
def test_a_box_with_a_bad_bound_names_the_column_and_the_form(box, says):
    from turs.datasets import make_overlap_blockade_data

    X, y = make_overlap_blockade_data(n=200, seed=0)
    with pytest.raises(ValueError, match=re.escape(says)):
        TURSClassifier(max_rules=0).fit(X, y, initial_rules=[box])
