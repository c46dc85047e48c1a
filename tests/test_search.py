"""The search: its incremental scores equal the public MDL score; ground truth on simulated data."""
from pathlib import Path

import threading

import numpy as np
import pandas as pd
import pytest

from turs import TURSClassifier, _config
from turs.datasets import make_local_testing_data, make_overlap_blockade_data
from turs.mdl import score_literals


def _public_score(model, X, y, literals_bins):
    enc = model.encoder_
    Xe = enc.transform(X if isinstance(X, pd.DataFrame) else pd.DataFrame(X, columns=enc.input_columns_))
    yc = np.searchsorted(model.classes_, y)
    lits = [[enc.thresholds(j, a, b) for j, a, b in r] for r in literals_bins]
    return score_literals(lits, Xe, yc, len(model.classes_), [c.cuts for c in enc.columns_], enc.binary_,
                          model.model_encoding).total


def _car_like():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({f"c{j}": pd.Categorical(rng.choice(list("abc"), 600)) for j in range(5)})
    y = ((X["c0"] == "a") & (X["c1"] != "b")) | (X["c2"] == "c")
    flip = rng.random(600) < 0.1
    return X, np.where(flip, ~y, y).astype(int)


def _wine():
    from sklearn.datasets import load_wine
    return load_wine(return_X_y=True, as_frame=True)


@pytest.mark.parametrize("make, model_encoding, search", [
    ("blockade", "thesis", "thesis"), ("wine", "thesis", "thesis"), ("wine", "turs2", "thesis"),
    ("car", "turs2", "thesis"), ("blockade", "turs2", "turs2"), ("wine", "turs2", "turs2"), ("car", "turs2", "turs2")])
def test_every_candidate_score_equals_the_public_score(make, model_encoding, search):
    """For each candidate in the trace, L(D, M + S) from the kernels == mdl_score(M + S)."""
    if make == "blockade":  # seed 7: three rules, 59 rows covered by two of them
        X, y = make_overlap_blockade_data(n=600, seed=3)
    elif make == "car":  # one-hot columns only: binary literals
        X, y = _car_like()
    else:
        X, y = _wine()
    model = TURSClassifier(record_trace=True, beam_width=5, model_encoding=model_encoding, search=search).fit(X, y)
    assert len(model.rules_) >= 2
    rng = np.random.default_rng(0)
    checked = 0
    accepted = []
    for search in model.trace_.searches:
        for it in search["iterations"]:
            beam = it["main_beam"] + it["aux_beam"]
            for c in rng.permutation(len(beam))[:3]:
                cand = beam[c]
                want = _public_score(model, X, np.asarray(y), accepted + [cand["literals"]])
                assert cand["mdl_after"] == pytest.approx(want, rel=1e-9, abs=1e-7)
                checked += 1
        if search["accepted"]:
            accepted.append(search["chosen"]["literals"])
            assert search["mdl_after"] == pytest.approx(_public_score(model, X, np.asarray(y), accepted), rel=1e-9)
    assert checked > 20
    assert model.mdl_score_ == pytest.approx(model._search_total_, rel=1e-12)


@pytest.mark.parametrize("seed", [3, 7])
def test_every_union_count_path_gives_the_same_search(monkeypatch, seed):
    """The kernel counts a candidate inside each group's union by single rules corrected by
    pairs (default), by the groups sharing a rule, or by inclusion-exclusion; every path, and
    groups too large for subsets, gives the same search."""

    X, y = make_overlap_blockade_data(n=800, seed=seed)
    fits = {}
    # (path, largest group enumerated): 0 makes every group too large for subsets
    for path, max_rules in (("rules", 12), ("neighbours", 12), ("bits", 12), ("auto", 12), ("subsets", 12),
                            ("subsets", 0)):
        monkeypatch.setattr(_config, "UNION_COUNTS", path)
        monkeypatch.setattr(_config, "MAX_RULES_FOR_SUBSETS", max_rules)
        fits[path, max_rules] = TURSClassifier(beam_width=5).fit(X, y)
    a = fits["rules", 12]
    assert len(a.rules_) >= 2
    for b in fits.values():
        assert [str(r) for r in a.rules_] == [str(r) for r in b.rules_]
        assert a.mdl_score_ == pytest.approx(b.mdl_score_, rel=1e-12)


def test_auto_union_counts_switch_to_bit_sets_with_many_groups(monkeypatch):
    import turs.search.state as search

    monkeypatch.setattr(_config, "UNION_COUNTS", "auto")
    G = _config.BITS_MIN_GROUPS
    assert (search.union_count_mode(G - 1), search.union_count_mode(G)) == ("neighbours", "bits")
    monkeypatch.setattr(_config, "BITS_MIN_GROUPS", 10 ** 9)
    G = _config.RULES_MIN_GROUPS
    assert (search.union_count_mode(G - 1), search.union_count_mode(G)) == ("neighbours", "rules")
    monkeypatch.setattr(_config, "UNION_COUNTS", "subsets")
    assert search.union_count_mode(10 * G) == "subsets"


