"""Human-guided TURS: ``preferred_features``,
``preferred_fallback``, ``forbidden_features`` and ``max_rule_length``.

The defaults must leave every fit as it was (rules and MDL score, bit for bit); a forbidden
column never appears, not even among the candidates of the trace; a preferred column that
carries information is in the first rule; a pure-noise preferred column costs the default fit
nothing, while S-CLASSY's printed variant (``preferred_fallback=False``) can end the fit early.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from _estimator_helpers import categorical_data, gap_data
from turs import TURSClassifier, mdl_score
from turs.datasets import load_bundled
from turs.search.record import FIT_STOPS, SEARCH_STOPS


def sources(rule) -> set:
    """The source columns a printed rule uses."""
    return {c.source if c.is_onehot else c.column for c in rule.conditions}


def fingerprint(model):
    return [str(r) for r in model.rules_], model.mdl_score_


def noisy_gap(seed=1, n=800, noise_seed=7):
    X, y = gap_data(seed=seed, n=n)
    X["noise"] = np.random.default_rng(noise_seed).uniform(0, 1, len(X))
    return X, y


# ------------------------------------------------------------ defaults change nothing
@pytest.mark.parametrize("name, params", [
    ("sklearn-iris", {}),
    ("sklearn-wine", {}),
    ("gap", {}),
    ("categorical", {"beam_width": 5}),
    ("sklearn-wine", {"search": "thesis", "model_encoding": "thesis"}),
])
def test_empty_guidance_is_the_default_fit(name, params):
    if name == "gap":
        X, y = gap_data(seed=1, n=800)
    elif name == "categorical":
        X, y = categorical_data()
    else:
        X, y = load_bundled(name)
    base = TURSClassifier(**params).fit(X, y)
    assert len(base.rules_) >= 2  # a fit with something to differ in
    for guidance in ({"preferred_features": []}, {"preferred_features": None, "forbidden_features": None,
                                                  "max_rule_length": None, "preferred_fallback": False},
                     {"preferred_features": [], "forbidden_features": []}):
        assert fingerprint(TURSClassifier(**params, **guidance).fit(X, y)) == fingerprint(base)


# ------------------------------------------------------------------- forbidden columns
def test_forbidden_columns_are_never_used_not_even_by_a_candidate():
    X, y = load_bundled("sklearn-wine")
    base = TURSClassifier().fit(X, y)
    used = sorted(set().union(*(sources(r) for r in base.rules_)))
    forbidden = used[:2]  # the columns the default fit relies on
    model = TURSClassifier(forbidden_features=forbidden, record_trace=True).fit(X, y)
    assert len(model.rules_) >= 2
    for r in model.rules_:
        assert not sources(r) & set(forbidden), str(r)
    names = model.encoder_.names_
    seen = 0
    for s in model.trace_.searches:
        for it in s["iterations"]:
            for key in ("main_beam", "aux_beam", "rejected_by_local_test", "aux_rejected_by_local_test"):
                for c in it[key]:
                    seen += 1
                    assert not {names[j] for j, _, _ in c["literals"]} & set(forbidden)
    assert seen > 100


def test_a_forbidden_level_column_forbids_all_its_one_hot_literals():
    X, y = categorical_data()
    base = TURSClassifier(beam_width=5).fit(X, y)
    assert any("color" in sources(r) for r in base.rules_)
    model = TURSClassifier(beam_width=5, forbidden_features=["color"]).fit(X, y)
    assert model.rules_ and all("color" not in sources(r) for r in model.rules_)


# ---------------------------------------------------------------------- rule length
@pytest.mark.parametrize("k", [1, 2])
def test_max_rule_length_holds_and_the_trace_says_where_it_stopped_a_search(k):
    X, y = load_bundled("sklearn-wine")
    base = TURSClassifier().fit(X, y)
    assert max(len(r) for r in base.rules_) > k
    model = TURSClassifier(max_rule_length=k, record_trace=True).fit(X, y)
    assert model.rules_ and max(len(r) for r in model.rules_) <= k
    stops = [s["stop"] for s in model.trace_.searches]
    limited = [s for s in stops if s["reason"] == "max_rule_length"]
    assert limited, stops
    for s in limited:
        assert s["max_rule_length"] == k and s["bases_at_max_rule_length"] == s["n_bases"] >= 1
    assert model.trace_.stop_reasons().search_stop.isin(SEARCH_STOPS).all()


# -------------------------------------------------------------------- preferred columns
def close_call():
    """Class 1 where z > 0; 'sharp' sees z with little noise, 'blurred' with more, 'other' is
    noise. The default fit's first rule uses 'sharp'."""
    rng = np.random.default_rng(3)
    n = 600
    z = rng.normal(size=n)
    X = pd.DataFrame({"sharp": z + rng.normal(scale=0.2, size=n), "blurred": z + rng.normal(scale=0.8, size=n),
                      "other": rng.normal(size=n)})
    return X, np.where(z > 0, "pos", "neg")


