#!/usr/bin/env python
"""What a new user's first fit costs on an empty compile cache: `make bench-cold-start`.

Each case runs in a fresh process whose ``NUMBA_CACHE_DIR`` is a new empty folder, as on a fresh
install, and times ``import turs`` plus the first ``TURSClassifier().fit`` (wall and the
process' CPU seconds), with the default ``TURS_KERNELS=auto`` and with ``TURS_KERNELS=compiled``
(every fit compiles what it needs, as before the cold-start path):

- ``iris``: the README's example;
- ``noisy20k``: the scaling study's noisy generator at 20,000 training rows
  (``tools/bench_speed.py``'s ``noisy_data``), default settings;

then, for ``auto``, how long the background compile the first fit started takes to fill the
cache, and the same fit in a second process on that cache (the warm fit). The 1-min load is
printed beside every row: on a 2-core machine other work changes wall times a lot.

    python tools/bench_cold_start.py                 # both cases, both modes
    python tools/bench_cold_start.py --cases iris --modes auto
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
import turs
from turs import _compile
from turs._core import kernels as _kernels
t1, c1 = time.perf_counter(), time.process_time()
case = sys.argv[1]
if case == "iris":
    from sklearn.datasets import load_iris
    X, y = load_iris(return_X_y=True, as_frame=True)
else:
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_speed", sys.argv[2])
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    X, y = bench.noisy_data(20_000)
    X, y = X.iloc[:20_000], y[:20_000]
kernels = _compile.choose(X.shape[0] * X.shape[1], _kernels._serial_growth_compiled())
t2, c2 = time.perf_counter(), time.process_time()
model = turs.TURSClassifier().fit(X, y)
t3, c3 = time.perf_counter(), time.process_time()
print(json.dumps(dict(import_s=t1 - t0, import_cpu=c1 - c0, fit_s=t3 - t2, fit_cpu=c3 - c2, kernels=kernels,
                      rules=len(model.rules_), mdl=model.mdl_score_)))
"""


def load() -> float:
    return os.getloadavg()[0]


def run(case: str, mode: str, cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, TURS_KERNELS=mode)
    load0 = load()
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, case, str(ROOT / "tools" / "bench_speed.py")],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row.update(case=case, mode=mode, process_s=time.perf_counter() - t, load=f"{load0:.1f}-{load():.1f}")
    return row


def wait_for_background(cache: str, timeout: float = 900) -> float | None:
    """Seconds until the background compile marks the cache ready (None: it did not)."""
    t = time.perf_counter()
    while time.perf_counter() - t < timeout:
        if glob.glob(os.path.join(cache, "**", "turs-kernels-*.ready"), recursive=True):  # in the kernels' subfolder
            return time.perf_counter() - t
        time.sleep(1)
    return None


def stop_background(cache: str) -> None:
    for lock in glob.glob(os.path.join(cache, "**", "turs-compiling.pid"), recursive=True):
        try:
            os.killpg(int(Path(lock).read_text()), signal.SIGTERM)
        except (OSError, ValueError):
            pass


def show(row: dict) -> None:
    print(f"{row['case']:9s} {row['mode']:9s} {row.get('cache', 'empty'):5s} kernels={row['kernels']:8s} "
          f"import {row['import_s']:5.1f} s + fit {row['fit_s']:6.1f} s = {row['import_s'] + row['fit_s']:6.1f} s wall; "
          f"CPU {row['import_cpu'] + row['fit_cpu']:6.1f} s; {row['rules']} rules, MDL {row['mdl']:.4f}; "
          f"load {row['load']}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="iris,noisy20k")
    ap.add_argument("--modes", default="auto,compiled")
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args()
    rows = []
    for case in args.cases.split(","):
        for mode in args.modes.split(","):
            with tempfile.TemporaryDirectory(prefix="turs-cold-") as cache:
                row = run(case, mode, cache)
                show(row)
                rows.append(row)
                if mode == "auto":
                    waited = wait_for_background(cache) if row["kernels"] == "python" else 0.0
                    if waited is None:
                        print("  the background compile did not finish in 15 minutes", flush=True)
                        stop_background(cache)
                        continue
                    if row["kernels"] == "python":
                        print(f"  background compile done {waited:.0f} s after the first fit ended", flush=True)
                    warm = run(case, "auto", cache)
                    warm.update(cache="warm", background_s=waited)
                    show(warm)
                    rows.append(warm)
                stop_background(cache)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
