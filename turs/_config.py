"""Numba options for every jitted kernel of `turs`, in one place.

``TURS_NUMBA_CACHE=0`` turns numba's on-disk cache off (useful when debugging kernels);
``TURS_NUMBA_PARALLEL=0`` runs the ``prange`` loops serially (for 1- vs 2-thread timings).
"""
import os

NUMBA_CACHE = os.environ.get("TURS_NUMBA_CACHE", "1") != "0"
NUMBA_PARALLEL = os.environ.get("TURS_NUMBA_PARALLEL", "1") != "0"
NUMBA_FASTMATH = False  # code lengths are compared to the bit; keep IEEE semantics
