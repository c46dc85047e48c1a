"""Integer and combinatorial code lengths in bits (thesis Section 3.4.3)."""
from __future__ import annotations

import math
from functools import lru_cache

RISSANEN_C0 = 2.865064
"""Normalising constant of Rissanen's universal prior on the positive integers."""


def universal_integer_code(k: int) -> float:
    """Rissanen's universal code length of the integer ``k`` in bits (used for K, Eq. 3.18).

    ``L(k) = log2(c0) + log2 k + log2 log2 k + ...`` keeping the positive terms while they
    are at least 1e-5, with ``c0 = 2.865064`` (Rissanen 1983), so that ``sum_k 2^-L(k) = 1``.
    The thesis prints the constant as "c ~ 2.865" added to the sum; Rissanen's code (and the
    authors' code) adds ``log2 c0 = 1.5186`` bits, which is what we do
    (see ``docs/spec-notes.md``). ``L(0) = 0``: the empty rule set encodes no rule count.
    """
    return _universal_integer_code(int(k))


@lru_cache(maxsize=4096)
def _universal_integer_code(k: int) -> float:
    """:func:`universal_integer_code`, cached (the search asks for the same few integers)."""
    if k < 0:
        raise ValueError(f"The universal integer code is defined for k >= 0. Got {k}.")
    if k == 0:
        return 0.0
    total = math.log2(RISSANEN_C0)
    term = math.log2(k)
    while term >= 1e-5:
        total += term
        term = math.log2(term)
    return total


def log2_comb(n: int, k: int) -> float:
    """``log2 binom(n, k)`` computed with log-gamma (exact to double precision)."""
    if k < 0 or k > n:
        raise ValueError(f"binom({n}, {k}) is zero: k must be in [0, n].")
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2.0)


def log2_factorial(k: int) -> float:
    """``log2 k!``: the rule-order redundancy removed in Eq. 3.18."""
    return math.lgamma(int(k) + 1) / math.log(2.0)
