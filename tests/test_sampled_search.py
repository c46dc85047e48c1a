"""The sampled search for large training sets (``turs.search.sampled``): a candidate
found on the sample is re-counted exactly on all rows, the switch (``exact``, the row
threshold) decides when it runs, and its quality against the exact search on data large
enough to trigger it (thresholds lowered, so that the test stays small)."""
import os

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold

import turs.search.sampled as sampled
from turs import _config
from turs import TURSClassifier
from turs.encoding import FeatureEncoder
from turs.mdl import overlap_groups, rule_model_bits
from turs.search import RuleSetState, SearchData, SearchSettings, learn_rule_set, search_rule
from turs.search.policies import POLICIES


def _noisy(n, seed=0):
    return make_classification(n_samples=n, n_features=8, n_informative=5, n_redundant=1, flip_y=0.05,
                               class_sep=0.8, random_state=seed)


def _search_data(X, y, encoding="turs2"):
    import pandas as pd

    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    enc = FeatureEncoder(n_cut_points=20).fit(frame)
    Xe = enc.transform(frame)
    return enc, Xe, SearchData(enc.bins(Xe), y.astype(np.int64), enc.n_bins_, enc.binary_, 2, encoding)


def _with_rows(rules, data):
    """The rules with their rows on all of ``data`` (a sampled state's rules keep none)."""
    class Rule:
        def __init__(self, r):
            mask = np.ones(data.n, bool)
            for j, a, b in r.literals:
                mask &= (data.bins[j] >= a) & (data.bins[j] < b)
            self.literals, self.rows, self.model_bits = r.literals, np.flatnonzero(mask), r.model_bits

        @property
        def coverage(self):
            return len(self.rows)
    return [Rule(r) for r in rules]


def test_the_sample_is_the_prefix_of_the_hash_order_and_grows_nested(monkeypatch):
    """The sample is the first rows of :func:`turs.search.sample_keys.stratified_prefix`, for
    the seed ``SEARCH_SAMPLE_SEED``, and doubling it keeps its rows."""
    from turs.search.sample_keys import stratified_prefix

    X, y = _noisy(3000)
    _, _, data = _search_data(X, y)
    sampler = sampled.SampledSearch(data, size=400, max_size=800)
    assert np.array_equal(sampler.rows, np.sort(stratified_prefix(data.y, 400, 0)))
    assert np.array_equal(sampler.data.y, data.y[sampler.rows])
    assert np.array_equal(sampler.data.bins, data.bins[:, sampler.rows])
    first = sampler.rows
    assert sampler.grow() and not sampler.grow()
    assert np.array_equal(sampler.rows, np.sort(stratified_prefix(data.y, 800, 0)))
    assert np.isin(first, sampler.rows).all()
    monkeypatch.setattr(_config, "SEARCH_SAMPLE_SEED", 3)
    other = sampled.SampledSearch(data, size=400, max_size=800)
    assert np.array_equal(other.rows, np.sort(stratified_prefix(data.y, 400, 3)))
    assert not np.array_equal(other.rows, first)


