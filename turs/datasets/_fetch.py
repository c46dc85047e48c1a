"""Fetching the benchmark datasets from their pinned public sources, through pooch.

:func:`fetch` makes every dataset of a profile (``paper``, ``large`` or ``all``) present and
verified in one folder; :func:`fetch_file` does it for one dataset. ``python -m turs.datasets
fetch`` and ``make data`` call :func:`fetch`.

* **Folder** (``dest``): the ``dest`` argument, else ``$TURS_DATA_DIR``, else the cache folder
  (:func:`turs.datasets.cache_dir`: ``$TURS_CACHE_DIR``, else ``pooch.os_cache("turs")``, the
  platform's user cache, ``~/.cache/turs`` on Linux). :func:`turs.datasets.load` looks in
  ``$TURS_DATA_DIR`` and then in the cache folder, so fetched data is found without settings.
* **Verified, not fetched again**: a file already there with the registry's SHA-256.
* **Download**: any other file is downloaded by :mod:`pooch` from ``base URL + remote_path``
  (a URL pinned to a commit, see :mod:`turs.datasets._registry`), with retries and a progress
  bar, into a temporary file beside its final name; it is moved to its name only once its
  SHA-256 matches. A failed, interrupted (``KeyboardInterrupt``) or corrupted download leaves no
  file under the dataset's name, so the next run simply fetches what is still missing. (A
  process killed outright, e.g. ``SIGKILL``, may leave a ``tmp*`` file beside it; it is never
  read and can be deleted.) A file that was there with another checksum is replaced only by a
  download that verifies.
* **Errors**: :class:`DatasetFetchError` (an :class:`OSError`) names the dataset, the URL, what
  went wrong and the fix; a checksum mismatch is a :class:`DatasetChecksumError`, which is also
  a :class:`ValueError`.
* **Base URL**: :data:`~turs.datasets._registry.DEFAULT_BASE_URL`
  (``https://raw.githubusercontent.com/``), or a mirror with the same layout
  (``<owner>/<repository>/<commit>/<path>``) given as ``base_url=`` or ``$TURS_DATA_BASE_URL``.
  The tests serve files from a local ``http.server`` this way, through this same code.
"""
from __future__ import annotations

import contextlib
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ._files import ENV_DATA_DIR, cache_dir, get_info, sha256_file
from ._registry import DEFAULT_BASE_URL, LARGE_DATASETS, REGISTRY, DatasetInfo

__all__ = [
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "ENV_BASE_URL",
    "FETCH_PROFILES",
    "DatasetChecksumError",
    "DatasetFetchError",
    "FetchResult",
    "default_dest",
    "fetch",
    "fetch_file",
    "profile_datasets",
    "resolve_base_url",
    "source_url",
]

ENV_BASE_URL = "TURS_DATA_BASE_URL"
#: Extra download attempts after a failed one (pooch waits 1 s, then 2 s, ... in between).
DEFAULT_RETRIES = 2
#: Seconds without an answer from the server before a download attempt fails.
DEFAULT_TIMEOUT = 30.0
CHUNK_SIZE = 1 << 16
#: ``paper``: the 30 thesis datasets the study has (Table 3.2 without backdoor); ``large``: the
#: scale benchmark's 4 ADBench datasets; ``all``: both.
FETCH_PROFILES = ("paper", "large", "all")

logger = logging.getLogger(__name__)


class DatasetFetchError(OSError):
    """A dataset could not be fetched; the message names the dataset, the URL and the fix."""

    def __init__(self, message: str, *, dataset: str | None = None, url: str | None = None):
        super().__init__(message)
        self.dataset = dataset
        self.url = url

    def __reduce__(self):  # keep the keyword attributes through pickling (worker processes)
        return (_rebuild_error, (type(self), str(self), self.dataset, self.url))


class DatasetChecksumError(DatasetFetchError, ValueError):
    """The bytes downloaded for a dataset do not have the registry's SHA-256."""


