"""Each jitted kernel equals its plain-numpy twin (tests/naive.py) on seeded random input."""
import numpy as np
import pytest

import naive
from turs._core.growth import _grow_candidates, growth_records
from turs._core.literal_cover import _rows_in_interval
from turs.mdl import overlap_groups

# _finish_growths' last four arguments: scan for the refinement tables and the later K_values
_NO_TABLES = (*(np.zeros((0, 0), dtype=np.int64),) * 3, np.zeros(0, dtype=np.bool_))


def _grow(bins, y, rows, lo, hi, n_bins, C, gl, nbr_ptr, nbr_idx, nbr_w, union, sub_ptr, sub_idx, sub_sign, n_sub,
          log2_int, n_cuts=None, grp_ptr=None, grp_rules=None, n_rules=0, **options):
    """The growth kernel's driver on plain arrays (gathered into its records by ``growth_records``)."""
    inputs, lists = growth_records(
        bins=bins, y=y, rows=rows, lo=lo, hi=hi, n_bins=n_bins, n_classes=C, group_local=gl, nbr_ptr=nbr_ptr,
        nbr_idx=nbr_idx, nbr_w=nbr_w, union_counts=union, sub_ptr=sub_ptr, sub_idx=sub_idx, sub_sign=sub_sign,
        n_sub=n_sub, log2_int=log2_int, grp_ptr=grp_ptr, grp_rules=grp_rules, n_rules=n_rules)
    return _grow_candidates(inputs, lists, n_cuts, **options)


def _finish_growths(valid, new_lo, new_hi, counts, counts_unc, delta, k_split, bins, n_bins, binary, lits, base_vo,
                    base_vo_sum, base_k_values, header_new, header_old, turs2, scan_rows, log2_d, base_counts,
                    base_counts_unc, else_counts, log2_regret, nll_covered, regret_rules, model_next, total_m,
                    absolute, beam_width, split_cut_bits, split_extra, log2_int, placeholder_scores, scan_rows1,
                    bin_min, bin_max, bucket_edges, min_split, ref_tmin, ref_tmax, later_k_known, later_known):
    """``_finish_growths`` on its inputs as one flat list (the order the tests below pass them),
    gathered into the kernel's records."""
    from turs._core.candidate_score import BaseRule, DataTables, RuleSetCounts, ScoringSettings
    from turs._core.candidate_score import _finish_growths as kernel
    from turs._core.growth import GrowthOutputs

    C = counts.shape[1]
    data = DataTables(bins, np.zeros(bins.shape[1], dtype=np.int64), C, n_bins, valid.shape[0], binary, turs2, log2_d,
                      log2_regret, log2_int, bin_min, bin_max)
    base = BaseRule(np.zeros(0, dtype=np.int64), lits, base_vo, base_vo_sum, base_k_values, header_new, header_old,
                    base_counts, base_counts_unc, split_extra, scan_rows, scan_rows1, ref_tmin, ref_tmax,
                    later_k_known, later_known)
    rule_set = RuleSetCounts(else_counts, nll_covered, regret_rules, model_next, total_m)
    settings = ScoringSettings(beam_width, absolute, split_cut_bits, placeholder_scores, bucket_edges, min_split)
    return kernel(GrowthOutputs(valid, new_lo, new_hi, counts, counts_unc, delta, k_split), base, rule_set, data,
                  settings)


def _problem(seed, n=120, d=4, C=3, K=3):
    return naive.random_growth_problem(seed, n, d, C, K, max_bins=7, cover_p=0.35)


def _union_lists(masks, mode):
    """The subset and pair lists of the groups ``masks`` for one union-count mode: the subsets as
    the search builds them (``union_subsets``), the pairs by the dense twin ``naive.union_pairs``
    (equal to the search's sparse lists: ``tests/test_scale.py``)."""
    from turs.search import union_subsets

    ptr, idx, sign, n_sub = union_subsets(masks, mode)
    if mode == "subsets" and ptr is None:
        mode = "neighbours"
    m = masks.astype(np.float32)
    nbr_ptr, nbr_idx, nbr_w = naive.union_pairs(m @ m.T, mode)
    if ptr is None:
        ptr, idx, sign, n_sub = np.zeros(len(masks) + 1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0
    return nbr_ptr, nbr_idx, nbr_w, ptr, idx, sign, n_sub


UNION_MODES = ["rules", "neighbours", "subsets"]


def _log2_table(n):
    """log2 of the counts 0..n, as the search passes it (``SearchData.log2_int``)."""
    with np.errstate(divide="ignore"):
        return np.log2(np.arange(n + 1, dtype=float))


@pytest.mark.parametrize("mode", UNION_MODES)
@pytest.mark.parametrize("seed", range(8))
def test_grow_candidates_equals_naive(seed, mode):
    rng, bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed, K=3 + seed % 4)
    group, masks = overlap_groups(covers)
    present = np.unique(group[rows][group[rows] >= 0])
    gl = np.where(group[rows] >= 0, np.searchsorted(present, group[rows]), -1).astype(np.int64)
    union = np.array([np.bincount(y[covers[:, masks[g]].any(axis=1)], minlength=C) for g in present],
                     dtype=float).reshape(len(present), C)
    nbr_ptr, nbr_idx, nbr_w, ptr, idx, sign, n_sub = _union_lists(masks[present], mode)
    valid, new_lo, new_hi, counts, counts_unc, delta, k_split = _grow(
        bins, y, rows, lo, hi, n_bins, C, gl, nbr_ptr, nbr_idx, nbr_w, union, ptr, idx, sign, n_sub, _log2_table(len(y)))
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


