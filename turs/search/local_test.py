"""The MDL local test (thesis Section 3.5.1, Eq. 3.22 and 3.25): a growth of a base rule may
enter a beam only if splitting the base's rows in two by the new literal is shorter, in bits,
than coding them with one distribution.

For the main beam the test is on the base's cover ``S`` (Eq. 3.22): the growth passes when

    L(y_S | S)  >  L(y_S' | S') + L(y_{S \\ S'} | S \\ S') + L_split,

each ``L(y | .)`` a data code with its NML regret; the auxiliary beam tests the same on the rows
of ``S`` that no rule of ``M`` covers (Eq. 3.25). ``L_split`` is the code of the split: the column
and the cut. Both sides of each test are computed for every growth by the growth kernel
(``_passes_a_local_test`` and ``_local_tests_at_cut`` in ``turs._core``), which keeps the
growths that pass (``Growths.local_test``, ``Growths.aux_local_test``); the beams read those
flags (``turs.search.scoring``), and the trace records both sides (``split_bits``,
``split_bits_unc`` against the base's ``nml_base``).

This module holds what the kernel is given of ``L_split`` (:func:`split_code`):

* ``search="thesis"``: ``log2 K_col + log2 K_value(S, X)`` (Eq. 3.22), which the kernel counts
  per growth (an empty array here);
* ``search="turs2"`` (the authors' implementation, the default): ``log2 K_col + log2 |cuts of X|
  + 2`` per column (:func:`turs2_split_bits`: one bit for the side of the cut and one for one cut
  or two; ``|cuts of X|`` is the column's whole candidate set, not the cuts that split ``S``; a
  column with a single cut pays 1 bit in all), plus ``L_univ(k + 1) - L_univ(k)`` for the
  longer rule.
"""
from __future__ import annotations

import numpy as np

from .._core.codes import universal_integer_code


def turs2_split_bits(n_bins: np.ndarray) -> np.ndarray:
    """Per column, the bits the authors' local test charges for a cut of that column:
    ``log2 |cuts| + 2``, and 1 bit for a column with a single cut point."""
    cuts_per_column = np.maximum(np.asarray(n_bins) - 1, 0)
    return np.where(cuts_per_column > 1, np.log2(np.maximum(cuts_per_column, 1)) + 2.0, 1.0)


def split_code(data, k: int, search: str) -> tuple[np.ndarray, float]:
    """``L_split`` of the local test for a base of ``k`` literals, as the kernel takes it: the
    per-column bits (empty for ``"thesis"``: the kernel counts them) and a constant."""
    if search == "turs2":
        return data.turs2_split_bits, universal_integer_code(k + 1) - universal_integer_code(k)
    return np.zeros(0), 0.0