@pytest.mark.parametrize("encoding, cache_bytes", [("turs2", None), ("thesis", None), ("turs2", 4000)])
def test_candidates_on_all_rows_have_the_exact_cover_counts_and_model_code(encoding, cache_bytes, monkeypatch):
    """A rule set learned on a sample, then every candidate of the next search put on all rows:
    its class counts inside and outside M are those of the rows its literals select, and L(S)
    is turs.mdl.rule_model_bits on the real-valued data (K_value counted on all rows, which the
    sample may not reach). The prefixes' covers and K_values the fit's confirmations left in
    the store's cache are read too; with 4,000 bytes the cache starts again empty every few
    prefix bitmaps (376 bytes at 3,000 rows) and keeps no feature's bitmaps (8 KB), which are
    then made again for each literal."""
    if cache_bytes is not None:
        monkeypatch.setattr(_config, "PREFIX_CACHE_BYTES", cache_bytes)
    X, y = _noisy(3000)
    enc, Xe, data = _search_data(X, y, encoding)
    sampler = sampled.SampledSearch(data, size=600, max_size=600)
    state, _ = learn_rule_set(data, SearchSettings(search="turs2"), max_rules=4, sampler=sampler)
    assert state.K == 4
    uncovered = sampler.store.group_ids < 0
    covers = np.zeros((data.n, state.K), bool)
    for k, r in enumerate(_with_rows(state.rules, data)):
        covers[r.rows, k] = True
    assert np.array_equal(uncovered, ~covers.any(axis=1))  # the store's groups are M's
    _, pool = search_rule(sampler.on_sample(state), SearchSettings(search="turs2"))
    cuts = [c.cuts for c in enc.columns_]
    checked = 0
    for c in pool:
        full = sampler.on_full(c, state)
        if full is None:
            continue
        mask = np.ones(data.n, bool)
        for j, a, b in c.literals:
            mask &= (data.bins[j] >= a) & (data.bins[j] < b)
        assert full.coverage == mask.sum()
        assert np.array_equal(full.counts, np.bincount(y[mask], minlength=2))
        assert np.array_equal(full.counts_uncovered, np.bincount(y[mask & uncovered], minlength=2))
        lits = [(j, cuts[j][a - 1] if a > 0 else None, cuts[j][b - 1] if b < data.n_bins[j] else None)
                for j, a, b in c.literals]
        assert full.model_bits == pytest.approx(rule_model_bits(lits, Xe, cuts, enc.binary_, 1, encoding)[0],
                                                abs=1e-9)
        checked += 1
    assert checked >= 10
    if cache_bytes is None:
        assert len(sampler.store._cache) > 10  # kept over the fit's searches
    else:
        assert sampler.store._cache_bytes <= cache_bytes


def test_sampled_rule_set_and_score_are_exact_on_all_rows():
    """The state a sampled fit ends with is M on all rows: its score equals a fresh exact
    RuleSetState of the same rules, its groups (the store's row groups) are that state's,
    every rule decreased the exact score when it was added, and the sample state sees the same
    rules on the sample's rows."""
    X, y = _noisy(3000, seed=1)
    _, _, data = _search_data(X, y)
    sampler = sampled.SampledSearch(data, size=400, max_size=800)
    state, searches = learn_rule_set(data, SearchSettings(search="turs2"), sampler=sampler, trace="compact")
    assert state.K >= 3
    rules = _with_rows(state.rules, data)
    fresh = RuleSetState(data, rules)
    assert state.total == pytest.approx(fresh.total, abs=1e-9)
    sizes = [s["sample_rows"] for s in searches]
    assert sizes == sorted(sizes) and set(sizes) <= {400, 800} and sizes[-1] == 800  # grown before the end
    accepted = [s for s in searches if s["accepted"]]
    assert all(s["mdl_after"] < s["mdl_before"] for s in accepted)
    on = sampler.on_sample(state)
    for r_full, r_on in zip(rules, on.rules):
        assert np.array_equal(sampler.rows[r_on.rows], np.intersect1d(r_full.rows, sampler.rows))
    _same_groups(sampler.store.group_ids, state, fresh)


def _same_groups(group_of, state, fresh):
    """The same overlap groups (numbered apart), with the same rules, counts and union counts."""
    assert group_of.dtype == np.int32
    assert np.array_equal(group_of < 0, fresh.group_of < 0)
    pairs = np.unique(np.c_[group_of, fresh.group_of][group_of >= 0], axis=0)
    assert len(pairs) == len(state.group_masks) == len(fresh.group_masks)  # one to one
    a, b = pairs[:, 0], pairs[:, 1]
    assert np.array_equal(state.group_masks[a], fresh.group_masks[b])
    assert np.array_equal(state.group_counts[a], fresh.group_counts[b])
    assert np.array_equal(state.union_counts[a], fresh.union_counts[b])
    assert np.array_equal(state.else_counts, fresh.else_counts)


def _auc(model, X, y):
    return roc_auc_score(y, model.predict_proba(X)[:, 1])