@pytest.mark.parametrize("mode", UNION_MODES)
@pytest.mark.parametrize("seed", range(6))
def test_union_counts_by_rows_equal_the_covers(seed, mode):
    """The per-row build of the union counts (which the growth kernel picks when groups have few
    rows per bin) gives, per group and bin, the base rows below that bin inside the union of the
    group's rules, counted directly from the covers; the growth kernel itself is checked against
    the naive twin above whichever build it picks (with seeds 3 and 7 it picks the per-bin build
    for some features, the per-row one for the others)."""
    from turs._core.overlap_groups import OverlapLists
    from turs._core.union_counts import _union_by_rows

    rng, bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed, n=200, K=4 + seed % 3)
    group, masks = overlap_groups(covers)
    present = np.unique(group[rows][group[rows] >= 0])
    gl = np.where(group[rows] >= 0, np.searchsorted(present, group[rows]), -1).astype(np.int64)
    nbr_ptr, nbr_idx, nbr_w, ptr, idx, sign, n_sub = _union_lists(masks[present], mode)
    for f in range(bins.shape[0]):
        nb = int(n_bins[f])
        b = bins[f, rows]
        got = np.zeros((len(present), nb + 1, C), dtype=np.int64)
        identity = np.arange(nb, dtype=np.int64)  # each bin its own bucket
        lists = OverlapLists(np.zeros((0, C)), nbr_ptr, nbr_idx, nbr_w, True, ptr, idx, sign, n_sub, True,
                             np.zeros(1, np.int64), np.zeros(0, np.int64), 0)
        _union_by_rows(got, bins[f], identity, y, rows, gl, lists, int(b.min()), int(b.max()))
        for k, g in enumerate(present):
            inside = covers[rows][:, masks[g]].any(axis=1)
            for t in range(nb + 1):
                want = np.bincount(y[rows][inside & (b < t)], minlength=C)
                np.testing.assert_allclose(got[k, t], want, atol=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_bucket_winners_first_cover_equal_naive(seed):
    """The authors' bucket rule: a later candidate with the same cover as the bucket's occupant
    never replaces it, even with a higher score; another one does on a strictly higher score.
    Feature 1 repeats feature 0, so every cover on feature 0 comes again, scored higher. The
    winners come in bucket order (the turs2 policy's proposal order)."""
    from turs._core.diverse_patience import _best_per_bucket, _bucket_winners_first_cover

    rng, bins, y, rows, lo, hi, n_bins, C, _ = _problem(seed, n=80, d=3)
    bins[1] = bins[0]
    n_bins[1] = n_bins[0]
    feat, a, e = [], [], []
    for f in range(3):
        for t in range(1, int(n_bins[f])):
            for side in range(2):
                feat.append(f)
                a.append(0 if side == 0 else t)
                e.append(t if side == 0 else int(n_bins[f]))
    feat, a, e = np.array(feat, np.int64), np.array(a, np.int64), np.array(e, np.int64)
    m = len(feat)
    cov = np.array([np.count_nonzero((bins[f, rows] >= x) & (bins[f, rows] < z)) for f, x, z in zip(feat, a, e)])
    score = rng.normal(size=m) + np.where(feat == 1, 5.0, 0.0)  # the repeats score higher
    bucket = rng.integers(0, 4, size=m)
    bucket[feat == 1] = bucket[feat == 0]  # and land in the same buckets
    eligible = rng.random(m) < 0.9
    best = _bucket_winners_first_cover(score, bucket, eligible, 4, cov, feat, a, e, bins, rows)
    want = naive.best_per_bucket_first_cover(score, bucket, eligible, 4, feat, a, e, bins, rows)
    assert len(want) >= 2  # the order below is tested
    np.testing.assert_array_equal(best[best >= 0], want[np.argsort(bucket[want], kind="stable")])
    assert all(bucket[best[b]] == b for b in range(4) if best[b] >= 0)
    # by hand, one bucket: feature 0 covers A (score 1), feature 1 covers A too (score 5), feature 2
    # covers B (score 3): the repeat of A is skipped and B replaces the first A; the plain rule takes
    # the repeat
    hand_bins = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [0, 1, 1, 1]], dtype=np.uint8)
    hand = (np.array([1.0, 5.0, 3.0]), np.zeros(3, np.int64), np.ones(3, bool), 1)
    lits = (np.array([0, 1, 2]), np.array([1, 1, 1]), np.array([2, 2, 2]))
    all_rows = np.arange(4, dtype=np.int64)
    assert _bucket_winners_first_cover(*hand, np.array([2, 2, 3]), *lits, hand_bins, all_rows).tolist() == [2]
    assert _best_per_bucket(*hand).tolist() == [1]


