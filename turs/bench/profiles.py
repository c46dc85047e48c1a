"""Benchmark datasets by name, and the profiles ``quick``, ``paper`` and ``large``.

A benchmark dataset name is resolved by :func:`load_dataset`, in order:

1. a loader registered with :func:`register_dataset`;
2. the bundled data (:data:`turs.datasets.BUNDLED`): ``sklearn-iris``, ``sklearn-wine``,
   ``sklearn-breast-cancer``, ``sim-overlap-blockade`` (n = 1000) and ``sim-local-testing``,
   which the benchmark draws with **n = 2000** (seed 0) to keep the quick profile quick;
3. a thesis or scale-benchmark dataset: :func:`turs.datasets.load` (``TURS_DATA_DIR``, or the
   cache folder that ``make data`` / ``python -m turs.datasets fetch`` fills).

Profiles:

* ``quick``: the five bundled datasets, 5 folds; no data directory needed, a few minutes on
  2 cores for ``turs`` and ``cart``.
* ``paper``: the 30 thesis datasets that the study has (Table 3.2 without backdoor), smallest
  first (rows x columns), 5 folds.
* ``large``: the scale benchmark's four larger ADBench datasets (``shuttle``, ``skin``,
  ``campaign``, ``cover``; :data:`turs.datasets.LARGE_DATASETS`), smallest first, 5 folds. They
  are not thesis datasets: no thesis table or figure uses them.
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Callable

import pandas as pd

from ..datasets import BUNDLED, LARGE_DATASETS, REGISTRY, get_info, load, load_bundled

__all__ = [
    "PROFILES",
    "Profile",
    "check_dataset_name",
    "dataset_loader",
    "get_profile",
    "load_dataset",
    "register_dataset",
    "register_seed_datasets",
    "unregister_dataset",
]

N_FOLDS = 5
#: Keyword arguments the benchmark passes to :func:`turs.datasets.load_bundled`.
BUNDLED_PARAMS = {"sim-local-testing": {"n": 2000, "seed": 0}}

_LOADERS: dict[str, Callable[[], tuple[pd.DataFrame, pd.Series]]] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Profile:
    """A named set of datasets and folds."""

    name: str
    datasets: tuple[str, ...]
    folds: tuple[int, ...]
    description: str


def _paper_datasets() -> tuple[str, ...]:
    infos = [i for i in REGISTRY.values() if i.available and i.name != "backdoor"]
    infos.sort(key=lambda i: (i.thesis_rows * (i.thesis_columns - 1), i.name))
    return tuple(i.name for i in infos)


PROFILES: dict[str, Profile] = {
    "quick": Profile(
        "quick",
        ("sklearn-iris", "sklearn-wine", "sklearn-breast-cancer", "sim-local-testing", "sim-overlap-blockade"),
        tuple(range(N_FOLDS)),
        "bundled data only (no TURS_DATA_DIR needed); a few minutes on 2 cores",
    ),
    "paper": Profile(
        "paper",
        _paper_datasets(),
        tuple(range(N_FOLDS)),
        "the 30 available thesis datasets (Table 3.2 without backdoor), smallest first; needs TURS_DATA_DIR or make data",
    ),
    "large": Profile(
        "large",
        tuple(LARGE_DATASETS),
        tuple(range(N_FOLDS)),
        "the scale benchmark's 4 larger ADBench datasets (not in the thesis), smallest first; "
        "needs make data DATA_PROFILE=large",
    ),
}


def get_profile(name: str) -> Profile:
    if name not in PROFILES:
        raise ValueError(f"Unknown profile {name!r}. Choose one of: {', '.join(PROFILES)}.")
    return PROFILES[name]


def register_dataset(name: str, loader: Callable[[], tuple[pd.DataFrame, pd.Series]], *, replace: bool = False) -> None:
    """Make ``loader()`` (returning ``(X, y)``) available to the benchmark as ``name``.

    The loader is sent to the worker processes with the task (by reference, or by value when
    defined in ``__main__``).
    """
    if not callable(loader):
        raise TypeError(f"The loader of dataset {name!r} must be callable. Got {loader!r}.")
    with _LOCK:
        if name in _LOADERS and not replace:
            raise ValueError(f"Dataset {name!r} is already registered; pass replace=True to replace it.")
        _LOADERS[name] = loader


def register_seed_datasets() -> None:
    """Make the seed check's extra datasets benchmark datasets (idempotent): ``seed-heart`` and
    ``seed-campaign``, loaded by :data:`turs.competitors.seeds.SEED_DATASETS`."""
    from ..competitors.seeds import SEED_DATASETS

    for name, loader in SEED_DATASETS.items():
        register_dataset(name, loader, replace=True)


def unregister_dataset(name: str) -> None:
    with _LOCK:
        _LOADERS.pop(name, None)


def dataset_loader(name: str) -> Callable[[], tuple[pd.DataFrame, pd.Series]]:
    """The loader of a benchmark dataset (see the module docstring for the order)."""
    with _LOCK:
        if name in _LOADERS:
            return _LOADERS[name]
    if name in BUNDLED:
        return functools.partial(load_bundled, name, **BUNDLED_PARAMS.get(name, {}))
    return functools.partial(load, name)


def check_dataset_name(name: str) -> None:
    """``ValueError`` (with a suggestion) unless ``name`` is a registered, bundled or thesis dataset."""
    with _LOCK:
        if name in _LOADERS:
            return
    if name in BUNDLED:
        return
    info = get_info(name)  # raises ValueError: unknown name, with the close matches
    if info.name != name:
        raise ValueError(f"Use the thesis name {info.name!r} for dataset {name!r} in the benchmark.")


def load_dataset(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """``(X, y)`` of a benchmark dataset."""
    return dataset_loader(name)()
