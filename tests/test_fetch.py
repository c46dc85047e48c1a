"""Tests of the dataset fetcher (turs.datasets._fetch and ``python -m turs.datasets``), offline.

The real sources (GitHub) cannot be reached from the build machines, so every download here goes
to a local ``http.server`` on 127.0.0.1 (tests/_http_server.py) through the base-URL override:
the same functions as a real fetch, only the base URL differs. Most tests use a small fake
registry entry; the end-to-end test serves the study's own files (when TURS_DATA_DIR is set)
laid out like the remote, so the real registry's URLs and checksums are exercised.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import requests

import turs.datasets as td
from turs.bench import PROFILES
from turs.datasets import _fetch
from turs.datasets.__main__ import main

from _http_server import LocalServer, dead_url

DATA_DIR = os.environ.get("TURS_DATA_DIR", "").strip() or None
NO_DATA = ("TURS_DATA_DIR is not set: the study's dataset files are not available here "
           "(run `make data`, or set TURS_DATA_DIR to the data folder)")

# ~150 kB of CSV (more than two 64 kB chunks), deterministic
BODY = "".join(f"{i % 7}.{i % 10},{(3 * i) % 11}.5,{i % 5},a{i % 3}\n" for i in range(9000)).encode()
REMOTE = "someone/TURS2/0123456789abcdef0123456789abcdef01234567/datasets/fake.csv"
FAKE = dataclasses.replace(
    td.REGISTRY["iris"], name="fake-iris", file="uci/fake.csv",
    sha256=hashlib.sha256(BODY).hexdigest(), remote_path=REMOTE,
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    """No user settings leak in; the cache folder is a tmp dir; local URLs bypass any proxy."""
    for name in ("TURS_DATA_DIR", "TURS_DATA_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TURS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def server():
    with LocalServer({REMOTE: BODY}) as srv:
        yield srv


@pytest.fixture
def fake_registered(monkeypatch):
    """FAKE known by name (as a scale-benchmark entry), so load() and the CLI find it."""
    monkeypatch.setitem(td.LARGE_DATASETS, FAKE.name, FAKE)
    return FAKE


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


# ----------------------------------------------------------------------------------- fetching


def test_good_file_is_fetched_then_verified_without_a_second_download(server, tmp_path):
    dest = tmp_path / "data"
    result = td.fetch_file(FAKE, dest, base_url=server.url, retries=0, progressbar=True)
    assert result == td.FetchResult("fake-iris", "fetched", dest / "uci" / "fake.csv",
                                    server.url + REMOTE)
    assert result.path.read_bytes() == BODY
    assert _files(dest) == [result.path]  # no temporary file left beside it
    assert server.requests[REMOTE] == 1
    again = td.fetch_file(FAKE, dest, base_url=server.url, retries=0)
    assert again.status == "verified" and again.path == result.path
    assert server.requests[REMOTE] == 1  # verified by its checksum, not downloaded again


def test_base_url_comes_from_the_environment(server, tmp_path, monkeypatch):
    monkeypatch.setenv("TURS_DATA_BASE_URL", server.url.rstrip("/"))  # a missing / is added
    result = td.fetch_file(FAKE, tmp_path, retries=0, progressbar=False)
    assert result.status == "fetched" and result.url == server.url + REMOTE
    assert _fetch.resolve_base_url() == server.url
    assert _fetch.resolve_base_url("https://mirror.example/x/") == "https://mirror.example/x/"
    monkeypatch.setenv("TURS_DATA_BASE_URL", "ftp://mirror.example/")
    with pytest.raises(ValueError, match=r"\$TURS_DATA_BASE_URL must be an http:// or https://"):
        td.fetch_file(FAKE, tmp_path / "other", retries=0)
    monkeypatch.delenv("TURS_DATA_BASE_URL")
    assert _fetch.source_url(td.REGISTRY["car"]) == td.REGISTRY["car"].download_url


def test_wrong_checksum_names_dataset_url_and_hashes_and_leaves_no_file(server, tmp_path):
    tampered = BODY.replace(b"a1", b"b1")
    server.files[REMOTE] = tampered
    dest = tmp_path / "data"
    with pytest.raises(td.DatasetChecksumError) as excinfo:
        td.fetch_file(FAKE, dest, base_url=server.url, retries=1, progressbar=False)
    error = excinfo.value
    assert isinstance(error, ValueError) and isinstance(error, OSError)
    assert error.dataset == "fake-iris" and error.url == server.url + REMOTE
    message = str(error)
    assert "'fake-iris'" in message and server.url + REMOTE in message
    assert hashlib.sha256(tampered).hexdigest() in message and FAKE.sha256 in message
    assert "Nothing was saved" in message and "TURS_DATA_DIR" in message
    assert server.requests[REMOTE] == 2  # retries=1: tried twice
    assert _files(dest) == []


def test_server_down_is_a_clear_error_and_leaves_nothing(tmp_path):
    base = dead_url()
    dest = tmp_path / "data"
    with pytest.raises(td.DatasetFetchError) as excinfo:
        td.fetch_file(FAKE, dest, base_url=base, retries=0, progressbar=False)
    error = excinfo.value
    assert not isinstance(error, ValueError)
    message = str(error)
    assert "'fake-iris'" in message and base + REMOTE in message
    assert "could not connect" in message and "check your internet connection" in message
    assert "TURS_DATA_DIR" in message and "by hand" in message
    assert isinstance(error.__cause__, requests.exceptions.ConnectionError)
    assert _files(dest) == []


def test_missing_remote_file_reports_the_http_status(server, tmp_path):
    other = dataclasses.replace(FAKE, remote_path="someone/TURS2/0123/datasets/absent.csv")
    with pytest.raises(td.DatasetFetchError, match=r"answered 404 Not Found") as excinfo:
        td.fetch_file(other, tmp_path, base_url=server.url, retries=0, progressbar=False)
    assert server.url + other.remote_path in str(excinfo.value)
    assert _files(tmp_path) == []


def test_interrupted_download_leaves_no_half_file_and_the_next_run_completes(server, tmp_path):
    server.truncate.add(REMOTE)
    dest = tmp_path / "data"
    with pytest.raises(td.DatasetFetchError, match="broke off during the download") as excinfo:
        td.fetch_file(FAKE, dest, base_url=server.url, retries=0, progressbar=False)
    assert "'fake-iris'" in str(excinfo.value) and server.url + REMOTE in str(excinfo.value)
    assert _files(dest) == []
    server.truncate.clear()
    result = td.fetch_file(FAKE, dest, base_url=server.url, retries=0, progressbar=False)
    assert result.status == "fetched" and result.path.read_bytes() == BODY
    assert server.requests[REMOTE] == 2


def test_keyboard_interrupt_mid_download_leaves_no_file(server, tmp_path, monkeypatch):
    real_iter_content = requests.models.Response.iter_content

    def interrupted(self, *args, **kwargs):
        chunks = real_iter_content(self, *args, **kwargs)
        yield next(chunks)  # one chunk is written to the temporary file, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(requests.models.Response, "iter_content", interrupted)
    dest = tmp_path / "data"
    with pytest.raises(KeyboardInterrupt):
        td.fetch_file(FAKE, dest, base_url=server.url, retries=2, progressbar=True)
    assert server.requests[REMOTE] == 1  # an interrupt is not retried
    assert _files(dest) == []


def test_a_present_file_with_another_checksum_is_replaced_only_by_a_verified_download(
        server, tmp_path):
    target = tmp_path / "uci" / "fake.csv"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"an older version\n")
    with pytest.raises(td.DatasetFetchError):
        td.fetch_file(FAKE, tmp_path, base_url=dead_url(), retries=0, progressbar=False)
    assert target.read_bytes() == b"an older version\n"  # untouched by the failed download
    result = td.fetch_file(FAKE, tmp_path, base_url=server.url, retries=0, progressbar=False)
    assert result.status == "fetched" and target.read_bytes() == BODY
    assert _files(tmp_path) == [target]


def test_verify_only_never_downloads(server, tmp_path):
    with pytest.raises(td.DatasetFetchError, match="is missing, and downloading was not allowed"):
        td.fetch_file(FAKE, tmp_path, base_url=server.url, download=False)
    assert server.requests[REMOTE] == 0
    with pytest.raises(td.DatasetFetchError, match="'backdoor' has no pinned download source") \
            as excinfo:
        td.fetch_file("backdoor", tmp_path)
    assert td.REGISTRY["backdoor"].url in str(excinfo.value)


def test_bad_retry_and_timeout_values_are_rejected(server, tmp_path):
    with pytest.raises(ValueError, match="retries must be an int >= 0. Got -1"):
        td.fetch_file(FAKE, tmp_path, base_url=server.url, retries=-1)
    with pytest.raises(ValueError, match="timeout must be a number of seconds > 0. Got 0"):
        td.fetch_file(FAKE, tmp_path, base_url=server.url, timeout=0)
    assert server.requests[REMOTE] == 0


def test_fetch_errors_survive_pickling():
    error = td.DatasetChecksumError("boom", dataset="car", url="https://x/car.csv")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is td.DatasetChecksumError
    assert (str(again), again.dataset, again.url) == ("boom", "car", "https://x/car.csv")


def test_fetch_goes_on_after_a_failure_and_reports_each_dataset(server, fake_registered, tmp_path):
    results = td.fetch(["fake-iris", "backdoor"], dest=tmp_path, base_url=server.url,
                       retries=0, progressbar=False)
    assert [(r.name, r.status) for r in results] == [("fake-iris", "fetched"),
                                                     ("backdoor", "failed")]
    assert "no pinned download source" in results[1].error
    with pytest.raises(ValueError, match="Unknown dataset 'nope'"):
        td.fetch(["fake-iris", "nope"], dest=tmp_path)
    assert server.requests[REMOTE] == 1


# --------------------------------------------------------------- where fetched data is found


def test_fetch_without_dest_fills_the_cache_where_load_finds_it(
        server, fake_registered, tmp_path, monkeypatch):
    monkeypatch.setenv("TURS_DATA_BASE_URL", server.url)
    [result] = td.fetch(["fake-iris"], retries=0, progressbar=False)
    assert result.path == tmp_path / "cache" / "uci" / "fake.csv" == td.cache_dir() / FAKE.file
    X, y = td.load("fake-iris", download=False)  # found in the cache, no download needed
    assert X.shape == (9000, 7) and y.nunique() == 3  # 2 float columns + x2 one-hot (5 levels)
    assert server.requests[REMOTE] == 1


def test_fetch_prefers_turs_data_dir_over_the_cache(server, fake_registered, tmp_path,
                                                    monkeypatch):
    monkeypatch.setenv("TURS_DATA_DIR", str(tmp_path / "shared"))
    assert _fetch.default_dest() == tmp_path / "shared"
    assert _fetch.default_dest(tmp_path / "given") == tmp_path / "given"
    [result] = td.fetch(["fake-iris"], base_url=server.url, retries=0, progressbar=False)
    assert result.path == tmp_path / "shared" / "uci" / "fake.csv"
    assert not (tmp_path / "cache").exists()
    assert td.dataset_path("fake-iris", download=False) == result.path


def test_load_downloads_a_missing_file_into_the_cache(server, fake_registered, tmp_path,
                                                      monkeypatch):
    monkeypatch.setenv("TURS_DATA_BASE_URL", server.url)
    monkeypatch.setattr(_fetch, "DEFAULT_RETRIES", 0)
    X, y = td.load("fake-iris", preprocess=False)
    assert X.shape == (9000, 3) and (tmp_path / "cache" / "uci" / "fake.csv").is_file()
    td.load("fake-iris")
    assert server.requests[REMOTE] == 1
    server.files[REMOTE + ".moved"] = server.files.pop(REMOTE)
    (tmp_path / "cache" / "uci" / "fake.csv").unlink()
    with pytest.raises(FileNotFoundError) as excinfo:
        td.load("fake-iris")
    message = str(excinfo.value)
    assert "answered 404" in message and server.url + REMOTE in message
    assert "$TURS_DATA_DIR is not set" in message and str(tmp_path / "cache") in message


# ------------------------------------------------------------------------------------------ CLI


def test_cli_fetch_prints_a_summary_and_exits_0_then_verifies(server, fake_registered, tmp_path,
                                                              capsys):
    args = ["fetch", "--datasets", "fake-iris", "--dest", str(tmp_path), "--base-url",
            server.url, "--retries", "0", "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert re.search(r"^fetched  fake-iris  .*uci/fake\.csv$", out, flags=re.M)
    assert out.strip().endswith(
        f"1 datasets (--datasets) in {tmp_path}: 1 fetched, 0 verified, 0 failed")
    assert main(args) == 0
    assert capsys.readouterr().out.strip().endswith("0 fetched, 1 verified, 0 failed")
    assert server.requests[REMOTE] == 1


def test_cli_fetch_exits_1_on_a_failure(server, fake_registered, tmp_path, capsys, monkeypatch):
    bad = dataclasses.replace(FAKE, name="fake-bad", file="uci/bad.csv", sha256="0" * 64)
    monkeypatch.setitem(td.LARGE_DATASETS, bad.name, bad)
    code = main(["fetch", "--datasets", "fake-iris,fake-bad", "--dest", str(tmp_path),
                 "--base-url", server.url, "--retries", "0", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 1
    assert "failed   fake-bad" in out and "Checksum mismatch for dataset 'fake-bad'" in out
    assert out.strip().endswith("1 fetched, 0 verified, 1 failed")
    assert _files(tmp_path) == [tmp_path / "uci" / "fake.csv"]
    assert main(["fetch", "--datasets", "nope", "--dest", str(tmp_path)]) == 1
    assert "Unknown dataset 'nope'" in capsys.readouterr().err


def test_cli_list_shows_files_states_and_pinned_urls(server, tmp_path, capsys):
    assert main(["list", "--profile", "large", "--dest", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"data folder: {tmp_path}"
    assert [line.split()[:4] for line in out[1:]] == [
        [name, "large", f"large/{name}.npz", "missing"] for name in td.LARGE_DATASETS]
    assert all(line.split()[-1] == td.LARGE_DATASETS[line.split()[0]].download_url
               for line in out[1:])


@pytest.mark.subprocess
def test_module_entry_point_exit_code(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TURS_DATA_DIR"}
    proc = subprocess.run(
        [sys.executable, "-m", "turs.datasets", "fetch", "--profile", "large", "--verify-only",
         "--dest", str(tmp_path), "--no-progress"],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.strip().endswith(
        f"4 datasets (profile large) in {tmp_path}: 0 fetched, 0 verified, 4 failed")
    assert proc.stdout.count("downloading was not allowed") == 4


# ------------------------------------------------------------------------- profiles and pins


def test_fetch_profiles():
    paper, large = td.profile_datasets("paper"), td.profile_datasets("large")
    assert len(paper) == 30 and "backdoor" not in paper and set(paper) < set(td.REGISTRY)
    assert set(paper) == set(PROFILES["paper"].datasets)
    assert large == ["shuttle", "skin", "campaign", "cover"] == list(PROFILES["large"].datasets)
    assert td.profile_datasets("all") == paper + large
    assert PROFILES["large"].folds == (0, 1, 2, 3, 4)
    assert not set(large) & (set(td.REGISTRY) | set(td.list_datasets()))
    with pytest.raises(ValueError, match="Unknown fetch profile 'thesis'"):
        td.profile_datasets("thesis")


def test_every_download_url_is_pinned_to_a_commit():
    turs2 = f"https://raw.githubusercontent.com/ylincen/TURS2/{td._registry.TURS2_COMMIT}/datasets/"
    adbench = ("https://raw.githubusercontent.com/Minqi824/ADBench/"
               f"{td._registry.ADBENCH_COMMIT}/adbench/datasets/Classical/")
    assert re.fullmatch(r"[0-9a-f]{40}", td._registry.TURS2_COMMIT)
    assert re.fullmatch(r"[0-9a-f]{40}", td._registry.ADBENCH_COMMIT)
    infos = list(td.REGISTRY.values()) + list(td.LARGE_DATASETS.values())
    for info in infos:
        if not info.available:
            assert info.download_url is None and info.sha256 is None, info.name
            continue
        assert re.fullmatch(r"[0-9a-f]{64}", info.sha256), info.name
        if info.collection == "uci":
            assert info.download_url == turs2 + Path(info.file).name, info.name
            assert info.url.startswith(("https://archive.ics.uci.edu/",
                                        "https://www.kaggle.com/")), info.name
        else:
            assert re.fullmatch(re.escape(adbench) + r"\d+_[\w.-]+\.npz", info.download_url)
            assert info.url == info.download_url, info.name
    assert sum(i.collection == "uci" for i in infos) == 18


# ------------------------------------------------------- end to end with the real registry


def test_real_registry_end_to_end_through_a_local_mirror(tmp_path):
    """The study's files, served under their pinned remote paths, fetch and verify and load."""
    if DATA_DIR is None:
        pytest.skip(NO_DATA)
    names = ["iris", "car", "glass-2", "shuttle"]
    infos = [td.get_info(n) for n in names]
    if not all((Path(DATA_DIR) / i.file).is_file() for i in infos):
        pytest.skip(f"not all of {names} are in TURS_DATA_DIR={DATA_DIR} (run `make data`)")
    files = {i.remote_path: (Path(DATA_DIR) / i.file).read_bytes() for i in infos}
    with LocalServer(files) as srv:
        results = td.fetch(names, dest=tmp_path, base_url=srv.url, retries=0, progressbar=False)
        assert [r.status for r in results] == ["fetched"] * 4
        assert [r.status for r in td.fetch(names, dest=tmp_path, base_url=srv.url)] == [
            "verified"] * 4
        assert all(srv.requests[i.remote_path] == 1 for i in infos)
    X, y = td.load("shuttle", data_dir=tmp_path)
    assert X.shape == (49097, 9) and np.bincount(y).tolist() == [45586, 3511]
    assert td.load("car", data_dir=tmp_path)[0].shape == (1728, 21)