@pytest.mark.parametrize("seed", range(5))
def test_small_kernels_equal_naive(seed):
    rng, bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed)
    np.testing.assert_array_equal(_rows_in_interval(bins[1], rows, 1, 3), naive.rows_in_interval(bins[1], rows, 1, 3))
    # every interval of a full byte's bins, empty and reversed ones too, and no rows
    col = rng.integers(0, 256, 500).astype(np.uint8)
    some = np.sort(rng.choice(500, 300, replace=False)).astype(np.int64)
    for a, e in [(0, 256), (0, 1), (255, 256), (3, 3), (7, 2), (1, 255), *rng.integers(0, 257, (20, 2)).tolist()]:
        np.testing.assert_array_equal(_rows_in_interval(col, some, a, e), naive.rows_in_interval(col, some, a, e))
    assert _rows_in_interval(col, some[:0], 0, 256).shape == (0,)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("absolute", [False, True])
def test_score_candidates_equals_naive(seed, absolute):
    from turs._core.candidate_score import RuleSetCounts, _score_candidates
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
    model_score = model - rng.uniform(0, 4, m)  # what r and R use (a refinement's search score)
    got = _score_candidates(counts, counts_unc, delta, model, model_score, l_split, base_counts, base_unc,
                            RuleSetCounts(else_counts, 50.0, 12.0, 3.0, 400.0), lr, _log2_table(1000), absolute)
    want = naive.score_candidates(counts, counts_unc, delta, model, base_counts, base_unc, else_counts,
                                  l_split, lr, 50.0, 12.0, 3.0, 400.0, absolute, model_score)
    assert len(got) == 9
    for i, (t, r, R, loc, aux, with_split, with_unc, without, without_unc) in enumerate(want):
        assert got[0][i] == pytest.approx(t, rel=1e-12) or (np.isinf(t) and np.isinf(got[0][i]))
        assert (got[1][i] == pytest.approx(r, rel=1e-12)) if np.isfinite(r) else np.isinf(got[1][i])
        assert (got[2][i] == pytest.approx(R, rel=1e-12)) if np.isfinite(R) else np.isinf(got[2][i])
        assert got[3][i] == loc and got[4][i] == aux
        # both sides of both local tests, and the kernel's decision is exactly "without > with"
        assert got[5][i] == pytest.approx(with_split, rel=1e-12)
        assert got[6][i] == pytest.approx(with_unc, rel=1e-12)
        assert got[7] == pytest.approx(without, rel=1e-12) and got[8] == pytest.approx(without_unc, rel=1e-12)
        assert got[3][i] == (got[7] > got[5][i]) and got[4][i] == (got[8] > got[6][i])
    assert 0 < got[3].sum() < len(got[3])  # the seeds give passed and rejected growths


@pytest.mark.parametrize("model_encoding", ["thesis", "turs2"])
@pytest.mark.parametrize("seed", range(6))
def test_refinement_model_bits_equals_public_code_length(seed, model_encoding):
    """L(S') of every refinement from the kernel == turs.mdl.rule_model_bits of the refined rule."""
    from turs._core.refinement import _refinement_model_bits
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
    args = (bins, lits, np.array(vops), np.array(kvs, dtype=np.int64), binary, n_bins,
            np.array(cf, dtype=np.int64), np.array(clo, dtype=np.int64), np.array(chi, dtype=np.int64), header,
            model_encoding == "turs2")
    model, vo, ok, nk, nvo = _refinement_model_bits(*args, np.arange(n, dtype=np.int64))
    # scanning only the rows of literal 0 (as the search does) gives the same tables
    in_first = np.flatnonzero((bins[lits[0, 0]] >= lits[0, 1]) & (bins[lits[0, 0]] < lits[0, 2]))
    for a, b in zip((model, vo, ok, nk, nvo), _refinement_model_bits(*args, in_first[::-1].copy())):
        np.testing.assert_array_equal(a, b)
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


@pytest.mark.slow
def test_parallel_growth_kernel_equals_serial_and_caches_separately():
    """The prange variant gives the serial results, and has its own numba cache entry
    (same-named variants share one, and the parallel one then silently runs serial code)."""
    from turs._core.growth import (_grow_candidates_parallel, _grow_candidates_serial, _grow_chunk_parallel,
                                   _grow_chunk_serial)

    assert _grow_chunk_parallel.py_func.__qualname__ != _grow_chunk_serial.py_func.__qualname__
    rng, bins, y, rows, lo, hi, n_bins, C, covers = _problem(3, n=2000, d=6, K=5)
    group, masks = overlap_groups(covers)
    present = np.unique(group[rows][group[rows] >= 0])
    gl = np.where(group[rows] >= 0, np.searchsorted(present, group[rows]), -1).astype(np.int64)
    union = np.array([np.bincount(y[covers[:, masks[g]].any(axis=1)], minlength=C) for g in present], dtype=float)
    for mode in UNION_MODES:
        nbr_ptr, nbr_idx, nbr_w, ptr, idx, sign, n_sub = _union_lists(masks[present], mode)
        records = growth_records(bins=bins, y=y, rows=rows, lo=lo, hi=hi, n_bins=n_bins, n_classes=C, group_local=gl,
                                 nbr_ptr=nbr_ptr, nbr_idx=nbr_idx, nbr_w=nbr_w, union_counts=union, sub_ptr=ptr,
                                 sub_idx=idx, sub_sign=sign, n_sub=n_sub, log2_int=_log2_table(len(y)))
        for a, b in zip(_grow_candidates_serial(*records), _grow_candidates_parallel(*records)):
            np.testing.assert_array_equal(a, b)


