"""The sampled search's row order from per-row hash keys (turs/search/sample_keys.py): the keys
against SplitMix64 written with Python integers, the order against a brute-force sort of all
rows, and the merge of partitions' smallest keys against the table in memory."""
import numpy as np
import pytest

from turs.search import sample_keys as sk

MASK = (1 << 64) - 1


def _mix_int(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _key_int(seed, i):
    return _mix_int((_mix_int(seed) + (i + 1) * 0x9E3779B97F4A7C15) & MASK)


def _order_brute(y, seed):
    """Every row's priority from its rank by (key, row) within its class, then all rows by
    (priority, row): the definition, on Python integers and sorted()."""
    n_c = {c: int(np.sum(y == c)) for c in set(y.tolist())}
    prio = {}
    for c in n_c:
        ranked = sorted((_key_int(seed, i), i) for i in np.flatnonzero(y == c).tolist())
        for r, (_, i) in enumerate(ranked):
            prio[i] = -1.0 if r == 0 else (r + 0.5) / n_c[c]
    return np.array(sorted(range(len(y)), key=lambda i: (prio[i], i)), dtype=np.int64)


def test_the_keys_are_splitmix64_outputs():
    # SplitMix64 seeded with 0: its first output is the published 0xE220A8397B1DCDAF
    assert int(sk.mix64(np.uint64(0x9E3779B97F4A7C15))) == 0xE220A8397B1DCDAF
    rows = np.array([0, 1, 2, 1000, 2**40 + 7])
    for seed in (0, 1, 12345, 2**63 + 5):
        assert sk.row_keys(rows, seed).tolist() == [_key_int(seed % 2**64, i) for i in rows.tolist()]


@pytest.mark.parametrize("seed", [0, 3])
def test_the_order_is_the_brute_force_sort_and_its_prefixes_are_stratified(seed):
    rng = np.random.default_rng(1)
    y = rng.choice(3, size=700, p=[0.8, 0.15, 0.05])
    want = _order_brute(y, seed)
    assert np.array_equal(sk.stratified_order(y, seed), want)
    for size in (1, 3, 10, 99, 350, 699, 700):
        assert np.array_equal(sk.stratified_prefix(y, size, seed, chunk=64), want[:size])
    assert sorted(y[want[:3]]) == [0, 1, 2]  # the first row of every class first
    counts = np.bincount(y)
    assert np.abs(np.bincount(y[want[:200]], minlength=3) - 200 * counts / len(y)).max() <= 1.5


def test_class_shares_of_a_larger_order_and_a_rare_class():
    y = np.r_[np.zeros(9000, int), np.ones(1000, int), np.full(3, 2)]
    order = sk.stratified_order(y, seed=4)
    assert np.array_equal(np.sort(order), np.arange(len(y)))  # every row once
    assert np.abs(np.bincount(y[order[:1000]]) - [900, 100, 1]).max() <= 1
    assert not np.array_equal(order, sk.stratified_order(y, seed=5))


def _split(n, cuts):
    edges = [0, *cuts, n]
    return [np.arange(a, b) for a, b in zip(edges[:-1], edges[1:])]


@pytest.mark.parametrize("size", [1, 40, 500, 1200])
def test_any_partitioning_merges_into_the_order_of_the_table_in_memory(size):
    rng = np.random.default_rng(7)
    n = 1200
    y = rng.choice(3, size=n, p=[0.6, 0.3, 0.1])
    want = sk.stratified_prefix(y, size, seed=9)
    assert np.array_equal(want, _order_brute(y, 9)[:size])
    counts = np.bincount(y, minlength=3)
    quota = sk.class_quota(counts, size)
    shuffled = rng.permutation(n)
    partitionings = {
        "one part": _split(n, []),
        "many": _split(n, list(range(100, n, 100))),
        "uneven": _split(n, [1, 2, 700, 701, 1100]),
        "empty parts": _split(n, [0, 0, 600, 600, n]),
        "one-row parts": [np.array([i]) for i in range(n)],
        "rows in no order": np.array_split(shuffled, 13),  # a partition need not be a range of rows
    }
    for name, parts in partitionings.items():
        sent = [sk.partition_smallest(y[p], p, quota, seed=9) for p in parts]
        # a worker sends each class's smallest keys, at most its quota
        for (cl, _, _) in sent:
            assert all(np.sum(cl == c) <= quota[c] for c in range(3))
        got = sk.merge_prefix(reversed(sent) if name == "many" else sent, counts, size)  # any order of arrival
        assert np.array_equal(got, want), name


def test_a_class_with_one_row_and_an_empty_table():
    y = np.r_[np.zeros(50, int), [1]]
    order = sk.stratified_order(y)
    assert y[order[:2]].tolist().count(1) == 1
    assert sk.stratified_prefix(np.zeros(0, int), 10).size == 0
