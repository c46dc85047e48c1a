"""The in-memory row store (:class:`turs.search.row_store.LocalRows`) against brute force on
small random tables: covers, bin extremes, class counts per overlap group, the group moves of
``add_rule`` and the sample."""
import numpy as np
import pytest

from turs.search.row_store import CandidateCounts, LocalRows, RowStore
from turs.search.sample_keys import stratified_prefix


def _table(seed, n=300, d=4, C=3):
    rng = np.random.default_rng(seed)
    n_bins = rng.integers(2, 7, size=d).astype(np.int64)
    n_bins[0] = 2  # a binary column
    bins = np.stack([rng.integers(0, n_bins[j], size=n) for j in range(d)]).astype(np.uint8)
    y = rng.integers(0, C, size=n).astype(np.int64)
    binary = n_bins == 2
    return bins, y, n_bins, binary, C


def _random_literals(rng, n_bins, k):
    cols = rng.choice(len(n_bins), size=k, replace=True)
    out = []
    for j in cols:
        a = int(rng.integers(0, n_bins[j]))
        b = int(rng.integers(a + 1, n_bins[j] + 1))
        out.append((int(j), a, b))
    return tuple(out)


def _brute(bins, y, C, literals, groups, G):
    mask = np.ones(bins.shape[1], bool)
    extremes = []
    for j, a, b in literals:
        v = bins[j][mask]
        extremes.append((int(v.min()), int(v.max())) if v.size else (-1, -1))
        mask &= (bins[j] >= a) & (bins[j] < b)
    present = np.array(sorted(set(groups[mask][groups[mask] >= 0].tolist())), dtype=np.int64)
    in_group = np.array([[np.sum(mask & (groups == g) & (y == c)) for c in range(C)] for g in present],
                        dtype=np.int64).reshape(len(present), C)
    outside = np.array([np.sum(mask & (groups < 0) & (y == c)) for c in range(C)], dtype=np.int64)
    return int(mask.sum()), np.array(extremes, dtype=np.int64).reshape(-1, 2), present, in_group, outside, mask


def _check(got: CandidateCounts, want):
    cov, ext, present, in_group, outside, _ = want
    assert got.coverage == cov
    np.testing.assert_array_equal(got.extremes, ext)
    np.testing.assert_array_equal(got.present, present)
    np.testing.assert_array_equal(got.in_group, in_group)
    np.testing.assert_array_equal(got.outside, outside)
    assert got.extremes.dtype == np.int64 and got.in_group.dtype == np.int64 and got.outside.dtype == np.int64


@pytest.mark.parametrize("seed", range(6))
def test_candidate_counts_match_brute_force(seed):
    bins, y, n_bins, binary, C = _table(seed)
    store = LocalRows(bins, y, n_bins, binary, C)
    assert isinstance(store, RowStore)
    rng = np.random.default_rng(100 + seed)
    G = 5
    groups = rng.integers(-1, G, size=store.n).astype(np.int32)
    store.group_ids[:] = groups
    cands = [_random_literals(rng, n_bins, int(rng.integers(1, 4))) for _ in range(12)]
    cands.append(cands[0][:1])  # a prefix of another: from the cache
    for got, lits in zip(store.candidate_counts(cands, G), cands):
        _check(got, _brute(bins, y, C, lits, groups, G))


def test_extremes_of_a_prefix_that_reaches_no_row():
    bins = np.array([[0, 0, 1, 1], [0, 1, 2, 3]], dtype=np.uint8)
    y = np.array([0, 1, 0, 1])
    store = LocalRows(bins, y, [2, 4], [True, False], 2)
    (c,) = store.candidate_counts([((1, 3, 4), (0, 0, 1), (1, 0, 4))], 0)
    # row 0 over all rows; row 1 over the rows with bin 3 of column 1 (bin 1 of column 0);
    # row 2 over the rows with bin 3 and bin 0: none
    np.testing.assert_array_equal(c.extremes, [[0, 3], [1, 1], [-1, -1]])
    assert c.coverage == 0 and c.present.shape == (0,) and c.in_group.shape == (0, 2)
    np.testing.assert_array_equal(c.outside, [0, 0])