def test_warmup_runs_every_kernel_variant():
    """`turs.warmup()` calls the prange kernel's wrapper directly: it must keep its signature."""
    import turs

    seconds = turs.warmup()
    assert 0 < seconds < 120


@pytest.mark.subprocess
def test_after_warmup_no_path_of_the_search_compiles_a_kernel():
    """In a fresh process, after ``turs.warmup()``, fits that take every kernel path (one call
    per base, the separate calls in bounded chunks, the serial kernel in the scoring threads,
    the prange kernel) add no compiled signature to any kernel: a kernel compiled mid-fit
    holds Ctrl-C for seconds (a first noisy 20k fit once compiled the separate calls' kernels in
    its 50th rule search)."""
    import subprocess
    import sys

    code = """
import importlib, pkgutil
import numpy as np, pandas as pd
from numba.core.registry import CPUDispatcher
import turs
from turs import _config
turs.warmup()
mods = [importlib.import_module(m.name) for m in pkgutil.walk_packages(turs._core.__path__, "turs._core.")]
def signatures():
    return {(m.__name__, k): len(v.signatures) for m in mods for k, v in vars(m).items()
            if isinstance(v, CPUDispatcher)}
before = signatures()
rng = np.random.default_rng(1)
X = pd.DataFrame(rng.normal(size=(1500, 5)), columns=list("abcde"))
y = ((X.a > 0) ^ (X.b < 0.5) ^ (rng.random(1500) < 0.15)).astype(int).to_numpy()
turs.TURSClassifier(beam_width=4, max_rules=4).fit(X, y)
_config.THREADS_MIN_WORK = 0
_config.MAX_CALL_WORK = 1.0
turs.TURSClassifier(beam_width=4, max_rules=4).fit(X, y)
_config.SCORING_THREADS = 1
_config.MAX_CALL_WORK = 1e18
_config.PARALLEL_MIN_WORK = 0
turs.TURSClassifier(beam_width=4, max_rules=4).fit(X, y)
after = signatures()
print({k: (before.get(k), v) for k, v in after.items() if v != before.get(k)})
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "{}"


@pytest.mark.parametrize("seed", range(6))
def test_group_bookkeeping_kernels_equal_naive(seed):
    """_localize_groups, _local_subsets and _local_neighbours against their numpy twins."""
    from turs._core.overlap_groups import _local_neighbours, _local_subsets, _localize_groups

    rng = np.random.default_rng(seed)
    n, G = 200, 12
    group_of = np.where(rng.random(n) < 0.3, -1, rng.integers(0, G, n)).astype(np.int64)
    rows = np.sort(rng.choice(n, 60 + 20 * seed, replace=False)).astype(np.int64)
    present, gl = _localize_groups(group_of, rows, G)
    want_present, want_gl = naive.localize_groups(group_of, rows)
    np.testing.assert_array_equal(present, want_present)
    np.testing.assert_array_equal(gl, want_gl)
    # random subset lists over 30 subsets; random symmetric neighbour relation with self-loops
    lens = rng.integers(1, 6, G)
    sub_ptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    sub_idx = rng.integers(0, 30, sub_ptr[-1]).astype(np.int64)
    sub_sign = rng.choice([-1.0, 1.0], sub_ptr[-1])
    for a, b in zip(_local_subsets(sub_ptr, sub_idx, sub_sign, present, 30),
                    naive.local_subsets(sub_ptr, sub_idx, sub_sign, present)):
        np.testing.assert_array_equal(a, b)
    share = rng.random((G, G)) < 0.3
    share = share | share.T | np.eye(G, dtype=bool)
    nbr_ptr = np.concatenate([[0], np.cumsum(share.sum(axis=1))]).astype(np.int64)
    nbr_idx = np.nonzero(share)[1].astype(np.int64)
    nbr_w = rng.integers(-3, 2, len(nbr_idx)).astype(float)
    for a, b in zip(_local_neighbours(nbr_ptr, nbr_idx, nbr_w, present, G),
                    naive.local_neighbours(nbr_ptr, nbr_idx, nbr_w, present)):
        np.testing.assert_array_equal(a, b)


def test_kernel_cache_is_stamped_with_every_kernel_source(tmp_path):
    """Every cached kernel is stamped with the hash of all of turs/_core's sources, so a change
    to a callee's file recompiles its callers in other files (numba alone stamps a function
    with its own file: ``_score_base`` would keep an old growth kernel compiled in)."""
    import turs._core.candidate_score as candidate_score
    import turs._core.growth as gk
    import turs._core.score_base as score_base
    from turs._core import _cache

    if not hasattr(score_base._score_base._cache, "_impl"):
        pytest.skip("numba's on-disk cache is off (TURS_NUMBA_CACHE=0)")
    for kernel in (score_base._score_base, gk._grow_chunk_serial, gk._grow_chunk_parallel,
                   candidate_score._finish_growths):
        locator = kernel._cache._impl._locator
        assert type(locator).__name__.startswith("TursSources"), type(locator)
        assert locator.get_source_stamp() == _cache.sources_stamp()
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    (tmp_path / "notes.txt").write_text("not a source\n")
    before = _cache.sources_stamp(str(tmp_path), ())
    (tmp_path / "notes.txt").write_text("changed\n")
    assert _cache.sources_stamp(str(tmp_path), ()) == before
    (tmp_path / "b.py").write_text("y = 3\n")
    assert _cache.sources_stamp(str(tmp_path), ()) != before


@pytest.mark.parametrize("seed", range(4))
def test_group_row_lists_is_a_stable_sort_of_a_group_range(seed):
    """_group_row_lists (the growth kernel's rows group by group) against numpy's stable argsort,
    on a range of the groups as a call over part of them has it."""
    from turs._core.overlap_groups import _group_row_lists

    rng = np.random.default_rng(seed)
    G = 9
    gl = np.where(rng.random(300) < 0.2, -1, rng.integers(0, G, 300)).astype(np.int64)
    for g0, g1 in [(0, G), (2, 7), (8, 9), (3, 3)]:
        ptr, idx = _group_row_lists(gl, g0, g1 - g0)
        inside = np.flatnonzero((gl >= g0) & (gl < g1))
        np.testing.assert_array_equal(idx, inside[np.argsort(gl[inside], kind="stable")])
        np.testing.assert_array_equal(np.diff(ptr), np.bincount(gl[inside] - g0, minlength=g1 - g0))


@pytest.mark.parametrize("seed", range(6))
def test_best_per_bucket_equals_naive(seed):
    """Patience selection with ties, -inf, nan and ineligible candidates."""
    from turs._core.diverse_patience import _best_per_bucket

    rng = np.random.default_rng(seed)
    m, W = 80, 10
    score = rng.integers(0, 12, m).astype(float)  # many ties
    score[rng.random(m) < 0.1] = -np.inf
    score[rng.random(m) < 0.05] = np.nan
    bucket = rng.integers(0, W, m).astype(np.int64)
    eligible = rng.random(m) < 0.7
    got = _best_per_bucket(score, bucket, eligible, W)
    np.testing.assert_array_equal(got, naive.best_per_bucket(score, bucket, eligible, W))
    assert len(got) == len(set(bucket[got]))


@pytest.mark.parametrize("split_code", ["thesis", "turs2"])
@pytest.mark.parametrize("turs2", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_finish_growths_equals_naive(seed, turs2, split_code):
    """Compaction, L(S') of new and refined literals, scores and buckets of one base rule;
    the local test with the thesis' ``L_split`` or the authors' (per-column bits + a constant)."""
    from turs._core.refinement import _refinement_model_bits
    from turs._core.regret import log2_regret_table

    rng, bins, y, _, lo, hi, n_bins, C, covers = _problem(seed, n=150, d=5)
    n_bins[2] = hi[2] = 2  # a binary column
    bins[2] = bins[2] % 2
    binary = n_bins == 2
    # a base rule with two literals, on features 0 and 1
    lits = np.array([[0, 1, n_bins[0]], [1, 0, n_bins[1] - 1]], dtype=np.int64)
    for j, a, b in lits:
        lo[j], hi[j] = a, b
    rows = np.flatnonzero(np.all([(bins[j] >= a) & (bins[j] < b) for j, a, b in lits], axis=0)).astype(np.int64)
    gl = -np.ones(len(rows), dtype=np.int64)
    out = _grow(bins, y, rows, lo, hi, n_bins, C, gl, np.zeros(1, np.int64), np.zeros(0, np.int64),
                np.zeros(0), np.zeros((0, C)), np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0,
                _log2_table(len(y)))
    valid, new_lo, new_hi, counts, counts_unc, delta, k_split = out
    delta = rng.normal(size=len(delta))  # any data-cost change: only carried through
    base_vo = np.array([3.0, 2.5])
    base_k = np.array([n_bins[0] - 2, n_bins[1] - 2], dtype=np.int64)
    base_counts = np.bincount(y[rows], minlength=C).astype(np.int64)
    base_unc = (base_counts * 0.6).astype(np.int64)
    counts_unc = np.minimum(counts_unc, base_unc[None, :])
    else_counts = base_unc + 5
    lr = log2_regret_table(200, C)
    common = (k_split, bins, n_bins, binary, lits, base_vo)
    tail = (7.0, 5.0, turs2)
    scal = (np.log2(5), base_counts, base_unc, else_counts, lr, 40.0, 9.0, 4.0, 300.0, False)
    if split_code == "turs2":
        split = (np.log2(np.maximum(n_bins - 1, 1)) + 1.0, 1.0)
    else:
        split = (np.zeros(0), 0.0)
    got = _finish_growths(valid, new_lo, new_hi, counts, counts_unc, delta, *common, float(base_vo.sum()), base_k,
                          *tail, np.arange(bins.shape[1], dtype=np.int64), *scal, 10, *split, _log2_table(200),
                          False, np.zeros(0, np.int64), np.zeros(5, np.int64), np.zeros(5, np.int64), np.zeros(0), 2,
                          *_NO_TABLES)
    want = naive.finish_growths(valid, new_lo, new_hi, counts, counts_unc, delta, *common, base_k, *tail, *scal,
                                10, _refinement_model_bits, split)
    (feat, glo, ghi, _, _, cov, cov_unc, model, vo, has_ref, later_k, later_vo, t, r, R, loc, aux, bucket, abucket, _,
     with_split, with_unc, without, without_unc) = got
    assert has_ref and len(feat) == len(want["feat"]) > 0
    for name, a in (("feat", feat), ("lo", glo), ("hi", ghi), ("later_k", later_k), ("bucket", bucket),
                    ("aux_bucket", abucket)):
        np.testing.assert_array_equal(a, want[name], err_msg=name)
    for name, a in (("model", model), ("value_op", vo), ("later_vo", later_vo)):
        np.testing.assert_allclose(a, want[name], rtol=1e-12, err_msg=name)
    np.testing.assert_allclose(t, [s[0] for s in want["scores"]], rtol=1e-12)
    np.testing.assert_allclose(r, [s[1] for s in want["scores"]], rtol=1e-12)
    np.testing.assert_array_equal(loc, [s[3] for s in want["scores"]])
    np.testing.assert_array_equal(aux, [s[4] for s in want["scores"]])
    np.testing.assert_allclose(with_split, [s[5] for s in want["scores"]], rtol=1e-12)
    np.testing.assert_allclose(with_unc, [s[6] for s in want["scores"]], rtol=1e-12)
    assert without == pytest.approx(want["scores"][0][7], rel=1e-12)
    assert without_unc == pytest.approx(want["scores"][0][8], rel=1e-12)
    np.testing.assert_array_equal(loc, without > with_split)


@pytest.mark.parametrize("first", ["lower", "upper"])
@pytest.mark.parametrize("turs2", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_placeholder_scores_equal_condition_matrix_replay(seed, turs2, first):
    """With ``placeholder_scores`` a refinement is scored with the model code the authors'
    search charges it, replayed on a condition matrix by the twin; new literals and ``model``
    itself stay exact. The base's first literal is lower- or upper-bounded, its second the
    other way, so every case occurs: a tighter bound, an upper bound joining a lower one, and a
    lower bound joining an upper one before the last literal and as the last one."""
    from turs._core.refinement import _refinement_model_bits, _value_op_bits
    from turs._core.regret import log2_regret_table

    rng, bins, y, _, lo, hi, n_bins, C, _ = _problem(seed, n=150, d=4)
    n_bins[:2] = np.maximum(n_bins[:2], 5)
    bins[:2] = rng.integers(0, n_bins[:2, None], size=(2, 150))
    binary = n_bins == 2
    if first == "lower":
        lits = np.array([[0, 1, n_bins[0]], [1, 0, n_bins[1] - 1]], dtype=np.int64)
    else:
        lits = np.array([[0, 0, n_bins[0] - 1], [1, 1, n_bins[1]]], dtype=np.int64)
    reach = np.ones(150, dtype=bool)
    base_k, base_vo = [], []
    for j, a, b in lits:  # the base's exact K_values and value ops, literal by literal
        kv = int(bins[j, reach].max()) - int(bins[j, reach].min())
        base_k.append(kv)
        base_vo.append(_value_op_bits(False, a > 0 and b < n_bins[j], kv, turs2))
        reach &= (bins[j] >= a) & (bins[j] < b)
        lo[j], hi[j] = a, b
    base_k, base_vo = np.array(base_k, dtype=np.int64), np.array(base_vo)
    rows = np.flatnonzero(reach).astype(np.int64)
    out = _grow(bins, y, rows, lo, hi, n_bins, C, -np.ones(len(rows), dtype=np.int64),
                np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros((0, C)),
                np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), 0, _log2_table(150))
    valid, new_lo, new_hi, counts, counts_unc, delta, k_split = out
    base_counts = np.bincount(y[rows], minlength=C).astype(np.int64)
    base_unc = base_counts.copy()
    else_counts = base_unc + 5
    lr = log2_regret_table(200, C)
    scal = (np.log2(4), base_counts, base_unc, else_counts, lr, 40.0, 9.0, 4.0, 300.0, False)
    args = (valid, new_lo, new_hi, counts, counts_unc, delta, k_split, bins, n_bins, binary, lits, base_vo)
    got = {}
    for placeholder in (False, True):
        every = np.arange(150, dtype=np.int64)  # scanned rows: any superset will do
        got[placeholder] = _finish_growths(*args, float(base_vo.sum()), base_k, 7.0, 5.0, turs2, every, *scal, 10,
                                           np.zeros(0), 0.0, _log2_table(200), placeholder, every,
                                           bins.min(axis=1).astype(np.int64), bins.max(axis=1).astype(np.int64),
                                           np.zeros(0), 2, *_NO_TABLES)
        want = naive.finish_growths(*args, base_k, 7.0, 5.0, turs2, *scal, 10, _refinement_model_bits,
                                    placeholder=placeholder)
        model, t, r = got[placeholder][7], got[placeholder][12], got[placeholder][13]
        np.testing.assert_allclose(model, want["model"], rtol=1e-12)
        np.testing.assert_allclose(t, [sc[0] for sc in want["scores"]], rtol=1e-12)
        np.testing.assert_allclose(r, [sc[1] for sc in want["scores"]], rtol=1e-12)
    # the exact code of the rules and L(D, M + S') are the same either way; the refinements' r is not
    np.testing.assert_array_equal(got[False][7], got[True][7])
    np.testing.assert_array_equal(got[False][12], got[True][12])
    feat, glo = got[True][0], got[True][1]
    moved = np.flatnonzero(np.isin(feat, [0, 1]) & np.isfinite(got[True][7]))
    last = lits[-1]
    joined = [i for i in moved if feat[i] == last[0] and glo[i] > 0 and last[1] == 0]
    assert bool(joined) == (first == "lower")  # the last literal is upper-bounded then
    kv = int(base_k[-1])
    for i in joined:  # a lower bound joining the last literal's upper one: still charged one cut
        np.testing.assert_allclose((got[False][13][i] - got[True][13][i]) * got[True][6][i],
                                   _value_op_bits(False, False, kv, turs2) - _value_op_bits(False, True, kv, turs2))


@pytest.mark.parametrize("K, G, seed", [(5, 8, 0), (30, 80, 1), (63, 200, 2), (70, 120, 3)])
def test_group_subsets_equals_naive(K, G, seed):
    """Subsets of up to 12 of K rules (K up to 70) are numbered as the dict twin numbers them."""
    from turs._core.overlap_groups import _group_subsets

    rng = np.random.default_rng(seed)
    masks = rng.random((G, K)) < 4.0 / K
    masks[:, seed] |= ~masks.any(axis=1)
    masks = masks[masks.sum(axis=1) <= 12]
    got = _group_subsets(masks)
    want = naive.group_subsets(masks)
    for a, b in zip(got[:3], want[:3]):
        np.testing.assert_array_equal(a, b)
    assert got[3] == want[3] > 0


def test_rule_set_state_union_counts_equal_direct_counts():
    """Union counts from group sums == counting the rows covered by any of a group's rules."""
    from turs.search import Candidate, RuleSetState, SearchData

    rng = np.random.default_rng(5)
    n, C = 300, 3
    data = SearchData(rng.integers(0, 4, (2, n)).astype(np.uint8), rng.integers(0, C, n).astype(np.int64),
                      np.array([4, 4], dtype=np.int64), np.zeros(2, dtype=bool), C)
    rules = []
    for _ in range(6):
        rows = np.sort(rng.choice(n, rng.integers(20, 120), replace=False)).astype(np.int64)
        rules.append(Candidate(((0, 0, 4),), (1.0,), (3,), rows, np.bincount(data.y[rows], minlength=C),
                               np.zeros(C, dtype=np.int64), 5.0))
    state = RuleSetState(data, rules)
    assert len(state.group_masks) > 6
    covers = np.zeros((n, len(rules)), dtype=bool)
    for i, r in enumerate(rules):
        covers[r.rows, i] = True
    for g, mask in enumerate(state.group_masks):
        union = covers[:, mask].any(axis=1)
        np.testing.assert_array_equal(state.union_counts[g], np.bincount(data.y[union], minlength=C))


@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000, 4099])
def test_row_bitmaps_select_the_rows_and_bin_extremes_of_numpy_masks(n):
    """``turs._core.bitmaps`` against numpy masks: a chain of literals narrows the bitmap of all
    rows as the masks narrow, its rows come out increasing, and the smallest and largest bin of
    every feature over them are those of the masked column (``(0, -1)`` for no row)."""
    from turs._core.bitmaps import (_all_rows_bitmap, _at_least_bitmaps, _bin_extremes_of_bitmap, _bitmap_rows,
                                    _in_interval)

    rng = np.random.default_rng(n)
    n_bins = np.array([7, 2, 21])
    bins = np.stack([rng.integers(0, k, size=n) for k in n_bins]).astype(np.int64)
    at_least = [_at_least_bitmaps(bins[j], int(n_bins[j])) for j in range(3)]
    for j in range(3):
        for a in range(n_bins[j] + 1):
            assert np.array_equal(_bitmap_rows(at_least[j][a]), np.flatnonzero(bins[j] >= a))
    words, mask = _all_rows_bitmap(n), np.ones(n, dtype=bool)
    assert np.array_equal(_bitmap_rows(words), np.arange(n))
    for j, a, b in [(0, 1, 6), (2, 3, 19), (1, 1, 2), (2, 8, 9), (0, 0, 1)]:
        words = _in_interval(words, at_least[j], a, b)
        mask &= (bins[j] >= a) & (bins[j] < b)
        assert np.array_equal(_bitmap_rows(words), np.flatnonzero(mask))
        for f in range(3):
            col = bins[f][mask]
            expected = (int(col.min()), int(col.max())) if col.size else (0, -1)
            assert _bin_extremes_of_bitmap(words, at_least[f]) == expected
    assert not mask.any()  # the last literal contradicts the first: (0, -1) was checked too


