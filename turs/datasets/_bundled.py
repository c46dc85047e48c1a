"""Small datasets that need no download: scikit-learn's copies and the simulated datasets.

Their names say where they come from (``sklearn-*``, ``sim-*``) so that nobody takes them for the
thesis' files: e.g. ``sklearn-iris`` is not the registry's ``iris`` (same data, other file).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._simulated import make_local_testing_data, make_overlap_blockade_data

__all__ = ["BUNDLED", "load_bundled"]

_SKLEARN = {
    "sklearn-iris": "load_iris",
    "sklearn-wine": "load_wine",
    "sklearn-breast-cancer": "load_breast_cancer",
}
_SIMULATED = {
    "sim-local-testing": make_local_testing_data,
    "sim-overlap-blockade": make_overlap_blockade_data,
}

#: Names accepted by :func:`load_bundled`.
BUNDLED: tuple[str, ...] = tuple(_SKLEARN) + tuple(_SIMULATED)


def load_bundled(name: str, **params) -> tuple[pd.DataFrame, pd.Series]:
    """Load a dataset that ships with the installed packages, as ``(X, y)``.

    Parameters
    ----------
    name : str
        One of :data:`BUNDLED`:

        * ``"sklearn-iris"``, ``"sklearn-wine"``, ``"sklearn-breast-cancer"``: scikit-learn's
          copies (``sklearn.datasets``, ``as_frame=True``); ``y`` holds the class names.
        * ``"sim-local-testing"``: :func:`make_local_testing_data` (thesis §3.6.7).
        * ``"sim-overlap-blockade"``: :func:`make_overlap_blockade_data` (cf. thesis Fig. 3.1).
    **params
        Passed to the simulator (``n``, ``seed``); not accepted for the scikit-learn data.

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
        Class names (str) for the scikit-learn data, 0/1 ints named ``"Y"`` for the simulated.
    """
    if name in _SIMULATED:
        X, y = _SIMULATED[name](**params)
        return X, pd.Series(y, index=X.index, name="Y")
    if name in _SKLEARN:
        if params:
            raise TypeError(
                f"load_bundled({name!r}) takes no parameters; got {sorted(params)}. Parameters "
                "(n, seed) apply only to the simulated datasets."
            )
        from sklearn import datasets as skd  # lazy: only needed here

        bunch = getattr(skd, _SKLEARN[name])(as_frame=True)
        X = bunch.data
        names = np.asarray(bunch.target_names, dtype=object)[bunch.target.to_numpy()]
        return X, pd.Series(names, index=X.index, name="class").astype(str)
    raise ValueError(
        f"Unknown bundled dataset {name!r}. Choose one of: {', '.join(BUNDLED)}; thesis "
        "datasets are loaded with turs.datasets.load(name)."
    )
