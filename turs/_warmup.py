"""Compile (or load from numba's cache) every kernel on a tiny problem."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd


def warmup() -> float:
    """Fit a tiny problem that exercises every kernel (overlaps, refinements, both beams).

    Returns the seconds it took: the JIT compile time on a cold cache, the cache load time
    on a warm one. Call it once before timing fits. The fits here always compile, and the
    cache is then marked as holding every kernel, so that later fits use them
    (``turs._compile``). ``python -m turs warmup`` runs it.
    """
    from ._compile import mark_ready
    from ._core.kernels import compiled_kernels

    t = time.perf_counter()
    with compiled_kernels():
        _compile_every_kernel()
    # fits on a cold cache run the kernels as Python until the cache says it holds them all
    mark_ready()
    return time.perf_counter() - t


def _compile_every_kernel() -> None:
    from . import _config
    from ._core import bitmaps, growth, refinement, union_counts
    from .estimator import TURSClassifier

    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.integers(0, 2, n)})
    y = ((X["a"] > 0.3) ^ (X["b"] < -0.5) ^ (rng.random(n) < 0.1)).astype(int).to_numpy()
    TURSClassifier(beam_width=3, max_rules=4).fit(X, y)  # from its second rule, tested growths only
    # every base of that fit is scored in one call (``turs._config.ONE_CALL_PER_BASE``); a base too large
    # for one call takes the separate kernel calls: compile their entry points too (a first
    # noisy 20k fit compiled them mid-fit, in its 50th rule search: 5 s in which Ctrl-C waits)
    one_call = _config.ONE_CALL_PER_BASE
    _config.ONE_CALL_PER_BASE = False
    try:
        TURSClassifier(beam_width=3, max_rules=4).fit(X, y)
    finally:
        _config.ONE_CALL_PER_BASE = one_call
    # the prange variant of the growth kernel only runs on large covers: compile it too
    bins = np.zeros((2, 4), dtype=np.uint8)
    bins[:, 2:] = 1
    z = np.zeros(0, dtype=np.int64)
    growth._grow_candidates_parallel(*growth.growth_records(
        bins=bins, y=np.array([0, 1, 0, 1], dtype=np.int64), rows=np.arange(4, dtype=np.int64),
        lo=np.zeros(2, dtype=np.int64), hi=np.full(2, 2, dtype=np.int64), n_bins=np.full(2, 2, dtype=np.int64),
        n_classes=2, group_local=np.full(4, -1, dtype=np.int64), nbr_ptr=np.zeros(1, dtype=np.int64), nbr_idx=z,
        nbr_w=np.zeros(0), union_counts=np.zeros((0, 2)), sub_ptr=np.zeros(1, dtype=np.int64), sub_idx=z,
        sub_sign=np.zeros(0), n_sub=0, log2_int=np.concatenate([[0.0], np.log2(np.arange(1, 5))])))
    # the union counts by bit sets only run on rule sets with many overlap groups (a first fit of
    # 6,000 noisy rows compiled them mid-fit: 0.7 s in which Ctrl-C waits)
    one = np.array([0, 1, 3], dtype=np.int64)
    union_counts._union_counts_by_bits(np.array([0, -1, 1], dtype=np.int64), np.array([0, 1, 1], dtype=np.int64),
                                       one, np.array([0, 0, 1], dtype=np.int64), 2, 2)
    # the sampled search's row bitmaps (fits from 20,000 rows): a first noisy 20k fit compiled
    # them mid-fit
    at_least = bitmaps._at_least_bitmaps(np.array([0, 1, 1, 0], dtype=np.uint8), 2)
    every_row = bitmaps._all_rows_bitmap(4)
    bitmaps._bitmap_rows(bitmaps._in_interval(every_row, at_least, 0, 1))
    bitmaps._bin_extremes_of_bitmap(every_row, at_least)
    # a literal's bins over a rule's rows, which the tiny fits above never ask for (iris does)
    refinement._bin_extremes(bins, 0, np.arange(4, dtype=np.int64))