@pytest.mark.parametrize("mode", ["rules", "neighbours"])
def test_local_pair_lists_are_the_restricted_global_ones(monkeypatch, mode):
    """Pairs of present groups, with weight 1 for every shared rule (``"neighbours"``) or
    ``-(s - 1)`` for ``s >= 2`` shared rules (``"rules"``)."""
    from turs.search import RuleSetState, SearchData, SearchSettings, learn_rule_set, local_neighbours

    monkeypatch.setattr(_config, "UNION_COUNTS", mode)
    X, y = make_overlap_blockade_data(n=600, seed=3)
    model = TURSClassifier(beam_width=5).fit(X, y)
    enc = model.encoder_
    data = SearchData(enc.bins(enc.transform(X)), np.searchsorted(model.classes_, y).astype(np.int64),
                      enc.n_bins_, enc.binary_, len(model.classes_))
    state, _ = learn_rule_set(data, SearchSettings(5, True, True, True, "learning_speed", 5))
    st = RuleSetState(data, state.rules)
    G = len(st.group_masks)
    assert G >= 2
    m = st.group_masks.astype(int)
    shared = m @ m.T
    present = np.arange(G)[1:]  # all but the first group
    ptr, idx, w = local_neighbours(st, present)
    for i, J in enumerate(present):
        got = sorted(zip(idx[ptr[i]:ptr[i + 1]].tolist(), w[ptr[i]:ptr[i + 1]].tolist()))
        if mode == "neighbours":
            want = [(k, 1.0) for k, g in enumerate(present) if shared[J, g] > 0]
        else:
            want = [(k, float(1 - shared[J, g])) for k, g in enumerate(present) if shared[J, g] >= 2]
        assert got == want
    if mode == "rules":
        assert (w < 0).any()  # some present group lies in two rules or more


def test_search_is_deterministic():
    X, y = _wine()
    a = TURSClassifier().fit(X, y)
    b = TURSClassifier().fit(X, y)
    assert [str(r) for r in a.rules_] == [str(r) for r in b.rules_]
    assert a.mdl_score_ == b.mdl_score_


@pytest.mark.slow
def test_local_testing_study_recovers_the_single_true_rule():
    """Thesis Section 3.6.7 / Table 3.6: with the local test, one rule with one literal on X1
    on at least 9 of 10 seeds and an MDL score within 2% of 2050.1 bits on average; without
    it, more rules and a larger score (thesis: 12.5 rules, 2191.2 bits)."""
    found, mdl_lt, mdl_no, rules_no = 0, [], [], []
    for seed in range(10):
        X, y = make_local_testing_data(n=5000, seed=seed)
        m = TURSClassifier().fit(X, y)
        mdl_lt.append(m.mdl_score_)
        if len(m.rules_) == 1 and len(m.rules_[0]) == 1 and m.rules_[0].conditions[0].column == "X1":
            found += 1
        if seed < 4:
            m0 = TURSClassifier(use_local_test=False).fit(X, y)
            mdl_no.append(m0.mdl_score_ - m.mdl_score_)
            rules_no.append(len(m0.rules_))
    assert found >= 9
    assert np.mean(mdl_lt) == pytest.approx(2050.1, rel=0.02)
    assert min(rules_no) > 1
    assert min(mdl_no) > 0


@pytest.mark.parametrize("kw", [dict(use_patience=False), dict(use_auxiliary_beam=False),
                                dict(score="absolute"), dict(use_local_test=False), dict(max_rules=1)])
def test_switches_run_and_give_valid_models(kw):
    X, y = make_overlap_blockade_data(n=500, seed=2)
    m = TURSClassifier(**kw).fit(X, y)
    p = m.predict_proba(X)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert m.mdl_score_ == pytest.approx(m._search_total_, rel=1e-12)
    if "max_rules" in kw:
        assert len(m.rules_) <= 1


def test_candidate_cuts_near_the_largest_float_are_finite_midpoints():
    """Neighbours whose sum overflows (about 1.8e308) still get their mid-point, with no
    overflow warning; an ordinary column keeps the bits of ``(a + b) / 2``."""
    import warnings

    from turs.encoding import candidate_cuts

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(candidate_cuts(np.array([-1.7e308, 0.0, 1.7e308]), 20), [-8.5e307, 8.5e307])
        np.testing.assert_allclose(candidate_cuts(np.array([1.6e308, 1.7e308]), 20), [1.65e308], rtol=1e-15)
    x = np.random.default_rng(0).normal(size=500)
    s = np.sort(x)
    pos = np.linspace(0, len(x) - 2, 22).astype(np.int64)[1:-1]
    np.testing.assert_array_equal(candidate_cuts(x, 20), (s[pos] + s[pos + 1]) / 2.0)


