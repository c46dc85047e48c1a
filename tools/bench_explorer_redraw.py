"""How long the explorer's redraw takes when stepping through a long trace (a timing, not a test).

Fits the 8 x 8 grid of ``tests/test_explorer.py`` (30 rules, over 200 beam iterations), steps
a ``SearchExplorer`` through 24 iterations at the start and 25 at the end (each new to the figure
cache, so each one draws), and prints the wall and CPU seconds per redraw (median, 90%, slowest),
the time of a revisit (served from the cache) and the machine's 1-minute load.

    python tools/bench_explorer_redraw.py
"""
from __future__ import annotations

import json
import os
import time

import numpy as np
import pandas as pd


def many_boxes(n=5000, g=8, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, g, size=(n, 2))
    p_cell = rng.choice([0.02, 0.5, 0.98], size=(g, g))
    cell = np.floor(X).astype(int)
    y = (rng.random(n) < p_cell[cell[:, 0], cell[:, 1]]).astype(int)
    return pd.DataFrame(X, columns=["a", "b"]), y


def main() -> int:
    from turs import TURSClassifier
    from turs.explorer import SearchExplorer

    X, y = many_boxes()
    model = TURSClassifier(record_trace=True, max_rules=30, n_cut_points=16).fit(X, y)
    e = SearchExplorer(model, X, y)
    steps = list(e.view.steps)
    picks = list(range(1, 25)) + list(range(len(steps) - 25, len(steps)))
    wall, cpu = [], []
    for s in picks:
        t0, c0 = time.perf_counter(), time.thread_time()
        e.step.value = s
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    t0 = time.perf_counter()
    e.step.value = picks[0]
    revisit = time.perf_counter() - t0
    q = lambda a, p: round(float(np.quantile(a, p)), 3)  # noqa: E731
    print(json.dumps({"steps": len(picks), "wall_median": q(wall, 0.5), "wall_p90": q(wall, 0.9),
                      "wall_max": round(max(wall), 3), "cpu_median": q(cpu, 0.5), "cpu_max": round(max(cpu), 3),
                      "revisit_seconds": round(revisit, 4), "load_1min": os.getloadavg()[0],
                      "cpus": os.cpu_count()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
