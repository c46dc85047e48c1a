"""The refinement tables once per literal prefix (``turs.search.prefix_tables``) equal a brute
force over each literal's subspace and the one-scan kernel the search used before."""
import numpy as np
import pytest

from turs._core.refinement import NO_BIN, _refinement_tables
from turs.search.prefix_tables import PrefixTables
from turs.search.state import SearchData


def _data(seed, n=400, d=5):
    rng = np.random.default_rng(seed)
    n_bins = rng.integers(2, 9, d).astype(np.int64)
    bins = np.stack([rng.integers(0, nb, n) for nb in n_bins]).astype(np.uint8)
    y = rng.integers(0, 3, n).astype(np.int64)
    return SearchData(bins, y, n_bins, n_bins == 2, 3), rng


def _random_rule(rng, data, k):
    feats = rng.permutation(data.d)[:k]
    lits = []
    for j in feats:
        nb = int(data.n_bins[j])
        a = int(rng.integers(0, nb - 1))
        b = int(rng.integers(a + 1, nb + 1))
        lits.append((int(j), a, b))
    return tuple(lits)


def _brute(data, lits):
    """tmin, tmax packed, by masks over all rows."""
    k, max_b = len(lits), int(data.n_bins.max())
    tmin = np.full((k * (k - 1) // 2, max_b), NO_BIN, dtype=np.int64)
    tmax = np.full_like(tmin, -1)
    inside = np.ones(data.n, dtype=bool)
    for q in range(1, k):
        j, a, b = lits[q - 1]
        inside &= (data.bins[j] >= a) & (data.bins[j] < b)
        bq = data.bins[lits[q][0]][inside]
        for p in range(q):
            bp = data.bins[lits[p][0]][inside]
            for v in np.unique(bp):
                tmin[q * (q - 1) // 2 + p, v] = bq[bp == v].min()
                tmax[q * (q - 1) // 2 + p, v] = bq[bp == v].max()
    return tmin, tmax


@pytest.mark.parametrize("cache_bytes", [64 * 2**20, 3000])
@pytest.mark.parametrize("seed", range(4))
def test_prefix_tables_equal_brute_force_and_the_scan(seed, cache_bytes):
    data, rng = _data(seed)
    tables = PrefixTables(data, cache_bytes)  # 3000 bytes: the caches empty themselves often
    checked = 0
    for _ in range(40):
        lits = _random_rule(rng, data, int(rng.integers(1, 5)))
        if rng.random() < 0.5:  # a base's cover, as the search notes it
            inside = np.all([(data.bins[j] >= a) & (data.bins[j] < b) for j, a, b in lits], axis=0)
            tables.note_cover(lits, np.flatnonzero(inside).astype(np.int64))
        got = tables.tables(lits)
        if len(lits) < 2:
            assert got[0].shape == (0, 0)
            continue
        want = _brute(data, lits)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        scan = _refinement_tables(data.bins, np.array(lits, dtype=np.int64), data.n_bins,
                                  data.rows_in_bins(*lits[0]))
        np.testing.assert_array_equal(scan[0], want[0])
        np.testing.assert_array_equal(scan[1], want[1])
        checked += 1
        # a second rule with the same literals but the last one's interval: the same tables
        j, a, b = lits[-1]
        again = tables.tables(lits[:-1] + ((j, 0, int(data.n_bins[j])),))
        np.testing.assert_array_equal(again[0], want[0])
    assert checked > 20
    assert tables._bytes <= cache_bytes


def test_tables_are_computed_once_per_prefix():
    data, rng = _data(7)
    tables = PrefixTables(data)
    lits = ((0, 1, 5), (1, 0, 3), (2, 2, 6))
    tables.tables(lits)
    assert tables.misses == 2  # q = 1 and q = 2
    tables.tables(((0, 1, 5), (1, 0, 3), (2, 0, 1)))  # only the last interval differs
    assert tables.misses == 2
    tables.tables(((0, 1, 5), (1, 0, 3), (3, 0, 1)))  # another last feature: one new table
    assert tables.misses == 3
    tables.tables(((0, 1, 5), (1, 1, 3), (2, 2, 6)))  # literal 1 refined: q = 2 again
    assert tables.misses == 4


@pytest.mark.parametrize("seed", range(4))
def test_later_k_without_equals_the_scan(seed):
    """The later literals' ``K_value`` as if literal p restricted nothing, from the prefix
    extremes, equal the kernel's scan (``_later_k_without``) for every p but the last."""
    from turs._core.candidate_score import _later_k_without

    data, rng = _data(seed + 10, n=300)
    bins, n_bins = data.bins.copy(), data.n_bins.copy()
    n_bins[:2] = max(n_bins[0], 3)
    bins[0] = rng.integers(0, n_bins[0], data.n)
    bins[1] = bins[0]  # a copy of column 0: bin 1 of one and bin 2 of the other hold no row
    data = SearchData(bins, data.y, n_bins, n_bins == 2, 3)
    tables = PrefixTables(data, 5000 if seed % 2 else 64 * 2**20)
    checked = 0
    narrow = ((0, 1, 2), (1, 2, 3), (2, 0, int(n_bins[2])), (3, 0, int(n_bins[3])))
    for i in range(30):
        lits = narrow if i == 0 else _random_rule(rng, data, int(rng.integers(2, 5)))
        k = len(lits)
        arr = np.array(lits, dtype=np.int64)
        later_k, known = tables.later_k_without(lits, range(k - 1))
        assert known[:-1].all() and not known[-1]
        for p in range(k - 1):
            want = _later_k_without(data.bins, arr, p, data.rows_in_bins(*lits[0]),
                                    data.rows_in_bins(*lits[1]), data.bin_min, data.bin_max)
            np.testing.assert_array_equal(later_k[p, p + 1:], want[p + 1:])
            checked += int((want[p + 1:] == -1).any())
    assert checked > 0  # the narrow rule has a literal that reaches no row (1e8 bits)


def test_bin_extremes_equal_numpy():
    """``_bin_extremes`` (the later literals' extremes) against numpy's min and max of the
    gathered column, and ``(0, -1)`` for no row."""
    from turs._core.refinement import _bin_extremes

    data, rng = _data(3, n=300)
    for _ in range(20):
        f = int(rng.integers(0, data.d))
        rows = np.sort(rng.choice(data.n, int(rng.integers(1, 40)), replace=False)).astype(np.int64)
        col = data.bins[f][rows]
        assert _bin_extremes(data.bins, f, rows) == (int(col.min()), int(col.max()))
    assert _bin_extremes(data.bins, 0, np.zeros(0, dtype=np.int64)) == (0, -1)


def _mixed_frame(seed=0, n=600):
    """Rows with two categorical columns (one-hot: binary encoded columns), three numeric ones
    and a numeric one of three values (literals of two bins), classes from all kinds: rules mix
    binary and numeric literals."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    shape = rng.choice(["round", "square", "flat"], n)
    x = rng.normal(size=(n, 3))
    level = rng.integers(0, 3, n)
    y = (((colour == "red") & (x[:, 0] > 0)) | ((shape == "flat") & (x[:, 1] < 0.3)) | (x[:, 2] > 1.2)
         | ((level == 2) & (x[:, 0] < -0.5)))
    y = np.where(rng.random(n) < 0.1, ~y, y).astype(int)
    X = pd.DataFrame({"colour": pd.Categorical(colour), "shape": pd.Categorical(shape),
                      "x0": x[:, 0], "x1": x[:, 1], "x2": x[:, 2], "level": level})
    return X, y


def _fit_growths(X, y, monkeypatch, **params):
    """Every base's literals and its growths' model code and ``r`` over a fit, and the fit's
    rules and MDL score."""
    import turs.search.growths as growths
    from turs import TURSClassifier

    seen = []
    finish = growths.GrowthCall.finish

    def recording(call, result):
        g = finish(call, result)
        if g is not None:
            seen.append((call.base.literals, g.model_bits.tolist(), g.r.tolist()))
        return g

    monkeypatch.setattr(growths.GrowthCall, "finish", recording)
    m = TURSClassifier(**params).fit(X, y)
    monkeypatch.setattr(growths.GrowthCall, "finish", finish)
    return seen, [str(r) for r in m.rules_], m.mdl_score_


@pytest.mark.parametrize("search", ["turs2", "thesis"])
def test_bases_skip_only_refinement_tables_that_are_never_read(monkeypatch, search):
    """A base none of whose refinement-table rows ``_finish_growths`` can read
    (``turs.search.growths._tables_read``: no literal before a non-binary one has two bins or
    more) gets no tables. Poisoned tables in their place (extremes that give every later
    literal another ``K_value`` if read) leave every growth's model code and ``r`` as they are
    with the tables computed for every base; given to every base, they change them (so a read
    would show). Both searches (the authors' bookkeeping and the thesis text)."""
    import turs.search.growths as growths
    from turs.search.growths import _tables_read

    X, y = _mixed_frame()
    monkeypatch.setattr(growths, "_tables_read", lambda literals, binary: True)
    want = _fit_growths(X, y, monkeypatch, search=search)
    poison = (np.zeros((2000, 256), dtype=np.int64), np.full((2000, 256), 255, dtype=np.int64))
    monkeypatch.setattr(growths, "_UNREAD_TABLES", poison)
    skipped = []

    def tables_read(literals, binary):
        read = _tables_read(literals, binary)
        skipped.append(not read and len(literals) >= 2)
        return read

    monkeypatch.setattr(growths, "_tables_read", tables_read)
    got = _fit_growths(X, y, monkeypatch, search=search)
    assert sum(skipped) > 20  # bases of two or more literals got the poison
    assert got == want
    monkeypatch.setattr(growths, "_tables_read", lambda literals, binary: False)
    poisoned = _fit_growths(X, y, monkeypatch, search=search)
    assert poisoned[0] != want[0]
