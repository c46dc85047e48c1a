"""Finding, verifying and reading the benchmark datasets (downloading is in ``_fetch``).

Look-up order for a dataset's file (``DatasetInfo.file``, e.g. ``uci/car.csv``):

1. the ``data_dir`` argument;
2. the directory in the environment variable ``TURS_DATA_DIR``;
3. the cache folder, which is also where ``python -m turs.datasets fetch`` puts the files when
   neither ``--dest`` nor ``TURS_DATA_DIR`` is given: ``TURS_CACHE_DIR`` if set, else
   ``pooch.os_cache("turs")`` (the platform's user cache; ``~/.cache/turs`` on Linux).

When the file is in none of them and the registry has a pinned download URL (every dataset but
backdoor), it is downloaded into the cache folder by :func:`turs.datasets._fetch.fetch_file` and
checked against its SHA-256. Otherwise a :class:`FileNotFoundError` says what was searched and
how to fix it.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from . import _fetch
from ._files import ENV_CACHE_DIR, ENV_DATA_DIR, cache_dir, get_info, sha256_file
from ._preprocess import preprocess_features
from ._registry import REGISTRY, DatasetInfo

__all__ = ["load", "get_info", "dataset_path", "cache_dir", "sha256_file"]

ID_COLUMN_NAME = "row_id"


def _search_dirs(data_dir) -> list[tuple[Path | None, str]]:
    """Directories searched, in order, each with a label for error messages."""
    dirs: list[tuple[Path | None, str]] = []
    if data_dir is not None:
        dirs.append((Path(data_dir).expanduser(), "data_dir argument"))
    env = os.environ.get(ENV_DATA_DIR, "").strip()
    dirs.append((Path(env).expanduser() if env else None, f"${ENV_DATA_DIR}"))
    dirs.append((cache_dir(), f"cache folder: ${ENV_CACHE_DIR} or the user cache"))
    return dirs


def _check_sha256(path: Path, info: DatasetInfo) -> None:
    if info.sha256 is None:  # backdoor: nothing to compare with
        return
    actual = sha256_file(path)
    if actual != info.sha256:
        raise ValueError(
            f"Checksum mismatch for dataset {info.name!r}: the file {str(path)!r} has SHA-256 "
            f"{actual}, but the registry expects {info.sha256}. The file is damaged or is a "
            f"different version; replace it with the study's copy (python -m turs.datasets "
            f"fetch --datasets {info.name} --dest DIR downloads it; source: {info.url}), or "
            "pass verify=False to load it anyway."
        )


def _fix_hint(info: DatasetInfo) -> str:
    return (
        f"Fix: run `python -m turs.datasets fetch --datasets {info.name}` (or `make data`) "
        f"where the internet can be reached, or set the environment variable {ENV_DATA_DIR} to "
        f"a directory that holds {info.file!r} (for the TURS study, its shared/datasets "
        "folder), or pass data_dir=... to load()."
    )


def _searched_text(dirs) -> str:
    lines = []
    for directory, label in dirs:
        if directory is None:
            lines.append(f"  - ({label} is not set)")
        else:
            lines.append(f"  - {directory} ({label})")
    return "\n".join(lines)


def dataset_path(
    name: str, *, data_dir: str | os.PathLike | None = None, verify: bool = True,
    download: bool = True,
) -> Path:
    """Path of a dataset's file, found (or downloaded) as described for :func:`load`.

    Raises
    ------
    FileNotFoundError
        The file is in none of the searched directories and could not be downloaded.
    ValueError
        ``verify`` is true and the file's SHA-256 differs from the registry's.
    """
    info = get_info(name)
    dirs = _search_dirs(data_dir)
    for directory, _label in dirs:
        if directory is None:
            continue
        candidate = directory / info.file
        if candidate.is_file():
            if verify:
                _check_sha256(candidate, info)
            return candidate

    searched = _searched_text(dirs)
    if not info.available:
        raise FileNotFoundError(
            f"Dataset {info.name!r} is not available here ({info.notes}). Directories searched "
            f"for {info.file!r}:\n{searched}\nFix: get it from {info.url}, save it as "
            f"{info.file!r} inside a data directory and set {ENV_DATA_DIR} to that directory."
        )

    url = _fetch.source_url(info)
    error = None
    if url is None:
        why = f"It has no pinned download source (source: {info.url})."
    elif not download:
        why = f"Downloading it from {url} was not attempted (download=False)."
    else:
        try:
            return _fetch.fetch_file(info, cache_dir()).path
        except _fetch.DatasetChecksumError:
            raise
        except _fetch.DatasetFetchError as exc:
            error = exc
            why = f"Downloading it into the cache folder failed. {exc}"
    fix = "" if error is not None else "\n" + _fix_hint(info)  # the fetch error has its fix
    raise FileNotFoundError(
        f"Dataset {info.name!r} needs the file {info.file!r}, which was not found in any of "
        f"the directories searched:\n{searched}\n{why}{fix}"
    ) from error


def _read_csv(info: DatasetInfo, path: Path) -> tuple[pd.DataFrame, pd.Series]:
    frame = pd.read_csv(path, header=0 if info.csv_header else None, skipinitialspace=True)
    n_features = frame.shape[1] - 1
    if info.csv_header:
        names = [str(c).strip() for c in frame.columns]
        names = [f"x{i}" if n.startswith("Unnamed: ") or not n else n for i, n in enumerate(names)]
        label = names[-1]
    else:
        names = [f"x{i}" for i in range(n_features)] + ["y"]
        label = "y"
    if info.id_column is not None:
        names[info.id_column] = ID_COLUMN_NAME
    frame.columns = names
    return frame.iloc[:, :n_features], frame[label]


def _read_npz(info: DatasetInfo, path: Path) -> tuple[pd.DataFrame, pd.Series]:
    with np.load(path, allow_pickle=False) as arrays:
        missing = {"X", "y"} - set(arrays.files)
        if missing:
            raise ValueError(
                f"The file {str(path)!r} of dataset {info.name!r} lacks the array(s) "
                f"{sorted(missing)}; an ADBench .npz holds 'X' and 'y'. Replace the file."
            )
        X, y = arrays["X"], arrays["y"]
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    return frame, pd.Series(y, name="y")


def load(
    name: str,
    *,
    data_dir: str | os.PathLike | None = None,
    preprocess: bool = True,
    drop_id: bool = False,
    verify: bool = True,
    download: bool = True,
) -> tuple[pd.DataFrame, pd.Series]:
    """Load a thesis dataset (Yang 2024, Table 3.2) or a scale-benchmark dataset as ``(X, y)``.

    Parameters
    ----------
    name : str
        Thesis name, e.g. ``"car"``, ``"glass-2"`` (see :func:`list_datasets`), or one of the
        scale benchmark's ``"cover"``, ``"campaign"``, ``"shuttle"``, ``"skin"``
        (:data:`LARGE_DATASETS`, the ``large`` profile).
    data_dir : path-like, optional
        Directory searched first. Then ``$TURS_DATA_DIR``, then the cache folder, where
        ``python -m turs.datasets fetch`` (``make data``) puts the files when neither ``--dest``
        nor ``$TURS_DATA_DIR`` is given: ``$TURS_CACHE_DIR``, else ``pooch.os_cache("turs")``
        (``~/.cache/turs`` on Linux; see :func:`cache_dir`). A file missing everywhere is
        downloaded into the cache folder from its pinned source (every dataset but backdoor).
    preprocess : bool, default True
        One-hot encode the categorical feature columns as the reference runs did
        (:func:`preprocess_features`); ``False`` returns the columns as read.
    drop_id : bool, default False
        Drop the row-ID column ``"row_id"``. Only for the datasets that have one:
        ``glass`` (UCI glass keeps the row ID as its first column and the rows are sorted by
        class, so the ID leaks the label; the thesis result of 0.967 was obtained with it,
        hence it is kept by default) and ``anuran`` (a row index, also counted in Table 3.2).
    verify : bool, default True
        Check the file's SHA-256 against the registry (once per file version and process).
    download : bool, default True
        Whether a missing file may be downloaded (through pooch, with a progress bar, 30 s
        timeout and 2 retries; see ``turs.datasets._fetch``).

    Returns
    -------
    X : pandas.DataFrame
        Features. CSV files keep their header names (leading/trailing spaces removed);
        headerless files and ADBench ``.npz`` arrays get ``x0, x1, ...`` (the position in the
        file); the row-ID column is named ``"row_id"``.
    y : pandas.Series
        The original labels (not encoded), named after the label column (``"y"`` when the
        file has no header).

    Raises
    ------
    ValueError
        Unknown name, ``drop_id=True`` for a dataset without an ID column, or a checksum
        mismatch (of a found file, or of a download: ``DatasetChecksumError``).
    FileNotFoundError
        The file is not found and cannot be downloaded (the message names the file, the
        directories searched, the URL and the fix: ``make data`` when online, or setting
        ``TURS_DATA_DIR``), or the dataset (backdoor) is not part of the study's data.
    """
    info = get_info(name)
    if drop_id and info.id_column is None:
        with_id = ", ".join(n for n, i in REGISTRY.items() if i.id_column is not None)
        raise ValueError(
            f"drop_id=True applies only to datasets with a row-ID column ({with_id}); dataset "
            f"{info.name!r} has none. Leave drop_id=False."
        )
    path = dataset_path(info.name, data_dir=data_dir, verify=verify, download=download)
    reader = _read_npz if info.format == "npz" else _read_csv
    X, y = reader(info, path)
    if drop_id:
        X = X.drop(columns=ID_COLUMN_NAME)
    if preprocess:
        X = preprocess_features(X)
    return X, y
