"""The fit from Dask collections (:mod:`turs.dask`) gives one machine's model, bit for bit.

The encoder from partition statistics equals ``FeatureEncoder.fit`` on the whole table (random
tables, in this process with small sketches so that the brackets narrow over several passes);
the Dask row store answers as the in-memory one on the whole table; and on a ``LocalCluster``
of two worker processes, ``DaskTURSClassifier`` gives the rules, MDL score and probabilities of
``TURSClassifier().fit`` on the same rows for several partitionings (with 1 and 2 scoring
threads), also when a worker is restarted mid-fit, and the in-memory fit's errors for bad input;
Ctrl-C leaves nothing on the workers.
"""
import json

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import turs.dask as td  # noqa: E402
from turs.dask import rows as tr  # noqa: E402
from turs.dask import statistics as ts  # noqa: E402
from turs import TURSClassifier  # noqa: E402
from turs.encoding import FeatureEncoder  # noqa: E402
from turs.search.row_store import LocalRows  # noqa: E402

# the cluster's workers are Python processes
pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit="1.5GiB") as cluster, Client(cluster) as c:
        yield c


def _pieces(df, sizes):
    """``df`` (a DataFrame or Series) as delayed partitions of the given lengths."""
    assert sum(sizes) == len(df)
    ends = np.cumsum([0, *sizes])
    return [dask.delayed(df.iloc[a:b]) for a, b in zip(ends[:-1], ends[1:])]


def _same(piece):
    return piece


def _frame(df, sizes):
    """``df`` (a DataFrame or Series) as a dask collection with partitions of the given lengths
    (``dd.from_map``: each task holds its piece; ``dd.from_delayed`` of in-memory pieces loses
    them when computed twice)."""
    assert sum(sizes) == len(df)
    ends = [int(v) for v in np.cumsum([0, *sizes])]
    pieces = [df.iloc[a:b] for a, b in zip(ends[:-1], ends[1:])]
    return dd.from_map(_same, pieces, meta=df.iloc[:0], enforce_metadata=False)


_series = _frame


def _sync(tasks):
    return list(dask.compute(*tasks, scheduler="sync"))


# ------------------------------------------------------------------------------- the encoder
def _random_table(rng, n):
    return pd.DataFrame({
        "normal": rng.normal(size=n),
        "ints": rng.integers(0, int(rng.integers(1, 30)), size=n).astype(float),
        "ties": np.round(rng.normal(size=n), 1),
        "colour": rng.choice(["red", "green", "blue"][:int(rng.integers(1, 4))], size=n),
        "flag": rng.integers(0, 2, size=n),
        "const": np.full(n, 3.5),
    })


@pytest.mark.parametrize("seed", range(4))
def test_encoder_from_partitions_equals_fit_on_the_whole_table(seed, monkeypatch):
    # small sketches and gathers: the order statistics take several bracket passes
    monkeypatch.setattr(ts, "SKETCH_POINTS", 16)
    monkeypatch.setattr(ts, "GATHER_DISTINCT", 8)
    for table in range(25):
        rng = np.random.default_rng([seed, table])
        n = int(rng.integers(1, 3000))
        df = _random_table(rng, n)
        k = int(rng.integers(1, 9))
        sizes = rng.multinomial(n, rng.dirichlet(np.ones(k)))  # uneven, some maybe empty
        n_cut_points = int(rng.choice([3, 20, 50]))
        px, py = _pieces(df, sizes), _pieces(pd.Series(np.zeros(n)), sizes)
        lengths, starts, stats = ts.first_pass(_sync, px, py, n_cut_points)
        np.testing.assert_array_equal(lengths, sizes)
        np.testing.assert_array_equal(starts, np.concatenate([[0], np.cumsum(sizes)[:-1]]))
        got = ts.fit_encoder(_sync, px, stats, n_cut_points, is_frame=True)
        want = FeatureEncoder(n_cut_points=n_cut_points).fit(df)
        want.from_dataframe_ = True  # learn.fit sets it for a DataFrame
        assert got.to_dict() == want.to_dict(), (seed, table)


def test_order_statistics_on_heavy_ties_settle(monkeypatch):
    # two values a million times each, the wanted ranks at their boundary: sketches alone
    # cannot split them, the values with their counts do
    monkeypatch.setattr(ts, "SKETCH_POINTS", 16)
    monkeypatch.setattr(ts, "GATHER_DISTINCT", 8)
    x = np.concatenate([np.full(1000, 1.0), np.full(1001, 2.0), np.linspace(3, 4, 500)])
    df = pd.DataFrame({"x": np.random.default_rng(0).permutation(x)})
    px, py = _pieces(df, [700, 1, 1300, 500]), _pieces(pd.Series(np.zeros(len(x))), [700, 1, 1300, 500])
    _, _, stats = ts.first_pass(_sync, px, py, 20)
    got = ts.fit_encoder(_sync, px, stats, 20, is_frame=True)
    assert got.columns_[0].cuts == FeatureEncoder(n_cut_points=20).fit(df).columns_[0].cuts