def test_an_informative_preferred_column_is_in_the_first_rule():
    X, y = close_call()
    base = TURSClassifier().fit(X, y)
    assert "blurred" not in sources(base.rules_[0])
    model = TURSClassifier(preferred_features=["blurred"], record_trace=True).fit(X, y)
    assert "blurred" in sources(model.rules_[0])
    first = model.trace_.searches[0]
    assert first["search"] == "preferred" and first["preferred_feature"] == "blurred"
    assert [p["feature"] for p in first["preferred_searches"]] == ["blurred"]
    # used once, the column is no longer preferred: the later searches are the ordinary ones
    assert all("preferred_searches" not in s for s in model.trace_.searches[1:])
    # the rules compress less well than the default fit's, but not by much
    assert base.mdl_score_ <= model.mdl_score_ < 1.2 * base.mdl_score_


def test_the_thesis_search_accepts_a_preferred_rule_only_when_the_score_drops():
    X, y = close_call()
    model = TURSClassifier(search="thesis", model_encoding="thesis", preferred_features=["blurred"],
                           record_trace=True).fit(X, y)
    assert "blurred" in sources(model.rules_[0])
    first = model.trace_.searches[0]
    assert first["search"] == "preferred" and first["mdl_after"] < first["mdl_before"]
    assert first["preferred_searches"][0]["mdl_after"] == pytest.approx(first["mdl_after"])


def test_each_preferred_column_gets_its_own_search_and_leaves_when_used():
    X, y = load_bundled("sklearn-wine")
    model = TURSClassifier(preferred_features=["ash", "magnesium"], record_trace=True).fit(X, y)
    s0 = model.trace_.searches[0]
    assert [p["feature"] for p in s0["preferred_searches"]] == ["ash", "magnesium"]
    best = max(s0["preferred_searches"], key=lambda p: p["r"])
    assert s0["preferred_feature"] == best["feature"] == "ash"
    assert s0["chosen"]["r"] == pytest.approx(best["r"])
    assert "ash" in sources(model.rules_[0])
    s1 = model.trace_.searches[1]
    assert [p["feature"] for p in s1["preferred_searches"]] == ["magnesium"]
    assert "magnesium" in sources(model.rules_[1])


def test_a_noise_preferred_column_with_the_fallback_costs_nothing():
    X, y = noisy_gap()
    base = TURSClassifier().fit(X, y)
    for fallback in (True, False):
        model = TURSClassifier(preferred_features=["noise"], preferred_fallback=fallback,
                               record_trace=True).fit(X, y)
        assert abs(model.mdl_score_ - base.mdl_score_) <= 0.01 * base.mdl_score_
        # the local test rejects every split of the noise column: no preferred candidate at all,
        # so both variants run the ordinary search (S-CLASSY's line 7)
        assert fingerprint(model) == fingerprint(base)
        assert all(not p["found"] for s in model.trace_.searches for p in s["preferred_searches"])


