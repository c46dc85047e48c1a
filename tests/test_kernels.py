"""Each jitted kernel equals its plain-numpy twin (tests/naive.py) on seeded random input."""
import numpy as np
import pytest

import naive
from turs._core.kernels import _grow_candidates, _rows_in_interval
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


@pytest.mark.parametrize("use_ie", [True, False])
@pytest.mark.parametrize("seed", range(8))
def test_grow_candidates_equals_naive(seed, use_ie):
    from turs.search import group_subsets

    rng, bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed, K=3 + seed % 4)
    group, masks = overlap_groups(covers)
    present = np.unique(group[rows][group[rows] >= 0])
    gl = np.where(group[rows] >= 0, np.searchsorted(present, group[rows]), -1).astype(np.int64)
    m = masks[present].astype(np.int64)
    shares = (m @ m.T) > 0  # groups whose rules intersect
    nbr_ptr = np.concatenate([[0], np.cumsum(shares.sum(axis=1))]).astype(np.int64)
    nbr_idx = np.nonzero(shares)[1].astype(np.int64)
    union = np.array([np.bincount(y[covers[:, masks[g]].any(axis=1)], minlength=C) for g in present],
                     dtype=float).reshape(len(present), C)
    ptr, idx, sign, n_sub = group_subsets(masks[present])
    if not use_ie:
        ptr, idx, sign, n_sub = np.zeros(len(present) + 1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0
    valid, new_lo, new_hi, counts, counts_unc, delta, k_split = _grow_candidates(
        bins, y, rows, lo, hi, n_bins, C, gl, nbr_ptr, nbr_idx, union, ptr, idx, sign, n_sub, use_ie)
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


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("absolute", [False, True])
def test_score_candidates_equals_naive(seed, absolute):
    from turs._core.kernels import _score_candidates
    from turs._core.regret import log2_regret_table

    rng = np.random.default_rng(seed)
    C, m = 3, 25
    base_counts = rng.integers(5, 40, C).astype(np.int64)
    base_unc = (base_counts * rng.random(C)).astype(np.int64)
    counts = np.array([rng.integers(0, b + 1) for b in base_counts for _ in range(m)]).reshape(C, m).T.copy()
    counts_unc = np.minimum(counts, base_unc[None, :]).astype(np.int64)
    counts = counts.astype(np.int64)
    else_counts = base_unc + rng.integers(0, 10, C)
    delta = rng.normal(size=m)
    model = rng.uniform(5, 20, m)
    model[0] = np.inf
    l_split = rng.uniform(1, 6, m)
    lr = log2_regret_table(1000, C)
    got = _score_candidates(counts, counts_unc, delta, model, base_counts, base_unc, else_counts,
                            l_split, lr, 50.0, 12.0, 3.0, 400.0, absolute)
    want = naive.score_candidates(counts, counts_unc, delta, model, base_counts, base_unc, else_counts,
                                  l_split, lr, 50.0, 12.0, 3.0, 400.0, absolute)
    for i, (t, r, R, loc, aux) in enumerate(want):
        assert got[0][i] == pytest.approx(t, rel=1e-12) or (np.isinf(t) and np.isinf(got[0][i]))
        assert (got[1][i] == pytest.approx(r, rel=1e-12)) if np.isfinite(r) else np.isinf(got[1][i])
        assert (got[2][i] == pytest.approx(R, rel=1e-12)) if np.isfinite(R) else np.isinf(got[2][i])
        assert got[3][i] == loc and got[4][i] == aux


@pytest.mark.parametrize("model_encoding", ["thesis", "turs2"])
@pytest.mark.parametrize("seed", range(6))
def test_refinement_model_bits_equals_public_code_length(seed, model_encoding):
    """L(S') of every refinement from the kernel == turs.mdl.rule_model_bits of the refined rule."""
    import math

    from turs._core.codes import log2_comb
    from turs._core.kernels import _refinement_model_bits
    from turs.mdl import rule_header_bits, rule_model_bits

    rng = np.random.default_rng(seed)
    n, d = 300, 4
    n_bins = np.array([9, 7, 2, 8], dtype=np.int64)
    binary = n_bins == 2
    bins = np.stack([rng.integers(0, nb, n) for nb in n_bins]).astype(np.uint8)
    Xe = bins.T.astype(float)  # cut j of every column at j + 0.5, so bin == value
    cuts = [tuple(np.arange(nb - 1) + 0.5) for nb in n_bins]
    lits = np.array([[0, 1, 8], [3, 0, 6], [2, 1, 2], [1, 2, 7]], dtype=np.int64)[: 2 + seed % 3]
    k = len(lits)

    def thr(j, a, b):
        return (int(j), a - 0.5 if a > 0 else None, b - 0.5 if b < n_bins[j] else None)

    bits, vops, kvs = rule_model_bits([thr(*l) for l in lits], Xe, cuts, binary, model_encoding=model_encoding)
    cf, clo, chi = [], [], []
    for p in range(k):
        j, a, b = lits[p]
        for t in range(a + 1, b):
            cf += [j, j]
            clo += [a, t]
            chi += [t, b]
    header = rule_header_bits(d, k, model_encoding)
    model, vo, ok, nk, nvo = _refinement_model_bits(
        bins, lits, np.array(vops), np.array(kvs, dtype=np.int64), binary, n_bins,
        np.array(cf, dtype=np.int64), np.array(clo, dtype=np.int64), np.array(chi, dtype=np.int64), header,
        model_encoding == "turs2")
    checked = 0
    for i in range(len(cf)):
        refined = [thr(*l) for l in lits]
        p = [q for q in range(k) if lits[q][0] == cf[i]][0]
        refined[p] = thr(cf[i], clo[i], chi[i])
        try:
            want = rule_model_bits(refined, Xe, cuts, binary, model_encoding=model_encoding)[0]
        except ValueError:
            assert not ok[i]
            continue
        assert ok[i]
        assert model[i] == pytest.approx(want, rel=1e-12)
        checked += 1
    assert checked > 5


def test_parallel_growth_kernel_equals_serial_and_caches_separately():
    """The prange variant gives the serial results, and has its own numba cache entry
    (same-named variants share one, and the parallel one then silently runs serial code)."""
    from turs._core.kernels import _grow_candidates_parallel, _grow_candidates_serial
    from turs.search import group_subsets

    assert _grow_candidates_parallel.py_func.__qualname__ != _grow_candidates_serial.py_func.__qualname__
    rng, bins, y, rows, lo, hi, n_bins, C, covers = _problem(3, n=2000, d=6, K=5)
    group, masks = overlap_groups(covers)
    present = np.unique(group[rows][group[rows] >= 0])
    gl = np.where(group[rows] >= 0, np.searchsorted(present, group[rows]), -1).astype(np.int64)
    union = np.array([np.bincount(y[covers[:, masks[g]].any(axis=1)], minlength=C) for g in present], dtype=float)
    ptr, idx, sign, n_sub = group_subsets(masks[present])
    m = masks[present].astype(np.int64)
    shares = (m @ m.T) > 0
    nbr_ptr = np.concatenate([[0], np.cumsum(shares.sum(axis=1))]).astype(np.int64)
    nbr_idx = np.nonzero(shares)[1].astype(np.int64)
    for use_ie in (True, False):
        args = (bins, y, rows, lo, hi, n_bins, C, gl, nbr_ptr, nbr_idx, union, ptr, idx, sign, n_sub, use_ie)
        for a, b in zip(_grow_candidates_serial(*args), _grow_candidates_parallel(*args)):
            np.testing.assert_array_equal(a, b)


def test_warmup_runs_every_kernel_variant():
    """`turs.warmup()` calls the prange kernel directly: it must follow the kernel's signature."""
    import turs

    seconds = turs.warmup()
    assert 0 < seconds < 120