def _rebuild_error(cls, message, dataset, url):
    return cls(message, dataset=dataset, url=url)


@dataclass(frozen=True)
class FetchResult:
    """What :func:`fetch` did for one dataset.

    ``status`` is ``"verified"`` (present with the right checksum, not downloaded),
    ``"fetched"`` (downloaded and verified) or ``"failed"`` (``error`` says why and the fix).
    """

    name: str
    status: str
    path: Path
    url: str | None
    error: str | None = None


def resolve_base_url(value: str | None = None) -> str:
    """The base URL downloads use: ``value``, else ``$TURS_DATA_BASE_URL``, else the default.

    Always ends with ``/``; only ``http://`` and ``https://`` are accepted.
    """
    source = "base_url argument"
    chosen = (value or "").strip()
    if not chosen:
        chosen, source = os.environ.get(ENV_BASE_URL, "").strip(), f"${ENV_BASE_URL}"
    if not chosen:
        return DEFAULT_BASE_URL
    if not re.match(r"https?://[^/]+", chosen):
        raise ValueError(
            f"The {source} must be an http:// or https:// URL. Got {chosen!r} instead. Use e.g. "
            f"{DEFAULT_BASE_URL!r} (the default) or a mirror with the same layout."
        )
    return chosen.rstrip("/") + "/"


def source_url(info: DatasetInfo, base_url: str | None = None) -> str | None:
    """The URL a dataset's file is downloaded from (``None`` when it has no pinned source)."""
    if info.remote_path is None:
        return None
    return resolve_base_url(base_url) + info.remote_path


def default_dest(dest: str | os.PathLike | None = None) -> Path:
    """The folder :func:`fetch` fills: ``dest``, else ``$TURS_DATA_DIR``, else the cache folder."""
    if dest is not None and str(dest).strip():
        return Path(dest).expanduser()
    env = os.environ.get(ENV_DATA_DIR, "").strip()
    return Path(env).expanduser() if env else cache_dir()


def profile_datasets(profile: str) -> list[str]:
    """Names of the datasets of a fetch profile (see :data:`FETCH_PROFILES`)."""
    paper = [name for name, info in REGISTRY.items() if info.available]
    large = list(LARGE_DATASETS)
    by_profile = {"paper": paper, "large": large, "all": paper + large}
    if profile not in by_profile:
        raise ValueError(
            f"Unknown fetch profile {profile!r}. Choose one of: {', '.join(FETCH_PROFILES)}."
        )
    return by_profile[profile]


def _by_hand(info: DatasetInfo, target: Path) -> str:
    where = info.download_url or info.url
    if info.download_url and info.url != info.download_url:
        where += f"; cited source: {info.url}"
    return (
        f"get {info.file!r} by hand ({where}), save it as {str(target)!r} (or inside any "
        f"folder, and set {ENV_DATA_DIR} to that folder)"
    )