def test_scl_printed_variant_ends_the_fit_where_the_fallback_goes_on():
    """Without the local test and with one literal per rule, the noise column's best rule is
    found but not accepted (r < 0): S-CLASSY as printed returns the empty rule set (its
    bottom-K lists of AUC 0.5), the fallback learns the ordinary rules."""
    X, y = noisy_gap()
    kw = dict(use_local_test=False, max_rule_length=1)
    base = TURSClassifier(**kw).fit(X, y)
    assert len(base.rules_) >= 2
    kept = TURSClassifier(preferred_features=["noise"], record_trace=True, **kw).fit(X, y)
    assert fingerprint(kept) == fingerprint(base)
    printed = TURSClassifier(preferred_features=["noise"], preferred_fallback=False, record_trace=True,
                             **kw).fit(X, y)
    assert printed.rules_ == ()
    stop = printed.trace_.fit_stop
    assert stop["reason"] == "preferred_rule_not_accepted" in FIT_STOPS
    assert stop["preferred_feature"] == "noise" and stop["r"] < 0
    assert printed.mdl_score_ > 2 * base.mdl_score_


def test_given_rules_use_up_their_preferred_columns():
    X, y = load_bundled("sklearn-wine")
    model = TURSClassifier(preferred_features=["ash", "magnesium"], record_trace=True).fit(
        X, y, initial_rules=["ash >= 2.5"])
    assert [p["feature"] for p in model.trace_.searches[0]["preferred_searches"]] == ["magnesium"]


# ------------------------------------------------------------- editing a guided model
def test_edits_of_a_guided_model_are_exact():
    X, y = load_bundled("sklearn-wine")
    model = TURSClassifier(preferred_features=["ash"], max_rule_length=3).fit(X, y)
    assert len(model.rules_) >= 2
    back = model.without_rule(0).with_rule(model.rules_[0])
    assert back.mdl_score_ == pytest.approx(model.mdl_score_, abs=1e-9)
    np.testing.assert_allclose(back.predict_proba(X), model.predict_proba(X), atol=1e-9)
    # with_rule appends: the same rule set, rule 0 now last
    assert [str(r) for r in back.rules_] == [str(r) for r in model.rules_[1:] + model.rules_[:1]]
    scratch = mdl_score(back.rules_, X, y, encoder=back.encoder_, classes=back.classes_,
                        model_encoding=back.model_encoding)
    assert back.mdl_score_ == pytest.approx(scratch.total, abs=1e-9)
    assert back.get_params()["preferred_features"] == ["ash"]


# --------------------------------------------------------------- parameters and files
@pytest.mark.parametrize("params, match", [
    ({"preferred_features": ["ash", "colour"]}, r"'preferred_features'.*'colour', which X does not have"),
    ({"forbidden_features": ["nope"]}, r"'forbidden_features'.*'nope'"),
    ({"preferred_features": ["ash"], "forbidden_features": ["ash", "hue"]},
     r"\['ash'\] are in both 'preferred_features' and 'forbidden_features'"),
    ({"preferred_features": [2], "forbidden_features": ["ash"]}, r"\['ash'\] are in both"),
    ({"preferred_features": [13]}, r"'preferred_features'.*column 13, which X does not have"),
    ({"max_rule_length": 0}, r"'max_rule_length' parameter of TURSClassifier must be an int >= 1 or None.*Got 0"),
    ({"max_rule_length": 2.5}, r"'max_rule_length'.*Got 2.5"),
    ({"preferred_features": "ash"}, r"'preferred_features'.*Got the string 'ash'; write \['ash'\]"),
    ({"preferred_features": ["ash", "ash"]}, r"'preferred_features'.*\['ash'\] more than once"),
    ({"forbidden_features": [1.5]}, r"'forbidden_features'.*column names"),
    ({"preferred_fallback": "yes"}, r"'preferred_fallback' parameter of TURSClassifier must be a bool"),
])
def test_bad_parameters_name_themselves(params, match):
    X, y = load_bundled("sklearn-wine")
    with pytest.raises(ValueError, match=match):
        TURSClassifier(**params).fit(X, y)


