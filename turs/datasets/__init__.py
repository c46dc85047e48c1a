"""Datasets for `turs`: the thesis' 31 benchmark datasets, bundled data and the thesis tables.

* :func:`load` reads a thesis dataset (Yang 2024, Table 3.2) by its thesis name from a data
  directory (``data_dir``, ``$TURS_DATA_DIR`` or the cache folder), checks its SHA-256 and
  applies the reference preprocessing; :data:`REGISTRY` and :func:`list_datasets` describe them.
  It also reads the scale benchmark's larger datasets (:data:`LARGE_DATASETS`: ``cover``,
  ``campaign``, ``shuttle``, ``skin``), which are not thesis datasets.
* :func:`fetch` (``python -m turs.datasets fetch``, ``make data``) downloads the datasets of a
  profile (``paper``, ``large``, ``all``) from sources pinned to a commit, through pooch, and
  verifies their SHA-256; files already present are verified, not downloaded again.
* :func:`load_bundled` gives data that needs no download: scikit-learn's iris, wine and breast
  cancer, and the simulated :func:`make_local_testing_data` and
  :func:`make_overlap_blockade_data`.
* :func:`paper_table` reads the thesis' Tables 3.2-3.6 from ``data/paper``.

See ``docs/datasets.md``.
"""
from ._bundled import BUNDLED, load_bundled
from ._fetch import (
    FETCH_PROFILES,
    DatasetChecksumError,
    DatasetFetchError,
    FetchResult,
    fetch,
    fetch_file,
    profile_datasets,
)
from ._load import cache_dir, dataset_path, get_info, load, sha256_file
from ._paper import PAPER_DIR, list_paper_tables, paper_table
from ._preprocess import MAX_INTEGER_LEVELS, is_numeric_feature, preprocess_features
from ._registry import LARGE_DATASETS, REGISTRY, DatasetInfo, list_datasets
from ._simulated import (
    OVERLAP_BLOCKADE_ELSE_PROB,
    OVERLAP_BLOCKADE_PROBS,
    OVERLAP_BLOCKADE_RULES,
    make_local_testing_data,
    make_overlap_blockade_data,
)

__all__ = [
    "BUNDLED",
    "DatasetChecksumError",
    "DatasetFetchError",
    "DatasetInfo",
    "FETCH_PROFILES",
    "FetchResult",
    "LARGE_DATASETS",
    "MAX_INTEGER_LEVELS",
    "OVERLAP_BLOCKADE_ELSE_PROB",
    "OVERLAP_BLOCKADE_PROBS",
    "OVERLAP_BLOCKADE_RULES",
    "PAPER_DIR",
    "REGISTRY",
    "cache_dir",
    "dataset_path",
    "fetch",
    "fetch_file",
    "get_info",
    "is_numeric_feature",
    "list_datasets",
    "list_paper_tables",
    "load",
    "load_bundled",
    "make_local_testing_data",
    "make_overlap_blockade_data",
    "paper_table",
    "preprocess_features",
    "profile_datasets",
    "sha256_file",
]
