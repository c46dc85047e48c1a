#!/usr/bin/env python
"""A large fit's time while another thread fits small tables with the kernels as Python.

Each fit takes its own kernel set (``turs/_core/kernels.py``): a small table on a cold cache
runs the kernels as Python, a large one the compiled kernels, and neither changes the other's.
This script times the large fit alone, then again while a second thread fits a small table
over and over with the Python kernels (as on a cold cache: ``turs._compile.choose`` is replaced
here by its cold-cache answer, and the small fits never switch to the compiled kernels), and
prints the ratio; then the same beside small fits on the compiled kernels (the same two threads
on the cores, without Python kernels), for comparison. The large fit's Python (between kernel
calls) shares the GIL with the small fits, and the two threads share the cores. The kernels must be in the cache
(``make install`` or ``python -m turs warmup``); the 1-min load is printed beside each time.

    python tools/bench_kernel_threads.py                  # noisy 5,000 rows against iris
    python tools/bench_kernel_threads.py --rows 20000 --repeat 3
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _noisy(rows: int):
    spec = importlib.util.spec_from_file_location("bench_speed", ROOT / "tools" / "bench_speed.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    X, y = bench.noisy_data(rows)
    return X.iloc[:rows], y[:rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=5000, help="rows of the large (noisy) table")
    parser.add_argument("--repeat", type=int, default=2, help="large fits timed in each condition")
    args = parser.parse_args()

    from sklearn.datasets import load_iris

    import turs
    from turs import _compile
    from turs._core import kernels

    turs.warmup()
    Xs, ys = load_iris(return_X_y=True, as_frame=True)
    Xl, yl = _noisy(args.rows)
    limit = Xs.shape[0] * Xs.shape[1]
    _compile.choose = lambda n_cells, compiled_here=False: "python" if n_cells <= limit else "compiled"
    _compile.compile_in_background = lambda: False
    _compile.cache_is_ready = lambda: False  # the small fits keep the Python kernels to the end
    _compile.compile_pending = lambda compiled_here: False

    def large_fit() -> tuple[float, float, str]:
        t = time.perf_counter()
        with kernels.kernels_for_fit(Xl.shape[0] * Xl.shape[1]) as fit:
            model = turs.TURSClassifier().fit(Xl, yl)
        return time.perf_counter() - t, model.mdl_score_, fit.kernels.kind

    alone = []
    for _ in range(args.repeat):
        seconds, mdl, kind = large_fit()
        alone.append(seconds)
        print(f"large fit alone: {seconds:6.2f} s ({kind} kernels, MDL {mdl:.6f}), load {os.getloadavg()[0]:.1f}")

    fastest = {}
    for small_kind, cells in (("python", limit), ("compiled", limit + 1)):  # compiled: the same load, no Python kernels
        stop = threading.Event()
        small_fits = []

        def small_loop():
            while not stop.is_set():
                with kernels.kernels_for_fit(cells) as fit:
                    turs.TURSClassifier().fit(Xs, ys)
                small_fits.append(fit.kernels.kind)

        beside = []
        thread = threading.Thread(target=small_loop)
        thread.start()
        try:
            for _ in range(args.repeat):
                seconds, mdl_beside, kind = large_fit()
                beside.append(seconds)
                print(f"large fit beside {small_kind} small fits: {seconds:6.2f} s ({kind} kernels, MDL "
                      f"{mdl_beside:.6f}, {'the same' if mdl_beside == mdl else 'NOT the same'}), "
                      f"load {os.getloadavg()[0]:.1f}")
        finally:
            stop.set()
            thread.join()
        print(f"  small fits meanwhile: {len(small_fits)} ({', '.join(sorted(set(small_fits)))} kernels)")
        fastest[small_kind] = min(beside)
    for small_kind, seconds in fastest.items():
        print(f"ratio beside {small_kind} small fits (fastest / fastest alone): {seconds / min(alone):.2f}")


if __name__ == "__main__":
    main()