def test_the_switch_exact_and_the_row_threshold(monkeypatch):
    X, y = _noisy(1500, seed=2)
    base = TURSClassifier(beam_width=5, record_trace="compact").fit(X, y)
    assert all("sample_rows" not in s for s in base.trace_.searches)  # 1,500 rows: below the threshold
    monkeypatch.setattr(_config, "SAMPLED_MIN_ROWS", 1000)
    monkeypatch.setattr(_config, "SEARCH_SAMPLE_ROWS", 500)
    monkeypatch.setattr(_config, "SEARCH_SAMPLE_MAX", 500)
    exact = TURSClassifier(beam_width=5, exact=True, record_trace="compact").fit(X, y)
    assert exact.mdl_score_ == base.mdl_score_ and [str(r) for r in exact.rules_] == [str(r) for r in base.rules_]
    approx = TURSClassifier(beam_width=5, record_trace="compact").fit(X, y)
    assert all(s["sample_rows"] == 500 for s in approx.trace_.searches)
    with pytest.raises(ValueError, match="'exact' parameter"):
        TURSClassifier(exact="yes").fit(X, y)


def _groups_of_first_rules(model, k):
    """Overlap groups (distinct non-empty cover patterns) of the model's first ``k`` rules on its
    training rows: those of ``M`` before rule search ``k``."""
    covers = np.unpackbits(model._train_covers_, axis=0, count=model._n_train_).astype(bool)[:, :k]
    return len(overlap_groups(covers)[1])


@pytest.mark.slow
def test_a_costly_fit_switches_to_the_sample_before_the_search_where_rows_times_groups_reach_the_bound(
        monkeypatch):
    """Between ``SAMPLE_WHEN_MIN_ROWS`` and ``SAMPLED_MIN_ROWS`` training rows, the fit is exact
    until rows x overlap groups of ``M`` reach ``SAMPLE_WHEN_ROWS_X_GROUPS`` and samples from
    that rule search on: the rules before it are the exact fit's, step for step; ``exact=True``
    and fewer rows never switch (bounds lowered, so that the test stays small)."""
    X, y = _noisy(1500, seed=2)
    n = 1500
    exact = TURSClassifier(beam_width=5, exact=True, record_trace="compact").fit(X, y)
    assert exact.sampled_from_rule_ is None
    groups = [_groups_of_first_rules(exact, k) for k in range(len(exact.rules_) + 1)]
    switch_at = 4  # the first search whose M has at least the groups of exact's first 4 rules
    bound = groups[switch_at] * n
    assert groups[switch_at - 1] < groups[switch_at]  # the bound falls between two searches
    monkeypatch.setattr(_config, "SAMPLE_WHEN_MIN_ROWS", 1000)
    monkeypatch.setattr(_config, "SAMPLE_WHEN_ROWS_X_GROUPS", bound)
    monkeypatch.setattr(_config, "SEARCH_SAMPLE_ROWS", 500)
    monkeypatch.setattr(_config, "SEARCH_SAMPLE_MAX", 500)
    approx = TURSClassifier(beam_width=5, record_trace="compact").fit(X, y)
    assert approx.sampled_from_rule_ == switch_at
    searches = approx.trace_.searches
    assert all("sample_rows" not in s for s in searches[:switch_at])
    assert all(s["sample_rows"] == 500 for s in searches[switch_at:]) and len(searches) > switch_at
    assert [str(r) for r in approx.rules_[:switch_at]] == [str(r) for r in exact.rules_[:switch_at]]
    before = [s["mdl_before"] for s in exact.trace_.searches[:switch_at + 1]]
    assert [s["mdl_before"] for s in searches[:switch_at + 1]] == pytest.approx(before, rel=1e-12)
    # rows x groups counts M on all rows: the switch does not depend on the sample
    assert _groups_of_first_rules(approx, switch_at) * n >= bound > _groups_of_first_rules(approx, switch_at - 1) * n
    assert TURSClassifier(beam_width=5, exact=True).fit(X, y).sampled_from_rule_ is None
    monkeypatch.setattr(_config, "SAMPLE_WHEN_MIN_ROWS", 1501)  # fewer rows than that: never
    assert TURSClassifier(beam_width=5).fit(X, y).sampled_from_rule_ is None


