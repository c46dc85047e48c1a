"""The exact speed-ups of the search (docs/performance.md) change no number: every
build of the union counts, the sparse pair lists and the feature chunks of the growth kernel
give what the plain code gives."""
import numpy as np
import pytest

import naive
from turs import _config
from turs._core import growth as gk
from turs._core.overlap_groups import OverlapLists, _local_rule_lists, _shared_rule_pairs
from turs._core.union_counts import _union_by_bits
from turs.mdl import overlap_groups

PATHS = {"rows": _config.PATH_ROWS, "bins": _config.PATH_BINS, "bits": _config.PATH_BITS}


def _problem(seed, n=160, d=4, C=3, K=5):
    return naive.random_growth_problem(seed, n, d, C, K, max_bins=8, cover_p=0.4)[1:]


def _inputs(bins, y, rows, covers, C, mode):
    """The kernel's group inputs as the search builds them (``RuleSetState``, ``score_growths``)."""
    group, masks = overlap_groups(covers)
    present = np.unique(group[rows][group[rows] >= 0])
    gl = np.where(group[rows] >= 0, np.searchsorted(present, group[rows]), -1).astype(np.int64)
    union = np.array([np.bincount(y[covers[:, masks[g]].any(axis=1)], minlength=C) for g in present],
                     dtype=float).reshape(len(present), C)
    pm = masks[present]
    m = pm.astype(np.float32)
    nbr = naive.union_pairs(m @ m.T, mode)
    if mode == "rules":
        sub_ptr = np.concatenate([[0], np.cumsum(pm.sum(axis=1))]).astype(np.int64)
        sub = (sub_ptr, np.nonzero(pm)[1].astype(np.int64), np.ones(int(pm.sum())), pm.shape[1])
    else:
        sub = (np.zeros(len(present) + 1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0)
    gi, ki = np.nonzero(pm)
    grp_ptr = np.concatenate([[0], np.cumsum(np.bincount(gi, minlength=len(present)))]).astype(np.int64)
    return gl, union, nbr, sub, grp_ptr, ki.astype(np.int64)


def _grow(bins, y, rows, lo, hi, n_bins, C, gl, nbr_ptr, nbr_idx, nbr_w, union, sub_ptr, sub_idx, sub_sign, n_sub,
          log2_int, n_cuts=None, grp_ptr=None, grp_rules=None, n_rules=0, **options):
    """The growth kernel's driver on plain arrays (gathered into its records by ``growth_records``)."""
    inputs, lists = gk.growth_records(
        bins=bins, y=y, rows=rows, lo=lo, hi=hi, n_bins=n_bins, n_classes=C, group_local=gl, nbr_ptr=nbr_ptr,
        nbr_idx=nbr_idx, nbr_w=nbr_w, union_counts=union, sub_ptr=sub_ptr, sub_idx=sub_idx, sub_sign=sub_sign,
        n_sub=n_sub, log2_int=log2_int, grp_ptr=grp_ptr, grp_rules=grp_rules, n_rules=n_rules)
    return gk._grow_candidates(inputs, lists, n_cuts, **options)


_NO_PAIRS = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))