def test_candidate_cuts_are_quantile_midpoints_with_repeats_kept():
    """Hand-computed cuts of the reference's scheme (module docstring of turs.encoding)."""
    from turs.encoding import candidate_cuts

    # 22 distinct values -> 21 mid-points 0.5..20.5; 20 cuts at int(i * 20 / 21), i = 1..20,
    # i.e. positions 0..19: the last mid-point is dropped. Row order does not matter.
    x = np.arange(22.0)[::-1]
    np.testing.assert_array_equal(candidate_cuts(x, 20), np.arange(20) + 0.5)
    # Ties: 6 rows at 1.0, then 2.0 and 3.0. Seven row mid-points (1+ five times, 1.5, 2.5);
    # 2 cuts (3 distinct values) at positions int(linspace(0, 6, 4))[1:-1] = 2, 4: both fall in
    # the run of 1.0, so both are "just above 1" and the split between 2 and 3 is not offered.
    cuts = candidate_cuts(np.array([2.0, 1, 1, 1, 3, 1, 1, 1]), 20)
    assert cuts.tolist() == [np.nextafter(1.0, np.inf)] * 2
    assert (np.array([1.0]) < cuts[0]).all() and not (np.array([1.0 + 1e-9]) < cuts[0]).any()
    np.testing.assert_array_equal(candidate_cuts(np.array([3.0, 1.0, 2.0]), 20), [1.5, 2.5])
    np.testing.assert_array_equal(candidate_cuts(np.array([5.0, 5.0, 7.0]), 20), [6.0])
    assert candidate_cuts(np.ones(5), 20).size == 0


def test_a_cut_just_above_a_value_prints_as_less_or_equal():
    from turs.rules import Condition

    above_3 = np.nextafter(3.0, np.inf)
    assert str(Condition("x", high=above_3)) == "x <= 3"
    assert str(Condition("x", low=above_3)) == "x > 3"
    assert str(Condition("x", low=1.25, high=above_3)) == "1.25 <= x <= 3"
    assert str(Condition("x", low=above_3, high=5.5)) == "3 < x < 5.5"
    assert str(Condition("x", low=2.5)) == "x >= 2.5"
    assert str(Condition("x", high=np.nextafter(0.0, np.inf))) == "x <= 0"
    assert str(Condition("x", high=np.nextafter(1.6, np.inf))) == "x <= 1.6"
    assert str(Condition("x", high=(1.6 + 1.7) / 2)) == "x < 1.65"
    assert Condition("x", high=above_3).mask(np.array([3.0, 3.1])).tolist() == [True, False]


def _reference_fold(name, fold):
    """(X_train, y_train, the reference runs' total_cl_bits) of one fold (variant cyaux/cy5aux)."""
    from sklearn.model_selection import StratifiedKFold

    from turs.datasets import load
    from turs.reproduce import reference_runs

    anchors = Path(__file__).resolve().parents[2] / "shared" / "anchors" / "reference_turs2_runs.csv"
    if not anchors.exists():
        pytest.skip(f"no reference runs at {anchors}")
    ref = reference_runs(anchors)
    ref = ref[(ref.thesis_name == name) & (ref.fold == fold) & ref.variant.isin(["cyaux", "cy5aux"])]
    assert len(ref) == 1
    X, y = load(name)
    yv = np.asarray(y)
    tr, _ = list(StratifiedKFold(5, shuffle=True, random_state=2).split(X, yv))[fold]
    return X.iloc[tr], yv[tr], float(ref.total_cl_bits.iloc[0])


THESIS_SEARCH_EXACT_FOLDS = [("iris", 3), ("glass-2", 0), ("glass-2", 2), ("wine", 2), ("heartcleveland", 0),
                             ("diabetes", 4), ("wdbc", 0), ("ionosphere", 0), ("ionosphere", 1),
                             ("ionosphere", 2), ("ionosphere", 4), ("thyroid", 1)]


@pytest.mark.parametrize("name, fold", THESIS_SEARCH_EXACT_FOLDS)
def test_reference_runs_mdl_reproduced_exactly_where_the_models_coincide(turs_data_dir, name, fold):
    """With the reference's model code, our search finds a model with exactly the reference
    runs' total_cl_bits on these 12 folds (the cut points, the data code, the regrets and the
    model code all agree); a different cut scheme or code breaks the equality."""
    X, y, ref_bits = _reference_fold(name, fold)
    model = TURSClassifier(model_encoding="turs2", search="thesis").fit(X, y)
    assert model.mdl_score_ == pytest.approx(ref_bits, abs=1e-6)


REFERENCE_DATASETS = ("iris", "glass-2", "glass", "wine", "heartcleveland", "backnote", "diabetes", "tic-tac-toe",
                      "car", "wdbc", "ionosphere", "contracept", "vehicle", "vowels", "thyroid", "mammography",
                      "chess")
TURS2_EXACT_FOLDS = [(name, f) for name in REFERENCE_DATASETS for f in range(5)]


@pytest.mark.parametrize("name, fold", [pytest.param(name, f, marks=pytest.mark.slow if f else ())  # make check: fold 0
                                        for name, f in TURS2_EXACT_FOLDS])
def test_turs2_search_reproduces_the_reference_runs_exactly(turs_data_dir, name, fold):
    """With the reference's model code *and* its beam bookkeeping (``search="turs2"``), the fit
    ends at exactly the reference runs' total_cl_bits on all 85 folds of
    ``make reference-check``; with ``search="thesis"`` 12 folds match. Any change in the cut
    points, the local test's code, the buckets (and which of two equal covers a bucket keeps),
    the reduction order, the smallest split of ``S \\ M`` or the scores of refined literals
    breaks some of them."""
    X, y, ref_bits = _reference_fold(name, fold)
    model = TURSClassifier(model_encoding="turs2", search="turs2").fit(X, y)
    assert model.mdl_score_ == pytest.approx(ref_bits, abs=1e-6)