def fetch_file(
    dataset: str | DatasetInfo,
    dest: str | os.PathLike | None = None,
    *,
    base_url: str | None = None,
    retries: int | None = None,
    timeout: float | None = None,
    progressbar: bool = True,
    download: bool = True,
) -> FetchResult:
    """Make one dataset's file present and verified in ``dest`` (see the module docstring).

    Parameters
    ----------
    dataset : str or DatasetInfo
        A name known to :func:`turs.datasets.get_info`, or a registry entry.
    dest : path-like, optional
        The data folder; the file goes to ``dest / info.file``. Default: :func:`default_dest`.
    base_url : str, optional
        Base URL replacing ``https://raw.githubusercontent.com/`` (default ``$TURS_DATA_BASE_URL``).
    retries : int, optional
        Extra attempts after a failed download (default :data:`DEFAULT_RETRIES`).
    timeout : float, optional
        Seconds without an answer before an attempt fails (default :data:`DEFAULT_TIMEOUT`).
    progressbar : bool, default True
        Show a ``tqdm`` bar while downloading.
    download : bool, default True
        ``False`` only verifies: a missing file or a wrong checksum is an error.

    Returns
    -------
    FetchResult
        With status ``"verified"`` or ``"fetched"``.

    Raises
    ------
    DatasetFetchError
        The file could not be had (offline, server error, interrupted transfer, no pinned
        source, folder not writable); :class:`DatasetChecksumError` when the downloaded bytes
        have another SHA-256. No file is left under the dataset's name by a failed download.
    """
    info = dataset if isinstance(dataset, DatasetInfo) else get_info(dataset)
    retries = DEFAULT_RETRIES if retries is None else retries
    timeout = DEFAULT_TIMEOUT if timeout is None else timeout
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be an int >= 0. Got {retries!r} instead.")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a number of seconds > 0. Got {timeout!r} instead.")
    folder = default_dest(dest)
    target = folder / info.file
    url = source_url(info, base_url)
    present = target.is_file()
    if present and info.sha256 is not None and sha256_file(target) == info.sha256:
        return FetchResult(info.name, "verified", target, url)

    if url is None or info.sha256 is None:
        state = "is there but cannot be verified" if present else "is not there"
        raise DatasetFetchError(
            f"Dataset {info.name!r} has no pinned download source and no checksum ({info.notes}); "
            f"{str(target)!r} {state}. Fix: {_by_hand(info, target)}.",
            dataset=info.name, url=info.url,
        )
    if not download:
        state = "has another SHA-256 than the registry's" if present else "is missing"
        raise DatasetFetchError(
            f"Dataset {info.name!r}: {str(target)!r} {state}, and downloading was not allowed. "
            f"Fix: fetch it from {url} (python -m turs.datasets fetch --datasets {info.name}), "
            f"or {_by_hand(info, target)}.",
            dataset=info.name, url=url,
        )
    if present:
        logger.warning(
            "%s has another SHA-256 than the registry's for dataset %r; downloading %s to replace it",
            target, info.name, url,
        )
    _download(info, url, folder, retries=retries, timeout=timeout, progressbar=progressbar)
    return FetchResult(info.name, "fetched", target, url)


def fetch(
    datasets: list[str] | tuple[str, ...] | None = None,
    *,
    profile: str = "paper",
    dest: str | os.PathLike | None = None,
    base_url: str | None = None,
    retries: int | None = None,
    timeout: float | None = None,
    progressbar: bool = True,
    download: bool = True,
) -> list[FetchResult]:
    """Fetch and verify the datasets of a profile, or the named ``datasets``, into one folder.

    Every dataset is tried: one failure does not stop the others; its :class:`FetchResult` has
    status ``"failed"`` and the error text. Unknown names raise :class:`ValueError` before any
    download. The other parameters are those of :func:`fetch_file`.
    """
    if datasets is None:
        infos = [get_info(name) for name in profile_datasets(profile)]
    else:
        infos = [get_info(name) for name in datasets]  # ValueError for unknown names
    folder = default_dest(dest)
    results = []
    for info in infos:
        try:
            results.append(fetch_file(
                info, folder, base_url=base_url, retries=retries, timeout=timeout,
                progressbar=progressbar, download=download,
            ))
        except DatasetFetchError as exc:
            logger.info("%s", exc)  # reported in the result, for the caller to show
            results.append(FetchResult(info.name, "failed", folder / info.file, exc.url, str(exc)))
    return results


# ----------------------------------------------------------------------------------- download


class _Downloader:
    """pooch's HTTP downloader with a fresh ``tqdm.auto`` bar per attempt, named after the dataset."""

    def __init__(self, name: str, timeout: float, progressbar: bool):
        self.name = name
        self.timeout = timeout
        self.progressbar = progressbar

    def __call__(self, url, output_file, pooch_instance, check_only=False):
        import pooch

        if not self.progressbar:
            return pooch.HTTPDownloader(timeout=self.timeout, chunk_size=CHUNK_SIZE)(
                url, output_file, pooch_instance, check_only=check_only)
        bar = _bar_class()(desc=self.name, unit="B", unit_scale=True, unit_divisor=1024)
        try:
            downloader = pooch.HTTPDownloader(
                progressbar=bar, timeout=self.timeout, chunk_size=CHUNK_SIZE)
            return downloader(url, output_file, pooch_instance, check_only=check_only)
        finally:
            bar.close()