def test_given_rules_must_keep_the_constraints():
    X, y = load_bundled("sklearn-wine")
    with pytest.raises(ValueError, match=r"Given rule 0 .*forbidden column\(s\) \['ash'\]"):
        TURSClassifier(forbidden_features=["ash"]).fit(X, y, initial_rules=["ash >= 2.5"])
    with pytest.raises(ValueError, match=r"Given rule 0 .*2 literals, more than max_rule_length=1"):
        TURSClassifier(max_rule_length=1).fit(X, y, initial_rules=["ash >= 2.5 AND hue < 1"])


def test_array_columns_are_named_by_position():
    X, y = load_bundled("sklearn-iris")
    arr = X.to_numpy()
    base = TURSClassifier().fit(arr, y)
    assert any(sources(r) & {"x2", "x3"} for r in base.rules_)
    for forbidden in ([2, 3], ["x2", "x3"]):
        model = TURSClassifier(forbidden_features=forbidden).fit(arr, y)
        assert model.rules_ and all(not sources(r) & {"x2", "x3"} for r in model.rules_)


def test_guidance_round_trips_through_clone_and_the_model_file():
    X, y = load_bundled("sklearn-wine")
    params = dict(preferred_features=["ash", "hue"], preferred_fallback=False, forbidden_features=["proline"],
                  max_rule_length=3)
    model = TURSClassifier(**params).fit(X, y)
    assert clone(model).get_params() == model.get_params()
    back = TURSClassifier.from_json(model.to_json())
    assert back.get_params() == model.get_params()
    assert {k: json.loads(model.to_json())["params"][k] for k in params} == params
    np.testing.assert_allclose(back.predict_proba(X), model.predict_proba(X), atol=0)
    bad = json.loads(model.to_json())
    bad["params"]["max_rule_length"] = 0
    with pytest.raises(ValueError, match=r"params.max_rule_length"):
        TURSClassifier.from_json(json.dumps(bad))


# ------------------------------------------- the harness metric of S-CLASSY's evaluation
def test_weighted_roc_auc_weighs_the_one_vs_rest_aucs_by_class_frequency():
    from sklearn.metrics import roc_auc_score

    from turs.bench.metrics import roc_auc, weighted_roc_auc

    y = np.array([0, 0, 0, 0, 1, 1, 2, 2])
    p = np.array([[.8, .1, .1], [.6, .3, .1], [.3, .4, .3], [.2, .2, .6],
                  [.5, .4, .1], [.1, .8, .1], [.3, .3, .4], [.2, .1, .7]])
    # by hand, counting ordered pairs (ties 1/2): AUC(class 0) = 12/16, AUC(1) = 11.5/12, AUC(2) = 11/12
    assert weighted_roc_auc(y, p, [0, 1, 2]) == pytest.approx(0.5 * 12 / 16 + 0.25 * 11.5 / 12 + 0.25 * 11 / 12)
    assert weighted_roc_auc(y, p, [0, 1, 2]) == pytest.approx(roc_auc_score(y, p, multi_class="ovr",
                                                                            average="weighted"))
    assert weighted_roc_auc(y, p, [0, 1, 2]) != pytest.approx(roc_auc(y, p, [0, 1, 2]))
    # a class absent from the fold is left out and the weights renormalised over the others
    keep = y != 1
    sub = p[keep]
    assert weighted_roc_auc(y[keep], sub, [0, 1, 2]) == pytest.approx(
        (4 * roc_auc_score(y[keep] == 0, sub[:, 0]) + 2 * roc_auc_score(y[keep] == 2, sub[:, 2])) / 6)
    b = np.array([.9, .2, .6, .4, .7])
    yb = np.array(["y", "n", "y", "n", "n"])
    pb = np.column_stack([1 - b, b])
    assert weighted_roc_auc(yb, pb, ["n", "y"]) == pytest.approx(roc_auc(yb, pb, ["n", "y"])) == pytest.approx(5 / 6)
    assert np.isnan(weighted_roc_auc(np.zeros(3, int), p[:3], [0, 1, 2]))
    with pytest.raises(ValueError, match="shape"):
        weighted_roc_auc(y, p[:, :2], [0, 1, 2])