def test_turs2_local_test_code_and_buckets():
    """The authors' local test charges log2 K_col + log2 |cuts of X| + 2 + L(k+1) - L(k) (1 bit
    in all for a column with one cut point); its
    patience buckets are right-closed, (w/W, (w+1)/W], and a growth must leave at least 2
    instances of S minus M on each side of its cut."""
    from turs._core.codes import universal_integer_code as L
    import naive
    from turs.search import (TURS2_MIN_SPLIT, RuleSetState, SearchData, SearchSettings, empty_rule,
                             learn_single_rule, score_growths)
    from turs.search.local_test import split_code

    n_bins = np.array([21, 2, 6])  # 20 cuts, a binary column, 5 cuts
    _Data = SearchData(np.zeros((3, 4), dtype=np.uint8), np.array([0, 1, 0, 1]), n_bins,
                       n_bins == 2, 2, "turs2")
    bits, extra = split_code(_Data, 2, "turs2")
    np.testing.assert_allclose(bits, [np.log2(20) + 2, 1.0, np.log2(5) + 2])
    assert extra == pytest.approx(L(3) - L(2))
    assert split_code(_Data, 2, "thesis")[0].size == 0

    # by hand: a base of 20 instances, 10 of them uncovered
    bucket, aux_bucket, splits = naive.turs2_buckets([10, 11, 20, 1, 12, 13], [0, 5, 10, 1, 2, 9], 20, 10, 10, 2)
    np.testing.assert_array_equal(bucket, [4, 5, 9, 0, 5, 6])  # 0.5 -> (0.4, 0.5]; thesis: [0.5, 0.6)
    np.testing.assert_array_equal(aux_bucket, [0, 4, 9, 0, 1, 8])
    # each side of the cut keeps at least 2 of the base's 10 uncovered instances
    np.testing.assert_array_equal(splits, [False, True, False, False, True, False])
    # the kernel's, on real growths of the empty rule (and of the first rule, when it has any)
    rng = np.random.default_rng(4)
    bins = rng.integers(0, 6, size=(3, 300)).astype(np.uint8)
    y = ((bins[0] > 2) ^ (rng.random(300) < 0.2)).astype(np.int64)
    data = SearchData(bins, y, np.full(3, 6), np.zeros(3, dtype=bool), 2, "turs2")
    state = RuleSetState(data, [])
    first, _ = learn_single_rule(state, SearchSettings(beam_width=10, search="turs2"))
    state = RuleSetState(data, [first])
    checked = 0
    for base in (empty_rule(data, state), first):
        g = score_growths(base, state, 10, "learning_speed", "turs2")
        if g is None:
            continue
        checked += len(g.cov)
        want = naive.turs2_buckets(g.cov, g.cov_unc, base.coverage, base.coverage_uncovered, 10, TURS2_MIN_SPLIT)
        for got, w in zip((g.bucket, g.aux_bucket, g.splits_uncovered), want):
            np.testing.assert_array_equal(got, w)
    assert checked > 10


def test_turs2_reduction_keeps_generation_order_and_repeated_rules():
    """The turs2 reduction sorts the proposals as numpy's default sort does, keeps the best
    of each of W clusters, and drops a winner only when the first earlier winner of the same
    coverage has the same cover *as a mask over its base*: the reference compares those
    masks, so an equal cover from a base of another size stays, while an equal mask over
    another base's rows is dropped even though the cover differs."""
    from turs.search.diverse_patience import reduce_by_coverage_turs2

    class _Cand:
        def __init__(self, rows):
            self.rows = np.asarray(rows)
            self.coverage = len(rows)

    class _Growths:
        def __init__(self, base_rows, covers):
            self.base = type("B", (), {"rows": np.asarray(base_rows), "coverage": len(base_rows)})()
            self.covers = covers

        def materialize(self, i, data):
            return _Cand(self.covers[i])

    a = _Growths(range(50), {0: [1, 2, 3], 1: range(10)})
    b = _Growths(range(40), {0: [1, 2, 3]})  # the same cover, from a base of another size: kept
    c = _Growths(range(50, 100), {0: [51, 52, 53]})  # another cover, the same mask as a's: dropped
    e = _Growths([1, 2, 3] + list(range(60, 107)), {0: [1, 2, 3]})  # same cover, other mask: kept
    proposals = [(1.0, 3, None, a, 0), (5.0, 10, None, a, 1), (0.9, 3, None, b, 0),
                 (0.8, 3, None, c, 0), (0.7, 3, None, e, 0)]
    def build(g, i):
        return g.materialize(i, None)

    beam = reduce_by_coverage_turs2(proposals, 5, build)
    assert [list(x.rows) for x in beam] == [[1, 2, 3], [1, 2, 3], [1, 2, 3], list(range(10))]
    assert len(reduce_by_coverage_turs2(proposals, 1, build)) == 1 and reduce_by_coverage_turs2([], 3, build) == []