@pytest.mark.parametrize("name", [pytest.param("aloi", marks=pytest.mark.slow), "smtp"])
def test_the_study_datasets_with_over_20000_training_rows_never_sample(turs_data_dir, name):
    """The two datasets of the study with more than ``SAMPLE_WHEN_MIN_ROWS`` training rows (the
    others have fewer, so they cannot switch) fit exactly in all five folds, and their rule
    sets' rows x overlap groups, the largest of each fit, stay under half the bound."""
    from sklearn.model_selection import StratifiedKFold

    from turs.datasets import load

    X, y = load(name)
    y = np.asarray(y)
    for tr, _ in StratifiedKFold(5, shuffle=True, random_state=2).split(X, y):
        assert len(tr) >= _config.SAMPLE_WHEN_MIN_ROWS
        model = TURSClassifier().fit(X.iloc[tr], y[tr])
        assert model.sampled_from_rule_ is None
        largest = len(tr) * _groups_of_first_rules(model, len(model.rules_))  # groups never merge
        assert largest < _config.SAMPLE_WHEN_ROWS_X_GROUPS / 2


@pytest.mark.skipif(os.environ.get("TURS_RUN_QUALITY") != "1",
                    reason="some minutes: CI runs it (.ci/run sets TURS_RUN_QUALITY=1), make test does not")
@pytest.mark.timeout(3600)  # eight fits of 20,000 rows: minutes on a quiet machine, more when shared
@pytest.mark.parametrize("random_state", [0, 1])
def test_sampled_search_quality_against_the_exact_search(monkeypatch, random_state):
    """The sampled search's quality against the exact search on the scaling benchmark's noisy
    generator, 20,000 training rows (fold 0), default settings, with the default sample sizes
    (10,000 rows, growing to 20,000 when a search finds nothing): the default fit, which
    switches to the sample once rows x groups reach the bound (``sample_when_costly``), and a
    fit that samples from its first search (the row threshold lowered) for the sample seeds 0
    to 3 (``SEARCH_SAMPLE_SEED``).

    What it states: each draw's test AUC within 0.01 and training MDL within 1% of the exact
    search's, and the mean test AUC over the four seeds within 0.003 of it. One draw of 10,000
    of 20,000 rows spreads by about 0.004 in AUC (``docs/performance.md``, "The sample's rows,
    and a table in partitions": one of 16 draws 0.0054 below, the means above), so a bound of
    0.005 on one draw tests the draw, and the mean over seeds tests the method."""
    X, y = make_classification(n_samples=25000, n_features=20, n_informative=8, n_redundant=4, flip_y=0.05,
                               class_sep=0.8, random_state=random_state)
    tr, te = next(StratifiedKFold(5, shuffle=True, random_state=2).split(X, y))
    exact = TURSClassifier(exact=True).fit(X[tr], y[tr])
    assert exact.sampled_from_rule_ is None
    exact_auc = _auc(exact, X[te], y[te])
    switched = TURSClassifier().fit(X[tr], y[tr])
    assert 0 < switched.sampled_from_rule_ < len(switched.rules_)
    monkeypatch.setattr(_config, "SAMPLED_MIN_ROWS", 15000)
    aucs = []
    for seed in range(4):
        monkeypatch.setattr(_config, "SEARCH_SAMPLE_SEED", seed)
        from_start = TURSClassifier().fit(X[tr], y[tr])
        assert from_start.sampled_from_rule_ == 0
        aucs.append(_auc(from_start, X[te], y[te]))
        assert aucs[-1] >= exact_auc - 0.01
        assert from_start.mdl_score_ <= 1.01 * exact.mdl_score_
    assert np.mean(aucs) >= exact_auc - 0.003
    assert _auc(switched, X[te], y[te]) >= exact_auc - 0.01
    assert switched.mdl_score_ <= 1.01 * exact.mdl_score_


