"""Numba options for every jitted kernel of `turs`, in one place.

``TURS_NUMBA_CACHE=0`` turns numba's on-disk cache off (useful when debugging kernels);
``TURS_NUMBA_PARALLEL=0`` runs the ``prange`` loops serially (for 1- vs 2-thread timings).
``OMP_WAIT_POLICY`` defaults to ``PASSIVE`` (see below).
"""
import os

# numba's OpenMP threads spin while they wait for work by default: when other processes keep
# the cores busy (a benchmark on the other core, the harness' second worker), the spinning
# steals the working thread's time and a waveform fit went from 17 s (serial) to 94 s.
# Passive waiting costs microseconds per parallel call. Set before libgomp starts; a user's
# own OMP_WAIT_POLICY wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
NUMBA_CACHE = os.environ.get("TURS_NUMBA_CACHE", "1") != "0"
NUMBA_PARALLEL = os.environ.get("TURS_NUMBA_PARALLEL", "1") != "0"
NUMBA_FASTMATH = False  # code lengths are compared to the bit; keep IEEE semantics