def test_turs2_next_bases_drop_repeated_covers_in_beam_order():
    """The authors' next bases: the auxiliary beam's candidates, then the main beam's, each kept
    unless an earlier one has the same cover; brute force (a set of the covers' bytes) on
    random beams with repeated covers and covers of one size that differ."""
    from turs.search.policies import POLICIES

    class _Cand:
        def __init__(self, rows):
            self.rows = np.asarray(rows, dtype=np.int64)

    rng = np.random.default_rng(3)
    for _ in range(200):
        covers = [np.sort(rng.choice(30, int(rng.integers(1, 6)), replace=False)) for _ in range(6)]
        beam = [_Cand(covers[int(rng.integers(6))]) for _ in range(int(rng.integers(0, 8)))]
        aux = [_Cand(covers[int(rng.integers(6))]) for _ in range(int(rng.integers(0, 8)))]
        seen, want = set(), []
        for c in aux + beam:
            if c.rows.tobytes() not in seen:
                seen.add(c.rows.tobytes())
                want.append(c)
        assert [id(c) for c in POLICIES["turs2"].next_bases(beam, aux)] == [id(c) for c in want]


def test_beam_reduction_keeps_the_best_of_each_coverage_cluster():
    """Proposals sorted by coverage, split into W equal clusters, best score of each kept;
    a rule proposed twice counts once, with its best score; no patience: the top W."""
    from turs.search.diverse_patience import reduce_by_coverage

    rng = np.random.default_rng(0)
    scores = rng.permutation(20).astype(float)
    proposals = [(scores[c], c, ("rule", c), None, c) for c in range(20)]  # coverage = c
    proposals.append((100.0, 3, ("rule", 3), None, 3))  # the same rule, better score
    got = reduce_by_coverage(proposals, 4, True)
    want = []
    for cluster in (range(0, 5), range(5, 10), range(10, 15), range(15, 20)):
        best = max(cluster, key=lambda c: 100.0 if c == 3 else scores[c])
        want.append((100.0 if best == 3 else scores[best], best))
    assert [(t[0], t[1]) for t in got] == sorted(want, reverse=True)
    top = reduce_by_coverage(proposals, 4, False)
    assert [t[0] for t in top] == [100.0, 19.0, 18.0, 17.0]
    assert len(reduce_by_coverage(proposals[:3], 4, True)) == 3


@pytest.mark.parametrize("params", [{}, {"use_patience": False}, {"use_local_test": False},
                                    {"use_auxiliary_beam": False}, {"score": "absolute"},
                                    {"local_test_fallback": True}, {"record_trace": True}])
def test_turs2_search_runs_with_every_switch(params):
    """search="turs2" combines with the ablation switches and the trace, and its rule set's
    score is the MDL score of its rules (recomputed independently by ``mdl_score``)."""
    from sklearn.datasets import load_iris

    from turs.mdl import mdl_score

    X, y = load_iris(return_X_y=True, as_frame=True)
    model = TURSClassifier(search="turs2", **params).fit(X, y)
    assert len(model.rules_) >= 1
    assert model.mdl_score_ == pytest.approx(
        mdl_score(model.rules_, X, y, encoder=model.encoder_).total, abs=1e-9)
    p = model.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    if params.get("record_trace"):
        assert model.trace_.n_searches == len(model.rules_) + 1


@pytest.mark.parametrize("search", ["turs2", "thesis"])
def test_search_from_given_rules_continues_the_same_search(search):
    """Algorithm 3 from M = {the first rule of a fit} finds the fit's other rules, in order
    (the search is deterministic and sees only M), and its trace numbers the searches from 1."""
    from turs.search import SearchData, SearchSettings, learn_rule_set

    X, y = make_overlap_blockade_data(n=600, seed=3)
    model = TURSClassifier(beam_width=5, search=search).fit(X, y)
    enc = model.encoder_
    data = SearchData(enc.bins(enc.transform(X)), np.searchsorted(model.classes_, y).astype(np.int64),
                      enc.n_bins_, enc.binary_, len(model.classes_), model.model_encoding)
    settings = SearchSettings(5, search=search)
    full, _ = learn_rule_set(data, settings)
    assert len(full.rules) >= 3
    rest, searches = learn_rule_set(data, settings, trace="compact", initial_rules=full.rules[:1])
    assert [r.key for r in rest.rules] == [r.key for r in full.rules]
    assert rest.total == full.total
    assert searches[0]["rule_index"] == 1 and searches[0]["empty_rule"]["id"] == "r1-empty"
    two, _ = learn_rule_set(data, settings, max_rules=2, initial_rules=full.rules[:1])
    assert [r.key for r in two.rules] == [r.key for r in full.rules[:2]]


