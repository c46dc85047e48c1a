"""Each jitted kernel equals its plain-numpy twin (tests/naive.py) on seeded random input."""
import numpy as np
import pytest

import naive
from turs._core.kernels import _bin_range_table, _grow_candidates, _rows_in_interval
from turs.mdl import overlap_groups


def _problem(seed, n=120, d=4, C=3, K=3):
    rng = np.random.default_rng(seed)
    n_bins = rng.integers(2, 7, size=d).astype(np.int64)
    bins = np.stack([rng.integers(0, nb, size=n) for nb in n_bins]).astype(np.uint8)
    y = rng.integers(0, C, size=n).astype(np.int64)
    covers = rng.random((n, K)) < 0.35
    # a base rule: one random interval on feature 0 (or no literal)
    lo = np.zeros(d, dtype=np.int64)
    hi = n_bins.copy()
    if seed % 2:
        lo[0] = 1
    rows = np.flatnonzero((bins[0] >= lo[0]) & (bins[0] < hi[0])).astype(np.int64)
    return rng, bins, y, rows, lo, hi, n_bins, C, covers


@pytest.mark.parametrize("seed", range(8))
def test_grow_candidates_equals_naive(seed):
    rng, bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed)
    group, masks = overlap_groups(covers)
    present = np.unique(group[rows][group[rows] >= 0])
    gl = np.where(group[rows] >= 0, np.searchsorted(present, group[rows]), -1).astype(np.int64)
    m = masks[present].astype(np.int64)
    disjoint = (m @ m.T) == 0
    union = np.array([np.bincount(y[covers[:, masks[g]].any(axis=1)], minlength=C) for g in present],
                     dtype=float).reshape(len(present), C)
    valid, new_lo, new_hi, counts, counts_unc, delta, k_split = _grow_candidates(
        bins, y, rows, lo, hi, n_bins, C, gl, disjoint, union)
    want = naive.grow_candidates(bins, y, rows, lo, hi, n_bins, C, covers)
    S = len(valid) // bins.shape[0]
    got = {}
    for s in np.flatnonzero(valid):
        got[(int(s // S), int(new_lo[s]), int(new_hi[s]))] = (counts[s], counts_unc[s], delta[s])
    assert set(got) == set(want)
    for key, (c, u, dl) in want.items():
        np.testing.assert_array_equal(got[key][0], c)
        np.testing.assert_array_equal(got[key][1], u)
        assert got[key][2] == pytest.approx(dl, rel=1e-9, abs=1e-9)
    for f in range(bins.shape[0]):
        b = bins[f, rows]
        assert k_split[f] == (b.max() - b.min() if hi[f] - lo[f] >= 2 else 0)


@pytest.mark.parametrize("seed", range(5))
def test_small_kernels_equal_naive(seed):
    rng, bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed)
    np.testing.assert_array_equal(_rows_in_interval(bins[1], rows, 1, 3), naive.rows_in_interval(bins[1], rows, 1, 3))
    mn, mx = _bin_range_table(bins[1], bins[2], rows, int(n_bins[1]))
    mn2, mx2 = naive.bin_range_table(bins[1], bins[2], rows, int(n_bins[1]))
    np.testing.assert_array_equal(mn, mn2)
    np.testing.assert_array_equal(mx, mx2)