# ----------------------------------------------------------------------------- the row store
def test_dask_rows_answer_as_local_rows_on_the_whole_table(client):
    rng = np.random.default_rng(3)
    n = 5000
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 5, size=n), "c": rng.choice(["u", "v", "w"], n)})
    y = rng.integers(0, 3, size=n)
    sizes = [1, 0, 2000, 999, 2000]
    enc = FeatureEncoder(n_cut_points=10).fit(df)
    classes = np.arange(3)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    parts = client.compute([dask.delayed(tr._bin_partition)(x, yp, int(s), enc, classes, {})
                            for x, yp, s in zip(_pieces(df, sizes), _pieces(pd.Series(y), sizes), starts)])
    store = tr.DaskRows(client, parts, enc.n_bins_, enc.binary_, 3)
    local = LocalRows(enc.bins_of(df), y, enc.n_bins_, enc.binary_, 3)
    for name in ("n", "d", "n_classes"):
        assert getattr(store, name) == getattr(local, name)
    for name in ("class_counts", "bin_min", "bin_max", "n_bins", "binary"):
        np.testing.assert_array_equal(getattr(store, name), getattr(local, name))
    for a, b in zip(store.sample(700, seed=5), local.sample(700, seed=5)):
        np.testing.assert_array_equal(a, b)
    d, n_bins = len(enc.columns_), enc.n_bins_
    G = 0
    for step in range(4):
        cands = []
        for _ in range(6):
            k = int(rng.integers(1, 4))
            lits = []
            for j in rng.choice(d, size=k):
                a = int(rng.integers(0, n_bins[j]))
                lits.append((int(j), a, int(rng.integers(a + 1, n_bins[j] + 1))))
            cands.append(tuple(lits))
        for got, want in zip(store.candidate_counts(cands, G), local.candidate_counts(cands, G)):
            assert got.coverage == want.coverage
            for f in ("extremes", "present", "in_group", "outside"):
                np.testing.assert_array_equal(getattr(got, f), getattr(want, f))
        # add the first candidate: its rows in group g move to new_group[g] (new groups after the old)
        new_group = np.arange(G + 1, dtype=np.int32) + G
        new_group[-1] = 2 * G
        store.add_rule(cands[0], new_group, None)
        local.add_rule(cands[0], new_group, None)
        G = 2 * G + 1
    store.close()


# ------------------------------------------------------------------------- errors, small fits
def _message(fn):
    with pytest.raises(ValueError) as e:
        fn()
    return str(e.value)


def test_bad_input_gives_the_in_memory_fit_errors(client):
    rng = np.random.default_rng(0)
    n = 3000
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 4, size=n).astype(float)})
    y = pd.Series(rng.integers(0, 2, size=n))
    sizes = [1000, 1, 1999]
    nan = df.copy()
    nan.loc[2500, "b"] = np.nan  # in the third partition: its row 1499, the table's 2500
    want = _message(lambda: TURSClassifier().fit(nan, y))
    assert "row 2500" in want
    assert _message(lambda: td.DaskTURSClassifier().fit(_frame(nan, sizes), _series(y, sizes))) == want
    one = pd.Series(np.ones(n, dtype=int))
    assert (_message(lambda: td.DaskTURSClassifier().fit(_frame(df, sizes), _series(one, sizes)))
            == _message(lambda: TURSClassifier().fit(df, one)))
    empty = df.iloc[:0]
    assert (_message(lambda: td.DaskTURSClassifier().fit(_frame(empty, [0, 0]), _series(y.iloc[:0], [0, 0])))
            == _message(lambda: TURSClassifier().fit(empty, y.iloc[:0])))
    # X and y cut differently: a named error that says how to align them
    msg = _message(lambda: td.DaskTURSClassifier().fit(_frame(df, sizes), _series(y, [1000, 2000])))
    assert "3 partitions" in msg and "2" in msg and "align" in msg
    msg = _message(lambda: td.DaskTURSClassifier().fit(_frame(df, sizes), _series(y, [1000, 2, 1998])))
    assert "partition 1 has 1 rows of X and 2 labels" in msg


def test_a_worker_with_another_turs_is_refused(client):
    def set_version(v):
        import turs

        old = turs.__version__
        turs.__version__ = v
        return old

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=200)})
    y = pd.Series(rng.integers(0, 2, size=200))
    old = client.run(set_version, "0.0.0-other")
    try:
        with pytest.raises(RuntimeError, match="another turs"):
            td.DaskTURSClassifier().fit(_frame(df, [200]), _series(y, [200]))
    finally:
        for w, v in old.items():
            client.run(set_version, v, workers=[w])


