"""A rule prints only the stronger of two literals on one categorical column (``colour != red
AND colour = blue`` prints ``colour = blue``), and the printed text still parses back to the
same training rows; the rule keeps both literals (its model code counts them)."""
import numpy as np
import pytest

from _estimator_helpers import categorical_data
from turs import Condition, Rule, TURSClassifier
from turs.parse import resolve_rules
from turs.rules import printed_conditions


@pytest.fixture(scope="module")
def cat_model():
    X, y = categorical_data()
    return X, y, TURSClassifier(beam_width=5).fit(X, y)


def test_an_implied_not_equal_is_not_printed_and_the_cover_round_trips(cat_model):
    X, y, model = cat_model
    edited = model.with_rule("color != red AND color = blue AND size >= 2")
    rule = edited.rules_[-1]
    assert len(rule) == 3  # the search's (or the user's) literals are all kept ...
    assert rule.condition_text() == "color = blue AND size >= 2"  # ... the implied one is not printed
    assert str(rule).startswith("IF color = blue AND size >= 2 THEN")
    covers = edited.apply(X)[:, -1]
    assert covers.sum() == ((X["color"] == "blue") & (X["size"] >= 2)).sum() > 0
    back = resolve_rules(rule.condition_text(), edited.encoder_, edited._train_rows_)[0]
    got = np.zeros(len(X), dtype=bool)
    got[back.rows] = True
    assert np.array_equal(got, covers)
    assert len(back.literals) == 2  # parsed back it is the shorter rule: same cover, shorter code


def test_literals_that_do_not_imply_each_other_are_all_printed(cat_model):
    X, y, model = cat_model
    rule = model.with_rule("color != red AND color != green").rules_[-1]
    assert rule.condition_text() == "color != red AND color != green"
    # a level excluded and the same level required (an empty cover) is printed as it is
    red_eq = Condition("color=red", 0.5, None, "color", "red")
    red_ne = Condition("color=red", None, 0.5, "color", "red")
    blue_ne = Condition("color=blue", None, 0.5, "color", "blue")
    shape_ne = Condition("shape=square", None, 0.5, "shape", "square")
    assert printed_conditions([red_ne, red_eq]) == [red_ne, red_eq]
    # "!=" on another column than the "=" stays; text items pass through
    assert printed_conditions([blue_ne, shape_ne, red_eq, "x < 1"]) == [shape_ne, red_eq, "x < 1"]
    assert Rule((blue_ne, red_eq), (3, 1), ("a", "b")).condition_text() == "color = red"