@pytest.mark.parametrize("seed", range(4))
def test_local_tests_at_cut_equal_each_side_alone(seed):
    """The growth kernel's local tests for both sides of a cut point at once
    (``_local_tests_at_cut``) give each side what ``_passes_a_local_test`` gives it alone, for
    every choice of sides to test; the draws pass by Eq. 3.22, by Eq. 3.25 only, and fail both."""
    from turs._core.local_test import _local_tests_at_cut, _nll_int, _passes_a_local_test

    rng = np.random.default_rng(seed)
    C, n = 4, 400
    log2_int = _log2_table(n)
    log2_regret = np.log2(np.arange(n + 1) + 1.0) * rng.uniform(0.5, 2.0)
    rest = np.empty(C, dtype=np.int64)
    seen = {"22": 0, "25 only": 0, "neither": 0}
    for _ in range(600):
        base = rng.integers(0, 60, C)
        base_unc = rng.integers(0, base + 1)
        a = rng.integers(0, base + 1)
        # A's rows outside M: at most A's rows and at least what B's rows cannot hold
        a_unc = rng.integers(np.maximum(0, base_unc - (base - a)), np.minimum(a, base_unc) + 1)
        b, b_unc = base - a, base_unc - a_unc
        nb, nbu = int(base.sum()), int(base_unc.sum())
        nml = _nll_int(base, base, log2_int) + log2_regret[nb]
        nml_unc = _nll_int(base_unc, base_unc, log2_int) + log2_regret[nbu]
        l_split = rng.uniform(0, 12)
        alone = [_passes_a_local_test(c, cu, nb, nbu, nml, nml_unc, base, base_unc, l_split, log2_int, log2_regret,
                                      rest) for c, cu in ((a, a_unc), (b, b_unc))]
        for test_a in (False, True):
            for test_b in (False, True):
                got = _local_tests_at_cut(a, a_unc, b, b_unc, test_a, test_b, nb, nbu, nml, nml_unc, l_split,
                                          log2_int, log2_regret)
                assert got == (test_a and alone[0], test_b and alone[1])
        for c, cu, ok in ((a, a_unc, alone[0]), (b, b_unc, alone[1])):
            rc = base - c
            eq22 = nml > (_nll_int(c, c, log2_int) + log2_regret[c.sum()] + _nll_int(rc, rc, log2_int)
                          + log2_regret[rc.sum()] + l_split)
            seen["22" if eq22 else "25 only" if ok else "neither"] += 1
    assert min(seen.values()) > 20, seen


