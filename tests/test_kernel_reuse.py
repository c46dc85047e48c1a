"""The growth kernel's output kept across rule searches (``turs.search.kernel_reuse``): used only
while no rule added since covers a row of the base, and a fit that uses it equals one that
counts every base again, rule for rule and bit for bit."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

import turs.search.growths as growths
from turs import TURSClassifier
from turs.search import SearchData, SearchSettings, learn_rule_set
from turs.search.kernel_reuse import KernelReuse


class _State:
    """What the cache reads of a ``RuleSetState``: its rules and their covers."""

    def __init__(self, rules, n=10):
        self.rules = list(rules)
        self.covers = np.zeros((n, len(rules)), dtype=bool)
        for k, r in enumerate(rules):
            self.covers[r.rows, k] = True


def _rule(rows):
    return SimpleNamespace(rows=np.asarray(rows, dtype=np.int64))


def test_an_entry_lives_while_the_added_rules_miss_the_base():
    base_rows = np.array([0, 1, 2])
    r0, r1, r2, r3 = _rule([0, 5]), _rule([6, 7]), _rule([2, 8]), _rule([9])
    out = (np.arange(4),)
    cache = KernelReuse()
    s0 = _State([r0])
    assert cache.get("b", base_rows, s0) is None
    cache.put("b", s0, out)
    assert cache.get("b", base_rows, s0) is out  # the same M
    assert cache.get("b", base_rows, _State([r0, r1])) is out  # r1 covers none of rows 0-2
    assert cache.get("b", base_rows, _State([r0, r1, r2])) is None  # r2 covers row 2
    # a rule set that does not extend the known one (a rule replaced) empties the cache
    cache.put("c", _State([r0, r1]), out)
    assert cache.get("c", base_rows, _State([r3, r1])) is None
    assert cache._entries == {} and cache.hits == 2


def test_the_budget_empties_the_cache_instead_of_growing():
    cache = KernelReuse(cache_bytes=100)
    s = _State([])
    cache.put("a", s, (np.zeros(10),))  # 80 bytes
    cache.put("b", s, (np.zeros(10),))  # over the budget: starts again with b only
    assert list(cache._entries) == ["b"] and cache._bytes == 80


@pytest.mark.parametrize("search", ["turs2", "thesis"])
def test_a_fit_with_kept_outputs_equals_one_without(monkeypatch, search):
    X, y = make_classification(n_samples=1500, n_features=6, n_informative=4, n_redundant=0, flip_y=0.05,
                               random_state=3)
    X = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    model = TURSClassifier(beam_width=5).fit(X, y)
    enc = model.encoder_
    fits = {}
    for reuse in (True, False):
        monkeypatch.setattr(growths, "REUSE_KERNEL_OUTPUT", reuse)
        data = SearchData(enc.bins(enc.transform(X)), y.astype(np.int64), enc.n_bins_, enc.binary_, 2,
                          model_encoding="turs2")
        state, _ = learn_rule_set(data, SearchSettings(5, search=search))
        fits[reuse] = ([r.literals for r in state.rules], state.total, data.kernel_reuse.hits)
    assert len(fits[True][0]) >= 4
    assert fits[True][2] > 0 and fits[False][2] == 0  # kept outputs were used, and only then
    assert fits[True][:2] == fits[False][:2]