def test_bases_scored_in_threads_give_the_same_search(monkeypatch):
    """The bases of an iteration scored in two threads (each on the serial kernel) give the
    search of one thread, rule for rule and to the last bit of the MDL score; a helper thread
    sees the fit's Ctrl-C at its next kernel call."""
    import turs._fit_control as fc
    import turs.search.scoring as scoring

    X, y = make_overlap_blockade_data(n=1500, seed=5)
    used = []
    run = scoring.run_for_fit

    def counting(control, func, *args):
        used.append(control)
        return run(control, func, *args)

    monkeypatch.setattr(scoring, "run_for_fit", counting)
    monkeypatch.setattr(_config, "THREADS_MIN_WORK", 0)
    monkeypatch.setattr(_config, "SCORING_THREADS", 1)
    one = TURSClassifier(beam_width=5).fit(X, y)
    assert not used
    monkeypatch.setattr(_config, "SCORING_THREADS", 2)
    pools = []

    class CountedPool(scoring.ThreadPoolExecutor):
        def __init__(self, *a, **k):
            pools.append(self)
            super().__init__(*a, **k)

    monkeypatch.setattr(scoring, "ThreadPoolExecutor", CountedPool)
    two = TURSClassifier(beam_width=5).fit(X, y)
    assert len(used) > 20 and all(c is not None for c in used)  # under the fit's control
    # one pool for the whole fit (scoring.scoring_pool), shut down when the fit ends
    assert len(pools) == 1 and pools[0]._shutdown
    assert not any(t.name.startswith("turs-score") and t.is_alive() for t in threading.enumerate())
    assert len(one.rules_) >= 2
    assert [str(r) for r in one.rules_] == [str(r) for r in two.rules_]
    assert one.mdl_score_ == two.mdl_score_

    control = fc.FitControl()
    control.interrupted = True
    with pytest.raises(KeyboardInterrupt):
        fc.run_for_fit(control, fc.checkpoint)
    assert fc.run_for_fit(None, lambda: 7) == 7
    assert fc.active() is None  # the helper's view of the control does not leak


def test_kernel_calls_shared_below_the_threads_bound_give_the_same_search(monkeypatch):
    """Below ``THREADS_MIN_WORK``, the bases' kernel calls alone go to the scoring threads
    (``_score_split``): the search of one thread, rule for rule and to the last bit of the MDL
    score, with both threads running kernel calls under the fit's control."""
    import turs._fit_control as fc
    import turs.search.scoring as scoring
    import turs.search.growths as gr

    X, y = make_overlap_blockade_data(n=1500, seed=5)
    monkeypatch.setattr(_config, "SCORING_THREADS", 1)
    one = TURSClassifier(beam_width=5).fit(X, y)
    monkeypatch.setattr(_config, "SCORING_THREADS", 2)
    monkeypatch.setattr(_config, "THREADS_MIN_WORK", 10**18)  # never whole bases in threads
    monkeypatch.setattr(_config, "SPLIT_MIN_WORK", 0)
    splits, runs = [], []
    split, run = scoring._score_split, gr.GrowthCall.run

    def counting_split(pool, bases, args):
        splits.append(len(bases))
        return split(pool, bases, args)

    def counting_run(self):
        runs.append((threading.current_thread().name, self.one_call, fc.active() is not None))
        return run(self)

    monkeypatch.setattr(scoring, "_score_split", counting_split)
    monkeypatch.setattr(gr.GrowthCall, "run", counting_run)
    two = TURSClassifier(beam_width=5).fit(X, y)
    assert len(splits) > 10 and min(splits) >= 2
    helper = [r for r in runs if r[0].startswith("turs-score")]
    assert helper and all(one_call and under_fit for _, one_call, under_fit in helper)
    assert len(one.rules_) >= 2
    assert [str(r) for r in one.rules_] == [str(r) for r in two.rules_]
    assert one.mdl_score_ == two.mdl_score_


@pytest.mark.parametrize("search", ["turs2", "thesis"])
def test_kernel_calls_shared_give_each_base_its_own_proposals_in_order(search):
    """``_score_split`` returns, base by base and in the bases' order, the growths and proposals
    that ``base_proposals`` gives each base alone: bases of 1 and 2 literals, of different
    sizes, with a rule set that covers some of their rows."""
    import turs.search.scoring as scoring
    from turs.search import POLICIES, SearchData, SearchSettings, learn_rule_set
    from turs.search.growths import empty_rule, score_growths

    X, y = make_overlap_blockade_data(n=1500, seed=6)
    model = TURSClassifier(beam_width=5).fit(X, y)
    enc = model.encoder_
    data = SearchData(enc.bins(enc.transform(X)), np.searchsorted(model.classes_, y).astype(np.int64),
                      enc.n_bins_, enc.binary_, len(model.classes_), model_encoding="turs2")
    settings = SearchSettings(5, search=search)
    state = learn_rule_set(data, settings, max_rules=3)[0]
    first = score_growths(empty_rule(data, state), state, 5, "learning_speed", search)
    order = np.argsort(-np.where(np.isfinite(first.r), first.r, -np.inf), kind="stable")
    bases = [first.materialize(int(i), data) for i in order[:6]]
    second = score_growths(bases[0], state, 5, "learning_speed", search)
    other = np.flatnonzero(second.feat != bases[0].literals[0][0])  # a new literal, not a refinement
    bases += [second.materialize(int(other[0]), data)]
    assert len({b.coverage for b in bases}) >= 4 and {len(b.literals) for b in bases} == {1, 2}
    args = (state, settings, POLICIES[search], True, None, None, True)
    want = [scoring.base_proposals(b, *args) for b in bases]
    with scoring.ThreadPoolExecutor(1, thread_name_prefix="turs-score") as pool:
        got = scoring._score_split(pool, bases, args)
    assert len(got) == len(want) and sum(w is not None for w in want) >= 5
    for w, o, base in zip(want, got, bases):
        assert (w is None) == (o is None)
        if w is None:
            continue
        assert o[0].base is base
        for name in ("feat", "lo", "hi", "counts", "r", "R", "bucket", "aux_bucket", "local_test"):
            assert np.array_equal(getattr(o[0], name), getattr(w[0], name)), name
        for side in (1, 2):  # main and auxiliary proposals: (score, coverage, key, growths, index)
            assert [(p[0], p[1], p[2], p[4]) for p in o[side]] == [(p[0], p[1], p[2], p[4]) for p in w[side]]