def test_small_table_fit_predict_and_to_local(client, tmp_path):
    # at most SAMPLED_MIN_ROWS rows: one machine fits it exactly; the Dask fit gives that model
    rng = np.random.default_rng(1)
    n = 4000
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(["x", "y", "z"], size=n)})
    y = pd.Series(np.where((df["a"] > 0.3) & (df["b"] != "z"), "yes", "no"))
    flip = rng.random(n) < 0.1
    y[flip] = np.where(y[flip] == "yes", "no", "yes")
    want = TURSClassifier().fit(df, y)
    sizes = [1, 0, 1500, 2499]
    model = td.DaskTURSClassifier().fit(_frame(df, sizes), _series(y, sizes))
    assert str(model) == str(want) and model.mdl_score_ == want.mdl_score_
    proba = model.predict_proba(_frame(df, sizes))
    assert isinstance(proba, da.Array)
    np.testing.assert_array_equal(proba.compute(), want.predict_proba(df))
    np.testing.assert_array_equal(model.predict(_frame(df, sizes)).compute(), want.predict(df))
    local = model.to_local()
    assert type(local) is TURSClassifier and not hasattr(local, "_train_rows_")
    back = TURSClassifier.from_json(local.to_json())
    assert json.loads(back.to_json()) == json.loads(want.to_json())
    np.testing.assert_array_equal(back.predict_proba(df), want.predict_proba(df))


def test_print_digits_from_partitions_equal_the_whole_table():
    # values a 6-digit bound cannot separate: the cuts print with more digits, as in memory
    from turs.rules import print_digits_table

    rng = np.random.default_rng(2)
    n = 3000
    x = 1.0 + rng.integers(0, 40, size=n) * 1e-7
    df = pd.DataFrame({"x": x, "z": rng.normal(size=n) * 1e6, "c": rng.choice(["p", "q"], size=n)})
    enc = FeatureEncoder(n_cut_points=20).fit(df)
    want = print_digits_table(enc, enc.transform(df))
    assert any(k[0] == 0 for k in want)  # the test means something: column x needs digits
    sizes = [1, 1200, 0, 1799]
    queries = tr._digits_queries(enc)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    parts = [dask.delayed(tr._bin_partition)(p, pd.Series(np.zeros(m)), s, enc, np.array([0.0]), queries)
             for p, m, s in zip(_pieces(df, sizes), sizes, starts)]
    parts = dask.compute(*parts, scheduler="sync")
    assert tr._digits_table(enc, queries, [p.below for p in parts]) == want