def test_attributes():
    bins, y, n_bins, binary, C = _table(3)
    store = LocalRows(bins, y, n_bins, binary, C)
    np.testing.assert_array_equal(store.class_counts, np.bincount(y, minlength=C))
    np.testing.assert_array_equal(store.bin_min, bins.min(axis=1))
    np.testing.assert_array_equal(store.bin_max, bins.max(axis=1))
    assert (store.n, store.d, store.n_classes) == (300, 4, 3)
    assert store.group_ids.dtype == np.int32 and (store.group_ids == -1).all()
    empty = LocalRows(np.zeros((2, 0), np.uint8), np.zeros(0, np.int64), [2, 3], [True, False], 2)
    np.testing.assert_array_equal(empty.bin_min, [0, 0])
    (c,) = empty.candidate_counts([((1, 0, 2),)], 0)
    np.testing.assert_array_equal(c.extremes, [[-1, -1]])


def _with_rule_numbers(groups, mask, G):
    """The group numbering of ``FullState.with_rule``, by hand: the rule's rows of group g
    (in the order of the present groups) go to G + i, its rows outside M to G + P; then the
    groups left without rows are dropped, the others keep their order."""
    present = np.array(sorted(set(groups[mask][groups[mask] >= 0].tolist())), dtype=np.int64)
    new = groups.copy()
    for i, g in enumerate(present):
        new[mask & (groups == g)] = G + i
    new[mask & (groups < 0)] = G + len(present)
    used = sorted(set(new[new >= 0].tolist()))
    return np.array([used.index(g) if g >= 0 else -1 for g in new], dtype=np.int32), present


@pytest.mark.parametrize("seed", range(4))
def test_add_rule_moves_the_rows_as_with_rule_numbers_them(seed):
    bins, y, n_bins, binary, C = _table(seed, n=200)
    store = LocalRows(bins, y, n_bins, binary, C)
    rng = np.random.default_rng(seed)
    groups = np.full(store.n, -1, dtype=np.int32)
    G = 0
    for _ in range(5):
        lits = _random_literals(rng, n_bins, int(rng.integers(1, 3)))
        (c,) = store.candidate_counts([lits], G)
        mask = _brute(bins, y, C, lits, groups, G)[5]
        want, present = _with_rule_numbers(groups, mask, G)
        np.testing.assert_array_equal(c.present, present)
        P, own = len(present), int(c.outside.sum() > 0)
        new_group = np.arange(G + 1, dtype=np.int64)  # rows of groups not present never move
        new_group[present] = G + np.arange(P)
        new_group[-1] = G + P
        sizes = np.concatenate([np.bincount(groups[groups >= 0], minlength=G).astype(np.int64),
                                c.in_group.sum(axis=1), [c.outside.sum()]])[:G + P + own]
        sizes[present] -= c.in_group.sum(axis=1)
        keep = sizes > 0
        renumber = None if keep.all() else (np.cumsum(keep) - 1)
        store.add_rule(lits, new_group, renumber)
        np.testing.assert_array_equal(store.group_ids, want)
        groups, G = want, int(keep.sum())


def test_add_rule_renumbers_every_row():
    bins = np.array([[0, 1, 2, 3, 4, 5]], dtype=np.uint8)
    store = LocalRows(bins, np.zeros(6), [6], [False], 1)
    store.group_ids[:] = [0, 0, 1, 1, -1, -1]
    # the rule covers bins 2..5: group 1's rows go to 2, the rows outside to 3; group 1 is
    # left empty: renumber 0 -> 0, 2 -> 1, 3 -> 2
    store.add_rule(((0, 2, 6),), np.array([5, 2, 3]), np.array([0, -1, 1, 2]))
    np.testing.assert_array_equal(store.group_ids, [0, 0, 1, 1, 2, 2])
    store.add_rule(((0, 0, 1),), np.array([3, 9, 9, 9]), None)
    np.testing.assert_array_equal(store.group_ids, [3, 0, 1, 1, 2, 2])


@pytest.mark.parametrize("size", [1, 7, 50, 300, 400])
def test_sample_is_the_hash_order_prefix(size):
    bins, y, n_bins, binary, C = _table(1)
    store = LocalRows(bins, y, n_bins, binary, C)
    rows, sb, sy = store.sample(size, seed=3)
    want = np.sort(stratified_prefix(y, size, 3))
    np.testing.assert_array_equal(rows, want)
    assert sb.flags.c_contiguous and sb.dtype == np.uint8 and sb.shape == (4, len(want))
    np.testing.assert_array_equal(sb, bins[:, want])
    np.testing.assert_array_equal(sy, y[want])
    assert sy.dtype == np.int64


def test_bad_literal_names_the_value():
    bins, y, n_bins, binary, C = _table(0)
    store = LocalRows(bins, y, n_bins, binary, C)
    with pytest.raises(ValueError, match=r"\(1, 3, 3\)"):
        store.candidate_counts([((1, 3, 3),)], 0)