def test_total_with_a_candidate_equals_building_the_rule_set():
    """``FullState.total_with`` (the MDL score of M + c from the store's counts of c alone) and
    ``FullState.with_rule`` (M + c from M and those counts, the store's rows moved by the
    arrays it returns) equal the rule set built from scratch (score, groups, counts, union
    counts), for every candidate of a search, with M overlapping; a rule covering whole groups
    removes them."""
    from turs.search.row_store import LocalRows

    X, y = _noisy(2500, seed=3)
    _, _, data = _search_data(X, y)
    sampler = sampled.SampledSearch(data, size=500, max_size=500)
    state, _ = learn_rule_set(data, SearchSettings(search="turs2"), max_rules=6, sampler=sampler)
    assert len(state.group_masks) > state.K  # rules overlap
    _, pool = search_rule(sampler.on_sample(state), SearchSettings(search="turs2"))
    rules = _with_rows(state.rules, data)
    checked = 0
    for c in pool:
        full = sampler.on_full(c, state)
        if full is not None:
            (counts,) = sampler.store.candidate_counts([c.literals], state.n_groups)
            built = RuleSetState(data, rules + _with_rows([full], data))
            assert state.total_with(counts, full.model_bits) == pytest.approx(built.total, rel=1e-12, abs=1e-9)
            grown, new_group, renumber = state.with_rule(full, counts)
            assert grown.total == pytest.approx(built.total, rel=1e-12, abs=1e-9)
            store = LocalRows(data.bins, data.y, data.n_bins, data.binary, 2)
            store.group_ids[:] = sampler.store.group_ids
            store.add_rule(c.literals, new_group, renumber)
            _same_groups(store.group_ids, grown, built)
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("given", [None, "x0 >= 0.1234"])
def test_the_fitted_counts_and_breakdown_of_a_sampled_fit_are_those_of_its_rules(monkeypatch, given):
    """A fit that samples (thresholds lowered) takes its class counts per cover pattern and its
    MDL breakdown from the search's state of M on all rows, not from the rows: they equal
    those made from the rows' covers (``turs.row_passes.fitted_counts``), the breakdown to
    within float sums, and the kept training covers are the rules' covers. A given rule whose
    threshold is no cut point is placed by its rows."""
    from turs.row_passes import fitted_counts

    monkeypatch.setattr(_config, "SAMPLED_MIN_ROWS", 1000)
    monkeypatch.setattr(_config, "SEARCH_SAMPLE_ROWS", 500)
    monkeypatch.setattr(_config, "SEARCH_SAMPLE_MAX", 500)
    X, y = _noisy(2500, seed=4)
    model = TURSClassifier(beam_width=5).fit(X, y, initial_rules=given)
    assert model.sampled_from_rule_ == (0 if given is None else 1) and len(model.rules_) >= 3
    if given is not None:
        assert model._literals_[0] == [(0, 0.1234, None)]
    enc = model.encoder_
    Xe = model._train_rows_
    patterns, counts, packed, breakdown = fitted_counts(model._literals_, Xe, y.astype(np.int64), 2,
                                                        [c.cuts for c in enc.columns_], enc.binary_, "turs2")
    assert np.array_equal(model._patterns_, patterns) and np.array_equal(model._pattern_counts_, counts)
    assert np.array_equal(model._train_covers_, packed)
    assert model.mdl_score_ == pytest.approx(breakdown.total, rel=1e-12)
    assert model.mdl_breakdown_.data_bits == breakdown.data_bits  # the state's union counts, summed in order
    assert model.mdl_breakdown_.n_overlap_groups == breakdown.n_overlap_groups
    assert model.mdl_breakdown_.rule_model_bits == pytest.approx(breakdown.rule_model_bits, abs=1e-9)
    assert model.mdl_breakdown_.rule_regret_bits == breakdown.rule_regret_bits
    assert model.mdl_score_ == pytest.approx(model._search_total_, rel=1e-12)