def _bar_class():
    """``tqdm.auto.tqdm`` that is always true: pooch tests ``if progressbar:`` before it sets the
    total from Content-Length, and a tqdm without a total refuses ``bool()``."""
    from tqdm.auto import tqdm

    class _Bar(tqdm):
        def __bool__(self):
            return True

    return _Bar


@contextlib.contextmanager
def _quiet_pooch():
    """pooch logs every download to stderr at INFO; ours goes to :mod:`logging` instead."""
    import pooch

    pooch_logger = pooch.get_logger()
    level = pooch_logger.level
    pooch_logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        pooch_logger.setLevel(level)


def _download(info: DatasetInfo, url: str, folder: Path, *, retries, timeout, progressbar):
    """Download ``url`` to ``folder / info.file`` through pooch, checked against ``info.sha256``."""
    import pooch
    import requests

    target = folder / info.file
    store = pooch.create(
        path=folder, base_url=url.rsplit("/", 1)[0] + "/",
        registry={info.file: f"sha256:{info.sha256}"}, urls={info.file: url},
        retry_if_failed=retries,
    )
    where = f"Nothing was saved under {str(target)!r}."
    retry = "python -m turs.datasets fetch" + f" --datasets {info.name}"
    logger.info("downloading dataset %r from %s to %s", info.name, url, target)
    try:
        with _quiet_pooch():
            store.fetch(info.file, downloader=_Downloader(info.name, timeout, progressbar))
    except requests.exceptions.RequestException as exc:
        if isinstance(exc, requests.exceptions.HTTPError) and exc.response is not None:
            what = f"the server answered {exc.response.status_code} {exc.response.reason}"
            fix = (f"the pinned source may have moved; set ${ENV_BASE_URL} to a mirror with the "
                   f"same layout, or {_by_hand(info, target)}")
        else:
            what = next(text for kind, text in (
                (requests.exceptions.ChunkedEncodingError,
                 "the connection broke off during the download"),
                (requests.exceptions.Timeout, f"no answer within {timeout} s"),
                (requests.exceptions.ConnectionError,
                 "could not connect (offline, blocked, or the server is down)"),
                (Exception, "the request failed"),
            ) if isinstance(exc, kind))
            fix = (f"check your internet connection (and proxy settings), then run `{retry}` "
                   f"again; or {_by_hand(info, target)}")
        raise DatasetFetchError(
            f"Could not download dataset {info.name!r} from {url}: {what} "
            f"({type(exc).__name__}, after {retries + 1} attempt(s)). {where} Fix: {fix}.",
            dataset=info.name, url=url,
        ) from exc
    except ValueError as exc:  # pooch: the downloaded file's hash is not the known one
        got = re.search(r"but got ([0-9a-f]{64})", str(exc))
        raise DatasetChecksumError(
            f"Checksum mismatch for dataset {info.name!r}: the file downloaded from {url} has "
            f"SHA-256 {got.group(1) if got else '(unknown)'}, but the registry expects "
            f"{info.sha256}. {where} The source has changed or the transfer was corrupted. Fix: "
            f"run `{retry}` again; if it persists, {_by_hand(info, target)}.",
            dataset=info.name, url=url,
        ) from exc
    except OSError as exc:  # the folder cannot be created or written
        raise DatasetFetchError(
            f"Could not save dataset {info.name!r} (from {url}) as {str(target)!r}: "
            f"{type(exc).__name__}: {exc}. Fix: choose a writable folder (--dest DIR or "
            f"dest=...), or unset {ENV_DATA_DIR} to use the cache folder {str(cache_dir())!r}.",
            dataset=info.name, url=url,
        ) from exc
