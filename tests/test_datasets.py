"""Tests of turs.datasets: registry, loading, errors, preprocessing, bundled and simulated data.

The thesis datasets are read from $TURS_DATA_DIR (the study's shared/datasets folder), else from
the cache folder that `make data` fills; without them the tests that need them are skipped with
the reason, and everything else runs offline (downloads go to a local server or to a port where
nothing listens; the fetcher itself is tested in tests/test_fetch.py).
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import turs.datasets as td
from turs.datasets import _fetch, _files
from turs.datasets._registry import ADBENCH_COMMIT, DEFAULT_BASE_URL

from _http_server import LocalServer, dead_url


def _data_dir() -> str | None:
    """$TURS_DATA_DIR, else the cache folder when `make data` has put thesis datasets there."""
    env = os.environ.get("TURS_DATA_DIR", "").strip()
    if env:
        return env
    cache = td.cache_dir()
    return str(cache) if any((cache / i.file).is_file() for i in td.REGISTRY.values()) else None


DATA_DIR = _data_dir()
TABLE_3_2 = td.paper_table("table3_2_datasets").set_index("dataset")
NO_DATA = ("the thesis datasets are not available: TURS_DATA_DIR is not set and the cache folder "
           "holds none (run `make data` to fetch them, or set TURS_DATA_DIR)")


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """No test touches the internet or the user's cache: downloads go to a local port where
    nothing listens (one attempt), the cache folder is a tmp dir.

    Returns the list of URLs the loader tried to download.
    """
    calls = []
    real_download = _fetch._download

    def recording_download(info, url, folder, **kwargs):
        calls.append(url)
        return real_download(info, url, folder, **kwargs)

    monkeypatch.setattr(_fetch, "_download", recording_download)
    monkeypatch.setattr(_fetch, "DEFAULT_RETRIES", 0)
    monkeypatch.setenv("TURS_DATA_BASE_URL", dead_url())
    monkeypatch.setenv("TURS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    return calls


def _file_or_skip(name: str) -> Path:
    info = td.REGISTRY[name]
    if DATA_DIR is None:
        pytest.skip(NO_DATA)
    if not info.available:
        pytest.skip(f"{name} is not part of the study's data (see its registry notes)")
    path = Path(DATA_DIR) / info.file
    if not path.is_file():
        pytest.skip(f"{path} not found in TURS_DATA_DIR")
    return path


# --------------------------------------------------------------------------------- registry


def test_registry_lists_the_31_thesis_datasets_in_table_order():
    assert list(td.REGISTRY) == TABLE_3_2.index.tolist()
    assert len(td.REGISTRY) == 31
    assert td.list_datasets() == TABLE_3_2.index.tolist()


def test_registry_thesis_numbers_match_table_3_2():
    for name, row in TABLE_3_2.iterrows():
        info = td.REGISTRY[name]
        assert info.thesis_source == row["source"], name
        assert info.thesis_rows == row["rows"], name
        assert info.thesis_columns == row["columns"], name
        assert info.thesis_features == row["columns"] - 1, name
        assert info.thesis_classes == row["classes"], name
        assert info.thesis_max_class_prob == pytest.approx(row["max_class_prob"]), name
        assert info.thesis_min_class_prob == pytest.approx(row["min_class_prob"]), name


def test_registry_entries_are_consistent_and_frozen():
    for name, info in td.REGISTRY.items():
        assert info.name == name
        assert info.file.startswith(info.collection + "/"), name
        assert info.file.endswith("." + info.format), name
        assert info.url.startswith("https://"), name
        assert info.licence and info.notes, name
        assert info.group == "thesis" and info.thesis_rows > 0, name
        if info.format == "npz":
            assert info.csv_header is None and info.label == "y", name
        else:
            assert isinstance(info.csv_header, bool) and info.label == "last", name
        if info.available:  # pinned download URLs: tests/test_fetch.py
            assert re.fullmatch(r"[0-9a-f]{64}", info.sha256), name
            assert info.download_url.startswith(DEFAULT_BASE_URL), name
            if info.collection == "adbench":
                assert info.download_url == info.url, name
        else:
            assert info.download_url is None, name
    assert [n for n, i in td.REGISTRY.items() if not i.available] == ["backdoor"]
    assert sorted(n for n, i in td.REGISTRY.items() if i.id_column is not None) == [
        "anuran", "glass"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        td.REGISTRY["iris"].rows = 1
    assert td.list_datasets(collection="uci")[:3] == ["backnote", "chess", "diabetes"]
    assert "glass-2" in td.list_datasets(collection="adbench")
    with pytest.raises(ValueError, match="collection must be"):
        td.list_datasets(collection="kaggle")


def test_registry_matches_the_study_manifest():
    if DATA_DIR is None:
        pytest.skip(NO_DATA)
    manifest_path = Path(DATA_DIR) / "MANIFEST.csv"
    if not manifest_path.is_file():
        pytest.skip(f"{manifest_path} not found")
    manifest = pd.read_csv(manifest_path, keep_default_na=False).set_index("dataset")
    assert sorted(manifest.index) == sorted(td.REGISTRY)
    pinned = "https://github.com/Minqi824/ADBench/raw/main/", (
        f"{DEFAULT_BASE_URL}Minqi824/ADBench/{ADBENCH_COMMIT}/")
    for name, row in manifest.iterrows():
        info = td.REGISTRY[name]
        if info.available and info.collection == "adbench":  # the manifest cites `main`
            assert info.url == row["source"].replace(*pinned), name
        else:
            assert info.url == row["source"], name
        if row["file"]:
            assert info.file == row["file"], name
            assert info.sha256 == row["sha256"], name
            assert info.csv_header == {"yes": True, "no": False, "": None}[row["csv_header"]]
        else:
            assert not info.available, name


LARGE_SIZES = {  # rows, features, positives (class 1) of the study's files
    "shuttle": (49097, 9, 3511), "skin": (245057, 3, 50859),
    "campaign": (41188, 62, 4640), "cover": (286048, 10, 2747),
}


def test_large_registry_is_apart_from_the_thesis_and_matches_its_manifest():
    assert list(td.LARGE_DATASETS) == ["shuttle", "skin", "campaign", "cover"]
    for name, info in td.LARGE_DATASETS.items():
        assert name not in td.REGISTRY and td.get_info(name.upper()) is info
        assert info.group == "large" and info.collection == "adbench" and info.format == "npz"
        assert info.file == f"large/{name}.npz" and info.thesis_rows is None
        assert info.thesis_features is None and info.licence and info.available
        rows, features, positives = LARGE_SIZES[name]
        assert f"{rows:,} rows" in info.notes and f"{positives:,} positives" in info.notes
    if DATA_DIR is None:
        pytest.skip(NO_DATA)
    manifest_path = Path(DATA_DIR) / "large" / "MANIFEST.csv"
    if not manifest_path.is_file():
        pytest.skip(f"{manifest_path} not found")
    manifest = pd.read_csv(manifest_path, keep_default_na=False).set_index("dataset")
    assert sorted(manifest.index) == sorted(td.LARGE_DATASETS)
    for name, row in manifest.iterrows():
        info = td.LARGE_DATASETS[name]
        assert (info.file, info.sha256) == (row["file"], row["sha256"]), name
        assert info.url == row["source"].replace(
            "https://github.com/Minqi824/ADBench/raw/main/",
            f"{DEFAULT_BASE_URL}Minqi824/ADBench/{ADBENCH_COMMIT}/"), name


@pytest.mark.parametrize("name", list(LARGE_SIZES))
def test_large_dataset_loads_by_name(name):
    info = td.LARGE_DATASETS[name]
    if DATA_DIR is None:
        pytest.skip(NO_DATA + "; the large ones with `make data DATA_PROFILE=large`")
    if not (Path(DATA_DIR) / info.file).is_file():
        pytest.skip(f"{info.file} not found in {DATA_DIR} (run `make data DATA_PROFILE=large`)")
    X, y = td.load(name, data_dir=DATA_DIR)
    rows, features, positives = LARGE_SIZES[name]
    assert X.shape == (rows, features) and int((y == 1).sum()) == positives
    assert sorted(y.unique()) == [0, 1]


def test_get_info_normalises_names_and_explains_unknown_ones():
    assert td.get_info(" Glass-2 ").name == "glass-2"
    assert td.get_info("smt").name == "smtp"  # Table 3.2 prints "smt"
    with pytest.raises(ValueError, match="Did you mean 'iris'"):
        td.load("irsi")
    with pytest.raises(ValueError, match=r"load_bundled\('sklearn-iris'\)"):
        td.load("sklearn-iris")


# ------------------------------------------------------------------- thesis datasets vs Table 3.2


@pytest.mark.parametrize("name", list(td.REGISTRY))
def test_dataset_matches_table_3_2(name):
    path = _file_or_skip(name)
    row = TABLE_3_2.loc[name]
    X_raw, y = td.load(name, data_dir=DATA_DIR, preprocess=False)
    assert X_raw.shape == (row["rows"], row["columns"] - 1)  # Table 3.2 counts the label
    assert len(y) == row["rows"]
    assert y.nunique() == row["classes"]
    probs = y.value_counts(normalize=True)
    # printed with three decimals; avila's smallest class (10 of 20,867 rows) is printed 0.001
    assert probs.max() == pytest.approx(row["max_class_prob"], abs=1e-3)
    assert probs.min() == pytest.approx(row["min_class_prob"], abs=1e-3)
    assert not y.isna().any()

    X, y2 = td.load(name, data_dir=DATA_DIR)
    pd.testing.assert_series_equal(y, y2)
    assert len(X) == row["rows"] and X.shape[1] >= X_raw.shape[1]
    assert X.columns.is_unique
    for column in X.columns:
        kind = X[column].dtype.kind
        assert kind in "fi", (name, column, X[column].dtype)
        if column not in X_raw.columns or kind == "i" and X[column].nunique() <= 20:
            assert X[column].dtype == np.int64 and set(X[column].unique()) <= {0, 1}
    if path.suffix == ".npz":  # ADBench data is used as is
        pd.testing.assert_frame_equal(X, X_raw)
        assert (X.dtypes == np.float64).all()


def test_preprocessed_columns_of_a_categorical_dataset():
    _file_or_skip("car")
    X, y = td.load("car", data_dir=DATA_DIR)
    # six 3- or 4-level columns: 4 + 4 + 4 + 3 + 3 + 3 indicators
    assert X.shape == (1728, 21)
    assert X.columns[:4].tolist() == ["x0=high", "x0=low", "x0=med", "x0=vhigh"]
    assert (X.filter(like="x0=").sum(axis=1) == 1).all()
    assert sorted(y.unique()) == ["acc", "good", "unacc", "vgood"]


def test_glass_keeps_its_row_id_unless_dropped():
    _file_or_skip("glass")
    X, y = td.load("glass", data_dir=DATA_DIR, preprocess=False)
    assert X.columns.tolist() == ["row_id"] + [f"x{i}" for i in range(1, 10)]
    # the quirk: the rows are sorted by class, so the ID orders the labels
    assert X["row_id"].is_monotonic_increasing and y.is_monotonic_increasing
    X_dropped, y_dropped = td.load("glass", data_dir=DATA_DIR, preprocess=False, drop_id=True)
    pd.testing.assert_frame_equal(X_dropped, X.drop(columns="row_id"))
    pd.testing.assert_series_equal(y_dropped, y)
    assert "row_id" not in td.load("glass", data_dir=DATA_DIR, drop_id=True)[0].columns


def test_drop_id_for_a_dataset_without_id_column_raises():
    with pytest.raises(ValueError, match=r"drop_id=True applies only .*anuran, glass.*'car'"):
        td.load("car", drop_id=True)


# ---------------------------------------------------------------------------- missing files


def test_missing_file_error_names_file_directories_url_and_fix(tmp_path, offline, monkeypatch):
    monkeypatch.delenv("TURS_DATA_DIR", raising=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError) as excinfo:
        td.load("aloi", data_dir=empty)
    message = str(excinfo.value)
    url = os.environ["TURS_DATA_BASE_URL"] + td.REGISTRY["aloi"].remote_path
    assert "adbench/ALOI.npz" in message
    assert str(empty) in message and str(tmp_path / "cache") in message
    assert "$TURS_DATA_DIR is not set" in message
    assert url in message and "could not connect" in message
    assert "Fix: check your internet connection" in message and "set TURS_DATA_DIR" in message
    assert isinstance(excinfo.value.__cause__, td.DatasetFetchError)
    assert offline == [url]
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]  # nothing left


def test_missing_uci_file_is_downloaded_from_the_pinned_copy(tmp_path, offline, monkeypatch):
    monkeypatch.setenv("TURS_DATA_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError) as excinfo:
        td.load("car")
    message = str(excinfo.value)
    assert "uci/car.csv" in message and str(tmp_path / "nowhere") in message
    assert "https://archive.ics.uci.edu/dataset/19/car+evaluation" in message  # cited source
    assert offline == [os.environ["TURS_DATA_BASE_URL"] + "ylincen/TURS2/"
                       "d0230a0020f2b44f490f73f07f447839dae1603f/datasets/car.csv"]


def test_download_false_does_not_fetch(tmp_path, offline, monkeypatch):
    monkeypatch.delenv("TURS_DATA_DIR", raising=False)
    with pytest.raises(FileNotFoundError, match=r"not attempted \(download=False\)") as excinfo:
        td.load("aloi", data_dir=tmp_path, download=False)
    assert "turs.datasets fetch --datasets aloi` (or `make data`)" in str(excinfo.value)
    assert offline == []


def test_download_fills_the_cache_once(tmp_path, monkeypatch, offline):
    source = _file_or_skip("glass-2")
    monkeypatch.delenv("TURS_DATA_DIR", raising=False)
    info = td.REGISTRY["glass-2"]
    with LocalServer({info.remote_path: source.read_bytes()}) as server:
        monkeypatch.setenv("TURS_DATA_BASE_URL", server.url)
        X, y = td.load("glass-2", data_dir=tmp_path / "empty")
        assert X.shape == (214, 7) and (tmp_path / "cache" / "adbench" / "glass.npz").is_file()
        td.load("glass-2")
        assert server.requests[info.remote_path] == 1
    assert offline == [server.url + info.remote_path]


def test_downloaded_file_with_wrong_checksum_is_rejected(tmp_path, monkeypatch):
    monkeypatch.delenv("TURS_DATA_DIR", raising=False)
    info = td.REGISTRY["thyroid"]
    with LocalServer({info.remote_path: b"x"}) as server:
        monkeypatch.setenv("TURS_DATA_BASE_URL", server.url)
        with pytest.raises(ValueError) as excinfo:
            td.load("thyroid")
    message = str(excinfo.value)
    assert isinstance(excinfo.value, td.DatasetChecksumError)
    assert hashlib.sha256(b"x").hexdigest() in message and info.sha256 in message
    assert server.url + info.remote_path in message and "'thyroid'" in message
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]


def test_backdoor_is_known_but_not_available(tmp_path, monkeypatch, offline):
    monkeypatch.setenv("TURS_DATA_DIR", DATA_DIR or str(tmp_path))
    info = td.REGISTRY["backdoor"]
    assert info.thesis_rows == 95329 and not info.available and info.sha256 is None
    with pytest.raises(FileNotFoundError) as excinfo:
        td.load("backdoor")
    message = str(excinfo.value)
    assert "'backdoor' is not available here" in message
    assert info.url in message and "TURS_DATA_DIR" in message and "adbench/backdoor.npz" in message
    assert offline == []


# --------------------------------------------------------------------------------- checksums


def _altered_iris(tmp_path: Path) -> Path:
    """uci/iris.csv in a tmp data dir: the study's copy with one value changed, if available."""
    target = tmp_path / "data" / "uci" / "iris.csv"
    target.parent.mkdir(parents=True)
    if DATA_DIR and (Path(DATA_DIR) / "uci" / "iris.csv").is_file():
        text = (Path(DATA_DIR) / "uci" / "iris.csv").read_text()
        assert text.startswith("5.1,")
        target.write_text("5.2," + text[4:])
    else:
        target.write_text("5.2,3.5,1.4,0.2,Iris-setosa\n4.9,3.0,1.4,0.2,Iris-setosa\n")
    return target