def _identical_states(a, b):
    """Every array and number of two rule-set states, to the bit (the same group numbering)."""
    names = ["group_of", "group_masks", "group_counts", "union_counts", "group_rule_ptr", "group_rule_idx",
             "sub_ptr", "sub_idx", "sub_sign", "nbr_ptr", "nbr_idx", "nbr_w", "uncovered", "else_counts"]
    for name in names:
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert x.dtype == y.dtype and np.array_equal(x, y), name
    for name in ["union_mode", "n_sub", "else_n", "nll_covered", "nll_else", "regret_rules", "model_rules", "K",
                 "total", "model_next"]:
        assert getattr(a, name) == getattr(b, name), name


@pytest.mark.parametrize("pair_lists", [True, False])
def test_extending_a_rule_set_state_equals_building_it(pair_lists, monkeypatch):
    """``RuleSetState.extended`` (M + a rule, its overlap groups from M's) gives every array and
    score that building ``M + rule`` from its rules gives, to the bit, rule after rule of a fit,
    for every union-count path of the growth kernel (pair and subset lists, bit sets)."""

    X, y = _noisy(1500, seed=5)
    _, _, data = _search_data(X, y)
    fitted, _ = learn_rule_set(data, SearchSettings(search="turs2"), max_rules=9)
    assert len(fitted.group_masks) > fitted.K  # the rules overlap
    for bits_from in (0, 10**9):
        monkeypatch.setattr(_config, "BITS_MIN_GROUPS", bits_from)
        for mode in ("auto", "rules", "neighbours", "subsets"):
            monkeypatch.setattr(_config, "UNION_COUNTS", mode)
            state = RuleSetState(data, [], pair_lists)
            for k, rule in enumerate(fitted.rules):
                state = state.extended(rule)
                _identical_states(state, RuleSetState(data, fitted.rules[:k + 1], pair_lists))


def test_the_sample_rule_set_extended_by_a_rule_equals_building_it():
    """``SampledSearch.on_sample`` extends the sample's state of the last rule set by the new
    rule; it is the state built from the rules mapped onto the sample, to the bit."""
    X, y = _noisy(2500, seed=3)
    _, _, data = _search_data(X, y)
    sampler = sampled.SampledSearch(data, size=500, max_size=500)
    state = sampler.full_state([])
    on = sampler.on_sample(state)
    for _ in range(6):
        _, pool = search_rule(on, SearchSettings(search="turs2"))
        _, state = sampler.confirm(state, pool, POLICIES["turs2"])
        assert state is not None
        on = sampler.on_sample(state)
        mapped = [sampler._on_sample_rules[id(r)][1] for r in state.rules]
        _identical_states(on, RuleSetState(sampler.data, mapped))
    assert state.K == 6


@pytest.mark.parametrize("K", [0, 1, 3, 9, 17])
def test_the_state_patterns_come_in_the_order_of_the_rows_pattern_counts(K):
    """``FullState.pattern_counts`` orders the groups' masks (and the empty pattern) as
    ``turs.union_estimate.pattern_counts`` orders the rows' patterns: by the number of rules,
    then the rule indices (a sort of Python lists here, one sort of packed bytes there)."""
    from turs.search.full_state import FullState

    rng = np.random.default_rng(K)
    masks = np.unique(rng.random((200, K)) < 0.3, axis=0)
    masks = masks[masks.any(axis=1)] if K else masks[:0]
    state = object.__new__(FullState)
    state.K, state.n_classes, state.group_masks = K, 2, masks
    state.group_counts = rng.integers(1, 5, (len(masks), 2)).astype(float)
    state.union_counts = 2 * state.group_counts
    state.else_counts, state.else_n = np.array([3, 4]), 7
    patterns, counts, unions = state.pattern_counts()
    pats = list(masks) + [np.zeros(K, bool)]
    cnts = list(state.group_counts.astype(np.int64)) + [np.array([3, 4])]
    want = sorted(range(len(pats)), key=lambda i: (int(pats[i].sum()), np.flatnonzero(pats[i]).tolist()))
    assert np.array_equal(patterns, np.array([pats[i] for i in want]).reshape(len(want), K))
    assert np.array_equal(counts, np.array([cnts[i] for i in want]))
    assert np.array_equal(unions[1:], 2 * counts[1:]) and not unions[0].any()  # the empty pattern first
