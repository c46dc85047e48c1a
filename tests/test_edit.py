"""Editing a fitted model, scored exactly: ``without_rule``, ``with_rule``,
``replace_rule``, ``refit``, ``fit(initial_rules=...)`` and ``turs.compare``.

An edited model's score is checked against ``turs.mdl_score`` computed from scratch on the same
rules and data, and its probabilities against the row-by-row union estimate of
tests/_estimator_helpers.py (which reads only the printed rules and the raw table).
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from _estimator_helpers import categorical_data, covers_by_row, gap_data, union_estimate
from turs import TURSClassifier, compare, mdl_score


@pytest.fixture(scope="module")
def gap():
    X, y = gap_data(seed=1, n=800)
    return X, y, TURSClassifier().fit(X, y)


@pytest.fixture(scope="module")
def cat():
    X, y = categorical_data()
    return X, y, TURSClassifier(beam_width=5).fit(X, y)


def scratch(model, X, y):
    """The MDL score of the model's printed rules on (X, y), computed from scratch."""
    return mdl_score(model.rules_, X, y, encoder=model.encoder_, classes=model.classes_,
                     model_encoding=model.model_encoding)


def assert_exact(model, X, y):
    """mdl_score_ / mdl_breakdown_ are those of the rules from scratch; the probabilities are the
    union estimates on the training rows."""
    bd = scratch(model, X, y)
    assert model.mdl_score_ == pytest.approx(bd.total, abs=1e-9)
    assert model.mdl_breakdown_.rule_model_bits == pytest.approx(bd.rule_model_bits, abs=1e-12)
    for name in ("data_bits", "regret_bits", "model_bits"):
        assert getattr(model.mdl_breakdown_, name) == pytest.approx(getattr(bd, name), abs=1e-9)
    for name in ("n_rules", "coverage", "else_coverage", "n_overlap_groups"):
        assert getattr(model.mdl_breakdown_, name) == getattr(bd, name)
    covers = covers_by_row(model.rules_, X)
    assert_array_equal(model.apply(X), covers)
    proba = model.predict_proba(X)
    for pattern in np.unique(covers, axis=0)[:6]:
        row = np.flatnonzero((covers == pattern).all(axis=1))[0]
        want = union_estimate(model.rules_, X, y, model.classes_, list(np.flatnonzero(pattern)))
        assert_allclose(proba[row], want, atol=1e-12)


# ------------------------------------------------------------------- 1. the edits
def test_without_rule_then_with_rule_gives_the_model_back(gap):
    X, y, model = gap
    assert len(model.rules_) >= 3
    before = copy.deepcopy(model.__dict__)
    for i in range(len(model.rules_)):
        back = model.without_rule(i).with_rule(model.rules_[i])
        assert abs(back.mdl_score_ - model.mdl_score_) <= 1e-9
        assert np.abs(back.predict_proba(X) - model.predict_proba(X)).max() <= 1e-9
        assert sorted(map(str, back.rules_)) == sorted(map(str, model.rules_))
    assert str(model) == str(TURSClassifier.from_json(model.to_json()))  # the original is unchanged
    assert model.__dict__.keys() == before.keys() and model.mdl_score_ == before["mdl_score_"]
    assert model._literals_ == before["_literals_"]


@pytest.mark.parametrize("edit", ["without", "with", "replace", "chain"])
def test_edited_score_equals_mdl_score_from_scratch(gap, edit):
    X, y, model = gap
    if edit == "without":
        new = model.without_rule(0)
    elif edit == "with":
        new = model.with_rule("u >= 0.5 AND v < 0.2")
    elif edit == "replace":
        new = model.replace_rule(1, "v > 0.8")
    else:
        new = model.with_rule("w < 0.3").without_rule(-1).replace_rule(0, "0.1 <= u < 0.25")
    assert_exact(new, X, y)
    assert new.mdl_score_ != model.mdl_score_
    assert new.trace_ is None and new is not model


def test_replace_keeps_the_position_and_with_appends(cat):
    X, y, model = cat
    new = model.replace_rule(0, "color = green AND size >= 2")
    assert new.rules_[0].condition_text() == "color = green AND size >= 2"
    assert [r.conditions for r in new.rules_[1:]] == [r.conditions for r in model.rules_[1:]]
    added = model.with_rule("shape = circle")
    assert added.rules_[-1].condition_text() == "shape != square"  # the 0/1 column of 'shape'
    assert len(added.rules_) == len(model.rules_) + 1
    assert_exact(new, X, y)
    assert_exact(added, X, y)


