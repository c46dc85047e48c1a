"""Where the benchmark datasets' files are and whether they are the right ones: a dataset's
registry entry by name (:func:`get_info`), the cache folder (:func:`cache_dir`) and the files'
SHA-256 (:func:`sha256_file`). Both reading (``_load``) and downloading (``_fetch``) start here.
"""
from __future__ import annotations

import difflib
import hashlib
import os
import threading
from pathlib import Path

import platformdirs

from ._bundled import BUNDLED
from ._registry import LARGE_DATASETS, REGISTRY, DatasetInfo

__all__ = ["get_info", "cache_dir", "sha256_file", "ENV_DATA_DIR", "ENV_CACHE_DIR"]

ENV_DATA_DIR = "TURS_DATA_DIR"
ENV_CACHE_DIR = "TURS_CACHE_DIR"

_ALIASES = {"smt": "smtp"}  # Table 3.2 prints "smt" where the other tables say "smtp"

# (resolved path, mtime_ns, size) -> sha256 hex digest, so repeated loads hash a file once.
_DIGESTS: dict[tuple[str, int, int], str] = {}
_DIGESTS_LOCK = threading.Lock()


def get_info(name: str) -> DatasetInfo:
    """The registry entry of a thesis dataset (:data:`REGISTRY`) or of a scale-benchmark dataset
    (:data:`LARGE_DATASETS`); case-insensitive, and ``"smt"`` means ``"smtp"``."""
    if not isinstance(name, str):
        raise TypeError(f"Dataset name must be a str. Got {type(name).__name__} instead.")
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key in REGISTRY:
        return REGISTRY[key]
    if key in LARGE_DATASETS:
        return LARGE_DATASETS[key]
    hint = ""
    if key in BUNDLED:
        hint = f" {name!r} is a bundled dataset: use turs.datasets.load_bundled({key!r})."
    else:
        known = list(REGISTRY) + list(LARGE_DATASETS) + list(BUNDLED)
        close = difflib.get_close_matches(key, known, n=1)
        if close:
            hint = f" Did you mean {close[0]!r}?"
    raise ValueError(
        f"Unknown dataset {name!r}.{hint} Thesis datasets: {', '.join(REGISTRY)}. "
        f"Scale-benchmark datasets (profile 'large'): {', '.join(LARGE_DATASETS)}. "
        f"Bundled datasets (load_bundled): {', '.join(BUNDLED)}."
    )


def cache_dir() -> Path:
    """The cache folder: ``$TURS_CACHE_DIR``, else ``pooch.os_cache("turs")`` (not created).

    That is the platform's user cache folder for ``turs`` (``platformdirs.user_cache_path``;
    ``~/.cache/turs`` on Linux). ``python -m turs.datasets fetch`` fills it when neither
    ``--dest`` nor ``$TURS_DATA_DIR`` is given, and :func:`load` looks there last.
    """
    env = os.environ.get(ENV_CACHE_DIR, "").strip()
    return Path(env).expanduser() if env else platformdirs.user_cache_path("turs")


def sha256_file(path: str | os.PathLike) -> str:
    """SHA-256 hex digest of a file, remembered per (path, mtime, size) within the process."""
    path = Path(path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _DIGESTS_LOCK:
        if key in _DIGESTS:
            return _DIGESTS[key]
    digest = _hash_file(path)
    with _DIGESTS_LOCK:
        _DIGESTS[key] = digest
    return digest


def _hash_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