def test_scoring_threads_take_the_largest_bases_first_and_return_them_in_order(monkeypatch):
    """Without ``SHARED_QUEUE``, ``_score_in`` submits an iteration's bases largest cover first
    (``LARGEST_FIRST``) and returns their proposals in the order of the bases."""
    from concurrent.futures import Future
    from types import SimpleNamespace

    import turs.search.scoring as scoring

    submitted = []

    class RecordingPool:
        def submit(self, fn, control, func, base, *args):
            submitted.append(base.coverage)
            done = Future()
            done.set_result(("proposals of", base.coverage))
            return done

    bases = [SimpleNamespace(coverage=c) for c in (40, 900, 7, 300, 900, 55)]
    monkeypatch.setattr(scoring, "base_proposals", None)  # the pool above never calls it
    monkeypatch.setattr(_config, "SHARED_QUEUE", False)  # one pool task per base
    out = scoring._score_in(RecordingPool(), bases, ())
    assert submitted == [900, 900, 300, 55, 40, 7]
    assert out == [("proposals of", c) for c in (40, 900, 7, 300, 900, 55)]
    monkeypatch.setattr(_config, "LARGEST_FIRST", False)
    submitted.clear()
    scoring._score_in(RecordingPool(), bases, ())
    assert submitted == [40, 900, 7, 300, 900, 55]


def test_shared_queue_scores_every_base_once_in_both_threads_and_stops_on_an_error(monkeypatch):
    """``_score_shared``: this thread and a pool thread take the bases from one queue, largest
    cover first; the proposals come back in the order of the bases; an error in one base
    stops both threads at their next base and is raised once both have stopped."""
    import time
    from types import SimpleNamespace

    import turs.search.scoring as scoring

    taken, lock = [], threading.Lock()

    def proposals(base, *args):
        assert args == ("a", "b", True)  # the serial kernel in both threads
        with lock:
            taken.append((base.coverage, threading.current_thread().name))
        time.sleep(0.01)
        if base.coverage == 13:
            raise ValueError("bad base")
        return ("proposals of", base.coverage)

    monkeypatch.setattr(scoring, "base_proposals", proposals)
    bases = [SimpleNamespace(coverage=c) for c in (40, 900, 7, 300, 800, 55, 12, 66)]
    with scoring.ThreadPoolExecutor(1, thread_name_prefix="turs-score") as pool:
        out = scoring._score_shared(pool, bases, ("a", "b"))
        assert out == [("proposals of", c) for c in (40, 900, 7, 300, 800, 55, 12, 66)]
        assert sorted(c for c, _ in taken[:2]) == [800, 900]  # the two largest first
        assert sorted(c for c, _ in taken) == sorted(b.coverage for b in bases)
        assert len({name for _, name in taken}) == 2  # both threads scored bases
        taken.clear()
        bases = [SimpleNamespace(coverage=c) for c in (900, 13, 800, 5, 4, 3, 2, 1)]
        with pytest.raises(ValueError, match="bad base"):
            scoring._score_shared(pool, bases, ("a", "b"))
        n = len(taken)
        time.sleep(0.05)
        assert len(taken) == n < len(bases)  # nothing runs on after the error