def test_edit_errors_name_the_rule_and_the_fix(gap):
    X, y, model = gap
    K = len(model.rules_)
    with pytest.raises(ValueError, match=rf"the rule index must be an int from 0 to {K - 1}.*Got {K}"):
        model.without_rule(K)
    with pytest.raises(ValueError, match=rf"rule {K + 1} \('z >= 1'\) has a condition on the column 'z'"):
        model.with_rule("z >= 1")
    with pytest.raises(ValueError, match=r"rule 2 \('u < -1'\) covers no training row"):
        model.replace_rule(1, "u < -1")
    with pytest.raises(ValueError, match="Cannot parse the rule 'u >'"):
        model.with_rule("u >")


# -------------------------------------------------------------- 2. loaded models
def test_a_loaded_model_needs_the_training_data_to_add_a_rule(gap):
    X, y, model = gap
    back = TURSClassifier.from_json(model.to_json())
    for call in (lambda: back.with_rule("u >= 0.5"), lambda: back.replace_rule(0, "u >= 0.5")):
        with pytest.raises(ValueError, match=r"needs the model's training rows.*read from a file.*Pass the data "
                                             r"it was fitted on: X=\.\.\., y=\.\.\."):
            call()
    with pytest.raises(ValueError, match="pass both X and y"):
        back.with_rule("u >= 0.5", X=X)
    new = back.with_rule("u >= 0.5", X=X, y=y)
    fitted = model.with_rule("u >= 0.5")
    assert new.mdl_score_ == fitted.mdl_score_ and str(new) == str(fitted)
    assert_array_equal(new.predict_proba(X), fitted.predict_proba(X))
    # other data than the training data are refused
    with pytest.raises(ValueError, match="are not the data this model was fitted on"):
        back.with_rule("u >= 0.5", X=X.iloc[:-5], y=y[:-5])
    y_other = y.copy()
    y_other[:40] = np.where(y_other[:40] == "a", "b", "a")
    with pytest.raises(ValueError, match="are not the data this model was fitted on"):
        back.with_rule("u >= 0.5", X=X, y=y_other)
    with pytest.raises(ValueError, match="has the label 'zzz', which is not one of the model's classes"):
        back.with_rule("u >= 0.5", X=X, y=np.where(y == "a", "zzz", y))


def test_a_loaded_model_drops_a_rule_from_its_counts_alone(gap, cat):
    for X, y, model in (gap, cat):
        back = TURSClassifier.from_json(model.to_json())
        for i in range(len(model.rules_)):
            a, b = back.without_rule(i), model.without_rule(i)
            assert abs(a.mdl_score_ - b.mdl_score_) <= 1e-9
            assert a.mdl_breakdown_.rule_model_bits == b.mdl_breakdown_.rule_model_bits
            for name in ("n_overlap_groups", "coverage", "else_coverage", "n_rules"):
                assert getattr(a.mdl_breakdown_, name) == getattr(b.mdl_breakdown_, name)
            assert np.abs(a.predict_proba(X) - b.predict_proba(X)).max() <= 1e-12
            assert str(a) == str(b)
            assert_array_equal(a._pattern_counts_, b._pattern_counts_)
        # down to no rule at all
        empty = back
        while empty.rules_:
            empty = empty.without_rule(0)
        assert empty.mdl_score_ == pytest.approx(mdl_score([], X, y, encoder=model.encoder_,
                                                           classes=model.classes_).total, abs=1e-9)
        assert_allclose(empty.predict_proba(X.iloc[:3]),
                        np.tile(np.unique(y, return_counts=True)[1] / len(y), (3, 1)))


def test_a_hand_edited_file_without_breakdown_needs_data_to_drop_a_rule(gap):
    import json

    X, y, model = gap
    d = json.loads(model.to_json())
    d["mdl_breakdown"] = None
    back = TURSClassifier.from_json(json.dumps(d))
    with pytest.raises(ValueError, match="holds no MDL breakdown.*Pass the training data"):
        back.without_rule(0)
    assert back.without_rule(0, X=X, y=y).mdl_score_ == model.without_rule(0).mdl_score_


def test_edited_models_save_and_load(cat):
    X, y, model = cat
    new = model.with_rule("2 <= size < 4.5")
    back = TURSClassifier.from_json(new.to_json())
    assert str(back) == str(new) and back.mdl_score_ == new.mdl_score_
    assert_array_equal(back.predict_proba(X), new.predict_proba(X))


# ------------------------------------------------- 3. starting from given rules
@pytest.mark.parametrize("as_text", [False, True])
def test_initial_rules_reproduce_a_fit(gap, as_text):
    # started from its own rules, the search finds nothing to add: the same model
    X, y, model = gap
    rules = [r.condition_text() for r in model.rules_] if as_text else list(model.rules_)
    again = TURSClassifier().fit(X, y, initial_rules=rules)
    assert [str(r) for r in again.rules_] == [str(r) for r in model.rules_]
    assert again.mdl_score_ == pytest.approx(model.mdl_score_, abs=1e-9)
    assert_array_equal(again.apply(X), model.apply(X))