def test_checksum_mismatch_names_the_file_and_both_hashes(tmp_path):
    path = _altered_iris(tmp_path)
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(ValueError) as excinfo:
        td.load("iris", data_dir=path.parents[1])
    message = str(excinfo.value)
    assert str(path) in message and actual in message and td.REGISTRY["iris"].sha256 in message
    assert "verify=False" in message
    X, y = td.load("iris", data_dir=path.parents[1], verify=False)
    assert X.iloc[0, 0] == 5.2 and y.iloc[0] == "Iris-setosa"


def test_checksum_is_computed_once_per_file_version(tmp_path, monkeypatch):
    path = _altered_iris(tmp_path)
    info = dataclasses.replace(
        td.REGISTRY["iris"], sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    monkeypatch.setitem(td.REGISTRY, "iris", info)
    hashed = []
    real_hash = _files._hash_file
    monkeypatch.setattr(_files, "_hash_file", lambda p: hashed.append(p) or real_hash(p))
    for _ in range(3):
        td.load("iris", data_dir=path.parents[1])
    assert len(hashed) == 1
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    td.load("iris", data_dir=path.parents[1])
    assert len(hashed) == 2


# ----------------------------------------------------------------------------- preprocessing


def test_preprocess_features_one_hot_encodes_as_the_reference():
    n = 25
    frame = pd.DataFrame({
        "f": np.linspace(0.0, 1.0, n),                      # float: numeric
        "many": np.arange(n) * 3,                            # int, 25 values: numeric
        "few": np.array([3, 1, 2, 1, 3] * 5),                # int, 3 values: one-hot
        "yes_no": ["no", "yes", "no", "no", "yes"] * 5,      # text, 2 levels: one column
        "abc": ["b", "a", "c", "a", "a"] * 5,                # text, 3 levels: one-hot
        "flag": [True, False, False, True, False] * 5,       # bool: keeps its name
        "zero_one": [0, 1, 1, 0, 0] * 5,                     # int {0, 1}: keeps its name
        "const": ["k"] * n,                                  # one level: one column of 1s
    })
    X = td.preprocess_features(frame)
    assert X.columns.tolist() == [
        "f", "many", "few=1", "few=2", "few=3", "yes_no=yes", "abc=a", "abc=b", "abc=c",
        "flag", "zero_one", "const=k",
    ]
    pd.testing.assert_series_equal(X["f"], frame["f"])
    pd.testing.assert_series_equal(X["many"], frame["many"])
    expected = {
        "few=1": [0, 1, 0, 1, 0], "few=2": [0, 0, 1, 0, 0], "few=3": [1, 0, 0, 0, 1],
        "yes_no=yes": [0, 1, 0, 0, 1], "abc=a": [0, 1, 0, 1, 1], "abc=b": [1, 0, 0, 0, 0],
        "abc=c": [0, 0, 1, 0, 0], "flag": [1, 0, 0, 1, 0], "zero_one": [0, 1, 1, 0, 0],
        "const=k": [1, 1, 1, 1, 1],
    }
    for column, values in expected.items():
        assert X[column].dtype == np.int64, column
        assert X[column].tolist() == values * 5, column


def test_preprocess_features_edge_cases():
    # exactly 20 distinct integers is categorical, 21 numeric
    frame = pd.DataFrame({"a": np.arange(40) % 20, "b": np.arange(40) % 21})
    X = td.preprocess_features(frame)
    assert X.shape[1] == 21 and X.columns[-1] == "b" and X.columns[0] == "a=0"
    # missing values in a categorical column give 0 in every indicator
    X = td.preprocess_features(pd.DataFrame({"c": ["u", None, "v", "w"]}))
    assert X.to_numpy().tolist() == [[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 1]]
    # pandas categoricals are categorical too
    X = td.preprocess_features(pd.DataFrame({"c": pd.Categorical(["lo", "hi", "lo"])}))
    assert X.columns.tolist() == ["c=lo"] and X["c=lo"].tolist() == [1, 0, 1]
    with pytest.raises(ValueError, match="already exists"):
        td.preprocess_features(pd.DataFrame({"c": ["u", "v", "w"], "c=u": [0.1, 0.2, 0.3]}))
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        td.preprocess_features(np.zeros((2, 2)))


# ------------------------------------------------------------------------- simulated and bundled


def test_local_testing_data_marginals():
    X, y = td.make_local_testing_data(n=20000, seed=0)
    assert X.shape == (20000, 50) and X.columns.tolist() == [f"X{j}" for j in range(1, 51)]
    assert (X.dtypes == np.int64).all() and y.dtype == np.int64 and y.shape == (20000,)
    assert set(np.unique(X.to_numpy())) == {0, 1} and set(np.unique(y)) == {0, 1}
    means = X.mean()
    assert abs(means["X1"] - 0.2) < 0.02
    assert (abs(means.drop("X1") - 0.5) < 0.02).all()
    x1 = X["X1"].to_numpy() == 1
    assert abs(y[x1].mean() - 0.7) < 0.03
    assert abs(y[~x1].mean() - 0.95) < 0.02
    # reproducible, and the seed matters
    X2, y2 = td.make_local_testing_data(n=20000, seed=0)
    pd.testing.assert_frame_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert not X.equals(td.make_local_testing_data(n=20000, seed=1)[0])
    assert td.make_local_testing_data()[0].shape == (5000, 50)
    with pytest.raises(ValueError, match="'n' parameter of make_local_testing_data"):
        td.make_local_testing_data(n=0)


def test_overlap_blockade_data_follows_its_rules():
    X, y = td.make_overlap_blockade_data(n=40000, seed=0)
    assert X.columns.tolist() == ["X1", "X2"] and y.dtype == np.int64
    assert X.to_numpy().min() >= 0 and X.to_numpy().max() < 2
    x1, x2 = X["X1"].to_numpy(), X["X2"].to_numpy()
    left, top, bottom_right = (
        np.all([(X[f].to_numpy() >= lo) & (X[f].to_numpy() < hi) for f, (lo, hi) in r.items()],
               axis=0)
        for r in td.OVERLAP_BLOCKADE_RULES
    )
    assert np.array_equal(bottom_right, (x1 >= 1) & (x2 < 0.8))
    assert not (bottom_right & (left | top)).any()  # the target rule overlaps neither
    for box, p in zip((left, top, bottom_right), td.OVERLAP_BLOCKADE_PROBS):
        assert abs(y[box].mean() - p) < 0.02
    outside = ~(left | top | bottom_right)
    assert abs(outside.mean() - 0.09) < 0.01
    assert abs(y[outside].mean() - td.OVERLAP_BLOCKADE_ELSE_PROB) < 0.05
    # the blockade: either literal alone mostly covers an existing rule of the other class
    assert top[x1 >= 1].mean() > 0.55 and left[x2 < 0.8].mean() > 0.5
    assert y[x1 >= 1].mean() > 0.5 > y[bottom_right].mean()
    assert td.make_overlap_blockade_data()[0].shape == (1000, 2)


def test_load_bundled():
    assert td.BUNDLED == ("sklearn-iris", "sklearn-wine", "sklearn-breast-cancer",
                          "sim-local-testing", "sim-overlap-blockade")
    shapes = {"sklearn-iris": (150, 4, 3), "sklearn-wine": (178, 13, 3),
              "sklearn-breast-cancer": (569, 30, 2)}
    for name, (rows, cols, classes) in shapes.items():
        X, y = td.load_bundled(name)
        assert X.shape == (rows, cols) and len(y) == rows and y.nunique() == classes
        assert all(isinstance(v, str) for v in y)
    assert set(td.load_bundled("sklearn-iris")[1]) == {"setosa", "versicolor", "virginica"}
    X, y = td.load_bundled("sim-local-testing", n=100, seed=3)
    assert X.shape == (100, 50) and y.name == "Y" and y.index.equals(X.index)
    np.testing.assert_array_equal(y, td.make_local_testing_data(n=100, seed=3)[1])
    X, y = td.load_bundled("sim-overlap-blockade")
    assert X.shape == (1000, 2)
    with pytest.raises(ValueError, match="Unknown bundled dataset 'iris'"):
        td.load_bundled("iris")
    with pytest.raises(TypeError, match="takes no parameters"):
        td.load_bundled("sklearn-wine", seed=1)


# ------------------------------------------------------------------------------- paper tables


def test_docs_table_agrees_with_the_registry():
    docs = td.PAPER_DIR.parents[1] / "docs" / "datasets.md"
    rows = re.findall(r"^\| (\d+) \| ([\w-]+) \| (\w+) \| `([^`]+)`[^|]* \| ([\d,]+) \| (\d+) \| "
                      r"(\d+) \| <([^>]+)> \|$", docs.read_text(), flags=re.M)
    assert [r[1] for r in rows] == list(td.REGISTRY)
    for _, name, source, file, n_rows, n_cols, n_classes, url in rows:
        info = td.REGISTRY[name]
        assert (source, file, url) == (info.thesis_source, info.file, info.url), name
        assert (int(n_rows.replace(",", "")), int(n_cols), int(n_classes)) == (
            info.thesis_rows, info.thesis_columns, info.thesis_classes), name


def test_docs_downloads_table_agrees_with_the_registries():
    docs = td.PAPER_DIR.parents[1] / "docs" / "datasets.md"
    rows = re.findall(r"^\| ([\w-]+) \| (paper|large|—) \| `([^`]+)` \| (?:\[[^]]+\]\((\S+)\)|none[^|]*) "
                      r"\| ([^|]+) \| (?:`([0-9a-f]{64})`|—) \|$", docs.read_text(), flags=re.M)
    infos = list(td.REGISTRY.values()) + list(td.LARGE_DATASETS.values())
    assert [r[0] for r in rows] == [i.name for i in infos]
    for name, profile, file, url, licence, sha256 in rows:
        info = td.get_info(name)
        assert (file, url or None, sha256 or None) == (info.file, info.download_url, info.sha256)
        assert profile == {"paper": "paper" if info.available else "—", "large": "large"}[
            "large" if info.group == "large" else "paper"], name
        assert licence.split(" (")[0] in info.licence, name  # "CC BY 4.0", "BSD 2-Clause", ...
    assert [r[0] for r in rows if r[1] == "paper"] == td.profile_datasets("paper")
    assert [r[0] for r in rows if r[1] == "large"] == td.profile_datasets("large")



def test_paper_tables():
    tables = td.list_paper_tables()
    assert [t for t in tables if t.startswith("table3_")] == [
        "table3_2_datasets", "table3_3_roc_auc", "table3_4_random_picking",
        "table3_5_total_literals", "table3_6_simulated_local_testing",
    ]
    # the seed papers' tables sit beside the thesis' ones and load the same way
    seeds = [t for t in tables if t.startswith("table_seed")]
    assert {t.split("_")[1] for t in seeds} == {"seed002", "seed003", "seed004"}
    assert all(len(td.paper_table(t)) > 0 for t in seeds)
    roc = td.paper_table("table3_3_roc_auc.csv")
    assert roc.columns.tolist() == [
        "dataset", "BRS", "C45", "CART", "CLASSY", "RIPPER", "CN2", "DRS", "IDS", "TURS"]
    assert sorted(roc["dataset"]) == sorted(td.REGISTRY)
    assert roc.set_index("dataset").loc["glass", "TURS"] == pytest.approx(0.967)
    assert roc.set_index("dataset").loc["backdoor", ["DRS", "IDS"]].isna().all()  # "—"
    local = td.paper_table("table3_6_simulated_local_testing").set_index("local_testing")
    assert local.loc["Yes", "n_rules_mean"] == 1
    with pytest.raises(ValueError, match="Unknown thesis table 'table3_7'"):
        td.paper_table("table3_7")
