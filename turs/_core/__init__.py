"""The compiled core of `turs`: plain arrays in, plain arrays out.

Every kernel here has a plain-numpy twin or an independent oracle in ``tests/``.
"""
from . import _cache  # noqa: F401  (before any kernel module: numba's cache stamp, see there)