def test_initial_rules_are_kept_and_the_search_continues(gap):
    X, y, model = gap
    start = "u >= 0.9"  # not a candidate cut point: kept with its exact threshold
    fit = TURSClassifier().fit(X, y, initial_rules=[start])
    assert fit.rules_[0].condition_text() == start
    assert fit.rules_[0].conditions[0].low == 0.9
    assert len(fit.rules_) >= 2
    assert_exact(fit, X, y)
    kept = model.refit(X, y, keep=[1])
    assert kept.rules_[0].conditions == model.rules_[1].conditions
    assert_exact(kept, X, y)


def test_initial_rules_errors_name_the_rule_and_column(cat):
    X, y, _ = cat
    with pytest.raises(ValueError, match=r"rule 2 \('colour = red'\) has a condition on the column 'colour'"):
        TURSClassifier().fit(X, y, initial_rules=["size < 5", "colour = red"])
    with pytest.raises(ValueError, match=r"rule 1 \('color = purple'\) uses the level 'purple' of the column"):
        TURSClassifier().fit(X, y, initial_rules=["color = purple"])
    with pytest.raises(ValueError, match=r"rule 1 \('size > 11'\) covers no training row"):
        TURSClassifier().fit(X, y, initial_rules=["size > 11"])


def test_initial_rules_in_the_trace(cat):
    # the trace's searches start after the given rules; its initial score is that of M = given rules
    X, y, _ = cat
    for mode in ("compact", True):
        model = TURSClassifier(record_trace=mode).fit(X, y, initial_rules=["color = red"])
        searches = model.trace_.searches
        assert searches[0]["rule_index"] == 1 and searches[0]["mdl_before"] == pytest.approx(model.trace_.initial_mdl)
        given = mdl_score([model.rules_[0]], X, y, encoder=model.encoder_, classes=model.classes_)
        assert model.trace_.initial_mdl == pytest.approx(given.total, abs=1e-9)


def test_initial_rules_with_max_rules(cat):
    X, y, _ = cat
    model = TURSClassifier(max_rules=1).fit(X, y, initial_rules=["color = red", "size > 5"])
    assert [r.condition_text() for r in model.rules_] == ["color = red", "size > 5"]


# --------------------------------------------------------------------- 4. compare
def test_compare_two_models(gap):
    X, y, model = gap
    other = model.without_rule(0).with_rule("u >= 0.6 AND v < 0.3")
    table = compare(model, other, X, y, names=("fitted", "edited"))
    assert list(table.columns) == ["fitted", "edited"]
    assert table.loc["MDL score (bits)", "fitted"] == model.mdl_score_
    assert table.loc["MDL score (bits)", "edited"] == other.mdl_score_
    for name in ("data_bits", "regret_bits", "model_bits"):
        row = {"data_bits": "data code (bits)", "regret_bits": "regret (bits)",
               "model_bits": "model code L(M) (bits)"}[name]
        assert table.loc[row, "edited"] == getattr(other.mdl_breakdown_, name)
    assert table.loc["rules", "fitted"] == len(model.rules_)
    assert table.loc["literals", "edited"] == sum(len(r) for r in other.rules_)
    assert table.loc["rules only in this model", "fitted"] == [model.rules_[0].condition_text()]
    assert table.loc["rules only in this model", "edited"] == ["u >= 0.6 AND v < 0.3"]
    # train AUC from the pattern counts = the study's AUC on the training rows
    from turs.bench.metrics import roc_auc

    for m, name in ((model, "fitted"), (other, "edited")):
        assert table.loc["train AUC", name] == pytest.approx(roc_auc(y, m.predict_proba(X), m.classes_), abs=1e-12)
    X_test, y_test = gap_data(seed=2, n=300)
    t2 = compare(model, other, X_test, y_test)
    assert t2.loc["test AUC", "A"] == pytest.approx(roc_auc(y_test, model.predict_proba(X_test), model.classes_))
    assert np.isnan(compare(model, other).loc["test AUC", "B"])


# ------------------------------------------------------------ 5. record_trace
@pytest.mark.parametrize("value", [True, False, "full", "compact"])
def test_record_trace_accepts_the_trace_modes(value):
    TURSClassifier(record_trace=value)._validate_params()


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_record_trace_refuses_other_values(value):
    with pytest.raises(ValueError, match=r"'record_trace' parameter of TURSClassifier must be a bool or one of "
                                         r"\('full', 'compact'\)"):
        TURSClassifier(record_trace=value)._validate_params()


def test_a_model_file_with_a_trace_mode_loads(cat):
    import json

    _, _, model = cat
    d = json.loads(model.to_json())
    d["params"]["record_trace"] = "compact"
    assert TURSClassifier.from_json(json.dumps(d)).get_params()["record_trace"] == "compact"
    d["params"]["record_trace"] = "everything"
    with pytest.raises(ValueError, match="params.record_trace"):
        TURSClassifier.from_json(json.dumps(d))