def _log2_table(n):
    with np.errstate(divide="ignore"):
        return np.log2(np.arange(n + 1, dtype=float))


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("mode", ["rules", "neighbours"])
@pytest.mark.parametrize("seed", range(6))
def test_every_union_build_equals_naive(seed, mode, path):
    """Each build of ``cum_union`` (per row, per bin, by bit sets), forced on every feature,
    gives the naive twin's counts and data-bit changes (which count the covers directly)."""
    bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed, K=4 + seed % 4)
    gl, union, nbr, sub, grp_ptr, grp_rules = _inputs(bins, y, rows, covers, C, mode)
    valid, new_lo, new_hi, counts, counts_unc, delta, k_split = _grow(
        bins, y, rows, lo, hi, n_bins, C, gl, *nbr, union, *sub, _log2_table(len(y)), None, grp_ptr, grp_rules,
        covers.shape[1], path=PATHS[path])
    want = naive.grow_candidates(bins, y, rows, lo, hi, n_bins, C, covers)
    S = len(valid) // bins.shape[0]
    got = {(int(s // S), int(new_lo[s]), int(new_hi[s])): (counts[s], counts_unc[s], delta[s])
           for s in np.flatnonzero(valid)}
    assert set(got) == set(want) and len(want) > 5
    for key, (c, u, dl) in want.items():
        np.testing.assert_array_equal(got[key][0], c)
        np.testing.assert_array_equal(got[key][1], u)
        assert got[key][2] == pytest.approx(dl, rel=1e-9, abs=1e-9)


def _buckets(nb, rng, coarse):
    """A bucket per bin: the identity, or (``coarse``) bins merged between random boundaries, as
    the growth kernel merges the bins between the cut points whose data-code change it counts."""
    if not coarse:
        return np.arange(nb, dtype=np.int64)
    starts = np.flatnonzero(rng.random(nb) < 0.4)
    return (np.searchsorted(starts, np.arange(nb), side="right") - 1).clip(0).astype(np.int64)


@pytest.mark.parametrize("coarse", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_union_by_bits_counts_the_covers(seed, coarse):
    """The bit-set build: per group and bucket of bins, the base rows below that bucket inside
    the union of the group's rules, per class, counted straight from the covers; including rows
    past 64 (several words) and segments that start and end inside a word."""
    bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed, n=700, K=6)
    rng = np.random.default_rng(seed)
    _assert_union_by_bits_counts_the_covers(bins, y, rows, n_bins, C, covers,
                                            lambda nb: _buckets(nb, rng, coarse))


def _assert_union_by_bits_counts_the_covers(bins, y, rows, n_bins, C, covers, buckets):
    """``_union_by_bits`` on every feature (``buckets(n_bins)``: its bucket per bin), per group and
    bucket, equals the base rows below that bucket inside the union of the group's rules, per
    class, counted from the covers. Returns, per present group, which base rows its union holds."""
    group, masks = overlap_groups(covers)
    gl, union, nbr, sub, grp_ptr, grp_rules = _inputs(bins, y, rows, covers, C, "rules")
    present = np.unique(group[rows][group[rows] >= 0])
    inside = [covers[rows][:, masks[g]].any(axis=1) for g in present]
    for f in range(bins.shape[0]):
        bucket = buckets(int(n_bins[f]))
        nk = int(bucket.max()) + 1
        got = np.zeros((len(present), nk + 1, C), dtype=np.int64)
        lists = OverlapLists(np.zeros((0, C)), *_NO_PAIRS, False, *_NO_PAIRS, 0, False, grp_ptr, grp_rules,
                             covers.shape[1])
        _union_by_bits(got, bins[f], bucket, y, rows, gl, np.flatnonzero(gl >= 0), lists)
        b = bucket[bins[f, rows]]
        for k in range(len(present)):
            for t in range(nk + 1):
                np.testing.assert_array_equal(got[k, t], np.bincount(y[rows][inside[k] & (b < t)], minlength=C))
    return inside


@pytest.mark.parametrize("seed", range(4))
def test_union_by_bits_with_classes_a_union_or_the_cover_lacks(seed):
    """The bit-set build skips the rank queries of a class no covered row of the base has, and
    of a class a group's union holds no row of: those counts stay 0, and every count is still
    the covers' own. Here classes 3 and 4 have no row, class 5 only rows M does not cover, and a
    covered row's class is that of its first rule (0, 1 or 2), so some unions lack a class."""
    bins, _, rows, lo, hi, n_bins, C, covers = _problem(seed, n=700, C=6, K=6)
    covered = covers.any(axis=1)
    y = np.where(covered, np.argmax(covers, axis=1) % 3, 5).astype(np.int64)
    inside = _assert_union_by_bits_counts_the_covers(bins, y, rows, n_bins, C, covers,
                                                     lambda nb: np.arange(nb, dtype=np.int64))
    # (group, class) pairs whose union has none of the base's covered rows of that class
    in_cover = covers[rows].any(axis=1)
    assert any(not ins[y[rows] == c].any() and in_cover[y[rows] == c].any() for ins in inside for c in range(3))


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("seed", range(6))
def test_data_code_change_of_some_slots_equals_that_of_all(seed, path):
    """Asked for some slots only (``need``), the kernel merges the bins between the cut points
    it reads into buckets; those slots get the data-code change of a call that wants every
    slot, to the bit, whichever build of the union counts it uses, and the others 0."""
    bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed, n=400, K=4 + seed % 4)
    gl, union, nbr, sub, grp_ptr, grp_rules = _inputs(bins, y, rows, covers, C, "rules")
    args = (bins, y, rows, lo, hi, n_bins, C, gl, *nbr, union, *sub, _log2_table(len(y)), None, grp_ptr,
            grp_rules, covers.shape[1])
    full = _grow(*args, path=PATHS[path])
    need = np.random.default_rng(seed).random(full[0].shape[0]) < 0.3
    part = _grow(*args, path=PATHS[path], need=need.copy())
    for got, want in zip(part[:5] + part[6:], full[:5] + full[6:]):
        np.testing.assert_array_equal(got, want)  # the counts do not depend on need
    wanted = need & full[0]
    assert wanted.sum() > 5 and (full[5][wanted] != 0).any()
    np.testing.assert_array_equal(part[5][wanted], full[5][wanted])
    assert not part[5][~need].any()


@pytest.mark.parametrize("mode,min_shared", [("rules", 2), ("neighbours", 1)])
@pytest.mark.parametrize("seed", range(4))
def test_sparse_pairs_equal_the_dense_product(seed, mode, min_shared):
    """``_shared_rule_pairs`` (from each group's rules and each rule's groups) gives the pair
    lists and union counts of the dense ``masks @ masks.T`` it replaced, entry for entry."""
    rng = np.random.default_rng(seed)
    covers = rng.random((500, 9)) < 0.3
    y = rng.integers(0, 3, 500)
    group, masks = overlap_groups(covers)
    G, K = masks.shape
    counts = np.zeros((G, 3))
    np.add.at(counts, (group[group >= 0], y[group >= 0]), 1)
    m = masks.astype(np.float32)
    shared = m @ m.T
    gi, ki = np.nonzero(masks)
    g_ptr = np.concatenate([[0], np.cumsum(np.bincount(gi, minlength=G))]).astype(np.int64)
    order = np.argsort(ki, kind="stable")
    k_ptr = np.concatenate([[0], np.cumsum(np.bincount(ki, minlength=K))]).astype(np.int64)
    union, ptr, idx, w = _shared_rule_pairs(g_ptr, ki.astype(np.int64), k_ptr, gi[order].astype(np.int64), counts,
                                            min_shared, mode == "rules")
    np.testing.assert_array_equal(union, (shared > 0).astype(float) @ counts)
    want = naive.union_pairs(shared, mode)
    assert len(want[1]) > G  # pairs beyond the diagonal
    for a, b in zip((ptr, idx, w), want):
        np.testing.assert_array_equal(a, b)
    present = np.array([1, 4, G - 1])
    lp, lr = _local_rule_lists(g_ptr, ki.astype(np.int64), present)
    assert [list(lr[lp[i]:lp[i + 1]]) for i in range(3)] == [list(np.flatnonzero(masks[g])) for g in present]


def test_chunked_calls_equal_one_call_and_run_the_hook():
    """Features split over one kernel call each, and each feature over one call per overlap group
    (``max_work`` tiny), give the one-call result bit for bit, and the hook runs before every
    call; a hook that raises stops the counting (Ctrl-C's path)."""
    bins, y, rows, lo, hi, n_bins, C, covers = _problem(4, d=6)
    gl, union, nbr, sub, grp_ptr, grp_rules = _inputs(bins, y, rows, covers, C, "rules")
    G = len(union)
    args = (bins, y, rows, lo, hi, n_bins, C, gl, *nbr, union, *sub, _log2_table(len(y)), None)
    rules = (grp_ptr, grp_rules, covers.shape[1])
    calls = []
    one = _grow(*args, *rules, max_work=1e18, between_calls=lambda: calls.append(1))
    assert len(calls) == 1 and G > 10
    for lists_only, n_calls in ((True, 6), (False, 6 * G)):
        calls.clear()
        split = _grow(*args, *(() if lists_only else rules), max_work=1.0,
                      between_calls=lambda: calls.append(1))
        assert len(calls) == n_calls
        for a, b in zip(one, split):
            np.testing.assert_array_equal(a, b)

    def stop():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _grow(*args, *rules, max_work=1.0, between_calls=stop)


@pytest.mark.parametrize("path", ["rows", "bits"])
def test_fit_is_the_same_with_every_union_build(monkeypatch, path):
    """Whole fits on overlapping data: forcing the per-row or the bit-set build gives the rules
    and the MDL score of the default (cheapest-per-feature) choice."""
    from sklearn.datasets import make_classification

    from turs import TURSClassifier

    X, y = make_classification(n_samples=900, n_features=6, n_informative=4, flip_y=0.05, class_sep=0.8,
                               random_state=0)
    auto = TURSClassifier(beam_width=5).fit(X, y)
    monkeypatch.setattr(_config, "UNION_BUILD", PATHS[path])
    forced = TURSClassifier(beam_width=5).fit(X, y)
    assert len(auto.rules_) >= 5
    assert [str(r) for r in forced.rules_] == [str(r) for r in auto.rules_]
    assert forced.mdl_score_ == auto.mdl_score_


@pytest.mark.parametrize("seed", range(4))
def test_group_union_counts_and_data_bits_equal_their_dense_twins(seed):
    """The union counts of each overlap group (``group_union_counts``, work by shared rules) equal
    the dense product of shared-rule indicators and group counts, and ``turs.mdl.data_bits``
    built on them equals the per-group union code (each group's rules' union found row by row)
    to the last bit."""
    from turs._core.union_counts import group_union_counts
    from turs.mdl import data_bits, nll_bits

    _, y, _, _, _, _, _, covers = _problem(seed, n=400, C=3, K=7)
    group, masks = overlap_groups(covers)
    G = len(masks)
    counts = np.bincount(group[group >= 0] * 3 + y[group >= 0], minlength=G * 3).reshape(G, 3)
    dense = ((masks.astype(float) @ masks.T.astype(float)) > 0).astype(float) @ counts
    assert np.array_equal(group_union_counts(masks, counts), dense)
    total = 0.0
    for g in range(G):
        union = covers[:, masks[g]].any(axis=1)
        total += float(nll_bits(np.bincount(y[group == g], minlength=3), np.bincount(y[union], minlength=3)))
    unc = group < 0
    total += float(nll_bits(np.bincount(y[unc], minlength=3), np.bincount(y[unc], minlength=3)))
    assert data_bits(covers, y, 3)[0] == total


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("word_cost", [0.0, np.inf])
def test_union_counts_by_bits_equal_the_rows_in_each_union(seed, word_cost, monkeypatch):
    """Both ways of ``union_counts_cheapest`` (bit sets over the rows, forced by a word cost of
    0, and the shared-rule triples, forced by an infinite one) give each group's union counts as
    found row by row from the covers, also for a subset of the groups (a new rule's present
    groups, numbered locally) with rows of some groups only."""
    import turs._core.union_counts as groups

    monkeypatch.setattr(_config, "UNION_BITS_WORD_COST", word_cost)
    rng = np.random.default_rng(seed)
    n, K, C = 700, 9 + seed, 3
    covers = rng.random((n, K)) < 0.25
    y = rng.integers(0, C, n)
    group, masks = overlap_groups(covers)
    G = len(masks)
    counts = np.bincount(group[group >= 0] * C + y[group >= 0], minlength=G * C).reshape(G, C).astype(float)
    want = np.array([np.bincount(y[covers[:, masks[g]].any(axis=1)], minlength=C) for g in range(G)])
    assert np.array_equal(groups.union_counts_cheapest(masks, counts, group, y), want)
    # a subset of the groups and of the rows: the union over those rows only
    present = np.sort(rng.choice(G, size=max(1, G // 3), replace=False))
    rows = np.flatnonzero(np.isin(group, present) & (rng.random(n) < 0.6))
    local = np.searchsorted(present, group[rows])
    sub = np.bincount(local * C + y[rows], minlength=len(present) * C).reshape(-1, C).astype(float)
    want_sub = np.array([np.bincount(y[rows][covers[rows][:, masks[g]].any(axis=1)], minlength=C)
                         for g in present])
    assert np.array_equal(groups.union_counts_cheapest(masks[present], sub, local, y[rows]), want_sub)


@pytest.mark.parametrize("K", [0, 1, 9])
def test_pattern_counts_equal_numpy_row_unique(K):
    from turs.model_file import pattern_counts

    rng = np.random.default_rng(K)
    covers = rng.random((500, K)) < 0.3
    y = rng.integers(0, 3, 500)
    patterns, counts = pattern_counts(covers, y, 3)
    ref, inverse = np.unique(covers, axis=0, return_inverse=True)
    ref_counts = np.bincount(inverse.ravel() * 3 + y, minlength=len(ref) * 3).reshape(len(ref), 3)
    order = sorted(range(len(ref)), key=lambda p: (int(ref[p].sum()), np.flatnonzero(ref[p]).tolist()))
    assert np.array_equal(patterns, ref[order]) and np.array_equal(counts, ref_counts[order])