# ---------------------------------------------------------------- the sampled fit, bit for bit
def _binary_table(n=300_000, seed=0):
    """``n`` rows (more than SAMPLED_MIN_ROWS: the sampled search) with rules to find and noise;
    rows 1000..1999 all of class 0 (a partition of one class when cut there)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(5)})
    X["x5"] = rng.integers(0, 6, size=n).astype(float)
    y = np.array(((X["x0"] > 0.5) & (X["x1"] < 1.0)) | (X["x2"] > 1.2) | (X["x5"] == 3))
    y ^= rng.random(n) < 0.1
    y = y.astype(int)
    y[1000:2000] = 0
    return X, pd.Series(y, name="label")


@pytest.fixture(scope="module")
def binary_fit():
    X, y = _binary_table()
    return X, y, TURSClassifier().fit(X, y)


def _same_model(got, want, X, proba=None):
    assert str(got) == str(want)
    assert got.mdl_score_ == want.mdl_score_
    assert got.mdl_breakdown_ == want.mdl_breakdown_
    np.testing.assert_array_equal(got._patterns_, want._patterns_)
    np.testing.assert_array_equal(got._pattern_counts_, want._pattern_counts_)
    assert got.sampled_from_rule_ == want.sampled_from_rule_ == 0
    np.testing.assert_array_equal(proba if proba is not None else got.predict_proba(X), want.predict_proba(X))


@pytest.mark.slow
@pytest.mark.parametrize("sizes", [[300_000], [1, 999, 1000, 0, 150_000, 48_000, 100_000]],
                         ids=["one partition", "7 uneven: a single row, one class, an empty one"])
def test_dask_fit_is_the_in_memory_fit(client, binary_fit, sizes):
    X, y, want = binary_fit
    model = td.DaskTURSClassifier().fit(_frame(X, sizes), _series(y, sizes))
    proba = model.predict_proba(_frame(X, sizes)).compute()
    _same_model(model, want, X, proba)
    assert not hasattr(model, "_train_rows_")


@pytest.mark.slow
def test_dask_fit_from_arrays_in_8_partitions_is_the_in_memory_fit(client, binary_fit):
    X, y, want = binary_fit
    Xa = da.from_array(X.to_numpy(), chunks=(37_500, 3))  # row blocks of 8, column blocks joined
    ya = da.from_array(y.to_numpy(), chunks=37_500)
    model = td.DaskTURSClassifier().fit(Xa, ya)
    assert str(model) == str(want) and model.mdl_score_ == want.mdl_score_
    np.testing.assert_array_equal(model.predict_proba(Xa).compute(), want.predict_proba(X))
    np.testing.assert_array_equal(model.predict(Xa).compute(), want.predict(X))


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 2])
def test_three_classes_and_a_categorical_column(client, threads, monkeypatch):
    # the search runs in this process for both fits, with 1 or 2 scoring threads
    from turs import _config

    monkeypatch.setattr(_config, "SCORING_THREADS", threads)
    rng = np.random.default_rng(7)
    n = 120_000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.exponential(size=n).round(2),
                      "colour": rng.choice(["red", "green", "blue", "grey"], size=n), "c": rng.normal(size=n)})
    y = np.where(X["a"] > 0.8, "high", np.where((X["colour"] == "blue") & (X["b"] < 0.5), "blue", "low"))
    y = np.where(rng.random(n) < 0.15, rng.choice(["high", "blue", "low"], size=n), y)
    y = pd.Series(y, name="label")
    want = TURSClassifier().fit(X, y)
    assert len(want.classes_) == 3 and any("colour" in str(r) for r in want.rules_)
    sizes = [1, 0, 70_000, 49_999]
    model = td.DaskTURSClassifier().fit(_frame(X, sizes), _series(y, sizes))
    _same_model(model, want, X, model.predict_proba(_frame(X, sizes)).compute())
    local = model.to_local()
    back = TURSClassifier.from_json(local.to_json())
    assert str(back) == str(want)
    np.testing.assert_array_equal(back.predict_proba(X), want.predict_proba(X))


# ------------------------------------------------------------------------------------ faults
@pytest.mark.slow
def test_a_worker_lost_during_the_fit_gives_the_same_model(client, binary_fit, monkeypatch):
    # after the second rule, one worker is restarted by its nanny: its partitions' bins and
    # groups are gone; Dask bins them again from the input and they replay the rules added
    X, y, want = binary_fit
    sizes = [1, 999, 1000, 0, 150_000, 48_000, 100_000]
    add_rule, seen = tr.DaskRows.add_rule, []

    def add_rule_then_lose_a_worker(self, *args):
        add_rule(self, *args)
        seen.append(self)
        if len(seen) == 2:
            client.restart_workers([sorted(client.scheduler_info()["workers"])[0]])

    monkeypatch.setattr(tr.DaskRows, "add_rule", add_rule_then_lose_a_worker)
    model = td.DaskTURSClassifier().fit(_frame(X, sizes), _series(y, sizes))
    assert len(seen) >= 3 and seen[0].replays > 0  # the lost partitions replayed the rules
    _same_model(model, want, X)


@pytest.mark.slow
def test_ctrl_c_during_the_fit_leaves_nothing_on_the_workers(client, binary_fit, monkeypatch):
    X, y, _ = binary_fit
    sizes = [150_000, 150_000]

    def interrupted(self, *args):
        raise KeyboardInterrupt

    monkeypatch.setattr(tr.DaskRows, "candidate_counts", interrupted)
    model = td.DaskTURSClassifier()
    with pytest.raises(KeyboardInterrupt):
        model.fit(_frame(X, sizes), _series(y, sizes))
    assert not hasattr(model, "rules_")
    import time

    for _ in range(50):  # the cancellations reach the scheduler
        if not client.futures and not any(client.has_what().values()):
            break
        time.sleep(0.1)
    assert not client.futures
    assert not any(client.has_what().values())



def test_workers_without_compiled_kernels_compile_before_the_fit_and_say_so(client):
    """The test cluster's workers share this checkout's compile cache: nothing to compile. A
    worker whose cache lacks the kernels (here: a readiness check that says so for one of the two)
    compiles before any pass, alone, with one CompileWarning that names it and the way ahead."""
    import warnings

    from turs import CompileWarning

    assert ts.warm_workers(client, verbose=False) == []
    workers = sorted(client.scheduler_info()["workers"])
    cold_one = workers[0]
    with pytest.warns(CompileWarning, match=r"1 of 2 Dask workers .*client\.run\(turs\.warmup\)") as said:
        compiled = ts.warm_workers(client, verbose=True, ready=lambda dask_worker: dask_worker.address != cold_one,
                                   warm=lambda dask_worker: dask_worker.address)
    assert compiled == [cold_one]
    assert cold_one in str(said[0].message) and workers[1] not in str(said[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ts.warm_workers(client, verbose=False, ready=lambda: True) == []