@pytest.mark.parametrize("seed", range(4))
def test_growth_kernel_marks_the_slots_that_pass_a_local_test(seed):
    """With ``local_tests``, the growth kernel marks exactly the valid slots that
    ``_passes_a_local_test`` passes one at a time: with the base's own class counts (both sides of a
    cut tested at once) and with counts that are not its rows' (each slot alone)."""
    from turs._core.local_test import _nll_int, _passes_a_local_test

    rng, bins, y, rows, lo, hi, n_bins, C, covers = _problem(seed, n=300, K=3 + seed % 3)
    group, masks = overlap_groups(covers)
    present = np.unique(group[rows][group[rows] >= 0])
    gl = np.where(group[rows] >= 0, np.searchsorted(present, group[rows]), -1).astype(np.int64)
    union = np.array([np.bincount(y[covers[:, masks[g]].any(axis=1)], minlength=C) for g in present],
                     dtype=float).reshape(len(present), C)
    nbr_ptr, nbr_idx, nbr_w, ptr, idx, sign, n_sub = _union_lists(masks[present], "rules")
    log2_int = _log2_table(2 * len(y))  # room for the second counts below
    log2_regret = np.log2(np.arange(2 * len(y) + 1) + 1.0) * 0.2  # small, so that some growths pass
    binary = np.zeros(bins.shape[0], dtype=np.bool_)
    base = np.bincount(y[rows], minlength=C).astype(np.int64)
    base_unc = np.bincount(y[rows[gl < 0]], minlength=C).astype(np.int64)
    log2_d = 0.0  # L_split's part for naming the feature
    rest = np.empty(C, dtype=np.int64)
    for counts_given in (base, base + np.arange(C)):  # the second is not the rows' counts
        need = np.zeros(2 * bins.shape[0] * (n_bins.max() - 1), dtype=np.bool_)
        valid, _, _, counts, counts_unc, _, k_split = _grow(
            bins, y, rows, lo, hi, n_bins, C, gl, nbr_ptr, nbr_idx, nbr_w, union, ptr, idx, sign, n_sub, log2_int,
            need=need,
            local_tests=(log2_regret, counts_given, base_unc, log2_d, binary, np.zeros(0), 0.0))
        S = len(valid) // bins.shape[0]
        nb, nbu = int(counts_given.sum()), int(base_unc.sum())
        nml = _nll_int(counts_given, counts_given, log2_int) + log2_regret[nb]
        nml_unc = _nll_int(base_unc, base_unc, log2_int) + log2_regret[nbu]
        want = np.zeros_like(need)
        for s in np.flatnonzero(valid):
            l_split = log2_d + np.log2(max(k_split[s // S], 1))
            want[s] = _passes_a_local_test(counts[s], counts_unc[s], nb, nbu, nml, nml_unc, counts_given, base_unc,
                                           l_split, log2_int, log2_regret, rest)
        assert 0 < want.sum() < valid.sum()
        np.testing.assert_array_equal(need, want)
