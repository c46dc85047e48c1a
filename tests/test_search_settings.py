"""The search's records and its one-rule entry point: ``SearchSettings`` and
``SearchConstraints`` (``turs.search.settings``, importable from ``turs.search`` and
``turs.search.beam`` too), and ``learn_single_rule`` (Algorithm 4 once, with its trace), which
grows the rule ``learn_rule_set`` adds first, with the same trace."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_iris

import turs.search as search
import turs.search.beam as beam
import turs.search.settings as settings_module
from turs import TURSClassifier
from turs.search import RuleSetState, SearchData, SearchSettings, learn_rule_set, learn_single_rule
from turs.trace import candidate_describer


def test_the_records_are_one_class_under_every_import_path():
    for name in ("SearchSettings", "SearchConstraints"):
        assert getattr(search, name) is getattr(beam, name) is getattr(settings_module, name)
    s = SearchSettings()
    assert (s.beam_width, s.k_stop, s.search, s.use_local_test) == (10, 5, "thesis", True)
    c = settings_module.SearchConstraints()
    assert c.forbidden is None and c.max_rule_length is None and c.preferred == () and c.preferred_fallback


@pytest.fixture(scope="module")
def iris_search():
    X, y = load_iris(return_X_y=True, as_frame=True)
    model = TURSClassifier(beam_width=3).fit(X, y)
    enc = model.encoder_
    data = SearchData(enc.bins(enc.transform(X)), np.searchsorted(model.classes_, y).astype(np.int64),
                      enc.n_bins_, enc.binary_, len(model.classes_), model.model_encoding)
    return model, data, SearchSettings(beam_width=3), candidate_describer(enc)


def test_learn_single_rule_grows_the_first_rule_of_the_rule_set(iris_search):
    model, data, settings, describe = iris_search
    best, iterations = learn_single_rule(RuleSetState(data, []), settings, describe)
    state, searches = learn_rule_set(data, settings, None, describe)
    assert best is not None and len(state.rules) == len(model.rules_) >= 2
    assert best.literals == state.rules[0].literals
    assert np.array_equal(best.rows, state.rules[0].rows)
    assert iterations == searches[0]["iterations"] and len(iterations) >= 1
    # without describe or a trace mode: the same rule, no trace
    again, none = learn_single_rule(RuleSetState(data, []), settings)
    assert again.literals == best.literals and none == []
    compact, compact_iterations = learn_single_rule(RuleSetState(data, []), settings, trace="compact")
    assert compact.literals == best.literals and len(compact_iterations) == len(iterations)
