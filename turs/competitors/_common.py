"""Helpers shared by the competitor adapters: install hints, label strings, binarization.

Nothing here imports a competitor library; each adapter imports its library lazily inside
its methods, so ``import turs`` and ``import turs.competitors`` stay cheap.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..adapter import Adapter

INSTALL_HINT = (
    "Install the competitor libraries with `bash .ci/install-competitors.sh` "
    "(into the active venv, $VENV or .venv) or `pip install 'turs[competitors]'` "
    "followed by that script (Orange3 and rulelist need --no-deps installs)."
)


def missing_modules(modules: tuple[str, ...]) -> list[str]:
    """The top-level modules among ``modules`` that cannot be found (nothing is imported)."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


def require(competitor: str, modules: tuple[str, ...], packages: str) -> None:
    """Raise an :class:`ImportError` with the install hint when a module is not installed."""
    missing = missing_modules(modules)
    if missing:
        raise ImportError(
            f"{competitor} needs the Python package(s) {packages}; module(s) "
            f"{', '.join(repr(m) for m in missing)} not found. {INSTALL_HINT}"
        )


class CompetitorAdapter(Adapter):
    """An adapter whose library may be missing: constructing it raises an ImportError with the
    install hint when one of ``requires`` (modules) is not installed; ``packages`` names the
    pip packages in that message."""

    requires: tuple[str, ...] = ()
    packages = ""

    def __init__(self, **params):
        require(self.name, self.requires, self.packages)
        super().__init__(**params)


def import_or_hint(competitor: str, packages: str, importer):
    """Run ``importer()``; re-raise an ImportError with the install hint added."""
    try:
        return importer()
    except ImportError as exc:
        raise ImportError(f"{competitor}: importing {packages} failed ({exc}). {INSTALL_HINT}") from exc


def label_strings(classes: np.ndarray) -> list[str]:
    """Class labels as distinct strings (``str(c)``, or ``class_i`` when those collide)."""
    names = [str(c) for c in classes]
    if len(set(names)) != len(names):
        names = [f"class_{i}" for i in range(len(classes))]
    return names


def one_hot(labels_idx: np.ndarray, n_classes: int) -> np.ndarray:
    """Rows of 0/1 with a 1 at each row's class index (hard predictions)."""
    out = np.zeros((len(labels_idx), n_classes))
    out[np.arange(len(labels_idx)), np.asarray(labels_idx, dtype=int)] = 1.0
    return out


def fmt(v: float) -> str:
    """A threshold for rule text: up to 6 significant digits."""
    return f"{float(v):.6g}"


@dataclass(frozen=True)
class BinaryItem:
    """One 0/1 feature made from a numeric column: ``column <= threshold`` (or its complement)."""

    column: str
    threshold: float

    def holds(self, X: pd.DataFrame) -> np.ndarray:
        return X[self.column].to_numpy(float) <= self.threshold

    def text(self, negated: bool = False) -> str:
        return f"{self.column} {'>' if negated else '<='} {fmt(self.threshold)}"


class QuantileBinarizer:
    """0/1 features ``column <= q`` at quantiles of each numeric column (fitted on training data).

    BRS and BRL need binary features. A column with two values becomes one item
    (``col <= low``, whose complement is ``col > low``); another numeric column gets one item per
    distinct quantile at levels ``1/(n_cuts+1), ..., n_cuts/(n_cuts+1)`` (the column's maximum is
    never a cut). With ``both_directions`` the complements are separate columns too (BRL; BRS
    makes its own ``_neg`` complements).
    """

    def __init__(self, n_cuts: int = 5, both_directions: bool = False):
        if not isinstance(n_cuts, (int, np.integer)) or n_cuts < 1:
            raise ValueError(f"n_cuts must be an int >= 1. Got {n_cuts!r} instead.")
        self.n_cuts = n_cuts
        self.both_directions = both_directions

    def fit(self, X: pd.DataFrame) -> "QuantileBinarizer":
        items: list[BinaryItem] = []
        for col in X.columns:
            v = X[col].to_numpy(float)
            v = v[~np.isnan(v)]
            uniq = np.unique(v)
            if len(uniq) < 2:
                continue  # constant column: no item can split it
            if len(uniq) == 2:
                cuts = uniq[:1]
            else:
                levels = np.arange(1, self.n_cuts + 1) / (self.n_cuts + 1)
                cuts = np.unique(np.quantile(v, levels))
                cuts = cuts[cuts < uniq[-1]]
            items.extend(BinaryItem(str(col), float(c)) for c in cuts)
        if not items:
            raise ValueError("Every feature column is constant: no binary feature can be made.")
        self.items_ = items
        # (item index, negated) per output column
        self.columns_ = [(i, False) for i in range(len(items))]
        if self.both_directions:
            self.columns_ += [(i, True) for i in range(len(items))]
        self.names_ = [f"b{i}{'n' if neg else ''}" for i, neg in self.columns_]
        return self

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        base = np.column_stack([it.holds(X) for it in self.items_])
        cols = [base[:, i] if not neg else ~base[:, i] for i, neg in self.columns_]
        return pd.DataFrame(np.column_stack(cols).astype(int), columns=self.names_, index=X.index)

    def describe(self, name: str) -> tuple[BinaryItem, bool]:
        """The item and direction of an output column name (``b3`` or ``b3n``)."""
        neg = name.endswith("n")
        return self.items_[int(name[1:-1] if neg else name[1:])], neg


def first_match_masks(covers: list[np.ndarray]) -> list[np.ndarray]:
    """Rule-list semantics: each rule's cover minus the covers of all earlier rules."""
    taken = None
    out = []
    for c in covers:
        c = np.asarray(c, dtype=bool)
        if taken is None:
            taken = np.zeros_like(c)
        out.append(c & ~taken)
        taken = taken | c
    return out