@pytest.mark.parametrize("search", ["turs2", "thesis"])
def test_tested_growths_only_are_the_full_scores_of_those_growths_and_the_same_search(monkeypatch, search):
    """``score_growths(tested_only=True)`` keeps exactly the growths that pass a local test, in
    their order, each with every number of a full call to the bit (the data-code change
    included, which the kernel counts for those growths alone); a fit that scores only the
    tested growths equals one that scores all, rule for rule and bit for bit."""
    from turs.search import RuleSetState, SearchData, SearchSettings, learn_rule_set
    from turs.search.growths import empty_rule, score_growths

    X, y = make_overlap_blockade_data(n=1500, seed=6)
    model = TURSClassifier(beam_width=5).fit(X, y)
    enc = model.encoder_
    data = SearchData(enc.bins(enc.transform(X)), np.searchsorted(model.classes_, y).astype(np.int64),
                      enc.n_bins_, enc.binary_, len(model.classes_), model_encoding="turs2")
    state = RuleSetState(data, [])
    for rule in learn_rule_set(data, SearchSettings(5, search="turs2"), max_rules=3)[0].rules:
        state = RuleSetState(data, state.rules + [rule])
    assert len(state.group_masks) >= 3
    base = empty_rule(data, state)
    full = score_growths(base, state, 5, "learning_speed", search)
    # a base with literals too: the best growth of the empty rule
    for b in (base, full.materialize(int(np.nanargmax(np.where(np.isfinite(full.r), full.r, -np.inf))), data)):
        full = score_growths(b, state, 5, "learning_speed", search)
        part = score_growths(b, state, 5, "learning_speed", search, tested_only=True)
        kept = full.local_test | full.aux_local_test
        assert 0 < kept.sum() < len(kept)  # some growths fail both tests, and they are gone
        assert len(part.feat) == kept.sum()
        for name in ("feat", "lo", "hi", "counts", "counts_unc", "model_bits", "value_op", "r", "R", "total_after",
                     "local_test", "aux_local_test", "bucket", "aux_bucket", "split_bits", "split_bits_unc"):
            assert np.array_equal(getattr(part, name), getattr(full, name)[kept]), name
        assert np.all(part.local_test | part.aux_local_test)
        assert (part.later_k is None) == (full.later_k is None)
        if full.later_k is not None:
            assert np.array_equal(part.later_k, full.later_k[kept])
    # a base that M does not reach (no overlap group): every growth, as without the flag
    state0 = RuleSetState(data, [])
    both = [score_growths(empty_rule(data, state0), state0, 5, "learning_speed", search, tested_only=t)
            for t in (False, True)]
    assert np.array_equal(both[0].r, both[1].r) and np.array_equal(both[0].feat, both[1].feat)

    if search == "thesis":
        return  # the fits below use the default search
    tested = TURSClassifier(beam_width=5).fit(X, y)
    monkeypatch.setattr(_config, "TESTED_GROWTHS_ONLY", False)
    plain = TURSClassifier(beam_width=5).fit(X, y)
    assert [str(r) for r in tested.rules_] == [str(r) for r in plain.rules_]
    assert tested.mdl_score_ == plain.mdl_score_


@pytest.mark.parametrize("search", ["turs2", "thesis"])
@pytest.mark.parametrize("union", ["rules", "subsets", "neighbours", "bits"])
def test_one_call_per_base_gives_the_numbers_of_the_separate_calls(monkeypatch, search, union):
    """A base scored in one jitted call (``ONE_CALL_PER_BASE``) gets every number of the
    separate calls to the bit, for bases of 0 to 3 literals, all growths or the tested ones
    only, with each union-count path; a base too large for one call takes the separate calls."""
    from turs._core import kernels as kernel_sets
    from turs.search import RuleSetState, SearchData, SearchSettings, learn_rule_set
    from turs.search.growths import empty_rule, score_growths

    monkeypatch.setattr(_config, "UNION_COUNTS", union)
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=1500, n_features=6, n_informative=4, n_redundant=1, n_classes=3,
                               flip_y=0.1, random_state=0)
    X = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    model = TURSClassifier(beam_width=4, max_rules=1).fit(X, y)
    enc = model.encoder_
    data = SearchData(enc.bins(enc.transform(X)), np.searchsorted(model.classes_, y).astype(np.int64),
                      enc.n_bins_, enc.binary_, len(model.classes_), model_encoding="turs2")
    state = RuleSetState(data, learn_rule_set(data, SearchSettings(4, search="turs2"), max_rules=4)[0].rules)
    assert state.union_mode == union and len(state.group_masks) >= 3
    calls = []
    # the data's kernel set, with the one call per base (_score_base on its records' fields)
    # counting its calls (the search calls the kernels through data.kernels, turs._core.kernels)
    compiled = vars(kernel_sets.compiled_set())
    fused = compiled["_score_base_fields"]
    data.fit_kernels = kernel_sets.FitKernels(kernel_sets.Kernels(
        "compiled", {**compiled, "_score_base_fields": lambda *a: calls.append(1) or fused(*a)}))

    def both(base, tested):
        out = []
        for one in (False, True):
            monkeypatch.setattr(_config, "ONE_CALL_PER_BASE", one)
            out.append(score_growths(base, state, 4, "learning_speed", search, tested_only=tested))
        return out

    base = empty_rule(data, state)
    for length in range(4):
        if length:  # the best growth of the last base on a new column
            new = np.flatnonzero(~np.isin(every.feat, [lit[0] for lit in base.literals]))
            r = np.where(np.isfinite(every.r[new]), every.r[new], -np.inf)
            base = every.materialize(int(new[np.argmax(r)]), data)
        for tested in (False, True):
            sep, one = both(base, tested)
            for name in ("feat", "lo", "hi", "counts", "counts_unc", "cov", "cov_unc", "model_bits", "value_op",
                         "r", "R", "total_after", "local_test", "aux_local_test", "bucket", "aux_bucket",
                         "split_bits", "split_bits_unc", "later_k", "later_vo", "splits_uncovered"):
                a, b = getattr(sep, name), getattr(one, name)
                assert (a is None) == (b is None), name
                assert a is None or np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), (length, tested, name)
            assert (sep.nml_base, sep.nml_base_unc) == (one.nml_base, one.nml_base_unc)
            assert np.array_equal(sep._k_new, one._k_new)
            if not tested:
                every = sep
    assert len(base.literals) == 3 and len(calls) == 8
    monkeypatch.setattr(_config, "MAX_CALL_WORK", 1.0)
    calls.clear()
    sep, one = both(empty_rule(data, state), True)
    assert not calls and np.array_equal(sep.r, one.r)
